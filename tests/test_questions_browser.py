"""The in-page questions and chapter 11's lab in a real browser: headless Chromium, offline.

A standalone page written here holds questions of every kind (their mistakes taken
from the chapters' self-checks) and the lab on the model chapter 11 studies. Every
question is driven through its DOM contract (lessons/book/widgets/assets/README.md):
reveal then check gives `correct`, each named mistake typed in gives `mistake` with its
name and the check's message, an unrelated answer gives `wrong`. The lab's accuracy
must equal `lessons.accuracy` with nothing and with each single position blocked, and
the chapter's glued numbers. axe-core must find no serious or critical violation, and
no page may log an error. Pages of the built book that hold questions are driven the
same way. On paper (print media) a question shows its numbered prompt and where its
answer is, not its inputs or buttons, and its chapter ends with the answers, each the
"Show answer" message; on screen the page is unchanged. With
QUESTIONS_SCREENSHOTS=<folder> the test leaves screenshots there.

Without chromium, chromedriver or selenium the module is skipped with the reason
printed; with REQUIRE_BROWSER_TESTS=1 in the environment (CI) it fails instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from repo_paths import BOOK, HTML, ROOT
from test_cls_lab import chapter_11_model

import lessons
from kit import build_pdf
from lessons.book.widgets.lab_export import blocked_keep
from lessons.book.widgets.question import mistakes_at
from lessons.checks import ch02, ch04, ch05, ch07, ch10
from lessons.training import accuracy

BUILT = HTML / "book"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # optional in the page test below
CHAPTER_11 = BOOK / "11_seeing_attention_learn.ipynb"

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # the browser fixture (tests/conftest.py) then skips or fails, as set
    By = Keys = WebDriverWait = None

# Typing into many inputs through the keyboard is slow; set values and fire `input`.
FILL = """
const [root, values] = arguments;
const inputs = Array.from(root.querySelectorAll('[data-answer]'));
if (root.getAttribute('data-kind') === 'choice') {
  inputs.forEach(i => { i.checked = values !== null && Number(i.value) === values; });
  inputs.forEach(i => i.dispatchEvent(new Event('change', {bubbles: true})));
} else {
  inputs.forEach((i, k) => { i.value = values[k]; i.dispatchEvent(new Event('input', {bubbles: true})); });
}
"""


def questions() -> list[lessons.Question]:
    """One question of every kind, with the checks' mistakes where a check has them."""
    Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [3, 2], chapter 5's example
    K = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # [3, 2]
    V = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # [3, 2]
    out, A = lessons.attention(Q, K, V)  # [3, 2], [3, 3]
    weights = ch05.attention_weight_mistakes(Q, K)
    row_2 = mistakes_at(weights, 1)
    X = np.arange(24.0).reshape(2, 3, 4)  # [B, n, d_model]
    return [
        lessons.question(
            "Predict row 2 of `A` (the query `q_2 = [0, 1]`) before it is computed.",
            A[1],
            mistakes=row_2,
            columns=["k_1", "k_2", "k_3"],
        ),
        lessons.question("Predict all of `A`.", A, mistakes=weights),
        lessons.question(
            "Predict the scores `S = Q K^T`.", Q @ K.T, mistakes=ch02.score_matrix_mistakes(Q, K)
        ),
        lessons.question("Predict the output `O`.", out, mistakes=ch04.attention_mistakes(Q, K, V)),
        lessons.question(
            "`X` has shape [2, 3, 4]; what shape does `split_heads(X, 2)` give?",
            lessons.split_heads(torch.as_tensor(X), 2),
            kind="shape",
            mistakes=ch07.split_heads_mistakes(X, 2),
        ),
        lessons.question(
            "How many parameters has multi-head attention with `d_model = 8`, biases included?",
            4 * 8 * 8 + 4 * 8,
            mistakes=ch07.mha_parameter_mistakes(8),
        ),
        lessons.question(
            "Bytes of the weights `A` for B = 2, h = 4, n = 1024 in float16?",
            2 * 4 * 1024 * 1024 * 2,
            mistakes=ch10.weight_bytes_mistakes(2, 4, 1024, 2),
        ),
        lessons.question(
            "With a causal mask, which key is blocked for the query at position 1?",
            "key 2",
            choices=["key 0", "key 1", "key 2", "none"],
            mistakes={"own-position": ("key 1", "A token may attend to itself.")},
        ),
    ]


