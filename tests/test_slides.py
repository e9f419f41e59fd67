"""The slides (`make slides`, kit/slides.py): a deck per chapter, offline, with no solution.

The decks are written once per session into a temporary folder. The first tests read their
HTML: one deck per chapter, a title slide and a recap in each, no MyST left raw, no address
of another host, and nothing of an exercise's solution or a question's answer. Small
notebooks written here check the tag scheme's rules. The browser tests open every deck
from disk (`file://`) and one over a local web server, in the session's chromium
(tests/conftest.py: every non-local host unreachable), and check that reveal.js started,
the math is typeset, every slide fits, no request left the folder, and axe-core finds no
serious accessibility problem on the index or on any kind of slide.

reveal.js and MathJax come from `npm ci` (`make book`, `make test` and `make slides` run it):
where they are missing the browser tests are skipped, or fail with REQUIRE_BROWSER_TESTS=1.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import threading
import time
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_paths import ROOT

import lessons
from kit import course, slides
from kit.slides import cells
from kit.slides import text as slide_text
from lessons.book.widgets.question_page import read_questions

CHAPTERS = slides.chapters()
DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")
ROLE = re.compile(r"\{[\w:+-]+\}`[^`]*`")
DROPDOWN = re.compile(r"^(`{3,}|:{3,})\{dropdown\}[^\n]*\n(.*?)^\1\s*$", re.M | re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, slides.Deck | str]]:
    """Every chapter's deck (or why it has none), written without the libraries.

    Each chapter on its own, as `make slides` writes it: one chapter that cannot make a
    deck (a new chapter not tagged yet) fails its own tests, not every chapter's.
    """
    out = tmp_path_factory.mktemp("slides")
    book = course.load(ROOT)
    decks: dict[str, slides.Deck | str] = {}
    for path in CHAPTERS:
        try:
            deck = slides.build_deck(path, book)
            if not deck.slides:
                raise ValueError(f"{path.name}: no cell is tagged for slides")
        except ValueError as error:
            decks[path.stem] = str(error)
            continue
        (out / f"{deck.name}.html").write_text(slides.deck_html(deck), encoding="utf-8")
        decks[path.stem] = deck
    made = [deck for deck in decks.values() if isinstance(deck, slides.Deck)]
    (out / "index.html").write_text(slides.index_html(made), encoding="utf-8")
    return out, decks


def _deck(built, chapter: Path) -> tuple[slides.Deck, str]:
    """A chapter's deck and its page; a chapter without one fails, saying why."""
    deck = built[1][chapter.stem]
    if isinstance(deck, str):
        pytest.fail(f"no deck: {deck} (CONTRIBUTING.md, 'Slides')", pytrace=False)
    return deck, (built[0] / f"{chapter.stem}.html").read_text(encoding="utf-8")


def _text(page: str) -> str:
    """A deck's words, as a reader could find them: tags and embedded images gone."""
    page = DATA_URI.sub("", page)
    body = page[page.index('<div class="slides">') :]
    alts = " ".join(re.findall(r'alt="([^"]*)"', body))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body) + " " + alts).split())


def _squeeze(text: str) -> str:
    return " ".join(text.replace("`", "").replace("*", "").split())


def test_every_chapter_has_a_deck_and_the_index_links_each(built):
    out, decks = built
    assert len(CHAPTERS) >= 11
    assert sorted(decks) == [path.stem for path in CHAPTERS]
    index = (out / "index.html").read_text(encoding="utf-8")
    for name in (name for name, deck in decks.items() if isinstance(deck, slides.Deck)):
        assert (out / f"{name}.html").exists()
        assert f'href="{name}.html"' in index


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_each_deck_opens_on_the_chapters_title_and_objectives_and_closes_on_its_recap(
    built, chapter
):
    deck, _ = _deck(built, chapter)
    first, last = deck.slides[0], deck.slides[-1]
    assert first.level == 1, f"{chapter.name}: tag its first cell (title, objectives)"
    assert "Learning objectives" in first.html()
    assert re.search(r">Recap( \(continued\))?</h2>", last.html()), (
        f"{chapter.name}: tag its `## Recap` cell `slide`"
    )
    assert 6 <= len(deck.slides) <= 25, f"{chapter.name}: {len(deck.slides)} slides"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_deck_shows_raw_myst_or_tex_delimiters_the_browser_would_not_read(built, chapter):
    text = _text(_deck(built, chapter)[1])
    for raw in ("{glue", "{term}", "{cite", "{doc}", "{dropdown}", ":::", "```", "$"):
        assert raw not in text, f"{chapter.name}: {raw!r} on a slide"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_deck_holds_an_address_of_another_host(built, chapter):
    page = DATA_URI.sub("", _deck(built, chapter)[1])
    assert re.findall(r"https?://[^\s\"'<>]*", page) == []
    assert re.findall(r"""(?:src|href)\s*=\s*["']//""", page) == []


