"""Sphinx extension: mend the accessibility problems axe-core finds in the theme's HTML.

Registered in _config.yml under `sphinx: local_extensions:`. Each fix names the
axe-core rule it answers; tests/test_built_book.py runs axe-core over every page.

- label-content-name-mismatch: myst-nb gives hidden-solution toggles the label
  "Toggle hidden content" while they show "Show solution", so a voice-control
  user saying what they see cannot reach them; the visible text is the name we
  keep. The theme's colour-mode button shows icons whose titles ("Light") differ
  from its label ("Color mode"); the icons are decoration, so they are hidden
  from assistive technology and lose their titles (Font Awesome would turn each
  title into visible SVG text; the button keeps its own "Color mode" tooltip).
  The search field shows "Search Ctrl + K" but is labelled "Search"; without
  the label its name is its visible text.
- aria-required-children: sphinxcontrib-bibtex puts role="doc-biblioentry"
  items in a role="list"; a list's items must be role="listitem".
- scrollable-region-focusable: a display equation wider than the column scrolls
  sideways, and a keyboard user must be able to focus it to scroll it; a small
  script makes the overflowing ones focusable once MathJax has typeset them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

REPLACEMENTS = (
    ('<summary aria-label="Toggle hidden content">', "<summary>"),
    ('<i class="theme-switch ', '<i aria-hidden="true" class="theme-switch '),
    ('role="doc-biblioentry"', 'role="listitem"'),
    (
        'search-button__button pst-js-only" title="Search" aria-label="Search"',
        'search-button__button pst-js-only" title="Search"',
    ),
)
THEME_ICON_TITLE = re.compile(r'(<i aria-hidden="true" class="theme-switch [^>]*?)\s+title="[^"]*"')

FOCUSABLE_WIDE_MATH = """
document.addEventListener("DOMContentLoaded", function () {
  function markWideMath() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (math) {
      if (math.scrollWidth > math.clientWidth && !math.hasAttribute("tabindex")) {
        math.setAttribute("tabindex", "0");
      }
    });
  }
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(markWideMath);
  } else {
    window.addEventListener("load", markWideMath);
  }
});
"""


def _mend_pages(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        mended = text
        for old, new in REPLACEMENTS:
            mended = mended.replace(old, new)
        mended = THEME_ICON_TITLE.sub(r"\1", mended)
        if mended != text:
            page.write_text(mended, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.add_js_file(None, body=FOCUSABLE_WIDE_MATH)
    app.connect("build-finished", _mend_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
