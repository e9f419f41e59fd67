"""Print the whole book as one PDF, offline (behind `make pdf`).

`make pdf` first builds the book as a single HTML page (`--builder singlehtml`). This
script opens that page in Debian's chromium through selenium, with every other host
unreachable, waits until MathJax has typeset every formula and every image has loaded,
lays the page out for paper (a title page, a table of contents, each chapter on a new
page, the sidebars hidden, wide code wrapped, solutions open) and prints it with the
DevTools command `Page.printToPDF`. The explorers print their static fallback: their
scripts are switched off in the copy of the page that is printed. The in-page questions
print their paper form (`lessons/book/widgets/assets/question.js`): each prompt numbered
within its chapter, no inputs or buttons, and an "Answers to the questions" section at
the end of each chapter, built from the JSON each question embeds.

On a slow or busy machine each step just takes longer: no step has a short fixed limit
(`--timeout`, 30 minutes by default, bounds each one), a line every 15 s says the print is
still running and how much CPU the browser has used, and a browser that dies says so.

Usage: python -m kit pdf [--html _build/singlehtml] [--out _build/pdf] [--timeout 1800]
"""

from __future__ import annotations

import argparse
import base64
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import yaml

from kit import chromium
from lessons.book.widgets import explorer_page

ROOT = Path(__file__).resolve().parent.parent
PDF_NAME = "self-attention-step-by-step.pdf"
# The widgets' scripts and styles (lessons/book/widgets/assets), read as they are now: the
# questions' paper form comes from them, whatever version the notebooks' outputs inlined.
ASSETS = ROOT / "lessons" / "book" / "widgets" / "assets"
# The explorer (lessons.explorer) ships its static weights table inside its own root and
# removes it when its script runs; the printed copy keeps that table by not running it
# (`explorer_page.without_scripts`, beside the code that writes the explorer's markup).

# Paper needs none of the theme's scripts (search, icons, copy buttons, toggles), only
# MathJax: leaving them out makes the long page load and print faster.
PAGE_SCRIPT = re.compile(r'<script\b[^>]*\bsrc="(?![^"]*mathjax)[^"]*"[^>]*>\s*</script>')

PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm 16mm; }
html, body { background: white !important; }
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article,
.header-article-items, .bd-footer, .bd-footer-article, .bd-footer-content, .prev-next-area,
#pst-back-to-top, #jb-print-docs-body, .onlyprint, .skip-link, .search-button-field, .theme-switch-button,
.headerlink, .copybtn, #pst-skip-link, .pst-async-banner-revealer,
.bd-search, .sidebar-toggle, label.overlay { display: none !important; }
.bd-container, .bd-container__inner, .bd-main, .bd-content, .bd-article-container,
.bd-page-width, .bd-article { max-width: none !important; width: auto !important;
  padding: 0 !important; margin: 0 !important; display: block !important;
  overflow: visible !important; }
body { font-size: 10.5pt; }
pre, pre code { white-space: pre-wrap !important; word-break: break-word; font-size: 8.5pt; }
div.highlight, div.cell, div.output, figure, img, table, .admonition { break-inside: avoid; }
h1, h2, h3, h4 { break-after: avoid; }
.pst-scrollable-table-container, .table-wrapper, .ax-scroll, .output,
.cell_output { overflow: visible !important; max-height: none !important; }
table { font-size: 8.5pt; }
mjx-container[display="true"] { overflow: visible !important; }
section.pdf-chapter { break-before: page; }
section.pdf-chapter > h1, section.pdf-chapter > h2 { display: block !important;
  visibility: visible !important; }
#pdf-title { break-after: page; display: flex; flex-direction: column;
  justify-content: center; min-height: 240mm; text-align: center; }
