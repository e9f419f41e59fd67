/* The core every lessons widget shares: find the root, read the JSON, build elements,
 * draw a matrix with its colour scale, and the keyboard. Plain JavaScript, no library.
 * widget.py inlines this file before each widget's own script; it defines
 * window.LessonsCore once, so a page with many widgets holds one copy in memory.
 */
(function () {
  "use strict";
  if (window.LessonsCore) {
    return;
  }

  // matplotlib's viridis at 17 evenly spaced points; colours in between are interpolated.
  var VIRIDIS = [
    [68, 1, 84], [72, 24, 106], [71, 45, 123], [66, 64, 134], [59, 82, 139], [51, 99, 141],
    [44, 114, 142], [38, 130, 142], [33, 145, 140], [31, 160, 136], [40, 174, 128],
    [63, 188, 115], [94, 201, 98], [132, 212, 75], [173, 220, 48], [216, 226, 25],
    [253, 231, 37],
  ];

  // The widget's root: the element that holds the running script. Some hosts run
  // scripts out of place (jQuery's .html()); then the newest root not yet started.
  // Returns null when there is nothing (left) to start.
  function start(script, attribute) {
    var root = script && script.parentElement;
    if (!root || !root.hasAttribute(attribute)) {
      var pending = document.querySelectorAll("[" + attribute + "]:not([data-ready])");
      root = pending.length ? pending[pending.length - 1] : null;
    }
    if (!root || root.hasAttribute("data-ready")) {
      return null;
    }
    return root;
  }

  // Mark a root as started (tests wait for data-ready="true") and drop the note shown
  // to readers whose viewer does not run the script.
  function ready(root) {
    Array.prototype.forEach.call(root.querySelectorAll("[data-static-note]"), function (note) {
      note.remove();
    });
    root.setAttribute("data-ready", "true");
  }

  // The JSON a widget embeds in <script type="application/json" ATTRIBUTE>.
  function readData(root, attribute) {
    var node = root.querySelector("script[" + attribute + "]");
    return node ? JSON.parse(node.textContent) : null;
  }

  // Say loudly (tests read the console) that the page disagrees with Python.
  function report(message) {
    console.error("lessons widget: " + message);
  }

  // element("td", {"data-cell": "0,1", text: "0.5"}, [children]): attributes, text, children.
  function element(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (name === "text") {
        node.textContent = value;
      } else if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, value === true ? "" : String(value));
      }
    });
    (children || []).forEach(function (child) {
      node.appendChild(child);
    });
    return node;
  }

  // The viridis colour of t in [0, 1] as [r, g, b].
  function viridis(t) {
    var x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
    var i = Math.min(VIRIDIS.length - 2, Math.floor(x));
    var f = x - i;
    return VIRIDIS[i].map(function (c, k) {
      return Math.round(c + f * (VIRIDIS[i + 1][k] - c));
    });
  }

  // Black or white, whichever reads better on the colour [r, g, b] (WCAG luminance).
  function inkOn(rgb) {
    var lin = rgb.map(function (c) {
      var s = c / 255;
      return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    });
    var luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return luminance > 0.179 ? "#000000" : "#ffffff";
  }

  // A table of values [r][c] coloured on the viridis scale from min to max, with its
  // caption and labels. Cells carry data-cell="i,j" and data-value (full precision).
  function matrixTable(values, options) {
    var min = options.min === undefined ? 0 : options.min;
    var max = options.max === undefined ? 1 : options.max;
    var digits = options.digits === undefined ? 2 : options.digits;
    var head = [element("td", { class: "lw-corner" })];
    (options.columns || []).forEach(function (label) {
      head.push(element("th", { scope: "col", text: label }));
    });
    var rows = values.map(function (row, i) {
      var cells = [element("th", { scope: "row", text: options.rows ? options.rows[i] : String(i) })];
      row.forEach(function (value, j) {
        var rgb = viridis(max > min ? (value - min) / (max - min) : 0);
        var cell = element("td", {
          "data-cell": i + "," + j,
          "data-value": String(value),
          text: value.toFixed(digits),
        });
        cell.style.backgroundColor = "rgb(" + rgb.join(", ") + ")";
        cell.style.color = inkOn(rgb);
        cells.push(cell);
      });
      return element("tr", {}, cells);
    });
    return element("table", { class: "lw-matrix", "data-matrix": options.name || null }, [
      element("caption", { text: options.caption || "" }),
      element("thead", {}, [element("tr", {}, head)]),
      element("tbody", {}, rows),
    ]);
  }

  // Keyboard: handlers by key name ("Enter", "ArrowUp" ...); a handler that returns
  // false lets the browser do its default as well. Modified keys are left alone.
  function onKeys(node, handlers) {
    node.addEventListener("keydown", function (event) {
      var handler = handlers[event.key];
      if (handler && !event.altKey && !event.ctrlKey && !event.metaKey) {
        if (handler(event) !== false) {
          event.preventDefault();
        }
      }
    });
  }

  // Up and down arrows move between the rows of a grid of inputs (row-major, `columns` wide).
  function gridKeys(inputs, columns) {
    inputs.forEach(function (input, k) {
      function move(step) {
        var target = inputs[k + step * columns];
        if (target) {
          target.focus();
        }
      }
      onKeys(input, {
        ArrowUp: function () {
          move(-1);
        },
        ArrowDown: function () {
          move(1);
        },
      });
    });
  }

  window.LessonsCore = {
    element: element,
    gridKeys: gridKeys,
    inkOn: inkOn,
    matrixTable: matrixTable,
    onKeys: onKeys,
    readData: readData,
    ready: ready,
    report: report,
    start: start,
    viridis: viridis,
  };
})();
