"""The slides (`make slides`, tools/slides.py): a deck per chapter, offline, with no solution.

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
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from repo_paths import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import slides  # noqa: E402

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
    book = slides.rn.Book.load(ROOT)
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
    assert ">Recap</h2>" in last.html(), f"{chapter.name}: tag its `## Recap` cell `slide`"
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
    assert max(words) <= slides.WALL


def test_every_deck_loads_the_notes_plugin_and_every_chapter_deck_has_speaker_notes(built):
    out, decks = built
    for name, deck in decks.items():
        if isinstance(deck, str):
            continue
        page = (out / f"{name}.html").read_text(encoding="utf-8")
        assert 'src="reveal/plugin/notes.js"' in page and "RevealNotes" in page
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
    prompt = re.search(r'<p class="lq-prompt"><span class="lq-tag">[^<]*</span> ([^<]+)', page)
    assert prompt.group(1).strip() in shown
    assert shown.count("<li>") == page.count('class="lq-choice"') >= 2
    assert "<script" not in shown and "data-answer" not in shown
    assert not [m for m in _answers(nbformat.v4.new_notebook(cells=[stored])) if m in shown]


def test_a_deck_without_tags_is_an_error_that_names_the_tags(tmp_path):
    path = _notebook(tmp_path, [_markdown("# Small")])
    with pytest.raises(ValueError, match="slide-outline"):
        slides.write_all([path], tmp_path / "out", root=ROOT, assets=False, log=lambda _: None)


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
    assert "$(BIN)/python tools/slides.py" in makefile
    assert "`make slides`" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "slide-outline" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert (
        "reveal.js"
        in json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    )