def unrelated(data: dict, count: int):
    """An answer that is neither right nor a named mistake (None where none exists).

    ``count`` is the number of inputs (of choices, for a choice question).
    """
    kind = data["kind"]
    if kind == "choice":
        taken = {data["answer"], *(m["value"] for m in data["mistakes"])}
        free = [i for i in range(count) if i not in taken]
        return free[0] if free else None
    if kind == "shape":
        return ["[7, 7, 7, 7, 7, 7, 7]"]
    values = [np.ravel(data["answer"]), *(np.ravel(m["value"]) for m in data["mistakes"])]
    far = str(round(max(float(np.abs(v).max()) for v in values) + 10 + 100 * data["tolerance"]))
    return [far] * np.size(data["answer"])


def typed(data: dict, shown):
    """What to fill in for a value as the page shows it."""
    if data["kind"] == "array":
        return [x for row in shown for x in row]
    return shown if data["kind"] == "choice" else [shown]


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def ready_roots(driver, selector: str) -> list:
    def ready(d):
        roots = d.find_elements(By.CSS_SELECTOR, selector)
        done = [r for r in roots if r.get_attribute("data-ready") == "true"]
        return roots if roots and len(done) == len(roots) else False

    return WebDriverWait(driver, 20).until(ready)


def drive(driver, root) -> dict:
    """Reveal, every mistake and an unrelated answer through the contract; the data back."""
    data = json.loads(
        driver.execute_script(
            "return arguments[0].querySelector('script[data-question-data]').textContent", root
        )
    )
    where = root.get_attribute("data-question")
    check = root.find_element(By.CSS_SELECTOR, '[data-action="check"]')
    feedback = root.find_element(By.CSS_SELECTOR, "[data-feedback]")
    assert root.get_attribute("data-verdict") == "unanswered", where
    assert not root.find_elements(By.CSS_SELECTOR, "[data-static-note]"), where
    root.find_element(By.CSS_SELECTOR, '[data-action="reveal"]').click()
    assert root.get_attribute("data-revealed") == "true", where
    check.click()
    assert root.get_attribute("data-verdict") == "correct", where
    assert feedback.text == data["messages"]["correct"], where
    for mistake in data["mistakes"]:
        driver.execute_script(FILL, root, typed(data, mistake["shown"]))
        assert root.get_attribute("data-verdict") == "unanswered", "an edit resets the verdict"
        check.click()
        assert root.get_attribute("data-verdict") == "mistake", (where, mistake["name"])
        assert root.get_attribute("data-mistake") == mistake["name"], where
        assert feedback.text == mistake["message"], where
    other = unrelated(data, len(root.find_elements(By.CSS_SELECTOR, "[data-answer]")))
    if other is not None:
        driver.execute_script(FILL, root, other)
        check.click()
        assert root.get_attribute("data-verdict") == "wrong", (where, other)
        assert root.get_attribute("data-mistake") is None, where
    return data


@pytest.fixture
def driver(browser):
    """The session's one browser (tests/conftest.py), its console log emptied."""
    return browser


@pytest.fixture(scope="module")
def trained():
    return chapter_11_model()


@pytest.fixture(scope="module")
def page(standalone_page, trained) -> str:
    """Every question above, then the lab, on one standalone page."""
    body = "".join(q._repr_html_() for q in questions())
    body += lessons.lab(*trained)._repr_html_()
    return standalone_page(body, "Questions test")


@pytest.fixture
def loaded(driver, page):
    driver.get(page)
    ready_roots(driver, "[data-question], [data-lab]")
    yield driver
    errors = severe(driver)
    assert not errors, f"the page logged errors: {errors}"


def test_every_question_grades_the_answer_its_mistakes_and_an_unrelated_answer(loaded):
    roots = loaded.find_elements(By.CSS_SELECTOR, "[data-question]")
    assert len(roots) == len(questions())
    for root, q in zip(roots, questions(), strict=True):
        data = drive(loaded, root)
        assert data == json.loads(json.dumps(q.data())), "the page embeds Question.data()"
        assert [m["name"] for m in data["mistakes"]] == list(q.mistakes)


def test_the_keyboard_alone_answers_and_checks(loaded):
    root = loaded.find_elements(By.CSS_SELECTOR, '[data-question][data-kind="array"]')[0]
    cells = root.find_elements(By.CSS_SELECTOR, "[data-answer]")
    cells[0].click()
    data = questions()[0].data()
    for k, value in enumerate(data["shown"][0]):
        loaded.switch_to.active_element.send_keys(value)
        if k < len(cells) - 1:
            loaded.switch_to.active_element.send_keys(Keys.TAB)
    loaded.switch_to.active_element.send_keys(Keys.ENTER)
    assert root.get_attribute("data-verdict") == "correct"
    loaded.switch_to.active_element.send_keys(Keys.TAB)
    assert loaded.switch_to.active_element.get_attribute("data-action") == "check"
    choice = loaded.find_element(By.CSS_SELECTOR, '[data-question][data-kind="choice"]')
    first = choice.find_element(By.CSS_SELECTOR, '[data-answer="0"]')
    first.click()
    first.send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN)
    assert choice.find_element(By.CSS_SELECTOR, '[data-answer="2"]').is_selected()
    choice.find_element(By.CSS_SELECTOR, '[data-action="check"]').send_keys(Keys.ENTER)
    assert choice.get_attribute("data-verdict") == "correct"