def _solutions(nb) -> list[str]:
    """Pieces of text only a solution holds: its code, its printed lines, its words."""
    pieces = []
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and (
            "hide-cell" in tags or cell.source.lstrip().startswith("# Solution")
        ):
            pieces += [line.strip() for line in cell.source.splitlines()]
            for output in cell.outputs:
                if output.get("output_type") == "stream":
                    pieces += [line.strip() for line in output["text"].splitlines()]
        elif cell.cell_type == "markdown":
            for _, body in DROPDOWN.findall(cell.source):
                pieces += re.split(r"\$[^$]*\$", ROLE.sub("\n", body).replace("\n", "\u2028"))
    pieces = [_squeeze(p.replace("\u2028", " ")) for p in pieces]
    return [p for p in pieces if len(p) >= 30]


def _answers(nb) -> list[str]:
    """Each in-page question's explanations: what its answer and mistakes say."""
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            page = output.get("data", {}).get("text/html", "")
            match = re.search(r"data-question-data[^>]*>(.*?)</script>", page, re.S)
            if match is None:
                continue
            data = json.loads(match.group(1))
            messages = [data["messages"]["correct"]] + [m["message"] for m in data["mistakes"]]
            found += [re.sub(r"^\W*(Correct|Not yet)\.\s*", "", m) for m in messages]
    return [_squeeze(m) for m in found if len(m) >= 20]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_deck_shows_a_solution_or_a_questions_answer(built, chapter):
    nb = nbformat.read(chapter, as_version=4)
    text = _squeeze(_text(_deck(built, chapter)[1]))
    solutions, answers = _solutions(nb), _answers(nb)
    assert solutions, f"{chapter.name}: the test found no solution text to look for"
    assert answers or "lessons.question(" not in json.dumps(nb.cells)
    leaked = [piece for piece in solutions + answers if piece in text]
    assert leaked == [], f"{chapter.name}: on a slide: {leaked[:3]}"


# --- the tag scheme, on small notebooks ----------------------------------------------------


def _notebook(tmp_path: Path, cells: list) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    path = tmp_path / "book" / "99_small.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _markdown(source: str, tag: str | None = None):
    return nbformat.v4.new_markdown_cell(source, metadata={"tags": [tag]} if tag else {})


def _glue(name: str, value: str):
    cell = nbformat.v4.new_code_cell(f"lessons.glue({name!r}, {value})")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": value},
            metadata={"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}},
        )
    ]
    return cell


def test_the_tags_make_slides_outlines_and_fragments(tmp_path):
    path = _notebook(
        tmp_path,
        [
            _markdown("# Small\n\nIntro prose.\n\n- first aim\n- second aim", "slide-outline"),
            _markdown("## Section one\n\nA paragraph that stays.", "slide"),
            _markdown("More words, shown one step later.", "slide-fragment"),
            _markdown("Untagged: not on any slide."),
            _markdown("Prose the outline drops.\n\n$$\nA = QK^T\n$$", "slide-outline"),
        ],
    )
    deck = slides.build_deck(path)
    assert [s.level for s in deck.slides] == [1, 2, 2]
    first, second, third = (_visible(s.html()) for s in deck.slides)
    assert "first aim" in first and "Intro prose" not in first and "<h1>Small</h1>" in first
    assert "A paragraph that stays" in second and '<div class="fragment">' in second
    assert "Untagged" not in "".join((first, second, third))
    assert "<h2>Section one</h2>" in third  # titled by the section it sits in
    assert "\\[A = QK^T\\]" in third and "Prose the outline drops" not in third
    # What the slides leave off is the speaker's: reveal.js notes (press S).
    notes = [_notes(s.html()) for s in deck.slides]
    assert "Intro prose" in notes[0]
    assert "Untagged: not on any slide." in notes[1]
    assert "Prose the outline drops" in notes[2]


