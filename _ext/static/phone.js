/* The book on a phone (issue 36), added to every page by _ext/phone.py.
 *
 * 1. The site menu and "On this page" open by tap. pydata-sphinx-theme 0.17.1 (pinned with
 *    sphinx-book-theme 1.3.0 in requirements.txt) binds its drawer to the first
 *    `.primary-toggle` and `.secondary-toggle` in the page: the hidden ones in #pst-header,
 *    not the buttons a reader sees in the article's header (upstream issue 2451,
 *    https://github.com/pydata/pydata-sphinx-theme/issues/2451). sphinx-book-theme's collapse
 *    of the sidebar on a wide screen is bound to the same hidden button. A press on a visible
 *    toggle is passed on to the bound one, so both themes' handlers do what they meant to.
 * 2. A region that scrolls sideways (a display equation, a table, a widget's matrix) says so:
 *    `data-scroll-cue` ("right", "left", "both") fades the side where more is hidden
 *    (phone.css), kept up to date as it scrolls; a keyboard can focus it to scroll it.
 * 3. A figure shown smaller than it was drawn opens at its full size with one tap, in a dialog
 *    that pans (nothing is fetched: the same image); Escape, the close button or a tap on the
 *    backdrop closes it.
 */
(function () {
  "use strict";

  function forwardToggles() {
    ["primary", "secondary"].forEach(function (side) {
      var toggles = document.querySelectorAll("." + side + "-toggle");
      var bound = toggles[0];
      Array.prototype.slice.call(toggles, 1).forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopPropagation();
          bound.click();
        });
      });
    });
  }

  var SCROLLERS = [
    'mjx-container[display="true"]',
    ".pst-scrollable-table-container",
    "div.cell_output .output",
    ".lw .lw-scroll",
    ".attn-explorer .ax-view",
    ".attn-explorer .ax-scroll",
    ".llm .llm-layer",
  ].join(",");

  // Read every region's widths first, then write: reading after a write would lay the
  // page out again for each region.
  function cues(regions) {
    var read = regions.map(function (region) {
      return [region.scrollWidth - region.clientWidth, region.scrollLeft];
    });
    regions.forEach(function (region, k) {
      var hidden = read[k][0];
      var at = read[k][1];
      var value = null;
      if (hidden > 1) {
        var left = at > 1;
        var right = at < hidden - 1;
        value = left && right ? "both" : left ? "left" : "right";
        if (!region.hasAttribute("tabindex")) region.setAttribute("tabindex", "0");
      }
      if (region.getAttribute("data-scroll-cue") !== value) {
        if (value) region.setAttribute("data-scroll-cue", value);
        else region.removeAttribute("data-scroll-cue");
      }
    });
  }

  function watch(region) {
    if (region.hasAttribute("data-scroll-watched")) return;
    region.setAttribute("data-scroll-watched", "");
    region.addEventListener("scroll", function () { cues([region]); }, { passive: true });
  }

  function cueAll() {
    var regions = Array.prototype.slice.call(document.querySelectorAll(SCROLLERS));
    cues(regions);
    regions.forEach(watch);
  }

  var pending = false;
  function cueSoon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      cueAll();
    });
  }

  function closeButton(dialog) {
    var close = document.createElement("button");
    close.type = "button";
    close.className = "figure-zoom-close";
    close.setAttribute("aria-label", "Close the enlarged figure");
    close.innerHTML =
      '<svg viewBox="0 0 16 16" width="20" height="20" aria-hidden="true">' +
      '<path d="M3 3l10 10M13 3L3 13" stroke="currentColor" stroke-width="2" fill="none"/></svg>';
    close.addEventListener("click", function () { dialog.close(); });
    return close;
  }

  var zoomDialog = null;
  function zoom(img) {
    if (!zoomDialog) {
      zoomDialog = document.createElement("dialog");
      zoomDialog.className = "figure-zoom";
      zoomDialog.setAttribute("aria-label", "Enlarged figure");
      zoomDialog.appendChild(closeButton(zoomDialog));
      var pane = document.createElement("div");
      pane.className = "figure-zoom-pane";
      zoomDialog.appendChild(pane);
      zoomDialog.addEventListener("click", function (event) {
        if (event.target === zoomDialog || event.target === pane) zoomDialog.close();
      });
      document.body.appendChild(zoomDialog);
    }
    var pane2 = zoomDialog.querySelector(".figure-zoom-pane");
    var big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    big.width = img.naturalWidth;
    big.height = img.naturalHeight;
    pane2.replaceChildren(big);
    zoomDialog.showModal();
    pane2.scrollLeft = 0;
    watch(pane2);
    if (big.complete) cues([pane2]);
    else big.addEventListener("load", function () { cues([pane2]); }, { once: true });
  }

  function markFigure(img) {
    if (!img.naturalWidth) return;
    var shrunk = img.naturalWidth > img.clientWidth * 1.05;
    var button = img.parentElement.classList.contains("figure-zoom-open") ? img.parentElement : null;
    if (shrunk && !button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "figure-zoom-open";
      button.setAttribute("aria-label", "Enlarge the figure" + (img.alt ? ": " + img.alt : ""));
      img.parentElement.insertBefore(button, img);
      button.appendChild(img);
      button.addEventListener("click", function () { zoom(img); });
    }
    if (button) button.hidden = false;
    if (button) button.toggleAttribute("data-shrunk", shrunk);
  }

  function markFigures() {
    document.querySelectorAll("article.bd-article img").forEach(function (img) {
      if (img.closest(".lw, .attn-explorer, .figure-zoom")) return;
      if (img.complete) markFigure(img);
      else img.addEventListener("load", function () { markFigure(img); }, { once: true });
    });
  }

  function start() {
    forwardToggles();
    markFigures();
    cueAll();
    window.addEventListener("resize", function () {
      cueSoon();
      document.querySelectorAll("article.bd-article img").forEach(function (img) {
        if (!img.closest(".lw, .attn-explorer, .figure-zoom")) markFigure(img);
      });
    });
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(cueSoon);
    }
    window.addEventListener("load", cueSoon);
    // Widgets draw their matrices after the page has loaded, and redraw them on input.
    if (window.ResizeObserver) {
      var observer = new ResizeObserver(cueSoon);
      var article = document.querySelector("article.bd-article");
      if (article) observer.observe(article);
    }
    document.addEventListener("input", cueSoon, true);
    document.addEventListener("click", cueSoon, true);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
