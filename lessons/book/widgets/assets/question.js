/* An in-page question of lessons.question: grade what the reader typed, name the mistake.
 * The grading rule is Question.grade in question.py, line for line: the same
 * lenient parsing of numbers and shapes, the same tolerance, the mistakes in order.
 * The answer, the mistakes and every message come from Python in the embedded JSON.
 * On paper a question has no inputs: its print form is built by the first block below.
 */

// On paper (the book's PDF, a chapter page printed from the browser) a question shows its
// prompt, numbered within its chapter ("Question 4.2"), and a line saying where its
// answer is; the answers are gathered in "Answers to the questions" at the end of the
// chapter, each the page's "Show answer" message (messages.revealed in the embedded JSON).
// question.css hides the inputs and buttons in print and these additions on screen.
// Defined once per page: the first question registers it for `beforeprint`, and
// The PDF build calls LessonsQuestionPrint.build(document) before it prints.
(function () {
  "use strict";
  if (window.LessonsQuestionPrint) {
    return;
  }
  var HEADING = "Answers to the questions";
  var TITLE = ":scope > h1, :scope > h2, :scope > h3";

  // The chapter a question belongs to: the outermost <section> whose heading carries a
  // number (Jupyter Book's <span class="section-number">4. </span>), else the page.
  function chapterOf(root) {
    var found = null;
    for (var node = root.parentElement; node; node = node.parentElement) {
      var heading = node.tagName === "SECTION" && node.querySelector(TITLE);
      var mark = heading && heading.querySelector(".section-number");
      if (mark) {
        var number = mark.textContent.trim().replace(/\.$/, "");
        found = { scope: node, number: number, heading: heading };
      }
    }
    var page = root.closest("article, main") || document.body;
    return found || { scope: page, number: "", heading: null };
  }

  // An element of the print form; `data-print-only` marks the ones a rebuild removes.
  function make(tag, className, text, printOnly) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (printOnly) {
      node.setAttribute("data-print-only", "");
    }
    if (text) {
      node.textContent = text;
    }
    return node;
  }

  // Number every question, add its print-only label and line, and append one answers
  // section per chapter. Built afresh on every call; returns the number of questions.
  function build(doc) {
    Array.prototype.forEach.call(doc.querySelectorAll("[data-print-only]"), function (node) {
      node.remove();
    });
    var chapters = [];
    var roots = doc.querySelectorAll("[data-question]");
    Array.prototype.forEach.call(roots, function (root) {
      var place = chapterOf(root);
      var chapter = chapters.filter(function (c) {
        return c.scope === place.scope;
      })[0];
      if (!chapter) {
        chapter = place;
        chapter.answers = [];
        chapters.push(chapter);
      }
      var label = (chapter.number ? chapter.number + "." : "") + (chapter.answers.length + 1);
      var anchor = "lq-answer-" + label.replace(/\./g, "-");
      var data = JSON.parse(root.querySelector("script[data-question-data]").textContent);
      chapter.answers.push({ label: label, anchor: anchor, text: data.messages.revealed });
      root.setAttribute("data-print-number", label);
      var prompt = root.querySelector(".lq-prompt");
      var number = make("span", "lq-print lq-number", "Question " + label, true);
      prompt.insertBefore(number, prompt.firstChild);
      var line = make("p", "lq-print lq-where", "", true);
      var link = document.createElement("a");
      link.href = "#" + anchor;
      link.textContent = HEADING;
      line.append("Answer " + label + ": under \u201c", link, "\u201d at the end of this " +
        (chapter.number ? "chapter." : "page."));
      // After the choices, where the inputs were: the buttons' place.
      var actions = root.querySelector(".lq-actions");
      actions.parentNode.insertBefore(line, actions);
    });
    chapters.forEach(function (chapter) {
      var level = chapter.heading ? Math.min(6, Number(chapter.heading.tagName[1]) + 1) : 2;
      var section = make("section", "lq-print lq-answers", "", true);
      section.setAttribute("data-question-answers", chapter.number);
      section.appendChild(make("h" + level, "lq-answers-title", HEADING));
      var list = make("dl", "lq-answers-list");
      chapter.answers.forEach(function (answer) {
        var term = make("dt", "", answer.label);
        term.id = answer.anchor;
        var entry = make("div", "lq-answer");
        entry.append(term, make("dd", "", answer.text));
        list.appendChild(entry);
      });
      section.appendChild(list);
      chapter.scope.appendChild(section);
    });
    return roots.length;
  }

  window.LessonsQuestionPrint = { build: build, heading: HEADING };
  window.addEventListener("beforeprint", function () {
    build(document);
  });
})();