def _visible(section: str) -> str:
    """A slide without its speaker notes."""
    return re.sub(r'<aside class="notes">.*?</aside>', "", section, flags=re.S)


def _notes(section: str) -> str:
    found = re.findall(r'<aside class="notes">(.*?)</aside>', section, flags=re.S)
    return "".join(found)


def test_a_paragraph_wall_keeps_its_first_sentence_and_the_notes_get_it_whole(tmp_path):
    wall = "Scaling keeps the scores in range. " + " ".join(["More words follow here."] * 15)
    path = _notebook(
        tmp_path,
        [
            _markdown(f"# Small\n\n{wall}\n\nA short paragraph stays.", "slide"),
            _markdown("## Next\n\nSaid after the slide.\n\n## Exercises\n\nNot noted."),
            _markdown("Not noted either: a new section began."),
        ],
    )
    (slide,) = slides.build_deck(path).slides
    shown, said = _visible(slide.html()), _notes(slide.html())
    assert "Scaling keeps the scores in range." in shown and "More words" not in shown
    assert "A short paragraph stays." in shown
    assert wall.strip() in re.sub(r"\s+", " ", said)
    assert "Said after" not in said and "Not noted" not in said
    words = [len(re.sub(r"<[^>]+>", " ", p).split()) for p in re.findall(r"<p>(.*?)</p>", shown)]
    assert max(words) <= slide_text.WALL


def test_every_deck_loads_the_notes_plugin_and_every_chapter_deck_has_speaker_notes(built):
    out, decks = built
    for name, deck in decks.items():
        if isinstance(deck, str):
            continue
        page = (out / f"{name}.html").read_text(encoding="utf-8")
        assert 'src="reveal/plugin/notes.js"' in page and "RevealNotes" in page
        assert 'src="reveal/plugin/highlight.js"' in page and "RevealHighlight" in page
        assert sum('<aside class="notes">' in s.html() for s in deck.slides) >= 3, name


def test_dropdowns_stay_out_and_a_sentence_with_a_missing_glued_value_is_dropped(tmp_path):
    path = _notebook(
        tmp_path,
        [
            _glue("known", "0.25"),
            _markdown(
                "# Small\n\nThe weight is {glue:text}`known:.2f`. The loss is "
                "{glue:text}`unknown:.3f` here. The end.\n\n"
                "```{dropdown} Solution\nThe secret answer.\n```\n\n"
                ":::{admonition} Note\n:class: dropdown\nHidden too.\n:::\n\n"
                ":::{note}\nA plain box.\n:::",
                "slide",
            ),
        ],
    )
    page = slides.build_deck(path).slides[0].html()
    assert "The weight is 0.25." in page and "The end." in page
    assert "loss" not in page and "glue" not in page
    assert "secret" not in page and "Hidden too" not in page
    assert '<div class="box">' in page and "A plain box." in page


@pytest.mark.parametrize(
    "cell",
    [
        nbformat.v4.new_code_cell("# Solution\nanswer = 1", metadata={"tags": ["slide"]}),
        nbformat.v4.new_code_cell(
            "answer = 1", metadata={"tags": ["hide-input", "hide-cell", "slide"]}
        ),
    ],
    ids=["a # Solution cell", "a hide-cell cell"],
)
def test_a_solution_tagged_for_a_slide_is_an_error(tmp_path, cell):
    path = _notebook(tmp_path, [_markdown("# Small", "slide"), cell])
    with pytest.raises(ValueError, match="solution"):
        slides.build_deck(path)


def test_a_question_shows_its_prompt_and_choices_never_its_answer(tmp_path):
    # A stored choice question of a chapter, as lessons.question wrote it.
    stored = next(
        cell
        for path in CHAPTERS
        for cell in nbformat.read(path, as_version=4).cells
        if 'class="lq-choice"' in str(cell.get("outputs"))
    )
    cell = nbformat.v4.new_code_cell(stored.source, metadata={"tags": ["slide"]})
    cell.outputs = stored.outputs
    shown = slides.build_deck(_notebook(tmp_path, [_markdown("# Small", "slide"), cell]))
    shown = shown.slides[1].html()
    page = str(stored.outputs)
    (question,) = [
        q for o in stored.outputs for q in read_questions(o.get("data", {}).get("text/html", ""))
    ]
    assert question.prompt.strip() in shown
    assert shown.count("<li>") == len(question.choices) == page.count('class="lq-choice"') >= 2
    assert "<script" not in shown and "data-answer" not in shown
    assert not [m for m in _answers(nbformat.v4.new_notebook(cells=[stored])) if m in shown]