# Typed answers, some lenient, some unreadable: the page must grade each as Question.grade does.
TYPED = {
    "shape": [
        "[2, 2, 3, 2]",
        "2 x 2 x 3 x 2",
        "torch.Size([2, 2, 3, 2])",
        "(2,2,3,02)",
        "2x3x2x2",
        "[2; 3; 2; 2]",
        "[B, h, n, d_k]",
        "[]",
        "  ",
    ],
    "number": ["288", " 288.0 ", "2880/10", "\u2212288", "288,0", "256", "1e3", "abc", "1/0", ""],
}


def test_the_page_reads_what_is_typed_as_python_does(loaded):
    for kind, texts in TYPED.items():
        q = next(q for q in questions() if q.kind == kind)
        root = loaded.find_element(By.CSS_SELECTOR, f'[data-question="{q.name}"]')
        check = root.find_element(By.CSS_SELECTOR, '[data-action="check"]')
        for text in texts:
            loaded.execute_script(FILL, root, [text])
            check.click()
            verdict, name, message = q.grade(text)
            assert root.get_attribute("data-verdict") == verdict, (kind, text)
            assert root.get_attribute("data-mistake") == name, (kind, text)
            shown = root.find_element(By.CSS_SELECTOR, "[data-feedback]").text
            assert shown == message, (kind, text)


def test_the_labs_accuracy_is_lessons_accuracy_for_every_single_block(loaded, trained):
    model, x, y = trained
    root = loaded.find_element(By.CSS_SELECTOR, "[data-lab]")
    shown = root.find_element(By.CSS_SELECTOR, "[data-accuracy]")
    assert shown.text == f"{accuracy(model, x, y):.4f}"
    for p in range(x.shape[1]):
        box = root.find_element(By.CSS_SELECTOR, f'[data-block="{p}"]')
        box.click()
        assert root.get_attribute("data-blocked") == str(p)
        want = accuracy(model, x, y, mask=blocked_keep(x.shape[1], (p,)))
        assert shown.text == f"{want:.4f}", p
        box.click()
    assert shown.text == f"{accuracy(model, x, y):.4f}"


