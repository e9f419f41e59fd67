"""The reader notebooks (`make notebooks`): the chapters as plain Jupyter and Colab show them.

The converter is `kit/reader_notebooks.py`. These tests convert every notebook of
the table of contents (a second or two, no kernel), then check that no MyST survives,
that every glued value is written in as the book formats it, that the code cells and
their outputs are the book's, and, with chromium, that nbconvert's HTML of a reader
notebook shows the objectives box, a linked term and a solution behind `<details>`.
Where the book is built, the links are checked against its pages.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
import yaml
from repo_paths import EXTENSIONS, HTML, ROOT

from kit import course, myst
from kit import reader_notebooks as rn


def _extension(name: str):
    """One of the book's Sphinx extensions (`_ext/NAME.py`), loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, EXTENSIONS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reader_launch = _extension("reader_launch")

SOURCES = rn.notebook_sources()
MYST = ("{glue", "{term}", "{cite", "{ref}", "{doc}", ":::{", "```{")
GLUE_ROLE = re.compile(r"\{(glue(?::\w+)?)\}`([^`]+)`")


@pytest.fixture(scope="module")
def book() -> course.Course:
    return course.load()


@pytest.fixture(scope="module")
def readers(book) -> dict[str, nbformat.NotebookNode]:
    return {path.stem: rn.reader_notebook(path, book) for path in SOURCES}


def _markdown(nb: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_every_chapter_and_the_explorer_get_a_reader_notebook(readers):
    notebooks = {p.stem for p in (ROOT / "book").glob("*.ipynb")}  # chapters and pages
    assert {"explorer", "masks_elsewhere"} <= notebooks and set(readers) == notebooks


def test_make_notebooks_writes_valid_notebooks(tmp_path):
    written = rn.write_all(SOURCES[:2], tmp_path, log=lambda _: None)
    assert [p.name for p in written] == [p.name for p in SOURCES[:2]]
    for path in written:
        nbformat.validate(nbformat.read(path, as_version=4))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_no_myst_role_or_directive_survives(path, readers):
    text = _markdown(readers[path.stem])
    left = [marker for marker in MYST if marker in text]
    assert left == [], f"{path.name}: {left}"
    assert not re.search(r"^\([\w-]+\)=\s*$", text, re.M), "a (label)= line survives"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_every_glued_value_is_written_in_as_the_book_formats_it(path, readers):
    # myst-nb's own formatting is the reference, not the converter's copy of it.
    from myst_nb.core.variables import format_plain_text

    source = nbformat.read(path, as_version=4)
    records = course.glue_records(source)
    text = _markdown(readers[path.stem])
    roles = GLUE_ROLE.findall(_markdown(source))
    for role, content in roles:
        if role == "glue:text":
            key, _, spec = content.partition(":")
            expected = format_plain_text(records[key]["text/plain"], spec)
        else:
            record = records[content]
            expected = record.get("text/markdown", record["text/plain"])
        assert expected in text, f"{path.name}: {{{role}}}`{content}` should read {expected!r}"
    if path.stem == "05_hand_worked_example":
        assert len(roles) >= 80  # the chapter whose point is its numbers


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_code_cells_and_stored_outputs_are_the_books(path, readers):
    source = nbformat.read(path, as_version=4)
    code = [c for c in source.cells if c.cell_type == "code"]
    reader = [c for c in readers[path.stem].cells if c.cell_type == "code"]
    assert [c.source for c in reader] == [c.source for c in code]
    kept = [[o for o in c.outputs if "scrapbook" not in o.get("metadata", {})] for c in code]
    assert [c.outputs for c in reader] == kept
    assert sum(map(len, kept)) > 0
    assert "papermill.record" not in nbformat.writes(readers[path.stem])
    assert [c.execution_count for c in reader] == [c.execution_count for c in code]
    assert "import lessons" in reader[0].source and "%pip install" in reader[0].source
    assert readers[path.stem].metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_solutions_sit_behind_details_and_captions_under_figures(path, readers):
    cells = readers[path.stem].cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        if "hide-input" in cell.metadata.get("tags", []):
            before = cells[i - 1]
            assert before.source.startswith("<details>\n<summary>Show"), before.source[:80]
            assert cell.source.rstrip() in before.source
            assert cell.metadata["jupyter"]["source_hidden"] is True
            hides_output = "hide-cell" in cell.metadata.get("tags", [])
            assert cell.metadata["jupyter"].get("outputs_hidden", False) is hides_output
        caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption")
        if caption:
            assert cells[i + 1].cell_type == "markdown"
            assert caption[:40] in cells[i + 1].source


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_a_question_cells_code_is_folded_and_never_shown_in_markdown(path, readers):
    # The book removes a question's code (it computes the answer): the reader copy keeps the
    # cell, so the question still works, but folds its input and prints no copy of it.
    cells = readers[path.stem].cells
    removed = [c for c in cells if "remove-input" in c.metadata.get("tags", [])]
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    for cell in removed:
        assert cell.metadata["jupyter"]["source_hidden"] is True
        assert cell.metadata["cellView"] == "form"
        assert cell.source.strip() not in text


def test_some_chapter_has_question_cells(readers):
    questions = [
        c
        for nb in readers.values()
        for c in nb.cells
        if "remove-input" in c.metadata.get("tags", []) and "lessons.question" in c.source
    ]
    assert len(questions) >= 30


def test_chapter_5_opens_with_its_objectives_and_links_its_terms(readers, book):
    text = _markdown(readers["05_hand_worked_example"])
    assert '<div class="alert alert-block alert-success">\n<b>Learning objectives</b>' in text
    glossary = book.page_url("book/glossary")
    assert f"[tokens]({glossary}#term-token)" in text
    assert "<summary>Solution</summary>" in text  # the {dropdown} of exercise 5.3


# --- the converter's rules, one at a time ---------------------------------------------------


@pytest.fixture
def page(book) -> myst.Page:
    glue = {"x": {"text/plain": "0.12345"}, "s": {"text/plain": "'a b'", "text/markdown": "a b"}}
    return myst.Page(book, "book/05_hand_worked_example", glue)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/Owner/repo", "https://owner.github.io/repo/"),
        ("https://github.com/a-b/c.d/", "https://a-b.github.io/c.d/"),
        ("https://github.com/a/b.git", "https://a.github.io/b/"),
    ],
)
def test_the_online_book_url_follows_the_repository_url(url, expected):
    assert course.book_url({"repository": {"url": url}}) == expected


