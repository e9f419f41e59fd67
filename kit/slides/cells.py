"""What a tagged code cell shows on a slide: figures, a question's prompt, printed text or code.

A code cell tagged `slide` shows its stored figures (PNG or SVG, embedded, with the cell's
caption and alt text), the prompt of an in-page question (never its answer) with the lines
of its cell that write its data out, or else its printed text; never its code. A cell
tagged `slide-code` shows its source (at most `CODE_LINES` lines, chosen with
`slide-lines:A-B` tags where the cell is longer; magics and bare `lessons.glue(...)` calls
left out) and the first `OUTPUT_LINES` lines it prints.
"""

from __future__ import annotations

import ast
import base64
import html
import re

import nbformat

from kit.slides.text import ATOM, WALL, SlideText, cut, drop_missing, inline
from lessons.book.widgets.question_page import read_questions

CODE = "slide-code"


def is_solution(cell: nbformat.NotebookNode) -> bool:
    tags = cell.metadata.get("tags", [])
    return "hide-cell" in tags or (
        cell.cell_type == "code" and cell.source.lstrip().startswith("# Solution")
    )


def question_slide(html_text: str, given: list[str] = ()) -> str | None:
    """The prompt of an in-page question (and its choices): never its answer or messages."""
    questions = read_questions(html_text)
    if not questions:
        return None
    text = questions[0].prompt
    said = set(re.findall(r"\d+(?:\.\d+)?", text))
    given = [line for line in given if not set(re.findall(r"\d+(?:\.\d+)?", line)) <= said]
    items = "".join(f"<li>{c}</li>" for c in questions[0].choices)
    data = (
        '<pre class="code short given"><code class="language-python" data-trim>'
        f"{html.escape(chr(10).join(given))}</code></pre>"
        if given
        else ""
    )
    return (
        '<div class="question"><p class="question-tag">Predict, then check</p>'
        f"{data}<p>{text}</p>" + (f'<ol type="A">{items}</ol>' if items else "") + "</div>"
    )


def _literal(node: ast.AST) -> bool:
    """Whether an expression is written-out data: numbers (at least one), lists, tuples,
    `np.inf`, and `np.array(...)` or `torch.tensor(...)` of such."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(map(_literal, node.elts))
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.Attribute):
        return ast.unparse(node) in ("np.inf", "math.inf", "math.pi", "np.pi")
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        return (
            name in ("np.array", "torch.tensor") and len(node.args) == 1 and _literal(node.args[0])
        )
    return False


def givens(source: str) -> list[str]:
    """The lines of a question's cell that write its data out (`x = [2.0, 1.0]`, with their
    comment), before the call that asks it: a slide shows them with the prompt."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines, found = source.split("\n"), []
    for node in tree.body:
        if "question(" in ast.unparse(node):
            break
        if isinstance(node, ast.Assign) and _literal(node.value):
            found += lines[node.lineno - 1 : node.end_lineno]
    return found


def code_parts(cell: nbformat.NotebookNode, text: SlideText, notes: list[str] | None = None) -> str:
    """What a code cell shows on a slide: figures, a question's prompt, or printed text."""
    mystnb = cell.metadata.get("mystnb", {})
    alt = mystnb.get("image", {}).get("alt", "")
    caption = mystnb.get("figure", {}).get("caption", "")
    figures, questions, printed = [], [], []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/svg+xml" in data or "image/png" in data:
            mime = "image/svg+xml" if "image/svg+xml" in data else "image/png"
            value = data[mime]
            value = "".join(value) if isinstance(value, list) else value
            payload = (
                base64.b64encode(value.encode("utf-8")).decode("ascii")
                if mime == "image/svg+xml"
                else "".join(value.split())
            )
            figures.append(
                f'<img src="data:{mime};base64,{payload}" alt="{html.escape(alt or caption)}">'
            )
        elif "text/html" in data:
            value = data["text/html"]
            prompt = question_slide(
                "".join(value) if isinstance(value, list) else value, givens(cell.source)
            )
            if prompt:
                questions.append(prompt)
        elif output.get("output_type") == "stream" and output.get("name") == "stdout":
            value = output["text"]
            printed.append("".join(value) if isinstance(value, list) else value)
    parts = questions[:]
    if figures:
        caption = drop_missing(text.inline(caption)) if caption else ""
        if len(ATOM.findall(caption)) > WALL:  # a wall of a caption: its first sentence
            if notes is not None:
                notes.append(f"<p>{inline(caption)}</p>")
            caption = cut(caption, WALL)
        figcaption = f"<figcaption>{inline(caption)}</figcaption>" if caption else ""
        parts.append(f"<figure>{''.join(figures)}{figcaption}</figure>")
    if not parts and printed:
        parts.append(f"<pre>{html.escape(''.join(printed).rstrip())}</pre>")
    return "".join(parts)


