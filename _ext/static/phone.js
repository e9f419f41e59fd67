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
 * 4. A table with the class `phone-cards` (`:::{table}` with `:class: phone-cards` in a
 *    page's Markdown) reads as one card per row on a phone (phone.css): each cell gets its
 *    column's name in `data-label`, shown above it, and the roles of a table, which some
 *    browsers drop from a table not displayed as one.
 * 5. MathJax typesets the page in batches of BATCH equations, each its own task, instead of
 *    all at once: one task of half a second on chapter 12 (two on a slow laptop), during
 *    which the page answers nothing. MathJax.startup.promise still resolves once all is
 *    typeset. This script runs before MathJax's (both are deferred, this one first).
 */
(function () {
  "use strict";

  var BATCH = 12;
  function typesetInBatches() {
    var config = window.MathJax;
    if (!config || config.version || (config.startup && config.startup.pageReady)) {
      return; // no MathJax on this page, MathJax already running, or another plan
    }
    config.startup = config.startup || {};
    config.startup.pageReady = function () {
      var equations = Array.prototype.slice.call(document.querySelectorAll(".math"));
      var at = 0;
      function next() {
        if (at >= equations.length) {
          // Whatever math sits outside Sphinx's .math elements (a notebook's output), in one
          // last pass over the page: what is typeset already is not found again.
          return MathJax.typesetPromise();
        }
        var batch = equations.slice(at, at + BATCH);
        at += BATCH;
        return MathJax.typesetPromise(batch)
          .then(function () {
            return new Promise(function (resolve) { setTimeout(resolve, 0); });
          })
          .then(next);
      }
      return next();
    };
  }
  typesetInBatches();

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

  // The regions inside `scope` (the whole page if none).
  function cueAll(scope) {
    var regions = Array.prototype.slice.call((scope || document).querySelectorAll(SCROLLERS));
    cues(regions);
    regions.forEach(watch);
  }

  // Once per frame: the whole page, or only the widgets that changed since the last frame
  // (a keystroke in chapter 12's widget need not measure every equation of the page).
  var pending = null;
  function cueSoon(scope) {
    var whole = !(scope instanceof Element);
    if (pending) {
      if (whole) pending.whole = true;
      else if (pending.scopes.indexOf(scope) < 0) pending.scopes.push(scope);
      return;
    }
    pending = { whole: whole, scopes: whole ? [] : [scope] };
    requestAnimationFrame(function () {
      var job = pending;
      pending = null;
      if (job.whole) cueAll();
      else job.scopes.forEach(cueAll);
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

  function labelCards() {
    document.querySelectorAll("table.phone-cards").forEach(function (table) {
      var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        th.setAttribute("role", "columnheader");
        return th.textContent.replace(/\s+/g, " ").trim();
      });
      table.setAttribute("role", "table");
      table.querySelectorAll("tr").forEach(function (row) {
        row.setAttribute("role", "row");
        Array.prototype.forEach.call(row.children, function (cell, k) {
          if (cell.tagName !== "TD") return;
          cell.setAttribute("role", "cell");
          if (names[k]) cell.setAttribute("data-label", names[k]);
        });
      });
      table.querySelectorAll("thead, tbody").forEach(function (group) {
        group.setAttribute("role", "rowgroup");
      });
    });
  }

  function start() {
    forwardToggles();
    labelCards();
    markFigures();
    cueAll();
    window.addEventListener("resize", function () {
      cueSoon(null);
      document.querySelectorAll("article.bd-article img").forEach(function (img) {
        if (!img.closest(".lw, .attn-explorer, .figure-zoom")) markFigure(img);
      });
    });
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(function () { cueSoon(null); });
    }
    window.addEventListener("load", function () { cueSoon(null); });
    // Widgets draw their matrices after the page has loaded, and redraw them on input.
    if (window.ResizeObserver) {
      var observer = new ResizeObserver(function () { cueSoon(null); });
      var article = document.querySelector("article.bd-article");
      if (article) observer.observe(article);
    }
    // A widget's matrices change when it redraws (after a keystroke, a click, a slider).
    if (window.MutationObserver) {
      document.querySelectorAll(".lw, .attn-explorer").forEach(function (widget) {
        new MutationObserver(function () { cueSoon(widget); }).observe(widget, {
          childList: true,
          subtree: true,
        });
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
