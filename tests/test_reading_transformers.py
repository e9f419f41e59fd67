"""Chapter 13's notes on `transformers`' own attention code still point at the right lines.

The chapter's section *Reading a real model's attention code* prints functions of the pinned
`transformers` (read from the installed package with `inspect.getsource`, never copied) with
our note under each line that an anchor names. The anchors live in `lessons.book.reading`,
one module per model family (`qwen3`, `masks`, `gpt_oss`, `gemma2`, `deepseek_v3`), each with
its `READING`; the package's `READING` holds them all. A release that renames,
moves or drops a line makes a note point nowhere or at the wrong line: these tests fail
then, and the pin's move (CONTRIBUTING.md) means rewriting the notes.
"""

from __future__ import annotations

import inspect
import pkgutil

import pytest
import torch
import transformers
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from lessons import rope
from lessons.book.reading import FAMILIES, READING

PINNED = "5.24.0"


def _requirement_pin() -> str:
    from repo_paths import ROOT

    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("transformers=="):
            return line.split("==")[1].strip()
    raise AssertionError("requirements.txt pins no transformers")


def test_the_notes_were_written_for_the_pinned_release():
    assert _requirement_pin() == PINNED, (
        "the pin moved: re-read every anchor of lessons.book.reading's modules against the"
        " new source, then update PINNED"
    )


def test_the_installed_release_is_the_pin_or_a_newer_one_the_drift_job_tries():
    """CI installs the pin itself; the weekly drift job the newest release (requirements.in).

    There the anchors below are checked against the new source: they fail only where a
    line the notes explain moved or changed.
    """
    installed = Version(transformers.__version__)
    assert installed >= Version(PINNED), (
        f"transformers {installed} is older than the notes' {PINNED}: install requirements.txt"
    )


def test_the_families_cover_distinct_functions_and_the_table_holds_them_all():
    assert len(READING) == sum(len(family.READING) for family in FAMILIES) >= 8
    assert all(READING[name] is notes for f in FAMILIES for name, notes in f.READING.items())


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__.rsplit(".", 1)[-1])
def test_each_family_reads_one_module_of_transformers_named_for_it(family):
    modules = {name.split(":")[0] for name in family.READING}
    short = family.__name__.rsplit(".", 1)[-1]
    assert len(modules) == 1, f"{short} reads {sorted(modules)}: one family, one module"
    wanted = "masking_utils" if short == "masks" else f"modeling_{short}"
    assert modules.pop().rsplit(".", 1)[-1] == wanted, f"{short} reads another family's module"


def _hits(name: str, anchor: str) -> list[int]:
    """The numbers of the lines of the installed source of `name` that contain `anchor`."""
    lines = inspect.getsource(pkgutil.resolve_name(name)).splitlines()
    return [i for i, line in enumerate(lines) if anchor in line]


@pytest.mark.parametrize("name", sorted(READING))
def test_every_anchor_names_one_line_in_source_order(name):
    where = []
    for anchor, note in READING[name]:
        hits = _hits(name, anchor)
        assert len(hits) == 1, f"{name}: anchor {anchor!r} is on lines {hits}, not one"
        where.append(hits[0])
        assert note.strip() and len(note) < 400, f"{name}: {anchor!r} needs a short note"
    assert where == sorted(where) and len(set(where)) == len(where), (
        f"{name}: the notes are not in the order of the source lines {where}"
    )


@pytest.mark.parametrize(
    ("name", "anchor", "meaning"),
    [
        # a few anchors whose line must still do what its note says
        ("transformers.models.qwen3.modeling_qwen3:eager_attention_forward", "key_states = repeat_kv(", "(key,"),
        ("transformers.models.qwen3.modeling_qwen3:Qwen3Attention.forward", "cache.update(", "key_states"),
        ("transformers.models.qwen3.modeling_qwen3:Qwen3RotaryEmbedding.forward", "emb = torch.cat", "freqs, freqs"),
        ("transformers.models.deepseek_v3.modeling_deepseek_v3:yarn_apply_mscale", "scaling = scaling", "mscale * mscale"),
        ("transformers.models.deepseek_v3.modeling_deepseek_v3:DeepseekV3Attention.forward", "cache.update(", "kv_nope, k_rot"),
        ("transformers.models.deepseek_v3.modeling_deepseek_v3:apply_rotary_pos_emb_interleave", "k_embed = ", "dim=-1"),
        ("transformers.models.gpt_oss.modeling_gpt_oss:eager_attention_forward", "scores = probs", "[..., :-1]"),
        ("transformers.models.gemma2.modeling_gemma2:eager_attention_forward", "attn_weights = torch.tanh(", "attn_weights"),
        ("transformers.masking_utils:sdpa_mask", "q_arange = torch.arange(", "+ q_offset"),
        ("transformers.masking_utils:sliding_window_overlay", "return kv_idx", "q_idx - sliding_window"),
    ],
)  # fmt: skip
def test_key_lines_still_say_what_the_notes_explain(name, anchor, meaning):
    (line,) = [
        line
        for line in inspect.getsource(pkgutil.resolve_name(name)).splitlines()
        if anchor in line
    ]
    assert meaning in line, line


def test_the_line_count_catches_a_lost_or_a_vague_anchor():
    """The check above can fail: a lost anchor is on no line, a vague one on two."""
    eager = "transformers.models.qwen3.modeling_qwen3:eager_attention_forward"
    assert _hits(eager, "this text is on no line of transformers") == []
    assert len(_hits(eager, "repeat_kv(")) == 2  # keys and values


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_deepseeks_interleaved_rope_is_ours_with_the_columns_in_halves_order(pairs, n, seed):
    """What the notes on apply_rotary_pos_emb_interleave say: chapter 8's pairs, halves order out."""
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import apply_rotary_pos_emb_interleave

    d = 2 * pairs
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(1, 2, n, d, generator=g, dtype=torch.float64)  # [B, h, n, d_R]
    positions = torch.arange(n, dtype=torch.float64) + 3  # [n], as after a cache of 3
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # [d/2]
    angles = positions[:, None] * inv_freq  # [n, d/2]
    emb = torch.cat([angles, angles], dim=-1)[None]  # [1, n, d], as the rotary module makes it
    theirs, _ = apply_rotary_pos_emb_interleave(X, X, emb.cos(), emb.sin())  # [1, 2, n, d]
    ours = rope(X, positions)  # [1, 2, n, d], neighbours paired and left in place
    halves = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # [d]
    assert torch.allclose(theirs, ours[..., halves], atol=1e-12)
    if pairs > 1:  # more than one pair: the orders differ, so the cached keys do
        assert not torch.allclose(theirs, ours, atol=1e-3)
