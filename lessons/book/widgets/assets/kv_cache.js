/* Chapter 13's KV-cache calculator: lessons.kv_cache_bytes, recomputed in the page.
 * bytes = bytes per number x numbers per token and layer x token rows, where a layer keeps
 * 2 x KV heads x head size numbers (or the latent width), and a window layer keeps at most
 * w tokens. Every size is a whole number well below 2^53, so the page's doubles are exact.
 */
(function () {
  "use strict";
  var core = window.LessonsCore;
  var root = core.start(document.currentScript, "data-kv-cache-widget");
  if (!root) {
    return;
  }
  var data = core.readData(root, "data-kv-data");
  var NUMBERS = ["layers", "kv_heads", "head_dim", "window", "windowed_layers", "latent"];

  function field(name) {
    return root.querySelector('[data-field="' + name + '"]');
  }

  function whole(name) {
    var value = Number(field(name).value);
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
  }

  function human(bytes) {
    var units = ["B", "KiB", "MiB", "GiB", "TiB"];
    var i = 0;
    while (bytes >= 1024 && i < units.length - 1) {
      bytes /= 1024;
      i += 1;
    }
    return (i === 0 ? String(bytes) : bytes.toFixed(2)) + " " + units[i];
  }

  function bytesFor(tokens) {
    var layers = whole("layers");
    var windowed = Math.min(whole("windowed_layers"), layers);
    var w = whole("window");
    if (w === 0) {
      windowed = 0;
    }
    var perLayer = whole("latent") || 2 * whole("kv_heads") * whole("head_dim");
    var kept = w ? Math.min(tokens, w) : tokens;
    var rows = (layers - windowed) * tokens + windowed * kept;
    return Number(field("bytes").value) * perLayer * rows;
  }

  function show(name, bytes) {
    var node = root.querySelector('[data-result="' + name + '"]');
    node.textContent = human(bytes);
    node.setAttribute("data-bytes", String(bytes));
  }

  function update() {
    var tokens = Math.max(1, whole("tokens"));
    show("per_token", bytesFor(1));
    show("total", bytesFor(tokens));
    var latent = whole("latent");
    root.querySelector('[data-result="formula"]').textContent = latent
      ? field("bytes").value + " bytes x " + latent + " latent numbers x token rows"
      : field("bytes").value + " bytes x 2 x " + whole("kv_heads") + " KV heads x " +
        whole("head_dim") + " x token rows (" + whole("layers") + " layers, " +
        (whole("window") ? Math.min(whole("windowed_layers"), whole("layers")) : 0) +
        " of them keeping at most " + (whole("window") || "all") + " tokens)";
  }

  function choose() {
    var pick = field("model").value;
    var source = root.querySelector('[data-result="source"]');
    if (pick === "custom") {
      source.textContent = "Your own configuration.";
    } else {
      var model = data.models[Number(pick)];
      NUMBERS.forEach(function (name) {
        field(name).value = model[name];
      });
      source.textContent = "Source: " + model.source;
    }
    update();
  }

  field("tokens").value = data.tokens;
  field("model").addEventListener("change", choose);
  NUMBERS.forEach(function (name) {
    field(name).addEventListener("input", function () {
      field("model").value = "custom";
      root.querySelector('[data-result="source"]').textContent = "Your own configuration.";
      update();
    });
  });
  ["bytes", "tokens"].forEach(function (name) {
    field(name).addEventListener("input", update);
    field(name).addEventListener("change", update);
  });
  choose();
  core.ready(root);
})();
