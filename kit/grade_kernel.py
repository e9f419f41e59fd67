"""The grader's code inside the student's kernel (`kit/grade.py` runs it; never imported).

The grader's first cell runs this file's source in the kernel, with `TOKEN` and `MIME`
filled in. It keeps what the grader needs before any submitted cell runs: the `lessons`
checks as they were, and a fingerprint of the checking code (to notice a patched one).
After each cell that calls an exercise's check, a grader cell calls `capture(...)`: it
evaluates the arguments of the chapter's check call in the student's namespace and shows,
under `MIME`, each value in a plain form (numbers, text, arrays as bytes; never pickle), so
that the grader judges the answer in its own process, outside this kernel. Where an
argument cannot travel that way (a function, a model), the check also runs here, with the
checks kept at the start, and its verdict travels with the values. In the reference run
(the chapter itself, not a submission), the values also travel pickled: that run is the
teacher's own code.
"""

# ruff: noqa: N816 (the names carry the run's token)

import base64 as _b64
import pickle as _pickle
import sys as _sys

import IPython.display as _display
import numpy as _np

import lessons as _lessons

TOKEN = "__TOKEN__"
MIME = "__MIME__"
REFERENCE = False  # True in the reference run: values travel pickled too
LIMIT = 20_000_000  # bytes of encoded values per capture; beyond that, not judged
_kept_checks = {n: getattr(_lessons, n) for n in dir(_lessons) if n.startswith("check_")}


def _fingerprint():
    """Which functions the checks rely on (identities): a patched one changes it."""
    seen = {}
    checks = _sys.modules.get("lessons.checks")
    # Every module under lessons.checks (whatever its layout), and numpy's comparisons.
    modules = [m for n, m in list(_sys.modules.items()) if n.startswith("lessons.checks") and m]
    modules = modules or ([checks] if checks else [])
    for module in modules:
        for name, value in vars(module).items():
            if callable(value):
                seen[f"{module.__name__}.{name}"] = id(value)
    for name in ("allclose", "isclose", "asarray", "array", "isfinite", "abs", "max", "all"):
        seen[f"numpy.{name}"] = id(getattr(_np, name, None))
    seen["builtins.isinstance"] = id(isinstance)
    return seen


_start_print = _fingerprint()


def _encode(value, depth=0, budget=None):
    """A plain, JSON-able form of `value`; `{"t": "opaque"}` for what cannot travel."""
    budget = budget if budget is not None else [LIMIT]
    if depth > 8:
        return {"t": "opaque", "type": "too deep"}
    kind = type(value)
    if value is None:
        return {"t": "none"}
    if value is Ellipsis:
        return {"t": "ellipsis"}
    if kind is bool:
        return {"t": "bool", "v": value}
    if kind is int:
        return {"t": "int", "v": str(value)}
    if kind is float:
        return {"t": "float", "v": repr(value)}
    if kind is complex:
        return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
    if kind is str:
        budget[0] -= len(value)
        return {"t": "str", "v": value[:100_000]}
    if isinstance(value, _np.generic) and kind.__module__ == "numpy":
        return {"t": "npscalar", "v": _encode(_np.asarray(value), depth + 1, budget)}
    if kind is _np.ndarray:
        if value.dtype.kind not in "biufc":
            return {"t": "list", "v": [_encode(x, depth + 1, budget) for x in value.tolist()]}
        data = _np.ascontiguousarray(value).tobytes()
        budget[0] -= len(data)
        if budget[0] < 0:
            return {"t": "opaque", "type": "too large"}
        return {
            "t": "array",
            "dtype": value.dtype.str,
            "shape": list(value.shape),
            "b64": _b64.b64encode(data).decode("ascii"),
        }
    torch = _sys.modules.get("torch")
    if torch is not None and kind in (torch.Tensor, torch.nn.Parameter):
        tensor = value.detach().cpu()
        if tensor.dtype in (torch.bfloat16, torch.float16):
            dtype = str(tensor.dtype).removeprefix("torch.")
            tensor = tensor.float()
        else:
            dtype = None
        return {"t": "tensor", "dtype": dtype, "v": _encode(tensor.numpy(), depth + 1, budget)}
    if kind in (list, tuple, set, frozenset):
        items = sorted(value, key=repr) if kind in (set, frozenset) else value
        if len(items) > 1_000_000:
            return {"t": "opaque", "type": "too large"}
        name = {list: "list", tuple: "tuple", set: "set", frozenset: "set"}[kind]
        return {"t": name, "v": [_encode(x, depth + 1, budget) for x in items]}
    if kind is dict:
        return {
            "t": "dict",
            "v": [
                [_encode(k, depth + 1, budget), _encode(v, depth + 1, budget)]
                for k, v in value.items()
            ],
        }
    if torch is not None and isinstance(value, torch.nn.Module):
        state = {k: _encode(v, depth + 1, budget) for k, v in value.state_dict().items()}
        return {"t": "opaque", "type": kind.__name__, "state": state}
    return {"t": "opaque", "type": getattr(kind, "__name__", "?")}


class _Lessons:
    """`lessons`, with the checks it held before the submission ran."""

    def __getattr__(self, name):
        return _kept_checks[name] if name.startswith("check_") else getattr(_lessons, name)


def capture(exercise, seq, call, arguments):
    """Evaluate the check call's `arguments` (sources) here; show them, plain, under MIME.

    `call` is the chapter's call with argument i written `__a<i>`; it runs here only where
    an argument cannot leave the kernel (then `verdict` travels too).
    """
    namespace = get_ipython().user_ns  # noqa: F821 (IPython's)
    record = {
        "token": TOKEN,
        "exercise": exercise,
        "seq": seq,
        "values": {},
        "missing": [],
        "errors": {},
        "pickled": {},
    }
    values = {}
    budget = [LIMIT]
    for index, source in enumerate(arguments):
        if source is None:
            continue  # a constant, written in the call
        try:
            value = eval(source, namespace)  # noqa: S307 (the chapter's own expression)
        except NameError as error:
            record["missing"].append([index, str(error)])
            continue
        except Exception as error:  # the expression raised on the student's values
            record["errors"][str(index)] = f"{type(error).__name__}: {error}"
            continue
        values[index] = value
        try:
            record["values"][str(index)] = _encode(value, budget=budget)
        except Exception as error:  # a hostile object
            record["values"][str(index)] = {"t": "opaque", "type": f"unreadable ({error})"}
        if REFERENCE:
            try:
                record["pickled"][str(index)] = _b64.b64encode(_pickle.dumps(value)).decode()
            except Exception:  # not picklable: compared, not recomputed
                pass
    now = _fingerprint()  # what was there at the start and is another object now
    record["tampered"] = sorted(
        k for k, v in now.items() if k in _start_print and _start_print[k] != v
    )
    opaque = any(v.get("t") == "opaque" for v in record["values"].values())
    if opaque and not record["missing"] and not record["errors"]:
        names = {f"__a{i}": v for i, v in values.items()}
        try:
            verdict = eval(compile(call, "<check>", "eval"), {"lessons": _Lessons(), **names})  # noqa: S307
            record["verdict"] = dict(verdict.record())
        except Exception as error:  # the check raised, or returned no Verdict
            record["verdict"] = {
                "verdict": "error",
                "mistake": type(error).__name__,
                "message": f"the check raised {type(error).__name__}: {error}",
            }
    _display.display({MIME: record}, raw=True)
