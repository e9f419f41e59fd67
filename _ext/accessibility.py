"""Sphinx extension: mend the accessibility problems axe-core finds in the built pages.

Registered in _config.yml under `sphinx: local_extensions:`. Each fix names the
axe-core rule it answers; tests/test_built_book.py runs axe-core over every page.

Where the theme offers a template, the fix is a template override: this
extension puts `_ext/templates/` first in `templates_path`, so a template there
is found before the theme's own of the same name:

- label-content-name-mismatch, colour-mode button (`theme-switcher.html`): its
  icons carried titles ("Light") that differ from its label ("Color mode"); they
  are decoration, so they are hidden from assistive technology, without titles.
- label-content-name-mismatch, search field (`search-button-field.html`): it
  shows "Search Ctrl + K" but was labelled "Search"; without the label its name
  is its visible text.

Markup that no template writes is mended in each page's body as the page is
written (`html-page-context`), by the `RULES` below. A rule names the doctree
node that makes its markup: on a page holding that node, a rule that matched
nothing means the markup changed under us, and it logs a warning, so the
`-W` build fails instead of silently shipping the problem again.

- label-content-name-mismatch, hidden solutions: myst-nb labels their toggles
  "Toggle hidden content" while they show "Show solution", so a voice-control
  user saying what they see cannot reach them; the visible text is the name we
  keep.
- aria-required-children, bibliography: docutils puts role="doc-biblioentry"
  items in a role="list"; a list's items must be role="listitem".

And scrollable-region-focusable: a display equation wider than the column
scrolls sideways, and a keyboard user must be able to focus it to scroll it; a
small script makes the overflowing ones focusable once MathJax has typeset them.

And color-contrast, search words: after a search, the page a reader opens marks the
words searched for (Sphinx's sphinx_highlight.js) on the theme's light orange, on which
link text is too faint. `_ext/static/search-words.css` underlines them instead, on the
page's own background (`_config.yml` serves `_ext/static/`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode
from sphinx.util import logging

logger = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Rule:
    """Replace `old` with `new` in a page body; `made_by` is the node whose HTML holds `old`."""

    axe_rule: str
    old: str
    new: str
    made_by: type[nodes.Node]


RULES = (
    Rule(
        "label-content-name-mismatch",
        '<summary aria-label="Toggle hidden content">',
        "<summary>",
        HideCodeCellNode,
    ),
    Rule("aria-required-children", 'role="doc-biblioentry"', 'role="listitem"', nodes.citation),
)

FOCUSABLE_WIDE_MATH = """
document.addEventListener("DOMContentLoaded", function () {
  function markWideMath() {
    // Every width is read before any attribute is written: a read after a write would lay
    // the page out again, once per equation (a quarter of a second on chapter 12).
    var wide = Array.prototype.filter.call(
      document.querySelectorAll('mjx-container[display="true"]'),
      function (math) {
        return math.scrollWidth > math.clientWidth && !math.hasAttribute("tabindex");
      }
    );
    wide.forEach(function (math) {
      math.setAttribute("tabindex", "0");
    });
  }
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(markWideMath);
  } else {
    window.addEventListener("load", markWideMath);
  }
});
"""


def mend(html: str, rules: Iterable[Rule] = RULES) -> tuple[str, dict[Rule, int]]:
    """Apply every rule to `html`; return the mended HTML and how often each rule matched."""
    counts = {}
    for rule in rules:
        counts[rule] = html.count(rule.old)
        html = html.replace(rule.old, rule.new)
    return html, counts


def unmatched(counts: dict[Rule, int], doctree: nodes.Node | None) -> list[Rule]:
    """The rules that matched nothing although `doctree` holds the node that makes their markup."""
    if doctree is None:
        return []
    return [
        rule
        for rule, count in counts.items()
        if count == 0 and next(doctree.findall(rule.made_by), None) is not None
    ]


def _mend_body(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if "body" not in context:
        return
    context["body"], counts = mend(context["body"], RULES)
    for rule in unmatched(counts, doctree):
        logger.warning(
            "accessibility: the page has a %s but its HTML no longer contains %r, so the "
            "%s fix did nothing; update RULES in _ext/accessibility.py",
            rule.made_by.__name__,
            rule.old,
            rule.axe_rule,
            location=pagename,
            type="accessibility",
            subtype=rule.axe_rule,
        )


def _put_templates_first(app: Any, config: Any) -> None:
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path.insert(0, str(TEMPLATES))


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _put_templates_first)
    app.add_js_file(None, body=FOCUSABLE_WIDE_MATH)
    app.add_css_file("search-words.css")
    app.connect("html-page-context", _mend_body)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
