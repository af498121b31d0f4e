"""Oracles for whole-array modules (``tests/fuzzing/array_generator.py``): NumPy running
the same source for values, dtypes, shapes, argument states and exceptions; finite
differences and forward-vs-reverse for the derivatives (``oracle._check_group``).

Unlike the scalar oracle, the source runs unmodified (NumPy semantics are the
reference: ``f64`` array elements are NumPy scalars, division by zero is inf or NaN, and
integer division by zero is 0; NumPy's warnings are silenced). Comparison:

* results and every array argument afterwards: NumPy scalars become Python scalars
  (``np.float32`` -> ``float`` is exact), arrays must have NumPy's dtype and shape;
  ints and bools exactly, floats exactly or within ``RTOL[dtype]`` relative to
  ``max(1, |value|)`` (libm vs NumPy's SIMD ufuncs differ in the last bits, reductions
  sum in another order), NaN equals NaN;
* exceptions: the same type and message as NumPy's.

Inputs: each array parameter in one of four layouts (C, F, strided ``[::2]`` view of a
bigger buffer, reversed ``[::-1]`` on every axis), values in [-2, 2] with an occasional
0, 1, NaN or inf; i64 elements in [-4, 5].
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzzing import oracle
from tests.fuzzing.oracle import ArrayArg, Report

N_INPUTS = 3
RTOL = {"float64": 1e-9, "float32": 2e-4}
NP = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "bool": np.bool_}


class TypedArg(ArrayArg):
    """An array argument of any fuzzed dtype, in layout C, F, S (strided) or R (reversed)."""

    def __init__(self, values: np.ndarray, how: str) -> None:
        super().__init__(values, how)

    def make(self) -> np.ndarray:
        v = self.values
        if self.how == "F":
            return np.asfortranarray(v.copy())
        if self.how == "S":
            big = np.zeros(tuple(2 * n for n in v.shape), dtype=v.dtype)
            view = big[tuple(slice(None, None, 2) for _ in v.shape)]
            view[...] = v
            return view
        if self.how == "R":
            rev = tuple(slice(None, None, -1) for _ in v.shape)
            return v[rev].copy()[rev]
        return v.copy()


def draw(spec: dict[str, Any], rng: np.random.Generator) -> list[Any]:
    """One input per parameter of ``spec`` (see the module docstring)."""
    out: list[Any] = []
    for t in spec.values():
        if t == "f64":
            out.append(float(np.round(rng.uniform(-2.0, 2.0), 3)) if rng.random() < 0.9 else 0.0)
        elif t == "i64":
            out.append(int(rng.integers(-3, 6)))
        elif t == "bool":
            out.append(bool(rng.random() < 0.5))
        else:
            dt, shape, _ = t
            if dt in ("f64", "f32"):
                vals = np.round(rng.uniform(-2.0, 2.0, size=shape), 3)
                special = rng.random(size=shape)
                vals = np.where(special < 0.04, 0.0, vals)
                if rng.random() < 0.1:
                    vals = np.where(special > 0.97, rng.choice([np.nan, np.inf, -np.inf]), vals)
            elif dt == "i64":
                vals = rng.integers(-4, 6, size=shape)
            else:
                vals = rng.random(size=shape) < 0.5
            how = str(rng.choice(["C", "F", "S", "R"]))
            out.append(TypedArg(np.asarray(vals).astype(NP[dt]), how))
    return out


def _py(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(_py(v) for v in value)
    return value


def same(expected: Any, actual: Any, f32_inputs: bool = False) -> str | None:
    """None when ``actual`` (gradc's) equals ``expected`` (NumPy's), else the difference.
    With ``f32_inputs`` (a float32 argument), float64 arrays compare within float32's
    tolerance too: a float32 sum that rounds 1 ulp apart (another summation order,
    docs/supported.md) reaches float64 results through promotion."""
    expected, actual = _py(expected), _py(actual)
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray):
            return f"expected array {expected!r}, got {actual!r}"
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            return (
                f"expected {expected.dtype}{expected.shape}, got {actual.dtype}{actual.shape}:"
                f" {expected!r} vs {actual!r}"
            )
        rtol = RTOL.get(str(expected.dtype), 0.0)
        if f32_inputs and expected.dtype.kind == "f":
            rtol = max(rtol, RTOL["float32"])
        for e, a in zip(expected.ravel().tolist(), actual.ravel().tolist()):
            if not _close(e, a, rtol):
                return f"arrays differ ({e!r} vs {a!r}): {expected!r} vs {actual!r}"
        return None
    if type(expected) is not type(actual):
        return f"expected {type(expected).__name__} {expected!r}, got {type(actual).__name__} {actual!r}"
    return (
        None
        if _close(expected, actual, RTOL["float32"])
        else f"expected {expected!r}, got {actual!r}"
    )


def _close(e: Any, a: Any, rtol: float) -> bool:
    if isinstance(e, float) and isinstance(a, float):
        if math.isnan(e) or math.isnan(a):
            return math.isnan(e) and math.isnan(a)
        if e == a:
            return True
        if math.isinf(e) or math.isinf(a):
            return False
        return abs(e - a) <= rtol * max(1.0, abs(e), abs(a))
    return bool(e == a)


def _run(fn: Any, args: list[Any]) -> tuple[Any, BaseException | None, list[Any]]:
    live = oracle.materialize(args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*live), None, live
    except Exception as exc:
        return None, exc, live


def check_arrays(
    source: str, workdir: Path, *, name: str = "fz", opt_level: int = 2, input_seed: int = 0
) -> Report:
    """Compile, load and check one array module against NumPy and finite differences."""
    lib, report = oracle.compile_source(source, workdir, name, opt_level)
    if lib is None:
        return report
    ns: dict[str, Any] = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), ns)
    fuzz, decls = oracle.describe(source)
    for export, spec in fuzz.items():
        rng = np.random.default_rng([input_seed, sum(map(ord, export))])
        for _ in range(N_INPUTS):
            args = draw(spec, rng)
            _check_input(
                report, lib, ns, export, args, [d for d in decls if d.target == export], rng, source
            )
    return report


def _check_input(
    report: Report,
    lib: Any,
    ns: dict[str, Any],
    export: str,
    args: list[Any],
    decls: list[oracle.Decl],
    rng: np.random.Generator,
    source: str = "",
) -> None:
    where = f"{export}{_fmt(args)}"
    f32 = any(isinstance(a, ArrayArg) and a.values.dtype == np.float32 for a in args)
    expected, e_exc, e_live = _run(ns[export], args)
    compiled = getattr(lib, export)
    actual, a_exc, a_live = _run(compiled, args)
    report.calls += 2
    if isinstance(e_exc, TypeError) or isinstance(expected, complex):  # Python's complex powers
        report.skipped += 1
        return
    if e_exc is None and _documented_scalar_error(a_exc):
        report.skipped += 1  # docs/supported.md "Differences from NumPy": Python scalars
        return
    if e_exc is not None or a_exc is not None:
        if e_exc is None or a_exc is None or not _same_exception(e_exc, a_exc):
            e = "returns " + repr(expected) if e_exc is None else "raises " + oracle._exc(e_exc)
            a = "returns " + repr(actual) if a_exc is None else "raises " + oracle._exc(a_exc)
            report.add("primal_exc", f"primal:{where}", f"NumPy {e}, gradc {a}")
            return
    else:
        diff = same(expected, actual, f32)
        for i, (e, a) in enumerate(zip(e_live, a_live)):
            if diff is None and isinstance(e, np.ndarray):
                d = same(e, a, f32)
                diff = None if d is None else f"argument {i} after the call: {d}"
        if diff is not None and _nan_sign_only(source, export, args, (actual, a_live), f32):
            report.skipped += 1  # docs/supported.md: the sign of an invalid operation's NaN
        elif diff is not None:
            report.add("primal_value", f"primal:{where}", diff)
            return
    if e_exc is None and not isinstance(expected, float | np.floating):
        return
    # derivative exports must return the compiled primal's value and raise its exception
    # (both checked against NumPy's above, within the tolerances and documented messages)
    value = float(actual) if a_exc is None else None
    names = list(ns[export].__code__.co_varnames[: len(args)])
    groups: dict[tuple[str, ...], list[oracle.Decl]] = {}
    for decl in decls:
        groups.setdefault(decl.wrt, []).append(decl)
    for group in groups.values():
        oracle._check_group(
            report, lib, compiled, group, args, names, value, a_exc, rng, where,
            dot_rtol=oracle.F32_DOT_RTOL if f32 else oracle.DOT_RTOL,
        )  # fmt: skip


#: IEEE 754-2019 (6.3) leaves the sign of the NaN an invalid operation makes unspecified:
#: x86 makes negative NaNs (NumPy's ``x % 0.0``, ``np.log(-1.0)`` through libm or its SIMD
#: loops), gradc's guarded operations return a positive NaN constant (docs/supported.md).
#: Only these functions read a NaN's sign.
_NAN_SIGN_READERS = ("np.copysign(", "np.signbit(")


class _NanSignNumpy:
    """``numpy`` whose ``copysign``/``signbit`` read every NaN as having ``sign``'s sign."""

    def __init__(self, sign: float) -> None:
        self._sign = sign

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)

    def _canonical(self, y: Any) -> Any:
        if isinstance(y, float):
            return math.copysign(math.nan, self._sign) if math.isnan(y) else y
        y = np.asarray(y)
        if y.dtype.kind != "f":
            return y
        nan = y.dtype.type(math.copysign(math.nan, self._sign))
        return np.where(np.isnan(y), nan, y)

    def copysign(self, x1: Any, x2: Any, **kw: Any) -> Any:
        return np.copysign(x1, self._canonical(x2), **kw)

    def signbit(self, x: Any, **kw: Any) -> Any:
        return np.signbit(self._canonical(x), **kw)


