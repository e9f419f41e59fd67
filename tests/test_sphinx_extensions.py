"""The book's own Sphinx extensions (_ext/): what they fix, and that a fix that stops
matching the markup it mends fails the `-W` build instead of doing nothing.

The builds here are tiny Sphinx projects written to a temporary folder (about a second
each); the checks of the real book read `_build/html` and skip when it is not built.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
from pathlib import Path

import pytest
from repo_paths import EXTENSIONS, HTML
from sphinx.application import Sphinx
from sphinx.errors import SphinxWarning
from sphinx.util.docutils import docutils_namespace

from kit import course

PAGE = """\
A page with a citation
======================

Attention weights come from a softmax [Bahdanau2015]_.

.. [Bahdanau2015] D. Bahdanau, K. Cho and Y. Bengio, a paper about alignment.
"""


@pytest.fixture
def accessibility(monkeypatch):
    monkeypatch.syspath_prepend(str(EXTENSIONS))
    return importlib.import_module("accessibility")


def build(folder: Path, *, warning_is_error: bool = False) -> tuple[str, str]:
    """Build a one-page project that uses _ext/accessibility.py; return its HTML and warnings."""
    source = folder / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        'extensions = ["accessibility"]\nproject = "test"\n', encoding="utf-8"
    )
    (source / "index.rst").write_text(PAGE, encoding="utf-8")
    warnings = io.StringIO()
    with docutils_namespace():  # each build registers its own nodes and directives
        app = Sphinx(
            str(source),
            str(source),
            str(folder / "html"),
            str(folder / "doctrees"),
            "html",
            status=None,
            warning=warnings,
            freshenv=True,
            warningiserror=warning_is_error,
        )
        app.build()
    return (folder / "html" / "index.html").read_text(encoding="utf-8"), warnings.getvalue()


def test_mend_replaces_each_rules_markup_and_counts_the_matches(accessibility):
    summary, citation = accessibility.RULES
    html = f"<details>{summary.old}</details><div {citation.old}></div><div {citation.old}></div>"
    mended, counts = accessibility.mend(html)
    assert counts == {summary: 1, citation: 2}
    assert summary.old not in mended and citation.old not in mended
    assert (
        mended
        == f"<details>{summary.new}</details><div {citation.new}></div><div {citation.new}></div>"
    )


def test_mend_reports_zero_matches_on_html_without_the_expected_markup(accessibility):
    html = '<details><summary aria-label="Open">x</summary></details><div role="doc-entry"></div>'
    mended, counts = accessibility.mend(html)
    assert mended == html
    assert set(counts.values()) == {0}


def test_a_build_mends_the_citation_list_roles_without_a_warning(accessibility, tmp_path):
    html, warnings = build(tmp_path)
    assert 'role="listitem"' in html
    assert "doc-biblioentry" not in html
    assert "accessibility" not in warnings


def test_a_rule_that_matches_nothing_where_its_markup_belongs_warns(
    accessibility, monkeypatch, tmp_path
):
    summary, citation = accessibility.RULES
    changed = dataclasses.replace(citation, old='role="doc-biblio-entry"')  # markup we never see
    monkeypatch.setattr(accessibility, "RULES", (summary, changed))
    html, warnings = build(tmp_path)
    assert 'role="doc-biblioentry"' in html  # the fix did nothing ...
    assert "aria-required-children fix did nothing" in warnings  # ... and the build says so
    assert "citation" in warnings and "index" in warnings


def test_the_warning_fails_a_build_where_warnings_are_errors(accessibility, monkeypatch, tmp_path):
    summary, citation = accessibility.RULES
    changed = dataclasses.replace(citation, old='role="doc-biblio-entry"')
    monkeypatch.setattr(accessibility, "RULES", (summary, changed))
    with pytest.raises(SphinxWarning, match="aria-required-children"):
        build(tmp_path, warning_is_error=True)


def test_a_page_without_the_node_does_not_warn(accessibility, tmp_path):
    # No hidden cells on this page: the hidden-solution rule matches nothing and stays quiet.
    _, warnings = build(tmp_path)
    assert "label-content-name-mismatch" not in warnings


def test_the_theme_still_has_the_templates_we_override():
    import pydata_sphinx_theme

    components = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    ours = sorted(p.name for p in (EXTENSIONS / "templates").glob("*.html"))
    assert ours == ["layout.html", "search-button-field.html", "theme-switcher.html"]
    for name in ours[1:]:
        assert (components / "components" / name).exists(), f"the theme has no {name} any more"
    # layout.html rewrites the theme's head block, which loads the search index on every page.
    layout = (components / "layout.html").read_text(encoding="utf-8")
    assert "{%- block extrahead %}" in layout and "searchindex.js" in layout
    head = layout.split("{%- block extrahead %}")[1].split("{%- endblock extrahead %}")[0]
    kept = (EXTENSIONS / "templates" / "layout.html").read_text(encoding="utf-8")
    for line in head.splitlines():
        if line.strip().startswith("<meta"):
            assert line.strip() in kept, f"our layout.html lost the theme's {line.strip()}"


BUILT_PAGES = sorted((HTML / "book").glob("*.html")) if (HTML / "index.html").exists() else []


@pytest.mark.skipif(not BUILT_PAGES, reason="the book is not built: run `make book`")
def test_the_built_book_uses_the_overrides_and_the_mended_markup():
    chapters = {c.stem for c in course.load().chapters}
    hidden = 0
    for page in BUILT_PAGES:
        html = page.read_text(encoding="utf-8")
        name = page.name
        assert 'aria-label="Toggle hidden content"' not in html, name
        assert 'role="doc-biblioentry"' not in html, name
        switches = [line for line in html.splitlines() if 'class="theme-switch ' in line]
        assert len(switches) == 3, name
        assert all('aria-hidden="true"' in s and "title=" not in s for s in switches), name
        field = [line for line in html.splitlines() if "search-button-field search-button" in line]
        assert field and all("aria-label" not in line for line in field), name
        if page.stem in chapters:
            hidden += html.count('<details class="admonition hide')
    assert hidden >= len(chapters)
    assert 'role="listitem"' in (HTML / "book" / "bibliography.html").read_text(encoding="utf-8")