#pdf-title p { font-size: 13pt; margin: 2mm 0; }
#pdf-title p.pdf-book { font-size: 30pt; font-weight: bold; margin-bottom: 12mm; }
#pdf-toc { break-after: page; }
#pdf-toc ol { list-style: none; padding-left: 0; }
#pdf-toc li { margin: 1.5mm 0; font-size: 11.5pt; }
#pdf-toc li.pdf-part { margin-top: 5mm; font-weight: bold; }
#pdf-toc a { color: inherit; text-decoration: none; }
"""

# Runs in the page once MathJax is done: title page, contents, one chapter per page.
LAYOUT_JS = """
const [title, author, year, css] = arguments;
const style = document.createElement("style");
style.textContent = css;
document.head.appendChild(style);
document.querySelectorAll("details").forEach((d) => { d.open = true; });
const main = document.querySelector("article.bd-article") || document.querySelector("main");
// The root document's section, then each document's: a <span id="document-NAME">
// followed by its <section>.
const starts = [main.querySelector("section")];
main.querySelectorAll('span[id^="document-"]').forEach((span) => {
  const next = span.nextElementSibling;
  if (next && next.tagName === "SECTION") starts.push(next);
});
const chapters = [];
for (const section of starts) {
  if (section.classList.contains("pdf-chapter")) continue;
  section.classList.add("pdf-chapter");
  const heading = section.querySelector("h1, h2").cloneNode(true);
  heading.querySelectorAll(".headerlink").forEach((a) => a.remove());
  chapters.push({id: section.id, title: heading.textContent.trim()});
}
const cover = document.createElement("section");
cover.id = "pdf-title";
cover.innerHTML = "<p class='pdf-book'></p><p class='pdf-author'></p><p class='pdf-year'></p>";
cover.querySelector(".pdf-book").textContent = title;
cover.querySelector(".pdf-author").textContent = author;
cover.querySelector(".pdf-year").textContent = year;
const toc = document.createElement("nav");
toc.id = "pdf-toc";
toc.innerHTML = "<h2>Contents</h2><ol></ol>";
for (const chapter of chapters) {
  const li = document.createElement("li");
  const a = document.createElement("a");
  a.href = "#" + chapter.id;
  a.textContent = chapter.title;
  li.appendChild(a);
  toc.querySelector("ol").appendChild(li);
}
main.prepend(cover, toc);
return chapters.map((c) => c.title);
"""

# Runs in the page after the layout: the widgets' current styles (their print rules),
# then question.js, which defines LessonsQuestionPrint (its per-question part finds no
# question left to start), then the paper form of every question, chapter by chapter.
QUESTIONS_JS = """
const [css, script] = arguments;
const style = document.createElement("style");
style.textContent = css;
document.head.appendChild(style);
delete window.LessonsQuestionPrint;
new Function(script)();
const count = window.LessonsQuestionPrint.build(document);
return [count, document.querySelectorAll("[data-question-answers]").length];
"""

WAIT_JS = """
const done = arguments[arguments.length - 1];
const started = Date.now();
function whenLoaded() {
  // MathJax loads asynchronously: until then window.MathJax is only its configuration.
  if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
    if (Date.now() - started > 60000) return done("MathJax never loaded");
    return setTimeout(whenLoaded, 100);
  }
  const images = Array.from(document.images).map((img) => img.decode().catch(() => null));
  Promise.all([MathJax.startup.promise, ...images, document.fonts.ready])
    .then(() => done("typeset"))
    .catch((error) => done("error: " + error));
}
whenLoaded();
"""


def single_page(html_dir: Path) -> Path:
    """The page that holds the whole book: the root document of `_toc.yml`."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return html_dir / f"{toc['root']}.html"


def printable_copy(page: Path) -> Path:
    """Write `print.html` beside the single page, with the explorers' scripts switched off."""
    source = page.read_text(encoding="utf-8")
    printable, count = explorer_page.without_scripts(source)
    printable = PAGE_SCRIPT.sub("", printable)
    # The single page sits in book/ but names its assets as if it were at the top
    # (`_static/`, `_images/`), so the printed copy goes there.
    target = (
        page.parent.parent / "print.html"
        if page.parent.name == "book"
        else page.parent / "print.html"
    )
    target.write_text(printable, encoding="utf-8")
    print(f"{count} interactive explorer(s) will print their static table")
    return target


def question_assets() -> tuple[str, str]:
    """The styles (`core.css`, `question.css`) and `question.js` that give questions their paper form."""
    css = "".join(
        (ASSETS / name).read_text(encoding="utf-8") for name in ("core.css", "question.css")
    )
    return css, (ASSETS / "question.js").read_text(encoding="utf-8")


def browser():
    """Chromium through selenium (`kit/chromium.py`); nothing is downloaded."""
    binary, driver, missing = chromium.find()
    if missing:
        sys.exit(f"make pdf needs {', '.join(missing)} (apt-get install chromium chromium-driver)")
    return chromium.start(binary, driver)


def _cpu(driver) -> float:
    """CPU seconds the browser's processes used so far (the machine may be shared)."""
    try:
        import psutil

        root = psutil.Process(driver.service.process.pid)
        processes = [root, *root.children(recursive=True)]
        return sum(sum(p.cpu_times()[:2]) for p in processes if p.is_running())
    except Exception:  # psutil missing or a process gone: the timing is only informative
        return float("nan")


