"""`make bench-pages`: how chapter 12 and the explorer load and answer, on a fast and a slow machine.

Serves the built book (`make book`) on localhost and opens each page in a fresh headless
chromium (`kit/chromium.py`), unthrottled and as a slow laptop (CPU x4 with DevTools'
`Emulation.setCPUThrottlingRate`; 150 ms latency and 1.6 Mb/s down with
`Network.emulateNetworkConditions`), the cache off. For each it prints:

- paint: first contentful paint (ms after navigation starts);
- ready: when the last widget on the page is ready (`data-ready` / `data-explorer-ready`);
- steps: when chapter 12's widget holds every training step's weights (`data-lm-loaded`:
  the page carries the step the widget starts on, a script it adds once idle the others,
  `_ext/lm_checkpoints.py`); the bytes and the rest are measured after it;
- bytes: the page and all it loads, decoded; sent: the same as sent, gzip-compressed as GitHub
  Pages sends text files (the server here does the same);
- longest: the longest main-thread task while loading (`longtask` entries; 0 if none over 50 ms);
- key: the main thread's time for one keystroke in chapter 12's text box (the input handler,
  plus the debounced forward pass and redraw once typing pauses), or for one step of the
  explorer's temperature slider (its redraw); the median of five (key) and the worst (max);
- checkpoint: chapter 12's first move to a checkpoint not yet decoded (decode, forward, redraw).

`BENCH_GZIP=0 make bench-pages` serves every file uncompressed instead;
`python -m kit bench-pages FOLDER` measures the book built in FOLDER (another build, for
an A/B comparison) instead of `_build/html`.
A benchmark, not a test: numbers vary from machine to machine and run to run.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import statistics
import sys
import threading
import time
from pathlib import Path

from kit import chromium
from lessons.book.widgets import explorer_page, lm_widget, widget

HTML = Path(__file__).resolve().parent.parent / "_build" / "html"  # or the first argument
PAGES = {
    "chapter 12": "book/12_language_model_on_real_text.html",
    "explorer": "book/explorer.html",
}
GZIP = os.environ.get("BENCH_GZIP", "1") != "0"  # BENCH_GZIP=0: every file as it is
SLOW = {"cpu": 4, "latency": 150, "down": 1.6e6 / 8, "up": 0.75e6 / 8}

# Runs before the page's own scripts: long tasks, when widgets become ready, and how long each
# timer callback set by a keystroke's handler runs (the debounced forward pass).
WATCH = """
window.__bench = {longest: 0, ready: 0, steps: null, timers: [], tag: false};
new PerformanceObserver(list => list.getEntries().forEach(e => {
  __bench.longest = Math.max(__bench.longest, e.duration);
})).observe({type: "longtask", buffered: true});
new MutationObserver(() => { __bench.ready = performance.now(); }).observe(document, {
  subtree: true, attributes: true, attributeFilter: ["@READY@", "@EXPLORER_READY@"]
});
new MutationObserver(records => records.forEach(r => {
  if (r.target.getAttribute("@LM_LOADED@") === "true") __bench.steps = performance.now();
})).observe(document, {subtree: true, attributes: true, attributeFilter: ["@LM_LOADED@"]});
const __setTimeout = window.setTimeout;
window.setTimeout = function (fn, ms, ...rest) {
  if (typeof fn !== "function" || !__bench.tag) return __setTimeout(fn, ms, ...rest);
  return __setTimeout(function () {
    const t = performance.now();
    try { return fn.apply(this, rest); } finally { __bench.timers.push(performance.now() - t); }
  }, ms);
};
"""

READY = """
const roots = document.querySelectorAll("@LM_ROOT@, @EXPLORER_ROOT@, @WIDGET_ROOT@");
return Array.from(roots).every(r => r.getAttribute("@READY@") === "true"
  || r.getAttribute("@EXPLORER_READY@") === "true");
"""

# Chapter 12's widget holds every step (a build that does not split its payload never sets
# data-lm-loaded).
STEPS = """
return Array.from(document.querySelectorAll("@LM_ROOT@")).every(
  r => r.getAttribute("@LM_LOADED@") !== "false");
"""

#: The widgets' attributes and roots, named by the modules that write them (never typed here).
MARKUP = {
    "@READY@": widget.READY,
    "@EXPLORER_READY@": explorer_page.READY,
    "@LM_LOADED@": lm_widget.LOADED,
    "@WIDGET_ROOT@": widget.ROOT_SELECTOR,
    "@EXPLORER_ROOT@": explorer_page.ROOT_SELECTOR,
    "@LM_ROOT@": lm_widget.ROOT_SELECTOR,
}


def with_markup(script: str) -> str:
    """``script`` with each ``@NAME@`` of ``MARKUP`` written in."""
    for name, value in MARKUP.items():
        script = script.replace(name, value)
    return script


WATCH, READY, STEPS = with_markup(WATCH), with_markup(READY), with_markup(STEPS)

LOADED = """
const nav = performance.getEntriesByType("navigation")[0];
const all = [nav].concat(performance.getEntriesByType("resource"));
const paint = performance.getEntriesByName("first-contentful-paint")[0];
return {paint: paint ? paint.startTime : null, ready: __bench.ready, steps: __bench.steps,
        longest: __bench.longest,
        bytes: all.reduce((s, e) => s + (e.decodedBodySize || 0), 0),
        sent: all.reduce((s, e) => s + (e.encodedBodySize || 0), 0), files: all.length};
