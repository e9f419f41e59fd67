/* Chapter 12's language model in the page: a forward pass in JavaScript over the embedded
 * float16 weights (lessons/lm/model.py, step by step), the text box, the positions, the
 * checkpoint slider, every head's attention row and the five likeliest next characters.
 * Contract: README.md.
 */
(function () {
  "use strict";
  var core = window.LessonsCore;
  var root = core.start(document.currentScript, "data-lm-widget");
  if (!root) {
    return;
  }
  // The embedded data (1.3 MB of JSON for three checkpoints) is read, and a checkpoint's
  // weights decoded, only when the widget starts: once it comes near the screen, when the
  // page is idle once parsed, or when the reader reaches it first (start, below). The
  // chapter's text is on the screen before then.
  var data = null;
  var cfg = null;
  var vocab = null;
  var index = {};
  var steps = [];
  function load() {
    if (data) {
      return;
    }
    data = core.readData(root, "data-lm-data");
    cfg = data.config;
    vocab = data.vocab;
    for (var c = 0; c < vocab.length; c++) {
      index[vocab[c]] = c;
    }
    steps = data.checkpoints.map(function (entry) {
      return entry.step;
    });
  }

  // IEEE half (16 bits) to a JavaScript number: exact, subnormals included.
  function half(bits) {
    var sign = bits & 0x8000 ? -1 : 1;
    var exp = (bits >> 10) & 0x1f;
    var frac = bits & 0x3ff;
    if (exp === 0) {
      return sign * frac * Math.pow(2, -24);
    }
    if (exp === 31) {
      return frac ? NaN : sign * Infinity;
    }
    return sign * (1 + frac / 1024) * Math.pow(2, exp - 15);
  }

  // Base 85 to bytes: each 5 characters are one big-endian 32-bit number, 4 bytes. The
  // alphabet is Python's base64.b85encode's with ".", "," and ":" for "<", ">" and "&"
  // (lm_widget.py, PAGE_B85); a short last group is padded with the last digit.
  var B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%:()*+-;.=,?@^_`{|}~";
  var digit = new Uint8Array(128); // character code -> its base-85 digit
  for (var d = 0; d < B85.length; d++) {
    digit[B85.charCodeAt(d)] = d;
  }
  function bytes85(text, length) {
    var out = new Uint8Array(Math.ceil(text.length / 5) * 4);
    for (var g = 0; g < text.length; g += 5) {
      var n = 0;
      for (var k = 0; k < 5; k++) {
        n = n * 85 + (g + k < text.length ? digit[text.charCodeAt(g + k)] : 84);
      }
      for (var b = 3; b >= 0; b--) {
        out[(g / 5) * 4 + b] = n % 256;
        n = Math.floor(n / 256);
      }
    }
    return out.subarray(0, length);
  }

  // Every float16 bit pattern's value, computed once (65,536 entries): decoding is then one
  // look-up per weight instead of a power of two.
  var halves = null;
  function halfTable() {
    if (!halves) {
      halves = new Float32Array(65536);
      for (var bits = 0; bits < 65536; bits++) {
        halves[bits] = half(bits);
      }
    }
    return halves;
  }

  // A tensor's little-endian float16 bytes to a Float32Array (float16 fits float32 exactly).
  function decode(tensor) {
    var size = tensor.shape.reduce(function (a, b) {
      return a * b;
    }, 1);
    var raw = bytes85(tensor.b85, 2 * size);
    var table = halfTable();
    var out = new Float32Array(size);
    for (var k = 0; k < size; k++) {
      out[k] = table[raw[2 * k] | (raw[2 * k + 1] << 8)];
    }
    return out;
  }

  var models = {};

  // The weights of one embedded step, decoded once when first used.
  function weights(step) {
    if (!models[step]) {
      var entry = data.checkpoints[steps.indexOf(step)];
      var w = {};
      Object.keys(entry.tensors).forEach(function (name) {
        w[name] = decode(entry.tensors[name]);
      });
      models[step] = w;
    }
    return models[step];
  }

  // The first character of text outside the vocabulary, as a message; null if none.
  function outside(text) {
    for (var i = 0; i < text.length; i++) {
      var code = text.codePointAt(i);
      var ch = String.fromCodePoint(code);
      if (!(ch in index)) {
        var hex = code.toString(16).toUpperCase();
        while (hex.length < 4) {
          hex = "0" + hex;
        }
        return (
          "The text holds " + JSON.stringify(ch) + " (U+" + hex + ") at index " + i +
          ", which is not in the model's vocabulary (the newline and printable ASCII); " +
          "remove or replace it."
        );
      }
    }
    return null;
  }

  // y[n][out] = x[n][in] W^T with W stored [out, in] from row `row0` (nn.Linear's layout).
  function linear(x, n, dIn, W, row0, dOut, bias) {
    var y = new Float32Array(n * dOut);
    for (var i = 0; i < n; i++) {
      for (var o = 0; o < dOut; o++) {
        var s = 0;
        var w0 = (row0 + o) * dIn;
        for (var k = 0; k < dIn; k++) {
          s += x[i * dIn + k] * W[w0 + k];
        }
        y[i * dOut + o] = bias ? s + bias[o] : s;
      }
    }
    return y;
  }

  // nn.LayerNorm over the last axis: biased variance, eps 1e-5, then weight and bias.
  function layerNorm(x, n, d, weight, bias) {
    var y = new Float32Array(n * d);
    for (var i = 0; i < n; i++) {
      var mean = 0;
      for (var k = 0; k < d; k++) {
        mean += x[i * d + k];
      }
      mean /= d;
      var variance = 0;
      for (k = 0; k < d; k++) {
        var dx = x[i * d + k] - mean;
        variance += dx * dx;
      }
      variance /= d;
      var inv = 1 / Math.sqrt(variance + 1e-5);
      for (k = 0; k < d; k++) {
        y[i * d + k] = (x[i * d + k] - mean) * inv * weight[k] + bias[k];
      }
    }
    return y;
  }

  // The model is causal: row i of every layer depends on positions 0 .. i only. So the last
  // call's rows are kept (`kept`), and a text that shares its first p characters with the last
  // one (at the same step) computes rows p .. n-1 alone: typing at the end costs one row, not
  // the whole text. Each row is computed by the same operations either way.
  var kept = null;

  // The contract: attention [layer][head][n][n] and logits [n][vocab] of `checkpoint` on `text`.
  function forward(text, checkpoint) {
    load();
    var problem = outside(text);
    if (problem) {
      throw new Error(problem);
    }
    if (!text.length || text.length > cfg.n_ctx) {
      throw new Error("text must hold 1 to " + cfg.n_ctx + " characters; got " + text.length);
    }
    if (steps.indexOf(checkpoint) < 0) {
      throw new Error("checkpoint must be one of the embedded steps " + steps.join(", "));
    }
    var W = weights(checkpoint);
    var n = text.length;
    var d = cfg.d_model;
    var h = cfg.num_heads;
    var dk = d / h;
    var scale = Math.sqrt(dk);
    var old = kept && kept.checkpoint === checkpoint ? kept : null;
    var p = 0; // rows 0 .. p-1 are the last call's
    if (old) {
      var shared = Math.min(old.text.length, n);
      while (p < shared && old.text[p] === text[p]) {
        p++;
      }
      if (p === n) {
        p = n - 1; // the same text (or a prefix): recompute its last row, so every path runs
      }
    }
    var m = n - p; // rows computed here
    // A kept row of weights, cut or padded with zeros to the new length n.
    function resized(row) {
      var out = row.slice(0, Math.min(n, row.length));
      while (out.length < n) {
        out.push(0);
      }
      return out;
    }
    var x = new Float32Array(m * d); // the residual stream of rows p .. n-1 [m, d_model]
    for (var i = p; i < n; i++) {
      var id = index[text[i]];
      for (var k = 0; k < d; k++) {
        x[(i - p) * d + k] = W["embed.weight"][id * d + k] + W["pos.weight"][i * d + k];
      }
    }
    var layers = [];
    for (var layer = 0; layer < cfg.n_layers; layer++) {
      var pre = "attns." + layer + ".";
      var normed = layerNorm(x, m, d, W["norms." + layer + ".weight"], W["norms." + layer + ".bias"]);
      var inProj = W[pre + "in_proj.weight"]; // [3 d_model, d_model]: Q rows, K rows, V rows
      var Q = linear(normed, m, d, inProj, 0, d); // rows p .. n-1
      var K = new Float32Array(n * d); // every row: new queries read the kept keys too
      var V = new Float32Array(n * d);
      if (p) {
        K.set(old.layers[layer].K.subarray(0, p * d));
        V.set(old.layers[layer].V.subarray(0, p * d));
      }
      K.set(linear(normed, m, d, inProj, d, d), p * d);
      V.set(linear(normed, m, d, inProj, 2 * d, d), p * d);
      var merged = new Float32Array(m * d); // heads side by side [m, h * d_k]
      var heads = [];
      for (var head = 0; head < h; head++) {
        var rows = p ? old.layers[layer].attention[head].slice(0, p).map(resized) : [];
        var off = head * dk;
        for (i = p; i < n; i++) {
          var z = new Float64Array(i + 1); // causal: keys 0 .. i
          var max = -Infinity;
          for (var j = 0; j <= i; j++) {
            var s = 0;
            for (k = 0; k < dk; k++) {
              s += Q[(i - p) * d + off + k] * K[j * d + off + k];
            }
            z[j] = Math.fround(s) / scale;
            if (z[j] > max) {
              max = z[j];
            }
          }
          var total = 0;
          for (j = 0; j <= i; j++) {
            z[j] = Math.exp(z[j] - max);
            total += z[j];
          }
          var row = new Array(n);
          for (j = 0; j < n; j++) {
            row[j] = j <= i ? Math.fround(z[j] / total) : 0;
          }
          rows.push(row);
          for (k = 0; k < dk; k++) {
            var o = 0;
            for (j = 0; j <= i; j++) {
              o += row[j] * V[j * d + off + k];
            }
            merged[(i - p) * d + off + k] = o;
          }
        }
        heads.push(rows);
      }
      layers.push({ K: K, V: V, attention: heads });
      var out = linear(merged, m, d, W[pre + "out_proj.weight"], 0, d);
      for (k = 0; k < m * d; k++) {
        x[k] += out[k];
      }
    }
    var final = layerNorm(x, m, d, W["final_norm.weight"], W["final_norm.bias"]);
    var flat = linear(final, m, d, W["unembed.weight"], 0, cfg.vocab, W["unembed.bias"]);
    var logits = p ? old.logits.slice(0, p) : [];
    for (i = 0; i < m; i++) {
      logits.push(Array.prototype.slice.call(flat.subarray(i * cfg.vocab, (i + 1) * cfg.vocab)));
    }
    kept = { text: text, checkpoint: checkpoint, layers: layers, logits: logits };
    return {
      attention: layers.map(function (entry) {
        return entry.attention.map(function (rows) {
          return rows.map(function (r) {
            return r.slice();
          });
        });
      }),
      logits: logits.map(function (r) {
        return r.slice();
      }),
    };
  }
  root.forward = forward;

  // ---- The page ----
  var box = root.querySelector("[data-lm-text]");
  var message = root.querySelector("[data-lm-message]");
  var slider = root.querySelector("[data-lm-step]");
  var stepLabel = root.querySelector("[data-lm-step-label]");
  var strip = root.querySelector("[data-lm-positions]");
  var view = root.querySelector("[data-lm-view]");
  var state = { text: "", position: 0, result: null };
  var COMPACT = 24; // beyond this many keys a head's row is a heat strip without numbers

  // How a character reads on a button or a column label.
  function shown(ch) {
    return ch === " " ? "\u2423" : ch === "\n" ? "\u21b5" : ch;
  }

  function step() {
    return steps[Number(slider.value)];
  }

  function drawView() {
    var i = state.position;
    var result = state.result;
    root.setAttribute("data-position", String(i));
    root.setAttribute("data-checkpoint", String(step()));
    Array.prototype.forEach.call(strip.children, function (button, k) {
      var on = k === i;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
    });
    var columns = [];
    for (var j = 0; j <= i; j++) {
      columns.push(shown(state.text[j]));
    }
    var parts = [];
    result.attention.forEach(function (heads, layer) {
      var values = heads.map(function (rows) {
        return rows[i].slice(0, i + 1);
      });
      var table = core.matrixTable(values, {
        name: "layer-" + layer,
        caption:
          "Layer " + layer + ": how much position " + i + " (" + JSON.stringify(state.text[i]) +
          ") reads from each position j \u2264 " + i + ", one row per head",
        rows: heads.map(function (_, head) {
          return layer + "." + head; // the book's layer.head names
        }),
        columns: columns,
        digits: 2,
      });
      var compact = i + 1 > COMPACT;
      if (compact) {
        table.classList.add("llm-compact");
      }
      Array.prototype.forEach.call(table.querySelectorAll("td[data-cell]"), function (cell) {
        var hj = cell.getAttribute("data-cell").split(",");
        cell.title =
          "head " + layer + "." + hj[0] + ", j = " + hj[1] + " " + JSON.stringify(state.text[Number(hj[1])]) +
          ": " + Number(cell.getAttribute("data-value")).toFixed(4);
      });
      // The three positions each head reads most, as text (the strip is a picture).
      var most = values.map(function (row, head) {
        var best = row
          .map(function (v, j) {
            return [v, j];
          })
          .sort(function (a, b) {
            return b[0] - a[0] || a[1] - b[1];
          })
          .slice(0, 3)
          .map(function (pair) {
            return "j = " + pair[1] + " " + JSON.stringify(state.text[pair[1]]) + " " + pair[0].toFixed(2);
          });
        return core.element("li", {
          "data-head": head,
          text: "head " + layer + "." + head + ": " + best.join(", "),
        });
      });
      var legend = compact
        ? [
            core.element("p", {
              class: "llm-legend",
              "data-lm-legend": "",
              text:
                "More than " + COMPACT + " positions: each head's row is a heat strip, " +
                "brighter for more weight; tap or hover over a cell for its value. The list " +
                "gives each head's three strongest positions.",
            }),
          ]
        : [];
      parts.push(
        core.element(
          "div",
          { class: "llm-layer", "data-layer": layer },
          [table].concat(
            legend,
            compact ? [core.element("p", { class: "llm-cell-value", "data-lm-cell-value": "", "aria-live": "polite" })] : [],
            [core.element("ul", { class: "llm-most", "data-lm-most": layer }, most)]
          )
        )
      );
    });
    var logits = result.logits[i];
    var max = Math.max.apply(null, logits);
    var exps = logits.map(function (v) {
      return Math.exp(v - max);
    });
    var total = exps.reduce(function (a, b) {
      return a + b;
    }, 0);
    var order = exps
      .map(function (v, id) {
        return [v / total, id];
      })
      .sort(function (a, b) {
        return b[0] - a[0] || a[1] - b[1];
      })
      .slice(0, 5);
    var items = order.map(function (pair) {
      var bar = core.element("span", { class: "llm-bar" });
      bar.style.width = (100 * pair[0]).toFixed(1) + "%";
      return core.element("li", { "data-guess": vocab[pair[1]], "data-probability": pair[0].toFixed(4) }, [
        core.element("code", { text: JSON.stringify(vocab[pair[1]]) }),
        core.element("span", { class: "llm-track" }, [bar]),
        core.element("span", { text: pair[0].toFixed(4) }),
      ]);
    });
    var next = i + 1 < state.text.length ? " (the text has " + JSON.stringify(state.text[i + 1]) + ")" : "";
    parts.push(
      core.element("div", { class: "llm-guesses" }, [
        core.element("p", {
          text: "Top 5 guesses for the character after position " + i + ", at step " + step() + next,
        }),
        core.element("ol", { "data-lm-top": "" }, items),
      ])
    );
    view.replaceChildren.apply(view, parts);
  }

  function select(i) {
    state.position = Math.max(0, Math.min(state.text.length - 1, i));
    drawView();
  }

  function recompute() {
    clearTimeout(pending);
    pending = null;
    root.removeAttribute("data-lm-pending");
    var text = box.value;
    stepLabel.textContent = String(step());
    var problem = outside(text);
    if (!problem && !text.length) {
      problem = "Type at least one character.";
    }
    message.textContent = problem || "";
    root.setAttribute("data-lm-state", problem ? "invalid" : "ok");
    if (problem) {
      state.text = "";
      view.replaceChildren();
      strip.replaceChildren();
      state.result = null;
      return;
    }
    var changed = text !== state.text;
    if (changed) {
      state.text = text;
      var buttons = [];
      for (var i = 0; i < text.length; i++) {
        buttons.push(
          core.element("button", {
            type: "button",
            class: "llm-char",
            "data-lm-pos": i,
            "aria-label": "position " + i + ": " + JSON.stringify(text[i]),
            text: shown(text[i]),
          })
        );
      }
      strip.replaceChildren.apply(strip, buttons);
    }
    state.result = forward(text, step());
    // A new text selects its last character, whose guess is the next character;
    // moving the slider keeps the chosen position.
    select(changed ? text.length - 1 : state.position);
  }

  // Typing recomputes once the reader pauses (DEBOUNCE_MS), not on every keystroke: a
  // forward pass over a long text and the redraw take tens of milliseconds. Until then the
  // root carries data-lm-pending.
  var DEBOUNCE_MS = 150;
  var pending = null;
  function recomputeSoon() {
    clearTimeout(pending);
    root.setAttribute("data-lm-pending", "true");
    pending = setTimeout(recompute, DEBOUNCE_MS);
  }

  // A heat strip's numbers are in each cell's title, which a touch screen never shows: a
  // tap on a cell writes its value under the strip.
  view.addEventListener("click", function (event) {
    var cell = event.target.closest("table.llm-compact td[data-cell]");
    if (!cell) {
      return;
    }
    var layer = cell.closest("[data-layer]");
    Array.prototype.forEach.call(layer.querySelectorAll('td[aria-current="true"]'), function (other) {
      other.removeAttribute("aria-current");
    });
    cell.setAttribute("aria-current", "true");
    layer.querySelector("[data-lm-cell-value]").textContent = cell.title;
  });

  strip.addEventListener("click", function (event) {
    var button = event.target.closest("[data-lm-pos]");
    if (button && state.result) {
      select(Number(button.getAttribute("data-lm-pos")));
      button.focus();
    }
  });
  function move(delta) {
    return function () {
      if (state.result) {
        select(delta === null ? state.text.length - 1 : delta === 0 ? 0 : state.position + delta);
        strip.children[state.position].focus();
      }
    };
  }
  core.onKeys(strip, {
    ArrowLeft: move(-1),
    ArrowRight: move(1),
    Home: move(0),
    End: move(null),
  });
  box.addEventListener("input", function () {
    if (started) {
      recomputeSoon();
    }
  });
  slider.addEventListener("input", function () {
    if (started) {
      recompute();
      slider.setAttribute("aria-valuetext", "step " + step());
    }
  });

  // The widget starts (reads its data, decodes the last step, draws) when it comes within a
  // screen of the view, when the page is idle once parsed, or when the reader touches it.
  var started = false;
  function start() {
    if (started) {
      return;
    }
    started = true;
    // Three tasks, so the page answers in between: read the data, decode the step shown,
    // then the forward pass and the drawing.
    load();
    setTimeout(function () {
      weights(step());
      setTimeout(function () {
        slider.setAttribute("aria-valuetext", "step " + step());
        state.position = Math.max(0, box.value.length - 1);
        recompute();
        core.ready(root);
      }, 0);
    }, 0);
  }
  root.addEventListener("focusin", start);
  root.addEventListener("pointerdown", start);
  if (window.IntersectionObserver) {
    var seen = new IntersectionObserver(
      function (entries) {
        if (entries.some(function (entry) { return entry.isIntersecting; })) {
          seen.disconnect();
          start();
        }
      },
      { rootMargin: "100% 0px" }
    );
    seen.observe(root);
  }
  function whenIdle() {
    if (window.requestIdleCallback) {
      window.requestIdleCallback(start, { timeout: 2000 });
    } else {
      setTimeout(start, 200);
    }
  }
  // After the page is parsed, not after it has loaded: the figures need not wait for it.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", whenIdle);
  } else {
    whenIdle();
  }
})();