def _nan_sign_only(
    source: str, export: str, args: list[Any], got: tuple[Any, list[Any]], f32: bool
) -> bool:
    """Whether NumPy gives gradc's result and arguments after the call (``got``) once
    every NaN that ``np.copysign``/``np.signbit`` read has one sign, positive or negative
    (:data:`_NAN_SIGN_READERS`)."""
    actual, a_live = got
    if not any(reader in source for reader in _NAN_SIGN_READERS):
        return False
    for sign in (1.0, -1.0):
        ns: dict[str, Any] = {"__name__": "nan_sign"}
        exec(compile(source, "<nan_sign>", "exec"), ns)
        ns["np"] = _NanSignNumpy(sign)  # the functions read np from their globals
        expected, exc, e_live = _run(ns[export], args)
        if exc is None and same(expected, actual, f32) is None:
            arrays = [(e, a) for e, a in zip(e_live, a_live) if isinstance(e, np.ndarray)]
            if all(same(e, a, f32) is None for e, a in arrays):
                return True
    return False


#: gradc's documented broadcast message when NumPy's needs more run-time sizes than an
#: error record carries (compiler/ir/broadcasting.py).
_SHORT_BROADCAST = (
    (
        "operands could not be broadcast together with shapes ",
        re.compile(r"operands could not be broadcast together \(sizes \d+ and \d+ at axis -\d+\)"),
    ),
    (
        "operands could not be broadcast together with remapped shapes ",
        re.compile(r"operands could not be broadcast together \(sizes \d+ and \d+ at axis -\d+\)"),
    ),
    (
        "could not broadcast input array from shape ",
        re.compile(r"could not broadcast input array \(size \d+ into size \d+ at axis -\d+\)"),
    ),
    (
        "non-broadcastable output operand with shape ",
        re.compile(
            r"non-broadcastable output operand with size \d+ at axis -\d+ doesn't match the "
            r"broadcast size \d+"
        ),
    ),
)