def test_the_lab_shows_the_chapters_glued_numbers_and_its_cls_rows(loaded, trained):
    glued = {}
    for cell in json.loads(CHAPTER_11.read_text("utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if record:
                glued[record] = output["data"]["application/papermill.record/text/plain"]
    assert glued["chosen_seed"] == "5", "test_cls_lab.chapter_11_model rebuilds seed 5"
    root = loaded.find_element(By.CSS_SELECTOR, "[data-lab]")
    shown = root.find_element(By.CSS_SELECTOR, "[data-accuracy]")
    assert float(shown.text) == float(glued["cls_accuracy"])
    root.find_element(By.CSS_SELECTOR, '[data-block="4"]').click()
    assert float(shown.text) == float(glued["cls_accuracy_target_blocked"])
    root.find_element(By.CSS_SELECTOR, '[data-action="reset"]').click()
    assert root.get_attribute("data-blocked") == "" and float(shown.text) == 1.0
    model, x, y = trained
    with torch.no_grad():
        cls = model(x)[1][:, 0, 0]  # [N, n]
    for cell in root.find_elements(By.CSS_SELECTOR, '[data-matrix="cls-rows"] [data-cell]'):
        c, p = (int(k) for k in cell.get_attribute("data-cell").split(","))
        want = cls[y == c, p].mean().item()
        assert float(cell.get_attribute("data-value")) == pytest.approx(want, abs=1e-3)


def test_axe_finds_no_serious_or_critical_violation(loaded, axe_script):
    root = loaded.find_elements(By.CSS_SELECTOR, "[data-question]")[0]
    drive(loaded, root)  # with a message showing, too
    loaded.execute_script(axe_script)
    violations = loaded.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done("
        "r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))))"
    )
    assert violations == []


def test_screenshots_when_asked(loaded, tmp_path):
    folder = Path(os.environ.get("QUESTIONS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    first, second = loaded.find_elements(By.CSS_SELECTOR, "[data-question]")[:2]
    first.find_element(By.CSS_SELECTOR, '[data-action="reveal"]').click()
    first.find_element(By.CSS_SELECTOR, '[data-action="check"]').click()
    loaded.execute_script("arguments[0].scrollIntoView()", first)
    first.screenshot(str(folder / "question_correct.png"))
    data = questions()[1].data()
    loaded.execute_script(FILL, second, typed(data, data["mistakes"][0]["shown"]))
    second.find_element(By.CSS_SELECTOR, '[data-action="check"]').click()
    assert second.get_attribute("data-mistake") == data["mistakes"][0]["name"]
    loaded.execute_script("arguments[0].scrollIntoView()", second)
    second.screenshot(str(folder / "question_mistake.png"))
    lab = loaded.find_element(By.CSS_SELECTOR, "[data-lab]")
    lab.find_element(By.CSS_SELECTOR, '[data-block="4"]').click()
    loaded.execute_script("arguments[0].scrollIntoView()", lab)
    lab.screenshot(str(folder / "lab_blocked.png"))
    assert all(
        (folder / n).stat().st_size > 1000 for n in ("question_correct.png", "lab_blocked.png")
    )


def test_inside_a_page_of_the_built_book_with_its_theme(driver, tmp_path, trained):
    """Chapter 11's built page with the questions and the lab added, as a chapter will hold them."""
    page = BUILT / "11_seeing_attention_learn.html"
    if not page.exists():
        pytest.skip(f"{page.relative_to(ROOT)} is not built: run `make book` first")
    widgets = "".join(q._repr_html_() for q in questions()) + lessons.lab(*trained)._repr_html_()
    text = page.read_text("utf-8")
    text = text.replace("<head>", f'<head><base href="{BUILT.as_uri()}/">', 1)
    text = text.replace('<article class="bd-article">', f'<article class="bd-article">{widgets}', 1)
    path = tmp_path / "chapter.html"
    path.write_text(text, encoding="utf-8")
    driver.get(path.as_uri())
    for root in ready_roots(driver, "[data-question]"):
        drive(driver, root)
    lab = ready_roots(driver, "[data-lab]")[0]
    box = lab.find_element(By.CSS_SELECTOR, '[data-block="4"]')
    # The page's own questions end the driving further down; a box scrolled to the top
    # would sit under the theme's sticky header, which would receive the click.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    box.click()
    assert lab.find_element(By.CSS_SELECTOR, "[data-accuracy]").text == "0.5000"
    errors = severe(driver)
    assert not errors, f"the page logged errors: {errors}"
    if AXE.exists():
        driver.execute_script(AXE.read_text(encoding="utf-8"))
        violations = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document.querySelectorAll('[data-question], [data-lab]'), "
            "{resultTypes: ['violations']}).then(r => done(r.violations.filter("
            "v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id)))"
        )
        assert violations == []


def media(driver, kind: str) -> None:
    """Lay the page out for `kind` ("print", or "" for the screen), as printing does."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": kind})


def shown(root, selector: str) -> list[bool]:
    return [node.is_displayed() for node in root.find_elements(By.CSS_SELECTOR, selector)]


def revealed(driver, root) -> str:
    """The question's "Show answer" message, from the JSON it embeds."""
    data = driver.execute_script(
        "return arguments[0].querySelector('script[data-question-data]').textContent", root
    )
    return json.loads(data)["messages"]["revealed"]


def test_on_paper_a_question_is_its_numbered_prompt_and_its_answer_comes_last(loaded):
    """A browser printing the page: `beforeprint` builds the paper form, print CSS shows it."""
    qs = questions()
    loaded.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    loaded.execute_script("window.dispatchEvent(new Event('beforeprint'))")  # rebuilt, not doubled
    roots = loaded.find_elements(By.CSS_SELECTOR, "[data-question]")
    # No numbered chapter here: 1, 2, ..., and the answers at the end of the page's <main>.
    numbers = [str(k) for k in range(1, len(qs) + 1)]
    assert [root.get_attribute("data-print-number") for root in roots] == numbers
    (section,) = loaded.find_elements(By.CSS_SELECTOR, "[data-question-answers]")
    last = "return document.querySelector('main').lastElementChild === arguments[0]"
    assert loaded.execute_script(last, section)
    assert len(loaded.find_elements(By.CSS_SELECTOR, "[data-print-only]")) == 2 * len(qs) + 1
    media(loaded, "print")
    try:
        assert section.find_element(By.CSS_SELECTOR, "h2").text == "Answers to the questions"
        entries = section.find_elements(By.CSS_SELECTOR, ".lq-answer")
        for number, root, q, entry in zip(numbers, roots, qs, entries, strict=True):
            term = entry.find_element(By.TAG_NAME, "dt")
            assert term.text == number
            assert entry.find_element(By.TAG_NAME, "dd").text == q.messages()["revealed"]
            assert f"The answer: {q.answer_text()}." in entry.text
            assert root.find_element(By.CSS_SELECTOR, ".lq-number").text == f"Question {number}"
            where = root.find_element(By.CSS_SELECTOR, ".lq-where")
            assert where.text == (
                f"Answer {number}: under “Answers to the questions” at the end of this page."
            )
            link = where.find_element(By.TAG_NAME, "a").get_attribute("href")
            assert link.endswith("#" + term.get_attribute("id"))
            assert not any(shown(root, "button, input, [data-feedback], [data-static-note]"))
            if q.kind == "choice":  # the choices are the question: their text stays
                labels = root.find_elements(By.CSS_SELECTOR, ".lq-choice")
                assert all(label.is_displayed() for label in labels)
                assert [label.text.lstrip("\u25cb").strip() for label in labels] == list(q.choices)
                after = "return !!(arguments[0].compareDocumentPosition(arguments[1]) & 4)"
                assert loaded.execute_script(after, labels[-1], where), "the line ends it"
        assert not any(shown(loaded, "[data-lab] button, [data-lab] input"))
        assert all(shown(loaded, "[data-lab] [data-accuracy], [data-lab] [data-cell]"))
    finally:
        media(loaded, "")
    # On screen the print form stays hidden and every control is there.
    assert not any(shown(loaded, "[data-print-only]"))
    assert all(shown(loaded, "[data-question] button, [data-lab] button"))
    assert all(shown(loaded, '[data-question] input[type="text"]'))


def test_on_paper_a_chapters_questions_are_numbered_by_chapter(driver):
    """The built chapter 4 with the paper form `make pdf` builds (kit/build_pdf.py)."""
    page = BUILT / "04_scaled_dot_product_attention.html"
    if not page.exists():
        pytest.skip(f"{page.relative_to(ROOT)} is not built: run `make book` first")
    driver.get(page.as_uri())
    roots = ready_roots(driver, "[data-question]")
    count, sections = driver.execute_script(build_pdf.QUESTIONS_JS, *build_pdf.question_assets())
    assert (count, sections) == (len(roots), 1)
    numbers = [f"4.{k}" for k in range(1, len(roots) + 1)]
    assert [root.get_attribute("data-print-number") for root in roots] == numbers
    section = driver.find_element(By.CSS_SELECTOR, '[data-question-answers="4"]')
    # The last thing of the chapter's own section, under a heading one level below its title.
    chapter = driver.execute_script("return arguments[0].parentElement", section)
    title = chapter.find_element(By.CSS_SELECTOR, ":scope > h1")
    assert title.find_element(By.CSS_SELECTOR, ".section-number").text.strip() == "4."
    assert driver.execute_script("return arguments[0].lastElementChild", chapter) == section
    media(driver, "print")
    try:
        assert section.find_element(By.CSS_SELECTOR, "h2").text == "Answers to the questions"
        terms = [term.text for term in section.find_elements(By.TAG_NAME, "dt")]
        answers = [dd.text for dd in section.find_elements(By.TAG_NAME, "dd")]
        assert terms == numbers
        assert answers == [revealed(driver, root) for root in roots]
        for number, root in zip(numbers, roots, strict=True):
            assert root.find_element(By.CSS_SELECTOR, ".lq-number").text == f"Question {number}"
            where = root.find_element(By.CSS_SELECTOR, ".lq-where").text
            assert where.endswith("at the end of this chapter.")
            assert not any(shown(root, "button, input, [data-feedback]"))
    finally:
        media(driver, "")
    assert not any(shown(driver, "[data-print-only]"))
    errors = severe(driver)
    assert not errors, f"the page logged errors: {errors}"


def _built_pages() -> list[Path]:
    if not BUILT.is_dir():
        return []
    return sorted(p for p in BUILT.glob("*.html") if "data-question=" in p.read_text("utf-8"))


@pytest.mark.parametrize("path", _built_pages(), ids=lambda p: p.name)
def test_every_question_of_the_built_book(driver, path):
    driver.get_log("browser")  # judge this page alone: an earlier test's axe run logs late
    driver.get(path.as_uri())
    for root in ready_roots(driver, "[data-question]"):
        drive(driver, root)
    errors = severe(driver)
    assert not errors, f"{path.name} logged errors: {errors}"
