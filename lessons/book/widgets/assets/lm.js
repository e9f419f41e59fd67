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
  // The embedded data (1.3 MB of JSON for three checkpoints in Jupyter, 0.45 MB for one in
  // the built book, which loads the others later: fetchRest) is read, and a checkpoint's
  // weights decoded, only when the widget starts: once it comes near the screen, when the
  // page is idle once parsed, or when the reader reaches it first (start, below). The
  // chapter's text is on the screen before then.
  var data = null;
  var cfg = null;
  var vocab = null;
  var index = {};
  var steps = [];
  var tensorsOf = {}; // step -> its tensors in base 85, for each step here
  var more = null; // where the other steps are, in the built book (below)
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
    data.checkpoints.forEach(function (entry) {
      tensorsOf[entry.step] = entry.tensors;
    });
    more = data.more || null;
    steps = more
      ? more.steps.slice()
      : data.checkpoints.map(function (entry) {
          return entry.step;
        });
    markLoaded();
  }

  // In the built book the page carries only the step the slider starts on; the others are in
  // more.src, a script that calls LessonsWidgets.lmCheckpoints(more.key, [checkpoints])
  // (_ext/lm_checkpoints.py: a script, not a fetch, so that the book works from file://).
  // It is added to the page when the page is idle once the widget is ready, or at once when
  // the slider asks for a step not here. more.key names the payload the file belongs to:
  // another widget's or another build's checkpoints are not taken. The registry is shared by
  // every widget of the page; a file that arrives is kept, for a widget that asks later.
  // Tests hold the script back: with LessonsWidgets.lmHold set before the page loads, it is
  // added when LessonsWidgets.lmRelease() is called.
  var shared = (window.LessonsWidgets = window.LessonsWidgets || {});
  if (!shared.lmCheckpoints) {
    shared.lmArrived = {}; // key -> checkpoints
    shared.lmWaiting = {}; // key -> [function (checkpoints)]
    shared.lmAdded = {}; // key -> true once its script is in the page
    shared.lmHeld = [];
    shared.lmCheckpoints = function (key, checkpoints) {
      shared.lmArrived[key] = checkpoints;
      var waiting = shared.lmWaiting[key] || [];
      delete shared.lmWaiting[key];
      waiting.forEach(function (fn) {
        fn(checkpoints);
      });
    };
    shared.lmRelease = function () {
      shared.lmHold = false;
      var held = shared.lmHeld;
      shared.lmHeld = [];
      held.forEach(function (fn) {
        fn();
      });
    };
  }
  var asked = false;
  function fetchRest() {
    if (!more || asked) {
      return;
    }
    asked = true;
    var key = more.key;
    if (shared.lmArrived[key]) {
      arrived(shared.lmArrived[key]);
      return;
    }
    (shared.lmWaiting[key] = shared.lmWaiting[key] || []).push(arrived);
    if (shared.lmAdded[key]) {
      return;
    }
    shared.lmAdded[key] = true;
    var add = function () {
      var script = document.createElement("script");
      script.src = more.src;
      script.async = true;
      script.onerror = function () {
        message.textContent =
          "The other training steps could not be loaded (" + more.src + "); step " +
          steps[steps.length - 1] + " works.";
      };
      document.head.appendChild(script);
    };
    if (shared.lmHold) {
      shared.lmHeld.push(add);
    } else {
      add();
    }
  }
  function arrived(checkpoints) {
    checkpoints.forEach(function (entry) {
      if (steps.indexOf(entry.step) >= 0 && !tensorsOf[entry.step]) {
        tensorsOf[entry.step] = entry.tensors;
      }
    });
    markLoaded();
    if (started && root.hasAttribute("data-lm-loading")) {
      recompute(); // the slider waits on a step that may be here now
    }
    if (started) {
      idle(decodeRest);
    }
  }
  // data-lm-loaded="true" once every step's weights are in the page (tests wait for it).
  function markLoaded() {
    var missing = steps.filter(function (s) {
      return !tensorsOf[s];
    });
    root.setAttribute("data-lm-loaded", missing.length ? "false" : "true");
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
    for (var g = 0, o = 0; g < text.length; g += 5, o += 4) {
      var n = 0;
      for (var k = 0; k < 5; k++) {
        n = n * 85 + (g + k < text.length ? digit[text.charCodeAt(g + k)] : 84);
      }
      n = n >>> 0; // below 2^32: the four bytes, most significant first
      out[o] = n >>> 24;
      out[o + 1] = (n >>> 16) & 255;
      out[o + 2] = (n >>> 8) & 255;
      out[o + 3] = n & 255;
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

  // The weights of each embedded step, decoded tensor by tensor when first used. A step's
  // tensors can be decoded one at a time (`start`, `decodeRest`), so the page answers in between.
  var models = {};
  function model(step) {
    if (!models[step]) {
      models[step] = { tensors: tensorsOf[step], w: {} };
    }
    return models[step];
  }
  function undecoded(step) {
    var m = model(step);
    return Object.keys(m.tensors).filter(function (name) {
      return !m.w[name];
    });
  }
  function weights(step) {
    var m = model(step);
    undecoded(step).forEach(function (name) {
      m.w[name] = decode(m.tensors[name]);
    });
    return m.w;
  }
  // Run fn as a task of its own, after what the page has queued (input, drawing): through a
  // message, not a timer, since timers nested five deep wait 4 ms each at least.
  var queue = [];
  var channel = window.MessageChannel ? new MessageChannel() : null;
  if (channel) {
    channel.port1.onmessage = function () {
      queue.shift()();
    };
  }
  function later(fn) {
    if (channel) {
      queue.push(fn);
      channel.port2.postMessage(0);
    } else {
      setTimeout(fn, 0);
    }
  }
  // Run the steps in order, as many in each task as fit in BUDGET_MS, then `then`.
  var BUDGET_MS = 30;
  function inSlices(work, then) {
    var t0 = Date.now();
    while (work.length && Date.now() - t0 < BUDGET_MS) {
      work.shift()();
    }
    if (work.length) {
      later(function () {
        inSlices(work, then);
      });
    } else {
      then();
    }
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
      var x0 = i * dIn;
      for (var o = 0; o < dOut; o++) {
        var s = 0;
        var w0 = (row0 + o) * dIn;
        for (var k = 0; k < dIn; k++) {
          s += x[x0 + k] * W[w0 + k];
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
  // the whole text. Each row is computed by the same operations either way. The rows live in
  // typed arrays sized for n_ctx, allocated once: per layer the keys and values [n_ctx,
  // d_model] and each head's weights [n_ctx, n_ctx] (row i holds keys 0 .. i), and the
  // logits [n_ctx, vocab].
  var kept = null;
  function buffers() {
    var n = cfg.n_ctx;
    var d = cfg.d_model;
    var layers = [];
    for (var layer = 0; layer < cfg.n_layers; layer++) {
      var heads = [];
      for (var head = 0; head < cfg.num_heads; head++) {
        heads.push(new Float32Array(n * n));
      }
      layers.push({ K: new Float32Array(n * d), V: new Float32Array(n * d), attention: heads });
    }
    return {
      text: "",
      checkpoint: null,
      layers: layers,
      logits: new Float32Array(n * cfg.vocab),
      z: new Float64Array(n),
      sum: new Float64Array(d),
    };
  }

  function check(text, checkpoint) {
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
    if (!tensorsOf[checkpoint]) {
      fetchRest();
      throw new Error(
        "step " + checkpoint + " is still loading: wait for data-lm-loaded=\"true\""
      );
    }
  }

  // The forward pass of `checkpoint` on `text` into `kept` (rows p .. n-1 computed anew).
  function run(text, checkpoint) {
    check(text, checkpoint);
    var W = weights(checkpoint);
    if (!kept) {
      kept = buffers();
    }
    var n = text.length;
    var d = cfg.d_model;
    var h = cfg.num_heads;
    var dk = d / h;
    var nCtx = cfg.n_ctx;
    var scale = Math.sqrt(dk);
    var p = 0; // rows 0 .. p-1 are the last call's
    if (kept.checkpoint === checkpoint) {
      var shared = Math.min(kept.text.length, n);
      while (p < shared && kept.text[p] === text[p]) {
        p++;
      }
      if (p === n) {
        p = n - 1; // the same text (or a prefix): recompute its last row, so every path runs
      }
    }
    kept.text = "";
    kept.checkpoint = checkpoint;
    var m = n - p; // rows computed here
    var x = new Float32Array(m * d); // the residual stream of rows p .. n-1 [m, d_model]
    var embed = W["embed.weight"];
    var pos = W["pos.weight"];
    for (var i = p; i < n; i++) {
      var id = index[text[i]];
      for (var k = 0; k < d; k++) {
        x[(i - p) * d + k] = embed[id * d + k] + pos[i * d + k];
      }
    }
    var z = kept.z;
    var sum = kept.sum;
    for (var layer = 0; layer < cfg.n_layers; layer++) {
      var pre = "attns." + layer + ".";
      var normed = layerNorm(x, m, d, W["norms." + layer + ".weight"], W["norms." + layer + ".bias"]);
      var inProj = W[pre + "in_proj.weight"]; // [3 d_model, d_model]: Q rows, K rows, V rows
      var Q = linear(normed, m, d, inProj, 0, d); // rows p .. n-1
      var K = kept.layers[layer].K; // every row: new queries read the kept keys too
      var V = kept.layers[layer].V;
      K.set(linear(normed, m, d, inProj, d, d), p * d);
      V.set(linear(normed, m, d, inProj, 2 * d, d), p * d);
      var merged = new Float32Array(m * d); // heads side by side [m, h * d_k]
      for (var head = 0; head < h; head++) {
        var A = kept.layers[layer].attention[head];
        var off = head * dk;
        for (i = p; i < n; i++) {
          var q0 = (i - p) * d + off;
          var max = -Infinity;
          for (var j = 0; j <= i; j++) {
            var s = 0;
            var k0 = j * d + off;
            for (k = 0; k < dk; k++) {
              s += Q[q0 + k] * K[k0 + k];
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
          var a0 = i * nCtx; // row i of this head's weights (float32, as PyTorch's)
          for (j = 0; j <= i; j++) {
            A[a0 + j] = z[j] / total;
          }
          for (k = 0; k < dk; k++) {
            sum[k] = 0;
          }
          for (j = 0; j <= i; j++) {
            var a = A[a0 + j];
            var v0 = j * d + off;
            for (k = 0; k < dk; k++) {
              sum[k] += a * V[v0 + k]; // over j in order, as before: the same sums
            }
          }
          for (k = 0; k < dk; k++) {
            merged[q0 + k] = sum[k];
          }
        }
      }
      var out = linear(merged, m, d, W[pre + "out_proj.weight"], 0, d);
      for (k = 0; k < m * d; k++) {
        x[k] += out[k];
      }
    }
    var final = layerNorm(x, m, d, W["final_norm.weight"], W["final_norm.bias"]);
    kept.logits.set(linear(final, m, d, W["unembed.weight"], 0, cfg.vocab, W["unembed.bias"]), p * cfg.vocab);
    kept.text = text;
    return kept;
  }

  // The contract: attention [layer][head][n][n] and logits [n][vocab] of `checkpoint` on `text`,
  // as plain arrays (zeros above the diagonal).
  function forward(text, checkpoint) {
    var state = run(text, checkpoint);
    var n = text.length;
    var nCtx = cfg.n_ctx;
    var vocabSize = cfg.vocab;
    return {
      attention: state.layers.map(function (entry) {
        return entry.attention.map(function (A) {
          var rows = [];
          for (var i = 0; i < n; i++) {
            var row = new Array(n);
            for (var j = 0; j < n; j++) {
              row[j] = j <= i ? A[i * nCtx + j] : 0;
            }
            rows.push(row);
          }
          return rows;
        });
      }),
      logits: Array.from({ length: n }, function (_, i) {
        return Array.prototype.slice.call(state.logits.subarray(i * vocabSize, (i + 1) * vocabSize));
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
  var state = { text: "", position: 0, ok: false };
  var COMPACT = 24; // beyond this many keys a head's row is a heat strip without numbers

  // How a character reads on a button or a column label.
  function shown(ch) {
    return ch === " " ? "\u2423" : ch === "\n" ? "\u21b5" : ch;
  }

  function step() {
    return steps[Number(slider.value)];
  }

  // Text for HTML, in an element or an attribute.
  var ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return ENTITIES[c];
    });
  }

  // The rows of the text and step shown (`kept`, unless root.forward has since run another).
  function current() {
    if (!kept || kept.text !== state.text || kept.checkpoint !== step()) {
      run(state.text, step());
    }
    return kept;
  }

  // The `count` largest of values[0 .. n-1], largest first, the smaller index first on a tie.
  function largest(values, n, count) {
    var best = [];
    for (var j = 0; j < n; j++) {
      var at = best.length;
      while (at > 0 && values[j] > values[best[at - 1]]) {
        at--;
      }
      if (at < count) {
        best.splice(at, 0, j);
        if (best.length > count) {
          best.pop();
        }
      }
    }
    return best;
  }

  // The view is written as one string of HTML (the markup of core.js's matrixTable, with each
  // cell's title): a few hundred cells built element by element cost several times more.
  function drawView() {
    var i = state.position;
    var rows = current();
    var nCtx = cfg.n_ctx;
    root.setAttribute("data-position", String(i));
    root.setAttribute("data-checkpoint", String(step()));
    Array.prototype.forEach.call(strip.children, function (button, k) {
      var on = k === i ? "true" : "false";
      if (button.getAttribute("aria-pressed") !== on) {
        button.setAttribute("aria-pressed", on);
        button.tabIndex = k === i ? 0 : -1;
      }
    });
    var labels = [];
    var names = []; // each character as JSON ("a", "\n")
    for (var j = 0; j <= i; j++) {
      labels.push(esc(shown(state.text[j])));
      names.push(JSON.stringify(state.text[j]));
    }
    var compact = i + 1 > COMPACT;
    var html = [];
    rows.layers.forEach(function (entry, layer) {
      html.push(
        '<div class="llm-layer" data-layer="' + layer + '"><table class="lw-matrix' +
          (compact ? " llm-compact" : "") + '" data-matrix="layer-' + layer + '"><caption>' +
          esc(
            "Layer " + layer + ": how much position " + i + " (" + names[i] +
              ") reads from each position j \u2264 " + i + ", one row per head"
          ) +
          '</caption><thead><tr><td class="lw-corner"></td>'
      );
      for (j = 0; j <= i; j++) {
        html.push('<th scope="col">' + labels[j] + "</th>");
      }
      html.push("</tr></thead><tbody>");
      var most = [];
      entry.attention.forEach(function (A, head) {
        var row = A.subarray(i * nCtx, i * nCtx + i + 1);
        var name = layer + "." + head; // the book's layer.head names
        html.push('<tr><th scope="row">' + name + "</th>");
        for (j = 0; j <= i; j++) {
          var v = row[j];
          var rgb = core.viridis(v);
          // A heat strip's cell shows no number (its text would be 0 px): its colour, and its
          // value in the title. Without the text a keystroke's redraw lays out half as much.
          html.push(
            '<td data-cell="' + head + "," + j + '" data-value="' + v +
              '" style="background-color: rgb(' + rgb.join(", ") + ");" +
              (compact ? "" : " color: " + core.inkOn(rgb) + ";") +
              '" title="' + esc("head " + name + ", j = " + j + " " + names[j] + ": " + v.toFixed(4)) +
              '">' + (compact ? "" : v.toFixed(2)) + "</td>"
          );
        }
        html.push("</tr>");
        // The three positions each head reads most, as text (the strip is a picture).
        var best = largest(row, i + 1, 3).map(function (k) {
          return "j = " + k + " " + names[k] + " " + row[k].toFixed(2);
        });
        most.push('<li data-head="' + head + '">' + esc("head " + name + ": " + best.join(", ")) + "</li>");
      });
      html.push("</tbody></table>");
      if (compact) {
        html.push(
          '<p class="llm-legend" data-lm-legend="">More than ' + COMPACT + " positions: each " +
            "head's row is a heat strip, brighter for more weight; tap or hover over a cell for " +
            "its value. The list gives each head's three strongest positions.</p>" +
            '<p class="llm-cell-value" data-lm-cell-value="" aria-live="polite"></p>'
        );
      }
      html.push('<ul class="llm-most" data-lm-most="' + layer + '">' + most.join("") + "</ul></div>");
    });
    var logits = rows.logits.subarray(i * cfg.vocab, (i + 1) * cfg.vocab);
    var max = -Infinity;
    for (j = 0; j < logits.length; j++) {
      max = Math.max(max, logits[j]);
    }
    var probs = new Float64Array(logits.length);
    var total = 0;
    for (j = 0; j < logits.length; j++) {
      probs[j] = Math.exp(logits[j] - max);
      total += probs[j];
    }
    for (j = 0; j < logits.length; j++) {
      probs[j] /= total;
    }
    var items = largest(probs, probs.length, 5).map(function (id) {
      var prob = probs[id];
      return (
        '<li data-guess="' + esc(vocab[id]) + '" data-probability="' + prob.toFixed(4) + '"><code>' +
        esc(JSON.stringify(vocab[id])) + '</code><span class="llm-track"><span class="llm-bar" ' +
        'style="width: ' + (100 * prob).toFixed(1) + '%;"></span></span><span>' + prob.toFixed(4) +
        "</span></li>"
      );
    });
    var next = i + 1 < state.text.length ? " (the text has " + JSON.stringify(state.text[i + 1]) + ")" : "";
    html.push(
      '<div class="llm-guesses"><p>' +
        esc("Top 5 guesses for the character after position " + i + ", at step " + step() + next) +
        '</p><ol data-lm-top="">' + items.join("") + "</ol></div>"
    );
    view.innerHTML = html.join("");
  }

  function select(i) {
    state.position = Math.max(0, Math.min(state.text.length - 1, i));
    drawView();
  }

  // One button per character; the buttons of an unchanged prefix are kept as they are.
  function drawStrip(text) {
    var buttons = strip.children;
    for (var i = 0; i < text.length; i++) {
      var button = buttons[i];
      if (button && button.getAttribute("data-lm-char") === text[i]) {
        continue;
      }
      var fresh = core.element("button", {
        type: "button",
        class: "llm-char",
        "data-lm-pos": i,
        "data-lm-char": text[i],
        "aria-label": "position " + i + ": " + JSON.stringify(text[i]),
        "aria-pressed": "false",
        text: shown(text[i]),
      });
      fresh.tabIndex = -1;
      if (button) {
        strip.replaceChild(fresh, button);
      } else {
        strip.appendChild(fresh);
      }
    }
    while (buttons.length > text.length) {
      strip.removeChild(strip.lastChild);
    }
  }

  function recompute() {
    clearTimeout(pending);
    pending = null;
    root.removeAttribute("data-lm-pending");
    var text = box.value;
    var at = step();
    stepLabel.textContent = String(at);
    if (!tensorsOf[at]) {
      // The slider is on a step whose weights have not arrived: say so, ask for them now,
      // and draw once they are here (arrived). The view keeps the last step's, dimmed.
      message.textContent = "Loading step " + at + "\u2026";
      root.setAttribute("data-lm-loading", String(at));
      view.setAttribute("aria-busy", "true");
      view.style.opacity = "0.5";
      state.ok = false; // the positions wait too
      fetchRest();
      return;
    }
    if (root.hasAttribute("data-lm-loading")) {
      root.removeAttribute("data-lm-loading");
      view.removeAttribute("aria-busy");
      view.style.opacity = "";
    }
    var problem = outside(text);
    if (!problem && !text.length) {
      problem = "Type at least one character.";
    }
    message.textContent = problem || "";
    root.setAttribute("data-lm-state", problem ? "invalid" : "ok");
    if (problem) {
      state.text = "";
      state.ok = false;
      view.replaceChildren();
      strip.replaceChildren();
      return;
    }
    var changed = text !== state.text;
    if (changed) {
      state.text = text;
      drawStrip(text);
    }
    run(text, step());
    state.ok = true;
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
    if (button && state.ok) {
      select(Number(button.getAttribute("data-lm-pos")));
      button.focus();
    }
  });
  function move(delta) {
    return function () {
      if (state.ok) {
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

  // The widget starts (reads its data, decodes the step shown, draws) once its script has
  // run (below). The work is cut into steps (one per tensor decoded, one per ROWS rows of the
  // first forward pass, each pass keeping the rows before it, `kept`), run BUDGET_MS at a
  // time, so the page answers in between; then the drawing. Once drawn, the other steps are
  // decoded when the page is idle, so that the slider's first move to one costs a forward
  // pass, no decoding.
  var ROWS = 16;
  var started = false;
  function start() {
    if (started) {
      return;
    }
    started = true;
    load();
    var first = step();
    var text = box.value;
    var work = undecoded(first).map(function (name) {
      return function () {
        model(first).w[name] = decode(model(first).tensors[name]);
      };
    });
    if (!outside(text) && text.length <= cfg.n_ctx) {
      for (var done = ROWS; done < text.length; done += ROWS) {
        work.push(run.bind(null, text.slice(0, done), first));
      }
    }
    inSlices(work, function () {
      slider.setAttribute("aria-valuetext", "step " + step());
      state.position = Math.max(0, box.value.length - 1);
      recompute();
      core.ready(root);
      idle(fetchRest);
      idle(decodeRest);
    });
  }
  function idle(fn) {
    if (window.requestIdleCallback) {
      window.requestIdleCallback(fn, { timeout: 5000 });
    } else {
      setTimeout(fn, 200);
    }
  }
  function decodeRest() {
    var left = steps.filter(function (s) {
      return tensorsOf[s] && undecoded(s).length;
    });
    if (left.length) {
      var name = undecoded(left[0])[0];
      model(left[0]).w[name] = decode(model(left[0]).tensors[name]);
      idle(decodeRest);
    }
  }
  // As soon as the script has run, in a task after it (the parser goes on meanwhile): not
  // once the page is parsed or loaded. On a slow network the widget's 1.3 MB come last but
  // a little of the page; the figures and MathJax need not come first.
  later(start);
})();