def _same_exception(e: BaseException, a: BaseException) -> bool:
    """The same type and message, or gradc's documented forms of NumPy's: a short
    broadcast message; a shape whose last sizes an error record could not carry shown as
    ``...`` (``shapes (0,0) and (1,...) not aligned``, compiler/ir/ops/linalg.py);
    ``LinAlgError`` raised as its base class ValueError (docs/arrays_linalg.md)."""
    if isinstance(e, np.linalg.LinAlgError) and type(a) is ValueError:
        return str(e) == str(a)
    if type(e) is not type(a):
        return False
    if str(e) == str(a):
        return True
    elided = re.escape(str(a)).replace(re.escape("..."), r"[\d, ]*")
    if "..." in str(a) and re.fullmatch(elided, str(e)):
        return True
    return any(
        str(e).startswith(numpy) and short.fullmatch(str(a)) for numpy, short in _SHORT_BROADCAST
    )


#: Python scalar errors: gradc computes with an element read from an array, a reduction's
#: result (NumPy scalars under NumPy) or a Python int as a Python number, which raises
#: where NumPy gives inf, NaN or 0 (``x % np.int64(0)``, ``0.0 ** -s`` of a reduction) or
#: CPython a float (``n ** -3``, gradc's ints stay ints): the documented difference
#: "Scalars are Python numbers" of docs/supported.md, not a finding (counted as skipped).
#: Whole-array operations never raise these (their loops are NumPy's).
_PY_INT_ERRORS = (
    "integer modulo by zero",
    "integer division or modulo by zero",
    "negative exponent in integer power: the result would be a float, which gradc's "
    "static types do not allow",
)
_PY_FLOAT_ERRORS = (
    "negative number cannot be raised to a fractional power",
    "float division by zero",
    "float modulo",
    "float floor division by zero",
    "float divmod()",
    "division by zero",
    "0.0 cannot be raised to a negative power",
    "math domain error",
)


#: A float array converted to ints (``astype``, ``k[1:] = x``) raises as ``int()`` at a
#: NaN, an infinity or an out-of-range value, where NumPy stores an unspecified integer
#: (docs/arrays_linalg.md, "Differences from NumPy").
_CAST_ERRORS = (
    "cannot convert float NaN to integer",
    "cannot convert float infinity to integer",
    "int too large to convert",
)


def _documented_scalar_error(exc: BaseException | None) -> bool:
    if isinstance(exc, ValueError | OverflowError) and str(exc) in _CAST_ERRORS:
        return True
    return isinstance(exc, ValueError | ZeroDivisionError) and (
        str(exc) in _PY_FLOAT_ERRORS or str(exc) in _PY_INT_ERRORS
    )


def _fmt(args: list[Any]) -> str:
    parts = []
    for a in args:
        if isinstance(a, ArrayArg):
            parts.append(f"np.array({a.values.tolist()!r}, dtype={a.values.dtype}) [{a.how}]")
        else:
            parts.append(repr(a))
    return "(" + ", ".join(parts) + ")"


__all__ = ["TypedArg", "check_arrays", "draw", "same"]
