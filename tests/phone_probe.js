/* tests/test_phone.py's measurements of one built page, as a phone or tablet shows it.
 * Called through selenium's execute_async_script; answers once MathJax has typeset, the page
 * has loaded and two frames have been drawn. */
const done = arguments[arguments.length - 1];
function settled() {
  const waits = [new Promise(r => (document.readyState === "complete" ? r() : addEventListener("load", r)))];
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) waits.push(MathJax.startup.promise);
  // Widgets that start late (chapter 12's, when the page is idle) are measured once drawn.
  const t0 = Date.now();
  const widgets = () => new Promise(r => (function poll() {
    const waiting = document.querySelectorAll("[data-lm-widget]:not([data-ready]), [data-explorer]:not([data-explorer-ready])");
    if (!waiting.length || Date.now() - t0 > 15000) r(); else setTimeout(poll, 50);
  })());
  return Promise.all(waits).then(widgets).then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
}
// The nearest box that cuts `el` off sideways, or null if all of it shows.
function clipper(el) {
  for (let e = el; e && e !== document.body; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (/(auto|scroll|hidden|clip)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1) return e;
  }
  return null;
}
// A cut-off box shows that it scrolls: it scrolls, and phone.css fades its hidden side.
function cued(e) {
  const s = getComputedStyle(e);
  const mask = s.maskImage || s.webkitMaskImage || "none";
  return /(auto|scroll)/.test(s.overflowX) && mask !== "none" && e.hasAttribute("data-scroll-cue");
}
function label(e) {
  return (e.getAttribute("aria-label") || e.textContent || e.tagName).replace(/\s+/g, " ").trim().slice(0, 60);
}
function measure() {
  const width = screen.width;
  const article = document.querySelector("article.bd-article") || document.body;
  const out = {
    width: width,
    layoutWidth: innerWidth,
    pageWidth: document.documentElement.scrollWidth,
    wide: [], math: [], tables: [], figures: [], targets: [], inputs: [],
  };
  if (out.pageWidth > width || innerWidth > width) {
    for (const e of document.body.querySelectorAll("*")) {
      const r = e.getBoundingClientRect();
      if (!r.width || r.right <= width + 1 || e.classList.contains("skip-link")) continue;
      if (e.closest(".bd-sidebar-secondary, .bd-sidebar-primary, dialog") || clipper(e.parentElement)) continue;
      out.wide.push([e.tagName, label(e), Math.round(r.right)]);
    }
  }
  article.querySelectorAll('mjx-container[display="true"]').forEach(m => {
    const s = clipper(m);
    if (s) out.math.push({tex: label(m.querySelector("mjx-assistive-mml") || m), shown: +(s.clientWidth / s.scrollWidth).toFixed(2), cue: cued(s)});
  });
  article.querySelectorAll("table").forEach(t => {
    const s = clipper(t);
    if (s) out.tables.push({table: label(t.caption || t), shown: +(s.clientWidth / s.scrollWidth).toFixed(2), cue: cued(s)});
  });
  article.querySelectorAll("img").forEach(i => {
    if (!i.naturalWidth || i.closest(".lw, .attn-explorer")) return;
    const button = i.closest("button.figure-zoom-open");
    out.figures.push({
      src: i.src.split("/").pop(),
      natural: i.naturalWidth,
      scale: i.getBoundingClientRect().width / i.naturalWidth,
      zoom: !!(button && !button.hidden && button.getBoundingClientRect().width > 0),
    });
  });
  article.querySelectorAll(".lw, .attn-explorer, [data-lm-widget]").forEach(root => {
    root.querySelectorAll('button, input, select, textarea, a[href], [role="button"]').forEach(t => {
      const r = t.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(t).visibility === "hidden") return;
      const holder = t.closest("label");
      const lr = holder ? holder.getBoundingClientRect() : r;
      const w = Math.max(r.width, lr.width), h = Math.max(r.height, lr.height);
      if (w < 24 || h < 24) out.targets.push([t.tagName.toLowerCase() + (t.type ? ":" + t.type : ""), label(t), Math.round(w), Math.round(h)]);
      if (/^(TEXTAREA|SELECT)$/.test(t.tagName) || (t.tagName === "INPUT" && /^(text|number|search|email)$/.test(t.type))) {
        const size = parseFloat(getComputedStyle(t).fontSize);
        if (size < 16) out.inputs.push([t.tagName.toLowerCase(), label(t), size]);
      }
    });
  });
  done(out);
}
settled().then(measure);