#: A `slide-code` cell shows at most this many lines of code (a longer cell is an error: split
#: it, or tag the cell that holds the point) and this many lines of its printed output (the
#: rest is cut, marked by a last line "⋮").
CODE_LINES, OUTPUT_LINES = 18, 8
#: Code this short (lines, and characters in its longest line) shows in a larger font.
SHORT_CODE = (10, 64)


def _is_bookkeeping(node: ast.stmt) -> bool:
    """A statement the slide leaves out: a bare `lessons.glue(...)` call."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "glue"


def code_lines(source: str) -> list[str]:
    """The lines of a code cell a slide shows: without magics, `# NBVAL_` markers, bare
    `lessons.glue(...)` calls and `x = lessons.glue(...)` whose `x` the cell does not read
    again (they only record a number for the text), blank lines at either end, and runs of
    blank lines squeezed to one."""
    lines = source.split("\n")
    drop = {k for k, line in enumerate(lines) if line.lstrip().startswith(("%", "!", "# NBVAL_"))}
    try:
        tree = ast.parse("\n".join("" if k in drop else line for k, line in enumerate(lines)))
    except SyntaxError:
        tree = None
    body = tree.body if tree else []
    for k, node in enumerate(body):
        if _is_bookkeeping(node):
            drop.update(range(node.lineno - 1, node.end_lineno))
        elif _is_bookkeeping(ast.Expr(node.value)) if isinstance(node, ast.Assign) else False:
            # `x = lessons.glue(...)` whose `x` the rest of the cell never reads
            names = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            later = {
                n.id for rest in body[k + 1 :] for n in ast.walk(rest) if isinstance(n, ast.Name)
            }
            if not names & later:
                drop.update(range(node.lineno - 1, node.end_lineno))
    kept = [line.rstrip() for k, line in enumerate(lines) if k not in drop]
    squeezed = [line for k, line in enumerate(kept) if line or (k and kept[k - 1])]
    while squeezed and not squeezed[0]:
        squeezed.pop(0)
    while squeezed and not squeezed[-1]:
        squeezed.pop()
    return squeezed


def _printed(cell: nbformat.NotebookNode) -> str:
    """A code cell's printed text: its standard output, then a result's plain text."""
    printed = []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            value = output["text"]
        elif output.get("output_type") == "execute_result" and list(data) == ["text/plain"]:
            value = data["text/plain"]
        else:
            continue
        printed.append("".join(value) if isinstance(value, list) else value)
    return "".join(printed).rstrip()


LINES = re.compile(r"^slide-lines:(\d+)(?:-(\d+))?$")


def _picked(cell: nbformat.NotebookNode, where: str) -> str:
    """The source lines that `slide-lines:A-B` tags pick (numbered from 1; one tag per range,
    since a tag may hold no comma), with `# ...` where lines are left out between them;
    without such a tag, the whole source."""
    picks = [m for t in cell.metadata.get("tags", []) if (m := LINES.match(t))]
    if not picks:
        return cell.source
    lines = cell.source.split("\n")
    chosen = sorted(
        {n for m in picks for n in range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)}
    )
    if not chosen or chosen[0] < 1 or chosen[-1] > len(lines):
        ranges = " ".join(m.group(0) for m in picks)
        raise ValueError(f"{where}: {ranges} does not pick lines 1 to {len(lines)}")
    out = []
    for k, number in enumerate(chosen):
        skipped = lines[chosen[k - 1] : number - 1] if k else []
        if any(line.strip() for line in skipped):
            indent = re.match(r"\s*", lines[number - 1]).group(0)
            out.append(f"{indent}# ...")
        elif skipped:
            out.append("")  # only blank lines left out
        out.append(lines[number - 1])
    return "\n".join(out)


def code_slide(cell: nbformat.NotebookNode, where: str) -> str:
    """A `slide-code` cell: its code, highlighted in the browser, and its printed output."""
    lines = code_lines(_picked(cell, where))
    if len(lines) > CODE_LINES:
        raise ValueError(
            f"{where} is tagged {CODE} but has {len(lines)} lines of code (at most "
            f"{CODE_LINES}): split the cell, or tag the one that holds the point"
        )
    short = len(lines) <= SHORT_CODE[0] and max(map(len, lines)) <= SHORT_CODE[1]
    size = "code short" if short else "code"
    parts = [
        f'<pre class="{size}"><code class="language-python" data-trim>'
        f"{html.escape(chr(10).join(lines))}</code></pre>"
    ]
    printed = _printed(cell).split("\n")
    if printed != [""]:
        if len(printed) > OUTPUT_LINES:
            printed = printed[: OUTPUT_LINES - 1] + ["⋮"]
        parts.append(f'<pre class="output">{html.escape(chr(10).join(printed))}</pre>')
    return "".join(parts)
