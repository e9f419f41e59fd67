"""The GitHub workflows that readers' forks run: they parse and follow least privilege."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from repo_paths import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


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


def _tool(name: str) -> str | None:
    """A command installed beside this Python (the venv's bin), or on PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_workflows_validate_against_githubs_schema_offline():
    tool = _tool("check-jsonschema")
    if tool is None:
        pytest.skip("check-jsonschema is not installed (it is pinned in requirements.txt)")
    result = _run(tool, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS))
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing_of_medium_severity_or_above():
    tool = _tool("zizmor")
    if tool is None:
        pytest.skip("zizmor is not installed (it is pinned in requirements.txt)")
    result = _run(tool, "--offline", "--min-severity", "medium", ".github/workflows")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_action_is_pinned_to_a_full_commit_sha():
    for path in WORKFLOWS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if "uses:" in line:
                assert re.search(r"@[0-9a-f]{40} # v\d", line), f"{path.name}: {line.strip()}"


def test_notebooks_run_on_a_second_processor_and_lessons_on_every_python():
    # Stored outputs must match on another CPU's kernels (tests/test_stored_precision.py).
    spec = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    arm = spec["jobs"]["notebooks-on-arm"]
    assert arm["runs-on"] == "ubuntu-24.04-arm"
    assert any("make nbval" in s.get("run", "") for s in arm["steps"])
    matrix = spec["jobs"]["lessons-on-each-os"]["strategy"]["matrix"]
    assert {"3.11", "3.12", "3.13"} <= set(matrix["python"])