"""

TYPE = """
const box = document.querySelector("[data-lm-text]");
const root = box.closest("[data-lm-widget]");
box.focus();
const done = arguments[arguments.length - 1];
const costs = [];
let k = 0;
function one() {
  if (k === 5) { done(costs); return; }
  __bench.timers.length = 0;
  const t = performance.now();
  box.value = box.value.slice(0, -1) + "abcde"[k++];
  __bench.tag = true;
  box.dispatchEvent(new Event("input", {bubbles: true}));
  __bench.tag = false;
  const handler = performance.now() - t;
  (function wait() {
    if (root.hasAttribute("data-lm-pending")) { setTimeout(wait, 20); return; }
    costs.push(handler + Math.max(0, ...__bench.timers));
    setTimeout(one, 50);
  })();
}
one();
"""

CHECKPOINT = """
const slider = document.querySelector("[data-lm-step]");
const t = performance.now();
slider.value = "0";
slider.dispatchEvent(new Event("input", {bubbles: true}));
return performance.now() - t;
"""

SLIDE = """
const costs = [];
document.querySelectorAll('[data-explorer] [data-control="temperature"]').forEach(s => {
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    s.value = String(1 + 0.25 * (k + 1));
    s.dispatchEvent(new Event("input", {bubbles: true}));
    costs.push(performance.now() - t);
  }
});
return costs;
"""


class _Served(http.server.SimpleHTTPRequestHandler):
    """The book as GitHub Pages serves it: text files gzip-compressed when the browser asks."""

    TEXT = (".html", ".css", ".js", ".svg", ".json", ".txt")
    cache: dict[str, bytes] = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if not (
            GZIP
            and path.suffix in self.TEXT
            and path.is_file()
            and "gzip" in self.headers.get("Accept-Encoding", "")
        ):
            return super().do_GET()
        body = self.cache.get(str(path))
        if body is None:
            body = self.cache[str(path)] = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def measure(driver, url: str, slow: bool, page: str) -> dict:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": SLOW["latency"] if slow else 0,
            "downloadThroughput": SLOW["down"] if slow else -1,
            "uploadThroughput": SLOW["up"] if slow else -1,
        },
    )
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": SLOW["cpu"] if slow else 1})
    driver.get(url)
    deadline = time.time() + 120
    while not driver.execute_script(READY) and time.time() < deadline:
        time.sleep(0.1)
    while not driver.execute_script(STEPS) and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    out = driver.execute_script(LOADED)
    if page == "chapter 12":
        keys = driver.execute_async_script(TYPE)
        out["checkpoint"] = driver.execute_script(CHECKPOINT)
    else:
        keys = driver.execute_script(SLIDE)
        out["checkpoint"] = None
    out["key"], out["key_max"] = statistics.median(keys), max(keys)
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
    return out


def main(argv: list[str] | None = None) -> int:
    global HTML
    if argv:
        HTML = Path(argv[0])
    if not (HTML / "index.html").exists():
        print("The book is not built: run `make book` first.")
        return 1
    binary, driver_path, missing = chromium.find()
    if missing:
        print(f"bench-pages needs {', '.join(missing)}")
        return 1
    server = http.server.ThreadingHTTPServer(
        ("localhost", 0), functools.partial(_Served, directory=str(HTML))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://localhost:{server.server_address[1]}/"
    rows = []
    try:
        for slow in (False, True):
            for page, path in PAGES.items():
                driver = chromium.start(binary, driver_path, window_size="1280,1000")
                try:
                    driver.set_page_load_timeout(180)
                    driver.execute_cdp_cmd(
                        "Page.addScriptToEvaluateOnNewDocument", {"source": WATCH}
                    )
                    rows.append((page, slow, measure(driver, base + path, slow, page)))
                finally:
                    driver.quit()
    finally:
        server.shutdown()
    head = f"{'page':<11} {'machine':<22} {'paint':>7} {'ready':>7} {'steps':>7} {'bytes':>11} {'sent':>11} {'files':>5} {'longest':>8} {'key':>6} {'max':>6} {'checkpoint':>10}"
    print(head)
    print("-" * len(head))

    def ms(x):
        return "-" if x is None else f"{x:.0f}"

    for page, slow, r in rows:
        machine = "CPU x4, 150 ms, 1.6 Mb/s" if slow else "unthrottled"
        print(
            f"{page:<11} {machine:<22} {ms(r['paint']):>7} {ms(r['ready']):>7} {ms(r['steps']):>7} {r['bytes']:>11,} {r['sent']:>11,} "
            f"{r['files']:>5} {ms(r['longest']):>8} {ms(r['key']):>6} {ms(r['key_max']):>6} {ms(r['checkpoint']):>10}"
        )
    print("(ms after navigation start, except bytes; key and checkpoint: ms of main thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