def test_a_repository_url_off_github_is_refused():
    with pytest.raises(ValueError, match="repository.url"):
        course.book_url({"repository": {"url": "https://gitlab.com/a/b"}})


def test_the_config_url_is_the_one_used(book):
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    owner, repo = config["repository"]["url"].split("/")[-2:]
    assert book.url == f"https://{owner.lower()}.github.io/{repo}/"


def test_roles(page, book):
    bib = book.page_url("book/bibliography")
    assert page.inline("{glue:text}`x:.2f` and {glue}`s`") == "0.12 and a b"
    assert page.inline("{glue:text}`s`") == "a b"
    assert page.inline("{cite}`vaswani2017attention`") == f"([Vaswani et al., 2017]({bib}))"
    assert page.inline("{cite:t}`hochreiter1997long`") == (
        f"[Hochreiter and Schmidhuber (1997)]({bib})"
    )
    assert page.inline("{cite}`shazeer2019fast,jain2019attention`") == (
        f"([Shazeer, 2019]({bib}); [Jain and Wallace, 2019]({bib}))"
    )
    assert page.inline("{doc}`notation`") == f"[Notation]({book.page_url('book/notation')})"
    assert page.inline("{doc}`the signs </book/notation>`").startswith("[the signs](")
    assert page.inline("{doc}`../book/glossary.md`") == (
        f"[Glossary]({book.page_url('book/glossary')})"
    )
    assert page.inline("{term}`Softmax`").endswith("glossary.html#term-softmax)")
    assert page.inline("{term}`caches <KV cache>`").endswith("#term-KV-cache)")


