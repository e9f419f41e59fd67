"""What the peer adapters share: seeded inputs, the three verdicts, and the origin of each case.

Every test in ``tests/peer`` runs one case of another project's own test suite against
``lessons`` and ends in one of three verdicts, each a pytest mark (registered in this
folder's ``conftest.py``) so that ``pytest tests/peer -m agree`` counts them:

- ``agree``: lessons gives the peer's reference within the peer's own tolerance;
- ``refuse``: lessons refuses the case with a ``ValueError`` whose message says why and
  what to do instead (``refused`` checks the words);
- ``documented``: lessons differs in a way a chapter or docstring states, and the test
  asserts the stated difference (it names where it is stated).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

#: torch.testing's default tolerances, which PyTorch's ``assertEqual`` uses: (atol, rtol).
DEFAULT_TOL = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-5, 1.3e-6),
    torch.float16: (1e-5, 1e-3),
    torch.bfloat16: (1e-5, 1.6e-2),
}


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Standard normal numbers of ``shape`` from their own generator (no global seed touched)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def rand(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Uniform numbers in [0, 1) of ``shape`` from their own generator."""
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)


def coin(*shape: int, seed: int) -> torch.Tensor:
    """A boolean tensor of ``shape``, each entry True with probability 1/2."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, shape, generator=g).bool()


def close(actual: Any, expected: Any, atol: float, rtol: float) -> None:
    """``torch.testing.assert_close`` on two tensors (or arrays), dtype of ``actual`` kept."""
    actual, expected = torch.as_tensor(actual), torch.as_tensor(expected)
    torch.testing.assert_close(actual, expected.to(actual.dtype), atol=atol, rtol=rtol)


def refused(call: Callable[[], Any], *words: str, error: type = ValueError) -> str:
    """Assert that ``call()`` raises ``error`` whose message holds every one of ``words``."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    missing = [w for w in words if w.lower() not in message.lower()]
    assert not missing, f"the message {message!r} does not say {missing}"
    return message


def h1(reason: str) -> pytest.MarkDecorator:
    """A strict xfail for a bug the h1-fixes branch is fixing: the test asserts the fix."""
    return pytest.mark.xfail(reason=f"h1-fixes: {reason}", strict=True)


def open_bug(reason: str) -> pytest.MarkDecorator:
    """A strict xfail for a case that fails today and that no branch fixes yet (reported)."""
    return pytest.mark.xfail(reason=f"peer: {reason}", strict=True)


def refused_or_equal(
    call: Callable[[], Any], expected: Callable[[], Any], tol, *words: str
) -> None:
    """Either ``call()`` is refused with a ValueError saying every one of ``words``, or its
    first output equals ``expected()`` within ``tol`` (atol, rtol).

    For a case whose fix may go either way (issue 42 leaves it to the fix: a float mask
    may be refused with the right advice, or added to the scores as PyTorch adds it).
    """
    try:
        result = call()
    except ValueError as error:
        missing = [w for w in words if w.lower() not in str(error).lower()]
        assert not missing, f"the message {str(error)!r} does not say {missing}"
        return
    close(result[0] if isinstance(result, tuple) else result, expected(), *tol)
