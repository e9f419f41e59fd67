"""Sphinx extension: the Colab and Binder buttons open the reader notebooks.

sphinx-book-theme builds each notebook page's launch links from `repository.url`,
`repository.branch` and the page's path, so on its own it sends readers to the MyST
source on `main`, which Colab and Jupyter show as raw roles and directives. The Pages
workflow publishes the reader notebooks (`make notebooks`, `kit/reader_notebooks.py`)
on the branch named by `reader_notebooks_branch` (default "notebooks"), under the same
`book/` paths; this extension moves the Colab and Binder links to that branch.

Registered in _config.yml under `sphinx: local_extensions:`. A launch link that does not
have the shape this rewrite expects stops the build, so a theme update cannot silently
send readers back to the sources.
"""

from __future__ import annotations

from typing import Any

from sphinx.errors import ExtensionError

DEFAULT_BRANCH = "notebooks"


def reader_url(url: str, text: str, source_branch: str, reader_branch: str) -> str:
    """One launch link moved from `source_branch` to `reader_branch` (Colab or Binder)."""
    if text == "Colab":
        old, new = f"/blob/{source_branch}/", f"/blob/{reader_branch}/"
    elif text == "Binder":
        old, new = f"/{source_branch}?urlpath=", f"/{reader_branch}?urlpath="
    else:
        return url
    if url.count(old) != 1:
        raise ExtensionError(f"reader_launch: unexpected {text} launch link {url!r}")
    return url.replace(old, new)


def _rewrite(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    source_branch = app.config.html_theme_options.get("repository_branch") or "master"
    reader_branch = app.config.reader_notebooks_branch
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("type") == "link":
                button["url"] = reader_url(
                    button["url"], button.get("text", ""), source_branch, reader_branch
                )


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("reader_notebooks_branch", DEFAULT_BRANCH, "html")
    # After sphinx-book-theme's add_launch_buttons (priority 501) has built the links.
    app.connect("html-page-context", _rewrite, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
