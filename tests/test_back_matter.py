"""The reference pages keep their promises: citations, FAQ links, glossary, cheat sheet."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from repo_paths import BOOK, ROOT

import lessons

BIB = (ROOT / "references.bib").read_text(encoding="utf-8")


def _all_text() -> str:
    parts = [p.read_text(encoding="utf-8") for p in BOOK.glob("*.md")]
    for path in BOOK.glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        parts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return "\n".join(parts)


def test_every_bibliography_entry_is_cited_somewhere():
    keys = set(re.findall(r"^@\w+\{([^,]+),", BIB, flags=re.MULTILINE))
    cited = {
        k.strip()
        for group in re.findall(r"\{cite\}`([^`]+)`", _all_text())
        for k in group.split(",")
    }
    assert keys - cited == set(), "entries nobody cites"
    assert cited - keys == set(), "citations with no entry"


def _faq_sections() -> list[str]:
    text = (BOOK / "faq.md").read_text(encoding="utf-8")
    return re.split(r"^## ", text, flags=re.MULTILINE)[1:]


def test_the_faq_answers_at_least_eighteen_distinct_questions():
    questions = [section.splitlines()[0].strip() for section in _faq_sections()]
    assert len(questions) >= 18, questions
    assert len(set(questions)) == len(questions), "a question asked twice"
    assert all(q.endswith("?") for q in questions), [q for q in questions if not q.endswith("?")]


def test_every_faq_answer_links_into_a_chapter():
    sections = _faq_sections()
    assert len(sections) >= 18
    for section in sections:
        question = section.splitlines()[0]
        assert re.search(r"\{doc\}`\d\d_\w+`|\{ref\}`", section), (
            f"FAQ '{question}' links to no chapter"
        )


def test_no_glossary_term_is_defined_twice():
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    body = text.split("```{glossary}")[1].split("```")[0]
    terms = [
        line.strip().lower()
        for line in body.splitlines()
        if line and not line.startswith((" ", ":"))  # ":sorted:" is an option, not a term
    ]
    assert len(terms) == len(set(terms)), sorted(t for t in terms if terms.count(t) > 1)


def test_every_lessons_name_in_the_cheat_sheet_exists():
    text = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ")]
    named = 0
    column = None
    for cells in rows:
        if cells[0].strip().startswith("What"):
            column = [c.strip() for c in cells].index("`lessons`")
            continue
        assert column is not None, "a table row before its header"
        for code in re.findall(r"`([^`]+)`", cells[column]):
            match = re.fullmatch(r"([A-Za-z_.]+)(\(.*\))?", code)
            if match:
                named += 1
                found = lessons
                for part in match[1].split("."):  # lm.forward is lessons.lm.forward
                    found = getattr(found, part, None)
                assert found is not None, f"cheat sheet names lessons.{match[1]}"
    assert named >= 20


def test_every_cheat_sheet_row_names_its_chapter():
    text = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ")]
    entries = [cells[0] for cells in rows if not cells[0].strip().startswith("What")]
    assert len(entries) >= 40
    for what in entries:
        match = re.search(r"\{doc\}`ch\.\u00a0(\d+) <(\d\d)_\w+>`", what)
        assert match and int(match[1]) == int(match[2]), f"row {what.strip()!r}"
        assert (BOOK / (match[0].split("<")[1].rstrip(">`") + ".ipynb")).exists()


# S is the raw table of dot products and Z the scaled one (issue 14, item 1). The notation
# table (shown on the landing page and the notation page) and the cheat sheet must say so.
SCORE_PAGES = [BOOK / "snippets" / "notation_table.md", BOOK / "cheatsheet.md"]


def _table_rows(path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]


@pytest.mark.parametrize("path", SCORE_PAGES, ids=lambda p: p.name)
def test_s_is_defined_as_the_raw_scores_and_z_as_the_scaled_ones(path):
    rows = _table_rows(path)
    s_rows = [row for row in rows if "$S = Q K^\\top$" in row]
    z_rows = [row for row in rows if "$Z = S / \\sqrt{d_k}$" in row]
    a_rows = [row for row in rows if "$A = \\operatorname{softmax}(Z)$" in row]
    assert s_rows and z_rows and a_rows, "S, Z and A each need a row"
    assert all("raw" in row.lower() for row in s_rows), s_rows
    assert all("scaled" in row.lower() for row in z_rows), z_rows
    text = path.read_text(encoding="utf-8")
    for formula in re.findall(r"(?<![\\\w])S\s*=\s*([^$]*)\$", text):
        assert "sqrt" not in formula, f"{path.name} defines S as scaled: S = {formula}"
    assert not re.search(r"scaled scores?[^|]*\$S\b", text, flags=re.IGNORECASE)


def test_the_notation_page_shows_the_table_and_both_stages_of_the_scores():
    text = (BOOK / "notation.md").read_text(encoding="utf-8")
    assert "```{include} snippets/notation_table.md" in text
    assert re.search(r"S = Q K\^\\top, \\qquad Z = \\frac\{S\}\{\\sqrt\{d_k\}\}", text)


def test_the_cheat_sheets_block_parameter_count_is_the_blocks():
    text = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    assert "4 d^2 + 2 d\\, d_{\\text{ff}} + d_{\\text{ff}} + 9 d" in text
    assert "$12 d^2$ weights" in text and "13 d$" in text
    for d, d_ff in [(8, 32), (12, 20), (64, 256)]:
        block = lessons.TransformerBlock(d, 4, d_ff)
        count = sum(p.numel() for p in block.parameters())
        assert count == 4 * d**2 + 2 * d * d_ff + d_ff + 9 * d
        if d_ff == 4 * d:
            assert count == 12 * d**2 + 13 * d


def test_the_cheat_sheets_alibi_slopes_are_lessons_slopes():
    text = (BOOK / "cheatsheet.md").read_text(encoding="utf-8")
    assert "m_g = 2^{-8(g+1)/h}" in text  # chapter 8's letters: head g, slope m_g
    assert "largest power of two below" in text  # and the paper's rule for other h
    for h in (1, 2, 8, 16):
        g = np.arange(h)
        np.testing.assert_allclose(lessons.alibi_slopes(h), 2.0 ** (-8 * (g + 1) / h))
    for h, p in ((3, 2), (12, 8)):
        np.testing.assert_array_equal(lessons.alibi_slopes(h)[:p], lessons.alibi_slopes(p))


def test_the_longest_sinusoidal_wavelength_is_nearly_but_not_two_pi_10000():
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    assert "nearly `2π · 10000`" in text
    d = 16
    pe = lessons.sinusoidal_encoding(400, d)  # [n, d_model]
    p = np.arange(400)
    omega_last = 10000.0 ** (-(d - 2) / d)
    np.testing.assert_allclose(pe[:, d - 2], np.sin(p * omega_last), atol=1e-12)
    longest = 2 * math.pi / omega_last
    assert 2 * math.pi * 10000 / 4 < longest < 2 * math.pi * 10000


def test_the_glossarys_sliding_window_matches_chapter_10s_mask():
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    assert "itself and the `w - 1` positions before it" in text
    n, w = 9, 3
    offset = np.subtract.outer(np.arange(n), np.arange(n))  # [n, n], i - j
    window = lessons.combine_masks(lessons.causal_mask(n), offset < w)  # [n, n]
    for i in range(n):
        assert np.flatnonzero(window[i]).tolist() == list(range(max(0, i - w + 1), i + 1))


def test_the_faqs_fully_blocked_row_answer_holds_in_the_installed_torch():
    """The FAQ says: SDPA gives zeros, nn.MultiheadAttention NaN unless need_weights=False."""
    torch.manual_seed(0)
    n, d = 3, 4
    keep = torch.ones(n, n, dtype=torch.bool)  # [n, n]
    keep[1] = False  # query 1 may attend to nothing
    q, k, v = (torch.randn(1, 1, n, d) for _ in range(3))  # [B, h, n, d_k]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)  # [B, h, n, d_k]
    assert torch.equal(out[0, 0, 1], torch.zeros(d))
    assert torch.isfinite(out).all()
    mha = torch.nn.MultiheadAttention(d, 2, batch_first=True)
    with torch.no_grad():
        mha.out_proj.bias.fill_(0.5)
    x = torch.randn(1, n, d)  # [B, n, d_model]
    out, weights = mha(x, x, x, attn_mask=~keep)  # need_weights=True by default
    assert torch.isnan(out[0, 1]).all() and torch.isnan(weights[0, 1]).all()
    assert torch.isfinite(out[0, [0, 2]]).all()
    out, _ = mha(x, x, x, attn_mask=~keep, need_weights=False)  # [B, n, d_model]
    torch.testing.assert_close(out[0, 1], mha.out_proj.bias.detach())
    mha.eval()
    with torch.no_grad():  # the inference fast path
        out, _ = mha(x, x, x, attn_mask=~keep, need_weights=False)  # [B, n, d_model]
    assert torch.isnan(out[0, 1]).all()
    keep_v = torch.tensor([True, True, False]).expand(n, n)  # [n, n]: key 2 blocked
    v_nan = v.clone()
    v_nan[0, 0, 2] = float("nan")
    out = F.scaled_dot_product_attention(q, k, v_nan, attn_mask=keep_v)  # [B, h, n, d_k]
    assert torch.isnan(out).all(), "a blocked NaN value still spreads (0 * NaN is NaN)"
