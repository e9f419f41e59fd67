"""Sphinx extension: the book on a phone (issue 36).

Adds `_ext/static/phone.js` and `phone.css` (served by `html_static_path` in _config.yml)
to every page: the site menu opens by tap (a work-around for pydata-sphinx-theme 0.17's
binding, upstream issue 2451, explained in the script), regions that scroll sideways
show a cue, figures drawn larger than they are shown open at full size with one tap, a
table of the class `phone-cards` reads as one card per row, and MathJax typesets the page
in batches, so no task holds the page for long.
Registered in _config.yml under `sphinx: local_extensions:`; tests/test_phone.py drives it.
"""

from __future__ import annotations

from typing import Any


def setup(app: Any) -> dict[str, Any]:
    app.add_js_file("phone.js", loading_method="defer")
    app.add_css_file("phone.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
