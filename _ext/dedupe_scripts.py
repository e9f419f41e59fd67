"""Sphinx extension: drop repeated <script> entries from every page.

sphinx-thebe (pulled in by Jupyter Book 1) adds the same inline snippet twice, so
every page logs "Identifier 'THEBE_JS_URL' has already been declared" in the
browser console. Registered in _config.yml under `sphinx: local_extensions:`.
"""

from __future__ import annotations

from typing import Any


def _key(script: Any) -> tuple[str, str]:
    """A script's identity: its file name (empty when inline) and its inline body."""
    filename = str(getattr(script, "filename", script) or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return filename, body


def _drop_repeats(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    unique = []
    for script in scripts:
        key = _key(script)
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _drop_repeats, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