#: Seconds any one step (load, typeset, lay out, print) may take before `make pdf` gives up.
#: Printing the book took ~100 s on a busy 2-core machine; an old laptop may take several times that.
TIMEOUT = 1800
HEARTBEAT = 15  # seconds between the "still ..." lines of a long step


@contextmanager
def still_running(what: str, cpu: Callable[[], float], every: float = HEARTBEAT):
    """Print a line every `every` seconds while the body runs: the step is alive, not stuck."""
    done = threading.Event()
    start = time.perf_counter()

    def tick() -> None:
        while not done.wait(every):
            spent = time.perf_counter() - start
            print(f"  still {what}: {spent:.0f} s so far, {cpu():.0f} s of browser CPU", flush=True)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def browser_died(driver, step: str, error: Exception) -> SystemExit:
    """The message for a browser that stopped answering during `step`."""
    process = getattr(getattr(driver, "service", None), "process", None)
    code = process.poll() if process is not None else None
    if code is not None:
        cause = f"chromedriver exited with code {code}"
    else:
        cause = f"the browser stopped answering ({type(error).__name__}: {error})"
    return SystemExit(
        f"make pdf: {cause} while {step}. The browser may have run out of memory or been "
        "killed: close other programs and run `make pdf` again (a longer --timeout helps a "
        "slow machine; nothing else needs to change)."
    )


def print_pdf(page: Path, config: dict, timeout: float = TIMEOUT) -> tuple[bytes, list[str]]:
    """The printed book's bytes and the chapters laid out; each step may take `timeout` s."""
    driver = browser()
    # Selenium waits 120 s for any one answer by default: too short for a slow machine.
    driver.command_executor.client_config.timeout = timeout
    driver.set_script_timeout(timeout)
    driver.set_page_load_timeout(timeout)
    steps = Steps(driver)
    try:
        with steps("loading the page"):
            driver.get(page.as_uri())
        with steps("typesetting the math"):
            state = driver.execute_async_script(WAIT_JS)
        if state != "typeset":
            raise SystemExit(f"the page did not typeset its math: {state}")
        with steps("laying the pages out"):
            leftover = driver.execute_script(
                "return document.querySelectorAll('mjx-merror, .MathJax_Error').length"
            )
            if leftover:
                raise SystemExit(f"MathJax reported {leftover} error(s) in the book's formulas")
            chapters = driver.execute_script(
                LAYOUT_JS,
                config["title"],
                config.get("author", ""),
                str(config.get("copyright", "")),
                PRINT_CSS,
            )
            questions, sections = driver.execute_script(QUESTIONS_JS, *question_assets())
        print(f"  {questions} question(s) print with their answers in {sections} section(s)")
        footer = (
            '<div style="font-size:8pt;width:100%;text-align:center;color:#555">'
            '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
        )
        with steps("printing"):
            result = driver.execute_cdp_cmd(
                "Page.printToPDF",
                {
                    "printBackground": True,
                    "preferCSSPageSize": True,
                    "displayHeaderFooter": True,
                    "headerTemplate": "<div></div>",
                    "footerTemplate": footer,
                    "generateDocumentOutline": True,
                },
            )
        return base64.b64decode(result["data"]), chapters
    finally:
        driver.quit()


class Steps:
    """`with steps("printing"):` times a step, says every 15 s that it is still running, and
    turns a browser that died during it into a message that says so."""

    def __init__(self, driver) -> None:
        self.driver = driver
        self.clock = time.perf_counter()

    @contextmanager
    def __call__(self, what: str):
        try:
            with still_running(what, lambda: _cpu(self.driver)):
                yield
        except SystemExit:
            raise
        except Exception as error:  # selenium's or urllib3's: the browser is gone or stuck
            raise browser_died(self.driver, what, error) from error
        spent = time.perf_counter() - self.clock
        print(
            f"  {what}: done at {spent:.1f} s ({_cpu(self.driver):.0f} s of browser CPU)",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "singlehtml")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "pdf")
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT, help="seconds each step may take (1800)"
    )
    args = parser.parse_args(argv)
    page = single_page(args.html)
    if not page.exists():
        sys.exit(f"{page} is missing: build it with `make pdf`")
    start = time.perf_counter()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    data, chapters = print_pdf(printable_copy(page), config, args.timeout)
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / PDF_NAME
    target.write_bytes(data)
    print(f"{len(chapters)} chapters and pages printed in {time.perf_counter() - start:.1f} s")
    # The landing page links to the PDF beside the HTML book.
    html_book = ROOT / "_build" / "html"
    if html_book.is_dir():
        shutil.copy(target, html_book / PDF_NAME)
    print(f"The PDF is at {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
