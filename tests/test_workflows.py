"""The GitHub workflows that readers' forks run: they parse and follow least privilege."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

WORKFLOWS = sorted((Path(__file__).resolve().parent.parent / ".github" / "workflows").glob("*.yml"))


@pytest.fixture(params=WORKFLOWS, ids=lambda p: p.name)
def workflow(request) -> tuple[str, dict]:
    return request.param.name, yaml.safe_load(request.param.read_text(encoding="utf-8"))


def test_the_three_workflows_exist():
    assert {p.name for p in WORKFLOWS} == {"ci.yml", "pages.yml", "drift.yml"}


def test_workflow_sets_top_level_permissions(workflow):
    name, spec = workflow
    assert "permissions" in spec, f"{name}: set least-privilege permissions at the top"
    assert spec["permissions"] in ({}, {"contents": "read"}), name


def test_checkout_never_keeps_credentials(workflow):
    name, spec = workflow
    for job in spec["jobs"].values():
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("actions/checkout"):
                assert step.get("with", {}).get("persist-credentials") is False, name


def test_workflows_run_the_readmes_commands(workflow):
    name, spec = workflow
    runs = " ".join(s.get("run", "") for j in spec["jobs"].values() for s in j.get("steps", []))
    assert "make book" in runs, name
    if name != "pages.yml":
        assert "make test" in runs, name


def test_only_the_deploy_job_may_write_pages():
    spec = yaml.safe_load((WORKFLOWS[0].parent / "pages.yml").read_text(encoding="utf-8"))
    assert spec["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert spec["jobs"]["build"]["permissions"] == {"contents": "read"}
    triggers = spec.get("on", spec.get(True))  # YAML 1.1 reads a bare `on` as True
    assert triggers["push"]["branches"] == ["main"]
