"""Reading heads from their weights: the OV copying score and K-composition (chapter 12).

In the book's row-vector notation a head of layer ``l`` has ``W_Q, W_K, W_V [d_model, d_k]``
and ``W_O [d_k, d_model]``; two products describe it (Elhage et al. 2021):

- ``W_QK = W_Q W_K^T [d_model, d_model]``: the score of query ``x_i`` for key ``x_j`` is
  ``x_i W_QK x_j^T / sqrt(d_k)``;
- ``W_OV = W_V W_O [d_model, d_model]``: what the head writes for a key it reads.

The layer norm's scale ``gamma`` is folded into the matrices that read its output (its
centring and division by the spread are left out: an approximation). Shapes follow
``lessons.lm.model.CharLM``: ``in_proj.weight [3 d_model, d_model]`` (rows Q, K, V) and
``out_proj.weight [d_model, d_model]``, both stored ``[out, in]`` as ``nn.Linear`` does.
"""

from __future__ import annotations

import numpy as np
import torch

from .._validate import generator, positive_int
from .model import CharLM

__all__ = [
    "copying_score",
    "head_matrices",
    "k_composition",
    "random_k_compositions",
]


def head_matrices(model: CharLM, layer: int, head: int) -> dict[str, np.ndarray]:
    """``W_QK`` and ``W_OV`` ``[d_model, d_model]`` (float64) of one head, gamma folded in (chapter 12).

    Raises:
        ValueError: if ``layer`` or ``head`` is out of range.
    """
    cfg = model.config
    if not (0 <= layer < cfg.n_layers and 0 <= head < cfg.num_heads):
        raise ValueError(
            f"layer must be in 0..{cfg.n_layers - 1} and head in 0..{cfg.num_heads - 1}; "
            f"got layer={layer}, head={head}"
        )
    d_k = cfg.d_model // cfg.num_heads
    cols = slice(head * d_k, (head + 1) * d_k)
    gamma = model.norms[layer].weight.detach().double()  # [d_model]
    w_q, w_k, w_v = model.attns[layer].in_proj.weight.detach().double().reshape(3, cfg.d_model, -1)
    W_Q = gamma[:, None] * w_q[cols].T  # [d_model, d_k]
    W_K = gamma[:, None] * w_k[cols].T  # [d_model, d_k]
    W_V = gamma[:, None] * w_v[cols].T  # [d_model, d_k]
    W_O = model.attns[layer].out_proj.weight.detach().double()[:, cols].T  # [d_k, d_model]
    # Products in torch, as the model runs: NumPy's BLAS threads would queue behind torch's.
    return {"W_QK": (W_Q @ W_K.T).numpy(), "W_OV": (W_V @ W_O).numpy()}


def copying_score(model: CharLM, layer: int, head: int) -> float:
    """``sum(lambda) / sum(|lambda|)`` over the eigenvalues of the full OV circuit (chapter 12).

    The circuit is ``W_E W_OV W_U [vocab, vocab]``: entry ``(a, b)`` is how much reading
    character ``a`` raises the logit of ``b`` through this head alone. Near 1: the head
    copies (reading ``a`` raises ``a``); near -1: it suppresses what it reads.
    """
    W_E = model.embed.weight.detach().double().numpy()  # [vocab, d_model]
    gamma = model.final_norm.weight.detach().double().numpy()  # [d_model]
    W_U = gamma[:, None] * model.unembed.weight.detach().double().numpy().T  # [d_model, vocab]
    circuit = W_E @ head_matrices(model, layer, head)["W_OV"] @ W_U  # [vocab, vocab]
    eig = np.linalg.eigvals(circuit)  # [vocab], complex
    return float(eig.sum().real / np.abs(eig).sum())


def _composition(W_QK, W_OV, norm=np.linalg.norm) -> float:
    """``||W_QK W_OV^T||_F / (||W_QK||_F ||W_OV||_F)``: how much of the keys' reading uses the output.

    NumPy arrays with NumPy's ``norm``, or torch tensors with ``torch.linalg.norm``.
    """
    return float(norm(W_QK @ W_OV.T) / (norm(W_QK) * norm(W_OV)))


def k_composition(model: CharLM, first: tuple[int, int], second: tuple[int, int]) -> float:
    """K-composition of head ``second`` (its keys) with what head ``first`` writes (chapter 12).

    ``first`` and ``second`` are ``(layer, head)`` with ``first``'s layer below ``second``'s.
    The keys of ``second`` read ``x_j`` plus ``first``'s output ``x_j W_OV``, so the score of
    query ``x_i`` gains ``x_i W_QK W_OV^T x_j^T``; the ratio of norms says how strongly.
    Compare with ``random_k_compositions``, its values for random weights of the same shapes.

    Raises:
        ValueError: if ``first`` is not in an earlier layer than ``second``.
    """
    if first[0] >= second[0]:
        raise ValueError(f"first must be in an earlier layer than second; got {first} and {second}")
    W_OV = torch.from_numpy(head_matrices(model, *first)["W_OV"])  # [d_model, d_model]
    W_QK = torch.from_numpy(head_matrices(model, *second)["W_QK"])  # [d_model, d_model]
    # In torch, as head_matrices: NumPy's BLAS threads would queue behind torch's.
    return _composition(W_QK, W_OV, norm=torch.linalg.norm)


def random_k_compositions(d_model: int, d_k: int, samples: int = 100, seed: int = 0) -> np.ndarray:
    """K-composition of ``samples`` draws of Gaussian ``W_Q, W_K, W_V [d_model, d_k]``, ``W_O [d_k, d_model]``: ``[samples]`` (chapter 12).

    The baseline a trained model's ``k_composition`` is compared with: its mean and its
    spread (a trained value is only meaningful far outside the spread).
    """
    d_model, d_k, samples = (
        positive_int(k, v) for k, v in (("d_model", d_model), ("d_k", d_k), ("samples", samples))
    )
    rng = np.random.default_rng(generator(seed).initial_seed())
    values = []
    for _ in range(samples):
        W_Q, W_K, W_V = rng.standard_normal((3, d_model, d_k))
        W_O = rng.standard_normal((d_k, d_model))
        values.append(_composition(W_Q @ W_K.T, W_V @ W_O))
    return np.array(values)  # [samples]