def test_a_deck_without_tags_is_an_error_that_names_the_tags(tmp_path):
    path = _notebook(tmp_path, [_markdown("# Small")])
    with pytest.raises(ValueError, match="slide-outline"):
        slides.write_all([path], tmp_path / "out", root=ROOT, assets=False, log=lambda _: None)


# --- code, questions' data, definitions, walls ----------------------------------------------


def _code(source: str, tags: list[str], printed: str = "") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": tags})
    if printed:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    return cell


def test_a_code_slide_shows_the_source_for_highlighting_and_its_printed_output(tmp_path):
    source = (
        "%matplotlib inline\n"
        "# NBVAL_IGNORE_OUTPUT\n"
        "scores = Q @ K.T  # [n_q, n_k]\n"
        "lessons.glue('kept_out', 3)\n"
        "top = lessons.glue(\n    'top', 2\n)\n"
        "unread = lessons.glue('unread', 5)\n"
        "\n\n\n"
        "print(scores < top)\n"
    )
    printed = "".join(f"line {k}\n" for k in range(12))
    path = _notebook(
        tmp_path, [_markdown("# Small", "slide"), _code(source, ["slide-code"], printed)]
    )
    shown = _visible(slides.build_deck(path).slides[1].html())
    code = re.search(
        r'<pre class="code[^"]*"><code class="language-python"[^>]*>(.*?)</code>', shown, re.S
    )
    assert code is not None
    lines = html.unescape(code.group(1)).split("\n")
    # Magics, NBVAL markers, bare glue calls and glues no line reads go; blank runs squeeze.
    assert lines == [
        "scores = Q @ K.T  # [n_q, n_k]",
        "top = lessons.glue(",
        "    'top', 2",
        ")",
        "",
        "print(scores < top)",
    ]
    assert "scores &lt; top" in shown  # escaped, so the browser shows it as written
    output = re.search(r'<pre class="output">(.*?)</pre>', shown, re.S).group(1).split("\n")
    assert len(output) == cells.OUTPUT_LINES and output[0] == "line 0" and output[-1] == "⋮"


def test_a_code_slide_too_long_is_an_error_unless_it_picks_its_lines(tmp_path):
    long = "\n".join(f"x{k} = {k}  # [1]" for k in range(cells.CODE_LINES + 3))
    path = _notebook(tmp_path, [_markdown("# Small", "slide"), _code(long, ["slide-code"])])
    with pytest.raises(ValueError, match=r"cell 1 is tagged slide-code but has 21 lines"):
        slides.build_deck(path)
    picked = _code(long, ["slide-code", "slide-lines:1-2", "slide-lines:5"])
    path = _notebook(tmp_path, [_markdown("# Small", "slide"), picked])
    code = re.search(r"<code[^>]*>(.*?)</code>", slides.build_deck(path).slides[1].html(), re.S)
    assert code.group(1).split("\n") == ["x0 = 0  # [1]", "x1 = 1  # [1]", "# ...", "x4 = 4  # [1]"]
    wrong = _code(long, ["slide-code", "slide-lines:3-40"])
    with pytest.raises(ValueError, match="does not pick lines"):
        slides.build_deck(_notebook(tmp_path, [_markdown("# Small", "slide"), wrong]))
    for cell in (
        _code("# Solution\nanswer = 1", ["slide-code"]),
        _code("answer = 1", ["hide-cell", "slide-code"]),
    ):
        with pytest.raises(ValueError, match="solution"):
            slides.build_deck(_notebook(tmp_path, [_markdown("# Small", "slide"), cell]))
    with pytest.raises(ValueError, match="holds no code"):
        slides.build_deck(_notebook(tmp_path, [_markdown("# Small", "slide-code")]))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_where_the_chapters_point_is_code_a_slide_shows_that_code(built, chapter):
    wanted = course.load().chapter(chapter).facts.key_code  # the chapter's metadata["course"]
    if not wanted:
        pytest.skip("no code named for this chapter")
    deck, _ = _deck(built, chapter)
    code = "\n".join(
        html.unescape(c)
        for s in deck.slides
        for c in re.findall(r'<pre class="code[^"]*"><code[^>]*>(.*?)</code>', s.html(), re.S)
    )
    assert [w for w in wanted if w not in code] == []


