"""DeepSeek-V3's two latent norms use 1e-6 whatever ``rms_norm_eps`` says (chapter 13).

``transformers``' ``DeepseekV3Attention`` builds ``q_a_layernorm`` and ``kv_a_layernorm``
with their default epsilon; only the decoder's own norms read ``rms_norm_eps``. With the
default ``rms_norm_eps`` (1e-6) a recipe that passes it looks right; with another it is off.
So both chapter 13's recipe (its ``latent`` function, run from the chapter's own source)
and the tests' ``hf_layers.ours_for`` are checked on a config with a large epsilon.
"""

from __future__ import annotations

import json

import pytest
import torch
from repo_paths import BOOK

transformers = pytest.importorskip("transformers")
from hf_layers import attention_io, build, ours_for  # noqa: E402

import lessons  # noqa: E402

CHAPTER = BOOK / "13_attention_in_todays_models.ipynb"
EPS = 0.05  # far from 1e-6, so that a norm built with it differs visibly


def _deepseek(eps=EPS):
    sizes = {
        "hidden_size": 24,
        "num_hidden_layers": 2,
        "num_attention_heads": 3,
        "num_key_value_heads": 3,
        "kv_lora_rank": 6,
        "q_lora_rank": 12,
        "qk_nope_head_dim": 4,
        "qk_rope_head_dim": 4,
        "v_head_dim": 5,
        "first_k_dense_replace": 2,
        "rms_norm_eps": eps,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    }
    model = build(
        transformers.DeepseekV3Config, transformers.DeepseekV3Model, torch.float64, 3, **sizes
    )
    ids = torch.randint(0, 40, (2, 7), generator=torch.Generator().manual_seed(3))
    return model, attention_io(model, ids)


def _chapter_latent():
    """Chapter 13's `latent(c, i)` recipe, defined from the chapter's own cell."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    (source,) = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and "def latent(" in "".join(c["source"])
    ]
    start = source.index("def latent(")
    end = source.index("\n\n\n", start)
    namespace = {"lessons": lessons}
    exec(source[start:end], namespace)  # noqa: S102  (the chapter's code, as a reader runs it)
    return namespace["latent"]


def _gap(model, io, make):
    gaps = []
    for i, (x, y) in enumerate(io):
        ours = make(model.config, i).double()
        ours.load_state_dict(model.layers[i].self_attn.state_dict())
        with torch.no_grad():
            gaps.append((ours(x) - y).abs().max().item())
    return max(gaps)


def test_the_chapters_latent_recipe_equals_deepseek_v3_with_another_rms_norm_eps():
    model, io = _deepseek()
    assert _gap(model, io, _chapter_latent()) < 1e-5


def test_the_tests_latent_layer_equals_deepseek_v3_with_another_rms_norm_eps():
    model, io = _deepseek()
    assert _gap(model, io, lambda c, i: ours_for(model, i, "deepseek_v3")) < 1e-5


def test_passing_rms_norm_eps_to_the_latent_norms_would_differ():
    model, io = _deepseek()
    c = model.config

    def old_recipe(c, i):  # the recipe that passed config.rms_norm_eps
        return lessons.LatentAttention(
            lessons.LatentConfig(
                d_model=c.hidden_size,
                num_heads=c.num_attention_heads,
                kv_rank=c.kv_lora_rank,
                nope_dim=c.qk_nope_head_dim,
                rope_dim=c.qk_rope_head_dim,
                v_dim=c.v_head_dim,
                q_rank=c.q_lora_rank,
                rope_base=c.rope_parameters["rope_theta"],
                eps=c.rms_norm_eps,
            )
        )

    assert c.rms_norm_eps == EPS
    assert _gap(model, io, old_recipe) > 1e-3
