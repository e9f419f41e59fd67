"""The facts behind the sqrt(d_k) scaling (chapter 4), as measurements that must hold."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lessons import softmax


def _scores(d_k: int, n_keys: int, samples: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(samples, 1, d_k))  # [samples, 1, d_k]
    k = rng.normal(size=(samples, n_keys, d_k))  # [samples, n_keys, d_k]
    return (q * k).sum(axis=-1)  # [samples, n_keys]


def _entropy(weights: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(weights > 0, weights * np.log(weights), 0.0).sum(axis=-1)


@pytest.mark.parametrize("d_k", [4, 16, 64, 256])
def test_variance_of_a_dot_product_of_unit_variance_vectors_is_d_k(d_k):
    scores = _scores(d_k, n_keys=1, samples=20_000)
    assert scores.var() == pytest.approx(d_k, rel=0.06)
    assert (scores / np.sqrt(d_k)).var() == pytest.approx(1.0, rel=0.06)


def test_unscaled_softmax_saturates_as_d_k_grows_and_scaled_does_not():
    entropies = {}
    for d_k in (4, 64, 512):
        scores = _scores(d_k, n_keys=16, samples=2_000)
        entropies[d_k] = (
            _entropy(softmax(scores)).mean(),
            _entropy(softmax(scores / np.sqrt(d_k))).mean(),
        )
    unscaled = [entropies[d][0] for d in (4, 64, 512)]
    scaled = [entropies[d][1] for d in (4, 64, 512)]
    assert unscaled[0] > unscaled[1] > unscaled[2]
    assert unscaled[2] < 0.3  # close to one-hot (log 16 = 2.77 is uniform)
    assert max(scaled) - min(scaled) < 0.05  # scaling keeps the entropy put


def test_gradient_through_an_unscaled_softmax_vanishes_and_scaling_keeps_it():
    def logit_gradient(d_k: int, scale: bool) -> float:
        """Mean |d loss / d softmax input| for random scores of width d_k."""
        scores = _scores(d_k, n_keys=16, samples=500, seed=1)  # [samples, n_k]
        logits = torch.from_numpy(scores / np.sqrt(d_k) if scale else scores).requires_grad_(True)
        target = torch.from_numpy(np.random.default_rng(2).normal(size=(500, 16)))  # [samples, n_k]
        (torch.softmax(logits, dim=-1) * target).sum().backward()
        return logits.grad.abs().mean().item()

    unscaled = [logit_gradient(d_k, scale=False) for d_k in (4, 64, 512)]
    scaled = [logit_gradient(d_k, scale=True) for d_k in (4, 64, 512)]
    assert unscaled[0] > unscaled[1] > unscaled[2]
    assert unscaled[2] < unscaled[0] / 5
    assert max(scaled) < 1.1 * min(scaled)
    assert scaled[2] > 5 * unscaled[2]