def test_a_question_shows_the_data_its_cell_writes_out_unless_the_prompt_says_it(tmp_path):
    stored = next(
        cell
        for cell in nbformat.read(CHAPTERS[1], as_version=4).cells
        if "lessons.question(" in cell.source and "np.inf" in cell.source
    )
    assert cells.givens(stored.source) == [stored.source.split("\n")[0]]  # x = np.array([...])
    assert cells.givens("rng = lessons.setup(3)\nn = len(x)\nlessons.question('?', 1)") == []
    assert cells.givens("d, h = 512, 8\nlessons.question('?', 1)\ne = 3") == ["d, h = 512, 8"]
    page = lessons.question("With h = 8 heads?", 1)._repr_html_()
    assert "<pre" in cells.question_slide(page, ["d, h = 512, 8"])
    assert "<pre" not in cells.question_slide(page, ["h = 8  # heads"])  # the prompt says it


DATA = re.compile(r'<pre\b|<table\b|class="math"|<figure\b')


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_prediction_slide_carries_its_data_or_follows_the_slide_that_does(built, chapter):
    # Data: code or printed numbers, a table, a formula or a figure on the question's slide or
    # on the slide just before it, or a prompt that states its numbers (at least two).
    deck, _ = _deck(built, chapter)
    bare = []
    for i, slide in enumerate(deck.slides):
        shown = _visible(slide.html())
        for question in re.findall(r'<div class="question">(.*?)</div>', shown, re.S):
            before = _visible(deck.slides[i - 1].html()) if i else ""
            prompt = re.sub(r"<ol.*?</ol>|<[^>]+>", " ", question, flags=re.S)
            numbers = re.findall(r"\d+(?:\.\d+)?", prompt)
            if not (DATA.search(shown) or DATA.search(before) or len(numbers) >= 2):
                bare.append(f"slide {i}: {' '.join(prompt.split())[:80]}")
    assert bare == [], f"{chapter.name}: tag the cell that shows the data before the question"


def test_deck_10s_update_defines_the_new_maximum_it_uses(built):
    chapter = next(p for p in CHAPTERS if p.name.startswith("10_"))
    deck, _ = _deck(built, chapter)
    update = next(s for s in deck.slides if "\\ell' =" in s.html())
    shown = _visible(update.html())
    where = re.search(r'<p class="where">where \\\((.*?)\\\)</p>', shown)
    assert where and where.group(1).startswith("z_{\\max}' = \\max(z_{\\max}")
    assert shown.index('class="where"') < shown.index("\\ell' =")  # defined before it is used


def test_an_outline_keeps_the_definition_of_a_symbol_its_formula_uses_and_no_other(tmp_path):
    cell = _markdown(
        "## Update\n\nThe new maximum is $m' = \\max(m, b)$, with $d_k = 4$ and $x_i = 2$.\n\n"
        "- $m$, the maximum so far\n\n$$s' = s\\, e^{m - m'} + d_k$$",
        "slide-outline",
    )
    shown = _visible(
        slides.build_deck(_notebook(tmp_path, [_markdown("# Small", "slide"), cell]))
        .slides[1]
        .html()
    )
    assert "where \\(m' = \\max(m, b)\\)" in shown
    assert "d_k = 4" not in shown  # a value of the example, not a definition
    assert "x_i" not in shown  # not used by the formula


#: Symbols a deck's display formulas use that a slide must define first: in its own or an
#: earlier slide's text (inline math) or as the left-hand side of a formula. Extend the list
#: as chapters define their symbols on their slides.
SYMBOLS = (
    r"z_{\max}'",
    r"\gamma",
    r"\beta",
    r"\epsilon",
    r"m_g",
    r"\omega_f",
    r"M_\Delta",
    r"h_{kv}",
    r"d_R",
    r"\phi",
    r"R_i",
    r"s_g",
    r"W_G",
    r"W_O",
    r"d_k",
)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_listed_symbol_a_formula_uses_is_defined_on_or_before_its_slide(built, chapter):
    deck, _ = _deck(built, chapter)
    seen, undefined = "", []
    for i, slide in enumerate(deck.slides):
        shown = html.unescape(_visible(slide.html()))
        display = re.findall(r'<div class="math">\\\[(.*?)\\\]</div>', shown, re.S)
        here = " ".join(re.findall(r"\\\((.*?)\\\)", shown, re.S))
        here += " " + " ".join(m for d in display for m in re.findall(r"([^=&]*?)\s*&?=", d))
        undefined += [
            f"slide {i}: {s}"
            for s in SYMBOLS
            if any(s in d for d in display) and s not in seen + " " + here
        ]
        seen += " " + here
    assert undefined == []


