"""The grader's code inside the student's kernel (`instrument.py` runs it; never imported).

The grader's first cell runs this file's source in the kernel, with `TOKEN` and `MIME`
filled in. It keeps what the grader needs before any submitted cell runs: the `lessons`
checks as they were, and a fingerprint of the checking code (to notice a patched one).
It wraps every `lessons.check_*` (in `lessons` and in `lessons.checks`, where a notebook
finds them): a wrapped check records what each call received, bound to the check's
parameters (defaults included) and encoded in a plain form (numbers, text, arrays as bytes;
never pickle), then returns what the check returns; the student sees nothing else.

After each cell that names an exercise's check, a grader cell calls `capture(...)`: it
shows, under `MIME`, the calls of that check made since its last capture, so that the
grader judges each in its own process, outside this kernel. Where no call was made and the
grader found the answer's name set under that exercise (`allow_names`), it evaluates the
arguments of the chapter's call by their names instead. Where an argument cannot travel (a
function, a model), the verdict the check gave in here travels with the values. In the
reference run (the chapter itself, not a submission), the values also travel pickled: that
run is the teacher's own code.
"""

# ruff: noqa: N816 (the names carry the run's token)

import base64 as _b64
import functools as _functools
import inspect as _inspect
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
_calls = []  # every recorded call of a check, in order
_seen = {}  # check name -> how many of _calls its captures have looked at
_depth = [0]  # a check that calls another is one call


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


def _bound(signature, args, kwargs):
    """{parameter: value} of a call, defaults included; `name[j]` for a `*name`'s items."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    values = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is _inspect.Parameter.VAR_POSITIONAL:
            values.update({f"{name}[{j}]": item for j, item in enumerate(value)})
        elif kind is _inspect.Parameter.VAR_KEYWORD:
            values.update(value)
        else:
            values[name] = value
    return values


def _record(name, signature, args, kwargs):
    call = {"name": name, "values": {}, "pickled": {}}
    try:
        values = _bound(signature, args, kwargs)
    except TypeError as error:  # the check itself raises the same, in the student's cell
        call["unbound"] = f"TypeError: {error}"
        return call
    budget = [LIMIT]
    for parameter, value in values.items():
        try:
            call["values"][parameter] = _encode(value, budget=budget)
        except Exception as error:  # a hostile object
            call["values"][parameter] = {"t": "opaque", "type": f"unreadable ({error})"}
        if REFERENCE:
            try:
                call["pickled"][parameter] = _b64.b64encode(_pickle.dumps(value)).decode()
            except Exception:  # not picklable: compared, not recomputed
                pass
    return call


def _wrap(name, check):
    signature = _inspect.signature(check)

    @_functools.wraps(check)
    def recorded(*args, **kwargs):
        if _depth[0]:
            return check(*args, **kwargs)
        _depth[0] += 1
        try:
            call = _record(name, signature, args, kwargs)
            _calls.append(call)
            try:
                result = check(*args, **kwargs)
            except Exception as error:
                call["verdict"] = {
                    "verdict": "error",
                    "mistake": type(error).__name__,
                    "message": f"the check raised {type(error).__name__}: {error}",
                }
                raise
            try:
                call["verdict"] = dict(result.record())
            except Exception:  # no Verdict: judged outside, or an error there
                pass
            return result
        finally:
            _depth[0] -= 1

    return recorded


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
        training = _encode(getattr(value, "training_runs", None), depth + 1, budget)
        return {"t": "opaque", "type": kind.__name__, "state": state, "training": training}
    return {"t": "opaque", "type": getattr(kind, "__name__", "?")}


class _Lessons:
    """`lessons`, with the checks it held before the submission ran."""

    def __getattr__(self, name):
        return _kept_checks[name] if name.startswith("check_") else getattr(_lessons, name)


def _by_names(call, arguments, namespace):
    """The chapter's call's arguments evaluated by their names (the check was not called)."""
    record = {"values": {}, "missing": [], "errors": {}, "pickled": {}, "from_names": True}
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
    return record


def capture(exercise, seq, name, call, arguments, allow_names):
    """Show, plain, under MIME, the calls of check `name` made since its last capture.

    Each call's values travel keyed by their parameter. With no call, and `allow_names`,
    the chapter's call's `arguments` (sources; None for a constant) are evaluated here by
    their names instead; `call` is the chapter's call with argument i written `__a<i>`.
    """
    fresh = [c for c in _calls[_seen.get(name, 0) :] if c["name"] == name]
    _seen[name] = len(_calls)
    record = {"token": TOKEN, "exercise": exercise, "seq": seq, "calls": fresh}
    if not fresh and allow_names:
        namespace = get_ipython().user_ns  # noqa: F821 (IPython's)
        record["calls"] = [_by_names(call, arguments, namespace)]
    now = _fingerprint()  # what was there at the start and is another object now
    record["tampered"] = sorted(
        k for k, v in now.items() if k in _start_print and _start_print[k] != v
    )
    _display.display({MIME: record}, raw=True)


# --- from here on, the kernel is changed: the checks wrapped, the fingerprint taken ---

_wrapped = {n: _wrap(n, f) for n, f in _kept_checks.items() if callable(f)}
for _name, _module in list(_sys.modules.items()):
    if _module is not None and (_name == "lessons" or _name.startswith("lessons.checks")):
        for _check, _original in _kept_checks.items():
            if _check in _wrapped and getattr(_module, _check, None) is _original:
                setattr(_module, _check, _wrapped[_check])
_start_print = _fingerprint()