(function (script) {
  "use strict";
  var core = window.LessonsCore;
  var root = core && core.start(script, "data-question");
  if (!root) {
    return;
  }
  var data = core.readData(root, "data-question-data");
  var inputs = Array.prototype.slice.call(root.querySelectorAll("[data-answer]"));
  var feedback = root.querySelector("[data-feedback]");
  var NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

  // question_inputs.parse_number
  function parseNumber(text) {
    text = text.trim().replace(/\u2212/g, "-");
    if (/^[+-]?[0-9]+,[0-9]+$/.test(text)) {
      text = text.replace(",", ".");
    }
    var parts = text.split("/").map(function (p) {
      return p.trim();
    });
    var readable = parts.every(function (p) {
      return NUMBER.test(p);
    });
    if (parts.length > 2 || !readable || (parts.length === 2 && parseFloat(parts[1]) === 0)) {
      return null;
    }
    var value = parts.length === 2 ? parseFloat(parts[0]) / parseFloat(parts[1]) : parseFloat(parts[0]);
    return isFinite(value) ? value : null;
  }

  // question_inputs.parse_shape
  function parseShape(text) {
    text = text.toLowerCase().replace(/_/g, "").replace(/^\s*(torch\.)?size/, "");
    text = text.replace(/\s*([/*+-])\s*/g, "$1");
    var entries = [];
    text.split(/[\s,;()[\]\u00d7]+/).forEach(function (token) {
      if (/^[0-9]+(x[0-9]+)+$/.test(token)) {
        entries.push.apply(entries, token.split("x"));
      } else if (token && token !== "x") {
        entries.push(token);
      }
    });
    return entries.map(function (e) {
      return e.replace(/^0+(?=[0-9])/, "");
    });
  }

  function grid(value) {
    // A number, a vector or a matrix as rows of numbers.
    if (!Array.isArray(value)) {
      return [[value]];
    }
    return Array.isArray(value[0]) ? value : [value];
  }

  function matches(got, value) {
    if (data.kind === "number" || data.kind === "array") {
      var want = grid(value);
      return got.every(function (row, i) {
        return row.every(function (x, j) {
          return Math.abs(x - want[i][j]) <= data.tolerance;
        });
      });
    }
    if (data.kind === "shape") {
      return got.length === value.length && got.join("\u0000") === value.join("\u0000");
    }
    return got === value;
  }

  // Question.grade: {verdict, name, message} for what the inputs hold now.
  function grade() {
    var messages = data.messages;
    var got;
    if (data.kind === "choice") {
      var picked = inputs.filter(function (input) {
        return input.checked;
      });
      if (!picked.length) {
        return { verdict: "unanswered", name: null, message: messages.empty };
      }
      got = Number(picked[0].value);
    } else if (data.kind === "shape") {
      if (!inputs[0].value.trim()) {
        return { verdict: "unanswered", name: null, message: messages.empty };
      }
      got = parseShape(inputs[0].value);
      if (!got.length) {
        return { verdict: "wrong", name: null, message: messages.unreadable };
      }
    } else {
      if (inputs.some(function (input) { return !input.value.trim(); })) {
        return { verdict: "unanswered", name: null, message: messages.empty };
      }
      var width = grid(data.answer)[0].length;
      got = [];
      for (var k = 0; k < inputs.length; k++) {
        var x = parseNumber(inputs[k].value);
        if (x === null) {
          return { verdict: "wrong", name: null, message: messages.unreadable };
        }
        if (k % width === 0) {
          got.push([]);
        }
        got[got.length - 1].push(x);
      }
    }
    if (matches(got, data.answer)) {
      return { verdict: "correct", name: null, message: messages.correct };
    }
    for (var m = 0; m < data.mistakes.length; m++) {
      if (matches(got, data.mistakes[m].value)) {
        var mistake = data.mistakes[m];
        return { verdict: "mistake", name: mistake.name, message: mistake.message };
      }
    }
    return { verdict: "wrong", name: null, message: messages.wrong };
  }

  function show(verdict, name, message) {
    root.setAttribute("data-verdict", verdict);
    if (name) {
      root.setAttribute("data-mistake", name);
    } else {
      root.removeAttribute("data-mistake");
    }
    feedback.textContent = message;
  }

  function check() {
    var result = grade();
    root.removeAttribute("data-revealed");
    show(result.verdict, result.name, result.message);
  }

  function reveal() {
    if (data.kind === "choice") {
      inputs[data.shown].checked = true;
    } else if (data.kind === "array") {
      var cells = [].concat.apply([], data.shown);
      inputs.forEach(function (input, k) {
        input.value = cells[k];
      });
    } else {
      inputs[0].value = data.shown;
    }
    root.setAttribute("data-revealed", "true");
    show("unanswered", null, data.messages.revealed);
  }

  // Two copies of one question on a page must not share a radio group.
  if (data.kind === "choice") {
    var group = inputs[0].name;
    var same = document.querySelectorAll('input[type="radio"][name="' + group + '"]');
    if (same.length > inputs.length) {
      var copy = document.querySelectorAll('[data-question="' + group + '"][data-ready]').length;
      inputs.forEach(function (input) {
        input.name = group + "-" + copy;
      });
    }
  }

  root.querySelector('[data-action="check"]').addEventListener("click", check);
  root.querySelector('[data-action="reveal"]').addEventListener("click", reveal);
  inputs.forEach(function (input) {
    // A changed answer has not been checked yet.
    input.addEventListener(input.type === "radio" ? "change" : "input", function () {
      if (root.getAttribute("data-verdict") !== "unanswered") {
        show("unanswered", null, "");
      }
    });
    if (input.type === "text") {
      core.onKeys(input, { Enter: check });
    }
  });
  if (data.kind === "array") {
    core.gridKeys(inputs, grid(data.answer)[0].length);
  }
  core.ready(root);
})(document.currentScript);