def test_relative_links_point_into_the_online_book(page, book):
    assert page.inline(
        "[signs](notation.md#shapes) and [ch. 4](04_scaled_dot_product_attention.ipynb)"
    ) == (
        f"[signs]({book.page_url('book/notation', 'shapes')}) and "
        f"[ch. 4]({book.page_url('book/04_scaled_dot_product_attention')})"
    )
    kept = "[web](https://example.org/a.md) [here](#top) `[code](x.md)`"
    assert page.inline(kept) == kept
    with pytest.raises(ValueError, match="no page of _toc.yml"):
        page.inline("[gone](missing.md)")


def test_code_is_left_alone(page):
    assert page.inline("run `{glue:text}`x`` here") == "run `{glue:text}`x`` here"
    fenced = "```md\n{term}`softmax`\n:::{note}\n:::\n```"
    assert page.markdown(fenced) == fenced


def test_directives(page):
    box = page.markdown(":::{admonition} Goals\n:class: tip\n- one {glue:text}`x:.1f`\n:::")
    assert (
        box == '<div class="alert alert-block alert-success">\n<b>Goals</b>\n\n- one 0.1\n\n</div>'
    )
    note = page.markdown("```{note}\nCareful.\n```")
    assert note.startswith('<div class="alert alert-block alert-info">\n<b>Note</b>')
    drop = page.markdown("Before.\n\n```{dropdown} Solution\nIt is $x^2$.\n```\nAfter.")
    assert (
        drop
        == "Before.\n\n<details>\n<summary>Solution</summary>\n\nIt is $x^2$.\n\n</details>\nAfter."
    )
    assert page.markdown("(my-label)=\n## Title") == '<a id="my-label"></a>\n## Title'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{glue:text}`nope`", "no glued value named 'nope'"),
        ("{term}`flux capacitor`", "not a term"),
        ("{cite}`nobody1900`", "not in references.bib"),
        ("{ref}`missing-label`", "no label"),
        ("{doc}`nowhere`", "not in _toc.yml"),
        ("{abbr2}`x`", "has no reader form"),
        ("```{figure} a.png\n```", "has no reader form"),
        ("```{dropdown} x\nnever closed", "never closed"),
    ],
)
def test_unknown_myst_stops_the_conversion(page, text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        page.markdown(text)


def test_glossary_and_bibliography_parsing():
    terms = course.glossary_terms(
        "Intro\n\n```{glossary}\n:sorted:\nKV cache\n  What it is.\n\nhead\n  One.\n```\n"
    )
    assert terms == {"kv cache": "KV cache", "head": "head"}
    labels = course.citation_labels(
        "@book{k1,\n  author = {R{\\'e}, Chris and Fran{\\c{c}}ois, A.},\n  year = {2020}\n}\n"
        "@misc{k2,\n  author = {Solo, Han},\n  year = {1977}\n}\n"
    )
    assert labels == {"k1": "Ré and François, 2020", "k2": "Solo, 1977"}


def test_launch_links_move_to_the_reader_branch():
    colab = "https://colab.research.google.com/github/o/r/blob/main/book/05_x.ipynb"
    binder = "https://mybinder.org/v2/gh/o/r/main?urlpath=tree/book/05_x.ipynb"
    url = reader_launch.reader_url(colab, "Colab", "main", "notebooks")
    assert url == "https://colab.research.google.com/github/o/r/blob/notebooks/book/05_x.ipynb"
    url = reader_launch.reader_url(binder, "Binder", "main", "notebooks")
    assert url == "https://mybinder.org/v2/gh/o/r/notebooks?urlpath=tree/book/05_x.ipynb"
    with pytest.raises(Exception, match="unexpected Colab launch link"):
        reader_launch.reader_url("https://colab.example/x", "Colab", "main", "notebooks")


# --- against the built book ------------------------------------------------------------------

built = pytest.mark.skipif(
    not (HTML / "index.html").exists(), reason="the book is not built: run `make book`"
)


def _text(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


@built
def test_every_link_into_the_book_lands_on_a_page_and_an_anchor_it_has(readers, book):
    targets = set()
    for nb in readers.values():
        targets |= set(
            re.findall(re.escape(book.url) + r"([^)\s#]+)(?:#([^)\s]+))?", _markdown(nb))
        )
    assert targets
    for page, anchor in sorted(targets):
        html = (HTML / page).read_text(encoding="utf-8")
        assert not anchor or f'id="{anchor}"' in html, f"{page}#{anchor}"


@built
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_citations_read_as_in_the_built_book(path, book):
    keys = re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", _markdown(nbformat.read(path, as_version=4)))
    built_text = _text(HTML / "book" / f"{path.stem}.html")
    for key in (k.strip() for group in keys for k in group.split(",")):
        assert book.citations[key] in built_text, key


# --- rendered, in a browser -----------------------------------------------------------------


def test_a_rendered_reader_notebook_shows_objectives_a_term_and_a_folded_solution(
    readers, tmp_path, browser
):
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is not installed")
    from nbconvert.preprocessors import TagRemovePreprocessor

    page = tmp_path / "chapter5.html"
    exporter = nbconvert.HTMLExporter(template_name="lab")
    # nbconvert ignores `jupyter.source_hidden`; fold those inputs as JupyterLab does.
    exporter.register_preprocessor(
        TagRemovePreprocessor(remove_input_tags={"hide-input"}, enabled=True), enabled=True
    )
    body, _ = exporter.from_notebook_node(readers["05_hand_worked_example"])
    page.write_text(body, encoding="utf-8")
    if True:  # the session's browser (tests/conftest.py), kept open for other tests
        browser.get(page.as_uri())
        assert "# Solution" not in browser.find_element("tag name", "body").text
        objectives = browser.find_element("css selector", ".alert-success")
        assert objectives.is_displayed() and "Learning objectives" in objectives.text
        assert objectives.value_of_css_property("background-color") not in (
            "rgba(0, 0, 0, 0)",
            "transparent",
        ), "the objectives box is not styled"
        term = browser.find_element("css selector", 'a[href$="glossary.html#term-token"]')
        assert term.is_displayed() and term.text == "tokens"
        summaries = [
            s
            for s in browser.find_elements("css selector", "details > summary")
            if s.text == "Show solution"
        ]
        assert len(summaries) == 2
        details = summaries[0].find_element("xpath", "..")
        code = details.find_element("css selector", "pre")
        assert not code.is_displayed() and details.get_attribute("open") is None
        summaries[0].click()
        assert code.is_displayed() and "# Solution" in code.text
        assert code.text.count("# Solution") == 1


def test_only_the_notebooks_branch_job_writes_and_it_runs_no_project_code():
    spec = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text("utf-8"))
    jobs = spec["jobs"]
    build_runs = [step.get("run", "") for step in jobs["build"]["steps"]]
    assert "make notebooks" in build_runs
    job = jobs["notebooks-branch"]
    assert job["permissions"] == {"contents": "write"} and job["needs"] == "build"
    download = next(s for s in job["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"] == {"name": "reader-notebooks", "path": "book"}
    script = "\n".join(step.get("run", "") for step in job["steps"])
    lines = [line.strip() for line in script.splitlines()]
    commands = [line.split()[0] for line in lines if line and not line.startswith("#")]
    assert set(commands) == {"git"}, commands  # only git: no project code runs here
    assert "HEAD:refs/heads/notebooks" in script
    # GITHUB_TOKEN may not push workflow files: the branch must leave .github out.
    assert "git rm -r -q --cached .github" in script
    written = [name for name, j in jobs.items() if "write" in j.get("permissions", {}).values()]
    assert sorted(written) == ["deploy", "notebooks-branch"]
