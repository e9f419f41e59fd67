/* The attention explorer of lessons.explorer: plain JavaScript, no library, no network.
 * explorer.py inlines this file after the widget's JSON data. The script finds
 * its own root (the element that holds it), so several widgets on one page stay
 * independent, and it computes every stage in the browser from the embedded Q, K, V.
 * The DOM contract that tests rely on is documented in README.md.
 */
(function (script) {
  "use strict";

  var root = script && script.parentElement;
  if (!root || !root.hasAttribute("data-explorer")) {
    // Some hosts run scripts out of place (jQuery's .html()): take the newest widget left.
    var pending = document.querySelectorAll("[data-explorer]:not([data-explorer-ready])");
    root = pending.length ? pending[pending.length - 1] : null;
  }
  if (!root || root.hasAttribute("data-explorer-ready")) {
    return;
  }
  var dataNode = root.querySelector("script[data-explorer-data]");
  if (!dataNode) {
    return;
  }
  var data = JSON.parse(dataNode.textContent);

  var ALL_STAGES = [
    { id: "embeddings", label: "Embeddings" },
    { id: "qkv", label: "Q, K, V" },
    { id: "scores", label: "Scores" },
    { id: "scaled", label: "Scaled" },
    { id: "masked", label: "Masked" },
    { id: "weights", label: "Weights" },
    { id: "output", label: "Output" },
  ];
  var STAGES = ALL_STAGES.filter(function (s) {
    return s.id !== "embeddings" || data.X;
  });
  var STAGE_IDS = STAGES.map(function (s) {
    return s.id;
  });

  // matplotlib's viridis at 17 evenly spaced points; colours in between are interpolated.
  var VIRIDIS = [
    [68, 1, 84], [72, 24, 106], [71, 45, 123], [66, 64, 134], [59, 82, 139], [51, 99, 141],
    [44, 114, 142], [38, 130, 142], [33, 145, 140], [31, 160, 136], [40, 174, 128],
    [63, 188, 115], [94, 201, 98], [132, 212, 75], [173, 220, 48], [216, 226, 25],
    [253, 231, 37],
  ];

  var tokens = data.tokens;
  var n = tokens.length;
  var defaults = data.defaults;
  // Padding mode only when the explorer was made with length=k (defaults.length).
  var padding = typeof defaults.length === "number";
  var state = {
    stage: defaults.stage,
    scale: defaults.scale,
    causal: defaults.causal,
    temperature: defaults.temperature,
    head: defaults.head,
    length: padding ? defaults.length : n,
    pad_queries: padding ? defaults.pad_queries : false,
    selected: null,
  };

  // ---------------------------------------------------------------- the arithmetic

  function scoresOf(Q, K) {
    // S = Q K^T, [n_q, n_k]
    return Q.map(function (q) {
      return K.map(function (k) {
        var s = 0;
        for (var c = 0; c < q.length; c++) {
          s += q[c] * k[c];
        }
        return s;
      });
    });
  }

  function softmaxRow(row) {
    // Stable softmax over the finite entries; -Infinity (masked) gets exactly 0.
    var peak = -Infinity;
    row.forEach(function (z) {
      if (z > peak) {
        peak = z;
      }
    });
    if (peak === -Infinity) {
      return row.map(function () {
        return 0;
      });
    }
    var exps = row.map(function (z) {
      return z === -Infinity ? 0 : Math.exp(z - peak);
    });
    var total = exps.reduce(function (a, b) {
      return a + b;
    }, 0);
    return exps.map(function (e) {
      return e / total;
    });
  }

  function realLength(settings) {
    // Tokens 0..length-1 are real, the rest padding (all real without padding mode).
    return typeof settings.length === "number" ? settings.length : n;
  }

  function allowed(settings, i, j) {
    var k = realLength(settings);
    if (j >= k || (settings.pad_queries && i >= k)) {
      return false;
    }
    return !settings.causal || j <= i;
  }

  function blockedRow(settings, i) {
    // A padded query with pad_queries on: nothing is left to attend to.
    return Boolean(settings.pad_queries) && i >= realLength(settings);
  }

  function isPadded() {
    return padding && state.length < n;
  }

  function paddingText() {
    // The padding part of the masked stage's formula.
    var k = state.length;
    return "M_ij = \u2212\u221e where key j \u2265 " + k + " (padding)" +
      (state.pad_queries ? " or query i \u2265 " + k : "");
  }

  function compute(head, settings) {
    var Q = head.Q;
    var K = head.K;
    var V = head.V;
    var dk = Q[0].length;
    var dv = V[0].length;
    var divisor = (settings.scale ? Math.sqrt(dk) : 1) * settings.temperature;
    var S = scoresOf(Q, K);
    var Z = S.map(function (row) {
      return row.map(function (s) {
        return s / divisor;
      });
    });
    var M = Z.map(function (row, i) {
      return row.map(function (z, j) {
        return allowed(settings, i, j) ? z : -Infinity;
      });
    });
    var A = M.map(softmaxRow);
    var O = A.map(function (a) {
      var out = [];
      for (var c = 0; c < dv; c++) {
        var s = 0;
        for (var j = 0; j < a.length; j++) {
          s += a[j] * V[j][c];
        }
        out.push(s);
      }
      return out;
    });
    return { Q: Q, K: K, V: V, S: S, Z: Z, M: M, A: A, O: O, dk: dk, dv: dv };
  }

  // The page must agree with lessons.attention, whose weights for the default settings
  // are embedded: say so loudly (tests read the console) if it does not.
  data.heads.forEach(function (head, h) {
    var A = compute(head, defaults).A;
    var expected = data.reference.weights[h];
    var worst = 0;
    A.forEach(function (row, i) {
      row.forEach(function (a, j) {
        worst = Math.max(worst, Math.abs(a - expected[i][j]));
      });
    });
    if (!(worst < 1e-8)) {
      console.error(
        "attention explorer: head " + h + " differs from lessons.attention by " + worst
      );
    }
  });

  // ---------------------------------------------------------------- formatting

  function fmt(v, digits) {
    if (v === -Infinity) {
      return "\u2212\u221e";
    }
    var s = v.toFixed(digits);
    if (/^-0(\.0*)?$/.test(s)) {
      s = s.slice(1);
    }
    return s.replace("-", "\u2212");
  }

  function digitsFor(M) {
    // Integers print as integers (the hand-worked examples), other numbers with 2 decimals.
    var allIntegers = M.every(function (row) {
      return row.every(function (v) {
        return v === -Infinity || Math.abs(v - Math.round(v)) < 1e-9;
      });
    });
    return allIntegers ? 0 : 2;
  }

  var MAX_COLUMNS = 8;

  function shownColumns(count) {
    // Wide matrices show their first six columns, an ellipsis (-1) and the last one.
    var shown = [];
    for (var c = 0; c < count; c++) {
      if (count <= MAX_COLUMNS || c < MAX_COLUMNS - 2 || c === count - 1) {
        shown.push(c);
      } else if (c === MAX_COLUMNS - 2) {
        shown.push(-1);
      }
    }
    return shown;
  }

  function vector(values, digits) {
    return (
      "(" +
      shownColumns(values.length)
        .map(function (c) {
          return c < 0 ? "\u2026" : fmt(values[c], digits);
        })
        .join(", ") +
      ")"
    );
  }

  function colourOf(t) {
    var x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
    var lo = Math.floor(x);
    var hi = Math.min(lo + 1, VIRIDIS.length - 1);
    var f = x - lo;
    return VIRIDIS[lo].map(function (c, k) {
      return Math.round(c + f * (VIRIDIS[hi][k] - c));
    });
  }

  function luminance(rgb) {
    var lin = rgb.map(function (c) {
      var s = c / 255;
      return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }

  function textOn(rgb) {
    // Black or white, whichever contrasts more (at least 4.58:1 on any colour).
    var L = luminance(rgb);
    return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? "#000000" : "#ffffff";
  }

  function rgbText(rgb) {
    return "rgb(" + rgb.join(", ") + ")";
  }

  function rangeOf(M) {
    var lo = Infinity;
    var hi = -Infinity;
    M.forEach(function (row) {
      row.forEach(function (v) {
        if (v !== -Infinity) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      });
    });
    if (lo === Infinity) {
      return [0, 1];
    }
    return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
  }

  // ---------------------------------------------------------------- building the DOM

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) {
        return;
      }
      if (key === "class") {
        node.className = value;
      } else if (key === "style") {
        Object.keys(value).forEach(function (prop) {
          node.style.setProperty(prop, value[prop]);
        });
      } else if (key.slice(0, 2) === "on") {
        node.addEventListener(key.slice(2), value);
      } else {
        node.setAttribute(key, value === true ? "" : String(value));
      }
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) {
        return;
      }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function isolated(text) {
    // A reader's text in its own direction: a right-to-left token (or a stray U+202E)
    // cannot reorder the numbers and words around it.
    return el("bdi", {}, [text]);
  }

  function label(text, index) {
    // A token named by its position ("0", "1", ...) needs no second index.
    if (text === String(index)) {
      return [isolated(text)];
    }
    return [isolated(text), el("span", { class: "ax-idx" }, [String(index)])];
  }

  function tokenButton(table, i) {
    var pressed = state.selected === i;
    return el(
      "button",
      {
        type: "button",
        class: "ax-token",
        "data-token": i,
        "data-focus-key": table + ":" + i,
        "aria-pressed": pressed ? "true" : "false",
        // U+2068 ... U+2069 isolate the token's direction inside the tooltip.
        title: "Follow token " + i + " (\u2068" + tokens[i] + "\u2069)",
      },
      label(tokens[i], i)
    );
  }

  /* One labelled matrix as a table. spec: name, caption, values, columns (labels; null
   * for "key token j"), range, digits, kind ("weights" or "cells"), masked(i, j), rowSums,
   * rows ("query": token buttons that select the row; "key": token labels), and lead
   * (an optional first column {header, values} in plain text). */
  function matrix(spec) {
    var head = [el("th", { scope: "col", class: "ax-corner" }, [spec.corner || ""])];
    if (spec.lead) {
      head.push(el("th", { scope: "col", class: "ax-lead" }, [spec.lead.header]));
    }
    var shown = spec.columns.indexOf(null) >= 0
      ? spec.columns.map(function (c, j) { return j; })
      : shownColumns(spec.columns.length);
    shown.forEach(function (j) {
      var c = spec.columns[j];
      if (j < 0) {
        head.push(el("th", { scope: "col", title: spec.columns.length + " columns" }, ["\u2026"]));
      } else {
        head.push(el("th", { scope: "col" }, c === null ? label(tokens[j], j) : [isolated(String(c))]));
      }
    });
    if (spec.rowSums) {
      head.push(el("th", { scope: "col", class: "ax-sum", title: "row sum" }, ["sum"]));
    }
    var lo = spec.range[0];
    var hi = spec.range[1];
    var rows = spec.values.map(function (row, i) {
      var selected = state.selected === i && spec.rows === "query";
      var cells = [
        el("th", { scope: "row" }, [
          spec.rows === "query"
            ? tokenButton(spec.name, i)
            : el("span", { class: "ax-key" }, label(tokens[i], i)),
        ]),
      ];
      if (spec.lead) {
        cells.push(el("td", { class: "ax-lead" }, [spec.lead.values[i]]));
      }
      shown.forEach(function (j) {
        if (j < 0) {
          cells.push(el("td", { class: "ax-more" }, ["\u2026"]));
          return;
        }
        var v = row[j];
        var masked = spec.masked ? spec.masked(i, j) : false;
        var attrs = {
          "data-value": String(v),
          "data-masked": masked ? "true" : null,
          class: masked ? "is-masked" : null,
        };
        attrs[spec.kind === "weights" ? "data-weight" : "data-cell"] = i + "," + j;
        if (!masked) {
          var rgb = colourOf((v - lo) / (hi - lo));
          attrs.style = { "background-color": rgbText(rgb), color: textOn(rgb) };
        }
        var shownValue = masked && spec.kind === "weights" ? "0" : fmt(v, spec.digits);
        cells.push(el("td", attrs, [shownValue]));
      });
      if (spec.rowSums) {
        var total = row.reduce(function (a, b) {
          return a + b;
        }, 0);
        var empty = spec.blocked ? spec.blocked(i) : false;
        cells.push(
          el("td", {
            class: "ax-sum", "data-row-sum": i, "data-value": String(total),
            "data-blocked": empty ? "true" : null,
            title: empty ? "nothing left to attend to" : null,
          }, [fmt(total, 3), empty ? el("span", { class: "ax-blocked" }, [" nothing to attend to"]) : null])
        );
      }
      return el("tr", { "data-row": i, class: selected ? "is-selected" : null }, cells);
    });
    // Key tokens as column headers: turned upright when side by side they would not fit.
    var width = 0;
    spec.columns.forEach(function (c, j) {
      width += c === null ? Math.max(46, 8 * tokens[j].length + 22) : 46;
    });
    var vertical = width > 470 && spec.columns.indexOf(null) >= 0;
    var tableClass = "ax-matrix" + (vertical ? " ax-vertical" : "");
    return el("table", { class: tableClass, "data-matrix": spec.name }, [
      el("caption", {}, spec.caption),
      el("thead", {}, [el("tr", {}, head)]),
      el("tbody", {}, rows),
    ]);
  }

  function indices(count) {
    var out = [];
    for (var k = 0; k < count; k++) {
      out.push(String(k));
    }
    return out;
  }

  function keyColumns() {
    return tokens.map(function () {
      return null;
    });
  }

  function shape(names, sizes) {
    return "[" + names.join(", ") + "] = [" + sizes.join(", ") + "]";
  }

  // ---------------------------------------------------------------- the stages

  function divisorText(r) {
    var parts = [];
    var values = [];
    if (state.scale) {
      parts.push("\u221ad_k");
      values.push(fmt(Math.sqrt(r.dk), 3));
    }
    if (state.temperature !== 1) {
      parts.push("T");
      values.push(fmt(state.temperature, 2));
    }
    if (!parts.length) {
      return null;
    }
    return parts.length === 1
      ? parts[0] + " = S / " + values[0]
      : "(" + parts.join(" \u00b7 ") + ") = S / (" + values.join(" \u00b7 ") + ")";
  }

  function stageView(r) {
    var nn = shape(["n_q", "n_k"], [n, n]);
    var sd = digitsFor(r.S);
    switch (state.stage) {
      case "embeddings": {
        var dm = data.X[0].length;
        return {
          formula: "X   " + shape(["n", "d_model"], [n, dm]),
          explain:
            "Each token starts as a vector of d_model numbers, its embedding: one row per token.",
          tables: [
            {
              name: "X",
              caption: ["X: embeddings"],
              corner: "token",
              values: data.X,
              columns: data.features || indices(dm),
              digits: digitsFor(data.X),
            },
          ],
        };
      }
      case "qkv": {
        var qk = shape(["n", "d_k"], [n, r.dk]);
        return {
          formula:
            (data.projected ? "Q = X W_Q, K = X W_K, V = X W_V   " : "") +
            "Q, K: " + qk + "   V: " + shape(["n", "d_v"], [n, r.dv]),
          explain:
            "Each token has a query (what it looks for), a key (what it offers) and a value " +
            "(what it hands over)" +
            (data.projected ? ", three projections of its embedding." : "."),
          tables: [
            { name: "Q", caption: ["Q: queries"], values: r.Q, digits: digitsFor(r.Q) },
            { name: "K", caption: ["K: keys"], values: r.K, digits: digitsFor(r.K) },
            { name: "V", caption: ["V: values"], values: r.V, digits: digitsFor(r.V) },
          ].map(function (t) {
            t.corner = "token";
            t.columns = indices(t.values[0].length);
            return t;
          }),
        };
      }
      case "scores":
        return {
          formula: "S = Q K\u1d40   " + nn,
          explain:
            "Entry (i, j) is the dot product q_i \u00b7 k_j: how well query i matches key j.",
          tables: [
            { name: "S", caption: ["S: scores"], values: r.S, digits: sd },
          ],
        };
      case "scaled": {
        var div = divisorText(r);
        var explain = state.scale
          ? "Dividing by \u221ad_k keeps the spread of the scores from growing with d_k."
          : "Scaling is off: the raw scores go to the softmax, which gets sharper as d_k grows.";
        if (state.temperature !== 1) {
          explain +=
            " The temperature T divides them too: T < 1 sharpens the weights, T > 1 flattens them.";
        }
        return {
          formula: (div ? "Z = S / " + div : "Z = S (no scaling)") + "   " + nn,
          explain: explain,
          tables: [
            { name: "Z", caption: ["Z: scaled scores"], values: r.Z, digits: div ? 2 : sd },
          ],
        };
      }
      case "masked": {
        var parts = [];
        if (state.causal) {
          parts.push("M_ij = \u2212\u221e where j > i");
        }
        if (isPadded()) {
          parts.push(paddingText());
        }
        var maskExplain = state.causal
          ? "The causal mask blocks every key after the query (j > i): \u2212\u221e there, " +
            "so the softmax gives it weight 0."
          : isPadded()
            ? ""
            : "No mask: every query may look at every key. " +
              "Turn on the causal mask to block later keys.";
        if (isPadded()) {
          maskExplain += (maskExplain ? " " : "") +
            "The padding mask blocks the padded keys (" +
            (state.length === n - 1 ? "token " : "tokens " + state.length + "\u2013") +
            (n - 1) + "): no query may look at them" +
            (state.pad_queries
              ? "; the padded queries' rows are blocked too, so they have nothing left to " +
                "attend to."
              : ".");
        }
        return {
          formula: parts.length
            ? "Z_masked = Z + M,  " + parts.join(", ") + ", else 0   " + nn
            : "Z_masked = Z (no mask)   " + nn,
          explain: maskExplain,
          tables: [
            {
              name: "masked",
              caption: ["Z_masked: scores after the mask"],
              values: r.M,
              digits: divisorText(r) ? 2 : sd,
              masked: function (i, j) {
                return !allowed(state, i, j);
              },
            },
          ],
        };
      }
      case "weights":
        return {
          formula:
            "A = softmax(Z_masked), row by row" +
            (isPadded()
              ? ", padding from token " + state.length + (state.pad_queries ? " (keys and queries)" : " (keys)")
              : "") +
            "   " + nn,
          explain:
            "The softmax turns each row into positive weights that sum to 1." +
            (isPadded() ? " Padded keys get exactly 0." : "") +
            (isPadded() && state.pad_queries
              ? " A padded query's row is all masked: nothing is left to attend to, so " +
                "lessons.attention gives it all 0 (row sum 0)."
              : ""),
          tables: [
            {
              name: "weights",
              kind: "weights",
              caption: ["A: attention weights"],
              values: r.A,
              digits: 3,
              range: [0, 1],
              rowSums: true,
              masked: function (i, j) {
                return !allowed(state, i, j);
              },
              blocked: function (i) {
                return blockedRow(state, i);
              },
            },
          ],
        };
      default: {
        var i = state.selected;
        return {
          formula: "O = A V   " + shape(["n_q", "d_v"], [n, r.dv]),
          explain:
            "Each output row is a weighted average of the value rows, " +
            "with that row of A as the weights.",
          tables: [
            {
              name: "V",
              caption: ["V: values"],
              corner: "key",
              rows: "key",
              lead:
                i === null
                  ? null
                  : {
                      header: "a_" + i + ",j",
                      values: r.A[i].map(function (a, j) {
                        return allowed(state, i, j) ? fmt(a, 3) : "0";
                      }),
                    },
              values: r.V,
              columns: indices(r.dv),
              digits: digitsFor(r.V),
            },
            {
              name: "O",
              caption: ["O = A V: outputs"],
              corner: "query",
              values: r.O,
              columns: indices(r.dv),
              digits: 3,
            },
          ],
        };
      }
    }
  }

  function detail(r) {
    var i = state.selected;
    if (i === null) {
      return [
        el("p", { class: "ax-hint" }, [
          "Click a query token (a row label) to follow its row: its row sum, and its " +
            "output as a weighted sum of the value rows.",
        ]),
      ];
    }
    var name = tokens[i] === String(i)
      ? ["query " + i]
      : ["query " + i + " \u201c", isolated(tokens[i]), "\u201d"];
    var sd = digitsFor(r.S);
    var line;
    switch (state.stage) {
      case "embeddings":
        line = "x_" + i + " = " + vector(data.X[i], digitsFor(data.X));
        break;
      case "qkv":
        line =
          "q_" + i + " = " + vector(r.Q[i], digitsFor(r.Q)) + ",  k_" + i + " = " +
          vector(r.K[i], digitsFor(r.K)) + ",  v_" + i + " = " + vector(r.V[i], digitsFor(r.V));
        break;
      case "scores":
        if (r.dk <= 3 && n <= 5) {
          // Small enough to write every dot product out, as on paper.
          var qd = digitsFor(r.Q);
          var kd = digitsFor(r.K);
          line = r.K.map(function (k, j) {
            var terms = r.Q[i].map(function (q, c) {
              return fmt(q, qd) + "\u00b7" + fmt(k[c], kd);
            });
            var product = "q_" + i + " \u00b7 k_" + j;
            return product + " = " + terms.join(" + ") + " = " + fmt(r.S[i][j], sd);
          }).join(";  ");
        } else {
          line = "s_" + i + " = (q_" + i + " \u00b7 k_0, \u2026, q_" + i + " \u00b7 k_" + (n - 1) +
            ") = " + vector(r.S[i], sd);
        }
        break;
      case "scaled":
        line = "z_" + i + " = " + vector(r.Z[i], divisorText(r) ? 2 : sd);
        break;
      case "masked":
        if (isPadded()) {
          var open = [];
          for (var j = 0; j < n; j++) {
            if (allowed(state, i, j)) {
              open.push(j);
            }
          }
          line = open.length
            ? "query " + i + " may look at keys " + open.join(", ") +
              "; the others are blocked (\u2212\u221e), padding from key " + state.length
            : "query " + i + " is padding and its whole row is blocked: nothing is left " +
              "to attend to";
        } else {
          line = state.causal
            ? "query " + i + " may look at keys 0\u2013" + i +
              (i < n - 1
                ? "; keys " + (i + 1) + "\u2013" + (n - 1) + " are blocked (\u2212\u221e)"
                : "; nothing after it is blocked")
            : "no mask: query " + i + " may look at all " + n + " keys";
        }
        break;
      case "weights":
        // With a mask on, the softmax reads the masked row, as the stage's formula says.
        line = "a_" + i + " = softmax(" +
          (state.causal || isPadded() ? "row " + i + " of Z_masked" : "z_" + i) +
          ") = " + vector(r.A[i], 3);
        break;
      default:
        line = "row " + i + " of A weighs the value rows (the column a_" + i + ",j next to V)";
    }
    var kept = [];
    r.A[i].forEach(function (a, j) {
      if (allowed(state, i, j)) {
        kept.push(j);
      }
    });
    var total = r.A[i].reduce(function (a, b) {
      return a + b;
    }, 0);
    var terms = kept
      .map(function (j) {
        return fmt(r.A[i][j], 3) + "\u00b7v_" + j;
      })
      .join(" + ");
    if (!kept.length) {
      terms = "0";
    }
    return [
      el("p", { "data-detail": "stage" }, [el("strong", {}, name.concat([": "])), line]),
      el("p", { "data-detail": "row-sum", "data-value": String(total) }, [
        kept.length
          ? "Row " + i + " of A sums to " + fmt(total, 3) + ": " +
            kept.map(function (j) { return fmt(r.A[i][j], 3); }).join(" + ") +
            (kept.length < n ? " (masked keys get exactly 0)" : "") + "."
          : "Row " + i + " of A sums to 0: every key is masked, so nothing is left to attend " +
            "to and lessons.attention gives the row all 0 (PyTorch's nn.MultiheadAttention " +
            "gives NaN there).",
      ]),
      el("p", { "data-detail": "output" }, [
        el("code", {}, ["out_" + i + " = " + terms + " = " + vector(r.O[i], 3)]),
      ]),
    ];
  }

  // ---------------------------------------------------------------- controls

  var stageButtons = STAGES.map(function (s, k) {
    return el(
      "button",
      {
        type: "button",
        "data-stage": s.id,
        "aria-pressed": "false",
        onclick: function () {
          setStage(s.id, false);
        },
      },
      [el("span", { class: "ax-step-no" }, [String(k + 1)]), " " + s.label]
    );
  });
  var stageGroup = el(
    "div",
    {
      class: "ax-stages",
      role: "group",
      "aria-label": "Stage (left and right arrow keys step through)",
      "data-control": "stage",
      onkeydown: function (event) {
        // From the focused stage button (the current stage if none has the focus).
        var focused = event.target.closest ? event.target.closest("[data-stage]") : null;
        var at = STAGE_IDS.indexOf(focused ? focused.getAttribute("data-stage") : state.stage);
        var to = {
          ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
          Home: 0, End: STAGE_IDS.length - 1,
        }[event.key];
        if (to === undefined) {
          return;
        }
        event.preventDefault();
        setStage(STAGE_IDS[Math.max(0, Math.min(STAGE_IDS.length - 1, to))], true);
      },
    },
    stageButtons
  );
  var prevButton = el("button", {
    type: "button", class: "ax-arrow", "aria-label": "Previous stage", "data-step": "-1",
    onclick: function () { step(-1); },
  }, ["\u25c0"]);
  var nextButton = el("button", {
    type: "button", class: "ax-arrow", "aria-label": "Next stage", "data-step": "1",
    onclick: function () { step(1); },
  }, ["\u25b6"]);

  var scaleBox = el("input", {
    type: "checkbox", "data-control": "scale",
    onchange: function () { state.scale = scaleBox.checked; render(); },
  });
  var causalBox = el("input", {
    type: "checkbox", "data-control": "causal",
    onchange: function () { state.causal = causalBox.checked; render(); },
  });
  var lengthSlider = null;
  var lengthShown = null;
  var padQueriesBox = null;
  if (padding) {
    lengthShown = el("output", { class: "ax-temp" }, []);
    var onLength = function () {
      var k = parseInt(lengthSlider.value, 10);
      if (k >= 1 && k <= n) {
        state.length = k;
        render();
      }
    };
    lengthSlider = el("input", {
      type: "range", "data-control": "length", min: 1, max: n, step: 1,
      oninput: onLength, onchange: onLength,
    });
    padQueriesBox = el("input", {
      type: "checkbox", "data-control": "pad-queries",
      onchange: function () { state.pad_queries = padQueriesBox.checked; render(); },
    });
  }
  var range = data.temperature_range;
  var temperatureShown = el("output", { class: "ax-temp" }, []);
  function onTemperature() {
    var t = parseFloat(temperatureSlider.value);
    if (t > 0) {
      state.temperature = t;
      render();
    }
  }
  var temperatureSlider = el("input", {
    type: "range", "data-control": "temperature",
    min: range[0], max: range[1], step: range[2],
    oninput: onTemperature, onchange: onTemperature,
  });
  var headSelect = null;
  if (data.heads.length > 1) {
    headSelect = el("select", {
      "data-control": "head",
      onchange: function () { state.head = parseInt(headSelect.value, 10); render(); },
    }, data.heads.map(function (h, k) {
      return el("option", { value: k }, [h.label]);
    }));
  }
  var resetButton = el("button", {
    type: "button", "data-control": "reset",
    onclick: function () {
      Object.keys(defaults).forEach(function (key) { state[key] = defaults[key]; });
      state.selected = null;
      render();
    },
  }, ["Reset"]);

  var formula = el("p", { class: "ax-formula" }, []);
  var explain = el("p", { class: "ax-explain" }, []);
  var view = el("div", {
    class: "ax-view",
    onclick: function (event) {
      var button = event.target.closest("button[data-token]");
      if (!button || !view.contains(button)) {
        return;
      }
      var i = parseInt(button.getAttribute("data-token"), 10);
      state.selected = state.selected === i ? null : i;
      render();
    },
  }, []);
  var legend = el("div", { class: "ax-legend", "aria-hidden": "true" }, []);
  var details = el("div", { class: "ax-detail", "data-detail": "", "aria-live": "polite" }, []);

  function setStage(id, focus) {
    state.stage = id;
    render();
    if (focus) {
      stageButtons[STAGE_IDS.indexOf(id)].focus();
    }
  }

  function step(delta) {
    var at = STAGE_IDS.indexOf(state.stage) + delta;
    if (at >= 0 && at < STAGE_IDS.length) {
      state.stage = STAGE_IDS[at];
      render();
    }
  }

  function renderLegend(spec, several) {
    var stops = [];
    for (var k = 0; k <= 8; k++) {
      stops.push(rgbText(colourOf(k / 8)) + " " + (k * 12.5) + "%");
    }
    var masked = (state.causal || isPadded()) && (state.stage === "masked" || state.stage === "weights");
    var parts = [
      el("span", {}, [
        spec.kind === "weights" ? "0" : several ? "low" : fmt(spec.range[0], spec.digits),
      ]),
      el("span", {
        class: "ax-legend-bar",
        style: { background: "linear-gradient(to right, " + stops.join(", ") + ")" },
      }, []),
      el("span", {}, [
        spec.kind === "weights" ? "1" : several ? "high" : fmt(spec.range[1], spec.digits),
      ]),
      masked ? el("span", { class: "ax-legend-masked" }, []) : null,
      masked ? el("span", {}, ["masked"]) : null,
      el("span", { class: "ax-legend-note" }, [
        spec.kind === "weights"
          ? "colour = weight"
          : several
            ? "colour: each table from its smallest to its largest entry"
            : "colour: from the smallest to the largest entry",
      ]),
    ];
    legend.replaceChildren.apply(
      legend,
      parts.filter(function (p) {
        return p !== null;
      })
    );
  }

  function render() {
    var r = compute(data.heads[state.head], state);
    var active = document.activeElement;
    var focusKey = active && view.contains(active) ? active.getAttribute("data-focus-key") : null;

    root.setAttribute("data-current-stage", state.stage);
    if (state.selected === null) {
      root.removeAttribute("data-selected");
    } else {
      root.setAttribute("data-selected", String(state.selected));
    }
    stageButtons.forEach(function (b, k) {
      b.setAttribute("aria-pressed", STAGE_IDS[k] === state.stage ? "true" : "false");
    });
    var at = STAGE_IDS.indexOf(state.stage);
    prevButton.disabled = at === 0;
    nextButton.disabled = at === STAGE_IDS.length - 1;
    scaleBox.checked = state.scale;
    causalBox.checked = state.causal;
    if (parseFloat(temperatureSlider.value) !== state.temperature) {
      temperatureSlider.value = String(state.temperature);
    }
    temperatureShown.textContent = state.temperature.toFixed(2);
    if (headSelect) {
      headSelect.value = String(state.head);
    }
    if (padding) {
      if (parseInt(lengthSlider.value, 10) !== state.length) {
        lengthSlider.value = String(state.length);
      }
      lengthShown.textContent = String(state.length);
      padQueriesBox.checked = state.pad_queries;
    }

    var stage = stageView(r);
    var prefix = data.heads.length > 1 ? "head " + state.head + ":   " : "";
    formula.replaceChildren(el("code", {}, [prefix + stage.formula]));
    explain.textContent = stage.explain;
    var specs = stage.tables.map(function (t) {
      t.kind = t.kind || "cells";
      t.columns = t.columns || keyColumns();
      t.corner = t.corner || "query \\ key";
      t.rows = t.rows || "query";
      t.range = t.range || rangeOf(t.values);
      return t;
    });
    view.replaceChildren.apply(view, specs.map(matrix));
    renderLegend(specs[specs.length - 1], specs.length > 1);
    details.replaceChildren.apply(details, detail(r));
    if (focusKey) {
      var again = view.querySelector('[data-focus-key="' + focusKey + '"]');
      if (again) {
        again.focus();
      }
    }
  }

  var ui = el("div", { class: "ax-ui" }, [
    el("div", { class: "ax-title" }, [isolated(data.title)]),
    el("div", { class: "ax-bar" }, [prevButton, stageGroup, nextButton]),
    el("div", { class: "ax-controls" }, [
      el("label", { class: "ax-check" }, [scaleBox, " scale by \u221ad_k"]),
      el("label", { class: "ax-check" }, [causalBox, " causal mask"]),
      el("label", { class: "ax-range" }, [
        "temperature T ", temperatureSlider, " ", temperatureShown,
      ]),
      padding
        ? el("label", { class: "ax-range" }, ["real tokens ", lengthSlider, " ", lengthShown])
        : null,
      padding ? el("label", { class: "ax-check" }, [padQueriesBox, " mask padded queries"]) : null,
      headSelect ? el("label", { class: "ax-head" }, ["show ", headSelect]) : null,
      resetButton,
    ]),
    formula,
    explain,
    view,
    legend,
    details,
  ]);
  temperatureSlider.value = String(state.temperature);
  if (padding) {
    lengthSlider.value = String(state.length);
  }
  var staticView = root.querySelector(".ax-static");
  if (staticView) {
    staticView.remove();
  }
  root.insertBefore(ui, dataNode);
  render();
  root.setAttribute("data-explorer-ready", "true");
})(document.currentScript);
