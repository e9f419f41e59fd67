"""Small `transformers` models with random weights, and our layer for each of their layers.

Shared by the chapter 13 tests. Only `transformers`' public surface is used: its config
classes (sizes as keyword arguments), its model classes, the attention modules' `state_dict`
names, and what each attention module receives and returns in a forward pass (read with a
PyTorch forward hook). Nothing is downloaded: the weights are random.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import torch
import transformers

from lessons.latent import LatentAttention, LatentConfig
from lessons.modern import AttentionConfig, ModernAttention

VOCAB = 40


def randomize(model: torch.nn.Module, seed: int) -> None:
    """Every weight (norm scales and sinks included) drawn at random, so none is trivial."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * 0.3)


def attention_io(model: Any, ids: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(input, output) of every layer's `self_attn` in one forward pass of `model`."""
    got: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def hook(i: int) -> Callable:
        def grab(module, args, kwargs, output):  # noqa: ARG001
            got[i] = (kwargs["hidden_states"].detach().clone(), output[0].detach().clone())

        return grab

    handles = [
        layer.self_attn.register_forward_hook(hook(i), with_kwargs=True)
        for i, layer in enumerate(model.layers)
    ]
    try:
        with torch.no_grad():
            model(input_ids=ids)
    finally:
        for handle in handles:
            handle.remove()
    return [got[i] for i in range(len(model.layers))]


def build(config_class: Any, model_class: Any, dtype: torch.dtype, seed: int, **sizes: Any) -> Any:
    """`model_class(config_class(**sizes))` in eager mode, random weights, in `dtype`."""
    config = config_class(
        vocab_size=VOCAB,
        intermediate_size=16,
        attn_implementation="eager",
        experts_implementation="eager",
        **sizes,
    )
    model = model_class(config).to(dtype).eval()
    randomize(model, seed)
    return model


def ours_for(model: Any, layer: int, family: str) -> torch.nn.Module:
    """Our layer for `model.layers[layer]`, configured from the model's config, weights loaded."""
    c = model.config
    theirs = model.layers[layer].self_attn
    dtype = next(theirs.parameters()).dtype
    types = getattr(c, "layer_types", None)
    rope = c.rope_parameters
    if types is not None and types[layer] in rope:  # Gemma 3: one RoPE per layer type
        rope = rope[types[layer]]
    theta = rope["rope_theta"]
    if family == "deepseek_v3":
        ours = LatentAttention(
            LatentConfig(
                c.hidden_size,
                c.num_attention_heads,
                c.kv_lora_rank,
                c.qk_nope_head_dim,
                c.qk_rope_head_dim,
                c.v_head_dim,
                q_rank=c.q_lora_rank,
                rope_base=theta,
                eps=1e-6,  # transformers builds both latent norms with 1e-6, not rms_norm_eps
                bias=c.attention_bias,
            )
        )
    else:
        if types is None:  # Llama has no window; Mistral one for every layer
            window = getattr(c, "sliding_window", None)
        else:
            window = c.sliding_window if types[layer] == "sliding_attention" else None
        rotated = rope.get("partial_rotary_factor", 1.0) * c.head_dim
        ours = ModernAttention(
            AttentionConfig(
                c.hidden_size,
                c.num_attention_heads,
                c.num_key_value_heads,
                c.head_dim,
                qk_norm=family in ("qwen3", "qwen3_next", "gemma3", "olmo2"),
                norm_offset=family in ("qwen3_next", "gemma3"),
                norm_whole=family == "olmo2",
                window=window,
                sinks=family == "gpt_oss",
                softcap=getattr(c, "attn_logit_softcapping", None),
                gate=family == "qwen3_next",
                bias=getattr(c, "attention_bias", False),
                rope_base=theta,
                rope_dims=int(rotated),
                scale=c.query_pre_attn_scalar**-0.5 if family == "gemma3" else None,
                eps=c.rms_norm_eps,
            )
        )
    ours = ours.to(dtype)
    ours.load_state_dict(theirs.state_dict())  # strict: every name matches, none left over
    return ours


FAMILIES = (
    "llama",
    "qwen3",
    "olmo2",
    "mistral",
    "gemma2",
    "gemma3",
    "gpt_oss",
    "deepseek_v3",
    "qwen3_next",
)


def random_model(
    family: str, seed: int, dtype: torch.dtype = torch.float64
) -> tuple[Any, torch.Tensor]:
    """A small `transformers` model of `family` with sizes drawn from `seed`, and token ids."""
    r = random.Random(f"{family}-{seed}")
    kv_heads = r.choice([1, 2, 3])
    heads = kv_heads * r.choice([1, 2, 3])
    head_dim = r.choice([4, 6, 8])
    layers = r.choice([2, 3])
    n = r.randint(5, 13)
    sizes: dict[str, Any] = {
        "hidden_size": heads * r.choice([2, 4, 6]),  # transformers asks for a multiple of h
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "rope_parameters": {"rope_type": "default", "rope_theta": r.choice([100.0, 10000.0])},
    }
    window = r.randint(1, n - 1)
    alternate = ["sliding_attention", "full_attention"] * layers
    T = transformers
    if family == "llama":
        sizes["attention_bias"] = r.random() < 0.5
        classes = (T.LlamaConfig, T.LlamaModel)
    elif family == "qwen3":
        classes = (T.Qwen3Config, T.Qwen3Model)
    elif family == "olmo2":  # QK-norm over the whole projection, not per head
        classes = (T.Olmo2Config, T.Olmo2Model)
    elif family == "gemma3":  # window layers before a global one, QK-norm, its own scale
        local = r.choice([1, 2])  # window layers before each full one
        pattern = (["sliding_attention"] * local + ["full_attention"]) * layers
        sizes.update(
            sliding_window=window,
            layer_types=pattern[:layers],
            query_pre_attn_scalar=r.choice([head_dim, 2 * head_dim, 7]),
            rope_parameters={
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "default", "rope_theta": r.choice([100.0, 1e6])},
            },
        )
        classes = (T.Gemma3TextConfig, T.Gemma3TextModel)
    elif family == "mistral":
        sizes["sliding_window"] = window
        classes = (T.MistralConfig, T.MistralModel)
    elif family == "gemma2":
        sizes.update(
            sliding_window=window,
            query_pre_attn_scalar=head_dim,  # scale by 1 / sqrt(d_k), as ours does
            attn_logit_softcapping=r.choice([1.0, 2.0, 5.0]),
            final_logit_softcapping=None,
            layer_types=alternate[:layers],
        )
        classes = (T.Gemma2Config, T.Gemma2Model)
    elif family == "gpt_oss":
        sizes.update(
            sliding_window=window,
            layer_types=alternate[:layers],
            num_local_experts=2,
            num_experts_per_tok=1,
        )
        classes = (T.GptOssConfig, T.GptOssModel)
    elif family == "qwen3_next":
        sizes["head_dim"] = r.choice([4, 8])  # so that a rotated part stays even
        sizes["rope_parameters"]["partial_rotary_factor"] = r.choice([0.5, 1.0])
        sizes.update(layer_types=["full_attention"] * layers, num_experts=2, num_experts_per_tok=1)
        classes = (T.Qwen3NextConfig, T.Qwen3NextModel)
    elif family == "deepseek_v3":
        for key in ("num_key_value_heads", "head_dim"):
            del sizes[key]
        sizes.update(
            num_key_value_heads=heads,
            kv_lora_rank=r.choice([4, 8, 10]),
            q_lora_rank=r.choice([None, 12]),
            qk_rope_head_dim=r.choice([2, 4]),
            qk_nope_head_dim=r.choice([3, 6]),
            v_head_dim=r.choice([4, 5]),
            first_k_dense_replace=layers,  # dense feed-forward layers: no experts needed
            attention_bias=r.random() < 0.5,
        )
        classes = (T.DeepseekV3Config, T.DeepseekV3Model)
    else:
        raise ValueError(f"unknown family {family!r}")
    model = build(*classes, dtype, seed, **sizes)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (2, n), generator=g)  # [B, n]
    return model, ids
