/* Chapter 11's lab (lessons.lab): a one-head attention model's forward pass, in the page.
 * The weights and the held-out set come from Python in the embedded JSON. Ticking a
 * position blocks that key for every query; the held-out accuracy and the mean [CLS]
 * row by label follow at once. The forward pass is AttentionModel.forward, for the
 * [CLS] query (the only one its read-out uses): embed + positions, project, scaled
 * scores, softmax over the keys left, weighted values, W_O, read-out, argmax.
 */
(function (script) {
  "use strict";
  var core = window.LessonsCore;
  var root = core && core.start(script, "data-lab");
  if (!root) {
    return;
  }
  var data = core.readData(root, "data-lab-data");
  var w = data.weights;
  var d = data.d_model;
  var n = data.n;
  var classes = data.classes.length;

  function decode(text, width) {
    // base64 of little-endian unsigned integers, `width` bytes each
    var raw = atob(text);
    var out = [];
    for (var i = 0; i < raw.length; i += width) {
      out.push(raw.charCodeAt(i) + (width === 2 ? 256 * raw.charCodeAt(i + 1) : 0));
    }
    return out;
  }
  var tokens = decode(data.tokens, data.token_bytes);
  var labels = decode(data.labels, data.label_bytes);

  function linear(weight, bias, offset, x, rows) {
    // rows of (weight [out, in] from row `offset`) @ x + bias, as nn.Linear computes
    var out = [];
    for (var r = 0; r < rows; r++) {
      var s = bias[offset + r];
      var base = (offset + r) * x.length;
      for (var c = 0; c < x.length; c++) {
        s += weight[base + c] * x[c];
      }
      out.push(s);
    }
    return out;
  }

  // What does not depend on the blocked keys, once: per example, the [CLS] query's
  // scaled score for every key [n] and every value vector [n, d].
  var scale = Math.sqrt(d);
  var examples = labels.map(function (_, e) {
    var scores = [];
    var values = [];
    var query = null;
    for (var p = 0; p < n; p++) {
      var t = tokens[e * n + p];
      var x = [];
      for (var c = 0; c < d; c++) {
        x.push(w.embed[t * d + c] + w.positions[p * d + c]);
      }
      if (p === 0) {
        query = linear(w.w_in, w.b_in, 0, x, d);
      }
      var key = linear(w.w_in, w.b_in, d, x, d);
      var s = 0;
      for (var k = 0; k < d; k++) {
        s += query[k] * key[k];
      }
      scores.push(s / scale);
      values.push(linear(w.w_in, w.b_in, 2 * d, x, d));
    }
    return { scores: scores, values: values };
  });

  // Predictions and [CLS] rows with the keys in `blocked` (booleans [n]) blocked.
  function run(blocked) {
    var correct = 0;
    var sums = data.classes.map(function () {
      return new Array(n).fill(0);
    });
    var counts = new Array(classes).fill(0);
    examples.forEach(function (ex, e) {
      var peak = -Infinity;
      for (var p = 0; p < n; p++) {
        if (!blocked[p] && ex.scores[p] > peak) {
          peak = ex.scores[p];
        }
      }
      var a = ex.scores.map(function (z, j) {
        return blocked[j] ? 0 : Math.exp(z - peak);
      });
      var total = a.reduce(function (x, y) {
        return x + y;
      }, 0);
      a = a.map(function (x) {
        return total > 0 ? x / total : 0; // every key blocked: weights 0, as lessons.attention
      });
      var mixed = new Array(d).fill(0);
      a.forEach(function (weight, j) {
        for (var c = 0; c < d; c++) {
          mixed[c] += weight * ex.values[j][c];
        }
      });
      var out = linear(w.w_out, w.b_out, 0, mixed, d);
      var logits = linear(w.w_read, w.b_read, 0, out, classes);
      var best = 0;
      for (var c2 = 1; c2 < classes; c2++) {
        if (logits[c2] > logits[best]) {
          best = c2;
        }
      }
      correct += best === labels[e] ? 1 : 0;
      counts[labels[e]] += 1;
      a.forEach(function (weight, j) {
        sums[labels[e]][j] += weight;
      });
    });
    var rows = sums.map(function (row, c) {
      return row.map(function (x) {
        return counts[c] ? x / counts[c] : 0;
      });
    });
    return { correct: correct, accuracy: correct / labels.length, rows: rows };
  }

  // Python's f"{x:.4f}" (round half to even): toFixed rounds an exact tie up, and the
  // only ties a double can hold at the 5th decimal are odd multiples of 1/32.
  function fixed4(x) {
    var t = x * 32;
    if (t === Math.floor(t) && t % 2 === 1) {
      var low = Math.floor(x * 10000);
      return ((low % 2 === 0 ? low : low + 1) / 10000).toFixed(4);
    }
    return x.toFixed(4);
  }

  var boxes = Array.prototype.slice.call(root.querySelectorAll("[data-block]"));
  var shown = root.querySelector("[data-accuracy]");
  var holder = root.querySelector("[data-rows]");

  function update() {
    var blocked = new Array(n).fill(false);
    boxes.forEach(function (box) {
      blocked[Number(box.getAttribute("data-block"))] = box.checked;
    });
    var result = run(blocked);
    shown.textContent = fixed4(result.accuracy);
    var names = boxes
      .filter(function (box) {
        return box.checked;
      })
      .map(function (box) {
        return box.getAttribute("data-block");
      });
    root.setAttribute("data-blocked", names.join(","));
    holder.replaceChildren(
      core.matrixTable(result.rows, {
        name: "cls-rows",
        rows: data.classes,
        columns: data.positions.map(function (name, j) {
          return blocked[j] ? name + " (blocked)" : name;
        }),
        caption:
          "Mean attention of the [CLS] query, by label (rows) and key position (columns)" +
          (names.length ? "; blocked: " + names.join(", ") : ""),
      })
    );
  }

  // The page must agree with lessons.accuracy, whose numbers are embedded: say so
  // loudly (tests read the console) if it does not.
  var none = new Array(n).fill(false);
  var checks = [[none, data.reference.accuracy]].concat(
    data.reference.blocked.map(function (acc, p) {
      var one = none.slice();
      one[p] = true;
      return [one, acc];
    })
  );
  checks.forEach(function (pair) {
    var got = run(pair[0]).accuracy;
    if (Math.abs(got - pair[1]) > 1e-12) {
      core.report("lab accuracy " + got + " differs from lessons.accuracy " + pair[1]);
    }
  });

  boxes.forEach(function (box) {
    box.addEventListener("change", update);
  });
  root.querySelector('[data-action="reset"]').addEventListener("click", function () {
    boxes.forEach(function (box) {
      box.checked = false;
    });
    update();
  });
  update();
  core.ready(root);
})(document.currentScript);