def _words(fragment: str) -> int:
    """Words a reader reads: code, display math and tables left out, inline math one word."""
    fragment = re.sub(
        r'<pre.*?</pre>|<div class="math">.*?</div>|<table.*?</table>', " ", fragment, flags=re.S
    )
    fragment = re.sub(r"\\\(.*?\\\)", " x ", fragment, flags=re.S)
    return len(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


#: A slide is a wall when it holds more than this: prose words (paragraphs, boxes, captions),
#: list items, words in one item, and words in all.
PROSE, ITEMS, ITEM_WORDS, ALL_WORDS = 60, 8, 40, 160


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_slide_is_a_wall_of_text(built, chapter):
    deck, _ = _deck(built, chapter)
    walls = []
    for i, slide in enumerate(deck.slides):
        shown = _visible(slide.html())
        no_question = re.sub(r'<div class="question">.*?</div>', " ", shown, flags=re.S)
        no_list = re.sub(r"<(ul|ol)\b.*?</\1>", " ", no_question, flags=re.S)
        prose = sum(
            _words(p)
            for p in re.findall(r"<(?:p|figcaption)\b[^>]*>(.*?)</(?:p|figcaption)>", no_list, re.S)
        )
        items = re.findall(r"<li>(.*?)</li>", no_question, re.S)
        longest = max(map(_words, items), default=0)
        if prose > PROSE or len(items) > ITEMS or longest > ITEM_WORDS or _words(shown) > ALL_WORDS:
            walls.append(
                f"slide {i} ({slide.title}): {prose} words of prose, {len(items)} items, "
                f"{longest} words in one, {_words(shown)} in all"
            )
    assert walls == []


def test_a_long_list_goes_on_over_slides_and_a_long_item_keeps_its_first_sentence(tmp_path):
    items = "\n".join(
        f"- Point {k} is short. " + "More words here. " * (12 if k == 0 else 0) for k in range(11)
    )
    path = _notebook(
        tmp_path, [_markdown("# Small", "slide"), _markdown(f"## Recap\n\n{items}", "slide")]
    )
    deck = slides.build_deck(path)
    assert [s.title for s in deck.slides[1:]] == ["Small", "Recap (continued)"]
    first, second = (_visible(s.html()) for s in deck.slides[1:])
    assert "<h2>Recap</h2>" in first and "<h2>Recap (continued)</h2>" in second
    counts = [s.count("<li>") for s in (first, second)]
    assert sum(counts) == 11 and max(counts) <= slide_text.MAX_ITEMS and min(counts) >= 4
    assert "Point 0 is short." in first and "More words" not in first
    assert "More words here." in _notes(deck.slides[1].html())  # the notes keep it whole


@given(st.lists(st.integers(1, 60), min_size=1, max_size=30))
def test_a_split_list_keeps_every_item_in_order_and_each_slide_within_the_limits(sizes):
    markdown = "\n".join(f"- item{k} " + "w " * (size - 1) for k, size in enumerate(sizes))
    groups = slide_text.split_list(slide_text.MD.parse(markdown))
    shown = groups[0::2]  # lists, with an empty group (a slide break) between two
    assert all(shown) and not any(groups[1::2])
    found = []
    for group in shown:
        items = [t.content for t in group if t.type == "inline"]
        words = sum(len(i.split()) for i in items)
        assert len(items) == 1 or (
            len(items) <= slide_text.MAX_ITEMS and words <= slide_text.LIST_WORDS
        )
        found += [i.split()[0] for i in items]
    assert found == [f"item{k}" for k in range(len(sizes))]


@given(
    st.lists(
        st.one_of(
            st.from_regex(r"[a-z]{1,8}", fullmatch=True),
            st.from_regex(r"\$[a-z_ +]{1,12}\$", fullmatch=True),
            st.from_regex(r"`[a-z_ ()]{1,12}`", fullmatch=True),
        ),
        min_size=1,
        max_size=80,
    )
)
def test_a_cut_never_splits_a_formula_or_code_and_keeps_at_most_its_limit(atoms):
    text = " ".join(atoms)
    cut = slide_text.cut(text, 20)
    kept = cut.removesuffix(" …")
    assert text.startswith(kept) or kept == text
    assert kept.count("$") % 2 == 0 and kept.count("`") % 2 == 0
    assert len(slide_text.ATOM.findall(kept)) <= 20  # no sentence ends here: the limit holds
    assert (kept == text) == (len(atoms) <= 20)


# --- in a real browser -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def with_assets(built) -> Path:
    """The decks with reveal.js and MathJax beside them (npm ci installs both)."""
    out = built[0]
    try:
        slides.copy_assets(out)
    except FileNotFoundError as missing:
        if os.environ.get("REQUIRE_BROWSER_TESTS") == "1":
            pytest.fail(str(missing), pytrace=False)
        pytest.skip(str(missing))
    return out


WAIT_READY = """
const done = arguments[arguments.length - 1];
const start = Date.now();
(function poll() {
  const fitted = document.body && document.body.getAttribute('data-slides-fitted') === 'true';
  if ((fitted && window.Reveal && Reveal.isReady()) || Date.now() - start > 15000) {
    done(Boolean(fitted));
  } else { setTimeout(poll, 50); }
})();
"""

INSPECT = """
const height = Reveal.getConfig().height;
const sections = Array.from(document.querySelectorAll('.reveal .slides > section'));
const tall = sections.map((s, i) => {
  const shown = s.style.display; s.style.display = 'block';
  const h = s.scrollHeight; s.style.display = shown;
  return h > height ? i + ': ' + h + 'px' : null; }).filter(x => x);
const width = Reveal.getConfig().width;
const wide = sections.map((s, i) => {
  const shown = s.style.display; s.style.display = 'block';
  const w = Math.max(s.scrollWidth, ...Array.from(s.querySelectorAll('mjx-container, img, table'),
    e => e.getBoundingClientRect().width / Reveal.getScale()));
  s.style.display = shown;
  return w > width + 1 ? i + ': ' + Math.round(w) + 'px' : null; }).filter(x => x);
return {
  slides: Reveal.getTotalSlides(),
  math: document.querySelectorAll('.reveal .math').length,
  inline: (document.querySelector('.reveal .slides').innerHTML.match(/\\\\\\(/g) || []).length,
  typeset: document.querySelectorAll('.reveal mjx-container').length,
  code: document.querySelectorAll('.reveal pre code').length,
  highlighted: document.querySelectorAll('.reveal pre code.hljs .hljs-keyword, '
    + '.reveal pre code.hljs .hljs-number, .reveal pre code.hljs .hljs-string').length,
  plain: document.querySelectorAll('.reveal pre code:not(.hljs)').length,
  text: document.querySelector('.reveal .slides').innerText,
  images: Array.from(document.querySelectorAll('.reveal img')).filter(
    i => !(i.complete && i.naturalWidth > 0)).length,
  loaded: performance.getEntriesByType('resource').map(e => e.name),
  tall: tall,
  wide: wide,
};
"""


def _open(browser, url: str) -> dict:
    browser.get(url)
    browser.set_script_timeout(20)
    assert browser.execute_async_script(WAIT_READY), f"{url}: reveal.js or MathJax never ready"
    return browser.execute_script(INSPECT)


def test_every_deck_opens_from_disk_with_math_typeset_and_every_slide_fitting(
    browser, built, with_assets
):
    problems = []
    for name, deck in built[1].items():
        if isinstance(deck, str):
            continue  # its own tests say why it has no deck
        page = _open(browser, (with_assets / f"{name}.html").as_uri())
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            problems.append(f"{name}: console {errors[:2]}")
        if page["slides"] != len(deck.slides):
            problems.append(f"{name}: reveal.js counts {page['slides']} slides")
        if page["typeset"] < page["math"]:
            problems.append(f"{name}: {page['math']} formulas, {page['typeset']} typeset")
        if re.search(r"\$\$|\\\(|\\\[", page["text"]):
            problems.append(f"{name}: raw TeX on a slide")
        if page["plain"] or (page["code"] and not page["highlighted"]):
            problems.append(
                f"{name}: {page['plain']} of {page['code']} code blocks not highlighted"
            )
        if page["images"]:
            problems.append(f"{name}: {page['images']} figures did not load")
        if page["tall"]:
            problems.append(f"{name}: slides taller than the deck: {page['tall']}")
        if page["wide"]:
            problems.append(f"{name}: slides wider than the deck: {page['wide']}")
        away = [u for u in page["loaded"] if not u.startswith(("file://", "data:"))]
        if away:
            problems.append(f"{name}: loaded {away}")
    assert problems == []


class _Recorder(http.server.SimpleHTTPRequestHandler):
    """Serves the slides folder and records every request with its status."""

    requests: list[tuple[str, int]] = []

    def log_request(self, code="-", size="-"):
        self.requests.append((self.path, int(code) if str(code).isdigit() else 0))

    def log_message(self, *args):
        pass


def test_a_deck_served_over_http_typesets_its_math_and_asks_for_nothing_elsewhere(
    browser, with_assets
):
    handler = functools.partial(_Recorder, directory=str(with_assets))
    server = http.server.ThreadingHTTPServer(("localhost", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Recorder.requests = []
    try:
        base = f"http://localhost:{server.server_address[1]}/"
        browser.get(base + "index.html")
        link = browser.execute_script(
            "return document.querySelector('a[href^=\"04_\"]').getAttribute('href')"
        )
        _open(browser, base + link)
        # Go to the first slide holding display math, as a presenter would with the keys.
        index = browser.execute_script(
            "const all = Array.from(document.querySelectorAll('.reveal .slides > section'));"
            "const i = all.findIndex(s => s.querySelector('.math') && !s.matches('.title-slide'));"
            "Reveal.slide(i); return i;"
        )
        time.sleep(0.3)
        current = browser.execute_script(
            "const s = Reveal.getCurrentSlide(); return [s.querySelectorAll('mjx-container').length,"
            " s.innerText, getComputedStyle(s).display];"
        )
        resources = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        server.shutdown()
        server.server_close()
    assert index > 0 and current[0] > 0 and current[2] != "none"
    assert "$$" not in current[1] and "\\[" not in current[1]
    assert errors == []
    assert all(url.startswith(base) for url in resources), resources
    assert _Recorder.requests and all(code == 200 for _, code in _Recorder.requests), (
        _Recorder.requests
    )
    assert {path.split("/")[1] for path, _ in _Recorder.requests} >= {"reveal", "mathjax"}


KINDS = {
    "a title slide": 'class="title-slide"',
    "a figure": "<figure>",
    "a question": 'class="question"',
    "display math": 'class="math"',
    "a box": 'class="box"',
    "a table": "<table>",
    "code": '<pre class="code',
}


def test_no_kind_of_slide_has_a_serious_or_critical_accessibility_violation(
    browser, built, with_assets, axe_script
):
    # The index, then the first slide of each kind (axe checks only what is shown).
    shown = [("index.html", None)]
    decks = [d for d in built[1].values() if isinstance(d, slides.Deck)]
    for marker in KINDS.values():
        shown += next(
            (
                [(f"{d.name}.html", i)]
                for d in decks
                for i, s in enumerate(d.slides)
                if marker in s.html()
            ),
            [],
        )
    assert len(shown) == len(KINDS) + 1
    problems = []
    for name, index in shown:
        browser.get((with_assets / name).as_uri() + (f"#/{index}" if index is not None else ""))
        if index is not None:
            browser.set_script_timeout(20)
            browser.execute_async_script(WAIT_READY)
            assert browser.execute_script("return Reveal.getIndices().h") == index
        browser.execute_script(axe_script)
        violations = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done("
            "r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')"
            ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))))"
        )
        problems += [f"{name} slide {index}: {v}" for v in violations]
    assert problems == []


def test_make_slides_runs_the_tool_and_the_readme_and_make_help_say_so():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\.PHONY:.*\bslides\b", makefile, re.M)
    assert re.search(r"^slides: .*\$\(MATHJAX\)/tex-mml-chtml\.js.*## ", makefile, re.M)
    assert "$(BIN)/python -m kit slides" in makefile
    assert "`make slides`" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "slide-outline" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert (
        "reveal.js"
        in json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    )
