"""``lower-arrays`` rules of linear algebra and construction (passes/arrays/linalg.py,
passes/arrays/construct.py) against their oracles.

Each case compiles a small module (front end, inference), runs it in the reference
interpreter — whose rules for ``contract``, ``outer``, ``arange`` ... call NumPy — then
lowers the array operations into loops and runs it again: the two runs must agree with
each other and with NumPy running the same source, on hypothesis-drawn shapes (0-length
included), dtypes (f64, f32, i64, i32, bool) and layouts (C, Fortran, strided,
reversed), and raise the same exceptions with the same messages.
"""

from __future__ import annotations

import functools
import re
import textwrap
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get as get_pass

HEADER = "import numpy as np\nimport gradc\nfrom gradc import boolean, f32, f64, i32, i64\n"
DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32, "i1": np.bool_}


def _module(source: str) -> Module:
    src = SourceFile.parse(HEADER + textwrap.dedent(source), "m.py")
    module = infer_module(scan_module(src, "m"))
    verify_module(module)
    return module


def _lowered(module: Module) -> Module:
    from gradc.compiler.ir.parser import parse_module

    copy = get_pass("lower-arrays").run(parse_module(print_module(module)))
    verify_module(copy)
    assert not any(inst.LOWERED_TO_LOOPS for inst in copy.functions["f"].instructions())
    return copy


@functools.cache
def _pair(source: str) -> tuple[Module, Module]:
    module = _module(source)
    return module, _lowered(module)


def _outcome(module: Module, args: list[Any]) -> Any:
    try:
        return run_function(
            module, "f", [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        )
    except Exception as exc:
        return (type(exc), str(exc))


def _numpy(source: str, args: list[Any]) -> Any:
    scope: dict[str, Any] = {}
    exec(HEADER + textwrap.dedent(source), scope)
    try:
        return scope["f"](*args)
    except Exception as exc:
        return (type(exc), str(exc))


def _documented(message: str) -> str:
    """NumPy's message as gradc words it: three run-time fields fit a message, so the
    second operand's free dimension of a 2-D·2-D ``np.dot``/``np.inner`` shows as
    ``...`` (compiler/ir/ops/linalg.py ``contract_mismatch``)."""
    return re.sub(r"^(shapes \(\d+,\d+\) and \(\d+),\d+\)", r"\1,...)", message)


def _same(got: Any, want: Any, rtol: float) -> None:
    if isinstance(want, tuple) and isinstance(want[0], type):  # an exception
        assert got == (want[0], _documented(want[1]))
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w, rtol)
        return
    assert not isinstance(got, tuple), got
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape
    assert got_a.dtype == want_a.dtype or want_a.ndim == 0, (got_a.dtype, want_a.dtype)
    if want_a.dtype.kind == "f":
        np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got_a, want_a)


def _check(
    source: str, args: list[Any], rtol: float = 0.0, numpy_args: list[Any] | None = None
) -> None:
    """The interpreter before and after lowering, and NumPy, on ``args``."""
    before, after = _pair(source)
    want = _numpy(source, numpy_args if numpy_args is not None else args)
    got_before = _outcome(before, args)
    got_after = _outcome(after, args)
    _same(got_before, want, rtol)
    _same(got_after, want, rtol)


# -- inputs -------------------------------------------------------------------------


def _values(draw: Any, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype == "i1":
        data = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype.startswith("i"):
        data = draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n))
    else:  # small integers: products and sums exact in any order
        data = draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n))
    return np.array(data, dtype=DTYPES[dtype]).reshape(shape)


def _laid_out(draw: Any, a: np.ndarray) -> np.ndarray:
    """``a`` with the same values in a drawn layout: C, Fortran, strided or reversed."""
    layout = draw(st.sampled_from(["C", "F", "strided", "reversed"]))
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        big = np.zeros(tuple(2 * n for n in a.shape), dtype=a.dtype)
        view = big[tuple(slice(None, None, 2) for _ in a.shape)]
        view[...] = a
        return view
    if layout == "reversed":
        flipped = np.ascontiguousarray(a[tuple(slice(None, None, -1) for _ in a.shape)])
        return flipped[tuple(slice(None, None, -1) for _ in a.shape)]
    return np.ascontiguousarray(a)


def _sig(dtype: str, ndim: int) -> str:
    name = "boolean" if dtype == "i1" else dtype
    return f"{name}[{', '.join([':'] * ndim)}]"


@st.composite
def _contract_case(draw: Any, fn: str) -> tuple[str, list[Any]]:
    ranks = draw(st.tuples(st.sampled_from([1, 2]), st.sampled_from([1, 2])))
    dtypes = draw(st.tuples(*(st.sampled_from(list(DTYPES)),) * 2))
    n, k, m = (draw(st.integers(0, 4)) for _ in range(3))
    k2 = k if draw(st.integers(0, 9)) else draw(st.integers(0, 4))  # sometimes mismatched
    if fn == "inner":
        shapes = [(n, k)[2 - ranks[0] :], (m, k2)[2 - ranks[1] :]]
    elif fn == "vdot":
        shapes = [
            (n, k)[2 - ranks[0] :],
            (k, n)[2 - ranks[1] :] if k2 == k else (k2, m)[2 - ranks[1] :],
        ]
    else:
        shapes = [(n, k)[2 - ranks[0] :], (k2, m)[: ranks[1]]]
    args = [_laid_out(draw, _values(draw, s, d)) for s, d in zip(shapes, dtypes, strict=True)]
    call = "a @ b" if fn == "@" else f"np.{fn}(a, b)"
    a_sig, b_sig = (_sig(d, r) for d, r in zip(dtypes, ranks, strict=True))
    source = f"""
    @gradc.export
    def f(a: {a_sig}, b: {b_sig}):
        return {call}
    """
    return source, args


@pytest.mark.parametrize("fn", ["@", "matmul", "dot", "inner", "vdot"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_contractions_match_numpy(fn: str, data: st.DataObject) -> None:
    source, args = data.draw(_contract_case(fn))
    _check(source, args)


@st.composite
def _array(draw: Any, ndim: int, dtype: str | None = None) -> np.ndarray:
    shape = tuple(draw(st.integers(0, 4)) for _ in range(ndim))
    return _laid_out(draw, _values(draw, shape, dtype or draw(st.sampled_from(list(DTYPES)))))


def _source(params: str, body: str) -> str:
    return f"""
    @gradc.export
    def f({params}):
        return {body}
    """


@settings(max_examples=30, deadline=None)
@given(a=_array(1), b=_array(2), c=_array(2))
def test_outer_and_trace(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    sig = {
        k: _sig(
            str(v.dtype).replace("float", "f").replace("int", "i").replace("bool", "i1"), v.ndim
        )
        for k, v in {"a": a, "b": b, "c": c}.items()
    }
    params = ", ".join(f"{k}: {s}" for k, s in sig.items())
    _check(_source(params, "np.outer(a, b)"), [a, b, c])
    _check(_source(params, "np.trace(c)"), [a, b, c])


@settings(max_examples=40, deadline=None)
@given(
    start=st.integers(-20, 20),
    stop=st.integers(-20, 20),
    step=st.integers(-6, 6),
    scale=st.sampled_from([1, 0.25, 0.1]),
)
def test_arange(start: int, stop: int, step: int, scale: float) -> None:
    _check(_source("a: i64, b: i64, s: i64", "np.arange(a, b, s)"), [start, stop, step])
    _check(_source("b: i64", "np.arange(b)"), [stop])
    _check(_source("a: i64, b: i64", "np.arange(a, b, dtype=np.float32)"), [start, stop])
    fl = [float(start * scale), float(stop * scale), float(step * scale)]
    _check(_source("a: f64, b: f64, s: f64", "np.arange(a, b, s)"), fl)
    _check(_source("a: f64, b: i64", "np.arange(a, b)"), [fl[0], stop])


@settings(max_examples=40, deadline=None)
@given(
    start=st.floats(-1e3, 1e3),
    stop=st.floats(-1e3, 1e3),
    num=st.integers(-1, 12),
    endpoint=st.booleans(),
)
def test_linspace(start: float, stop: float, num: int, endpoint: bool) -> None:
    body = f"np.linspace(a, b, n, endpoint={endpoint})"
    _check(_source("a: f64, b: f64, n: i64", body), [start, stop, num])
    _check(
        _source("a: f64, b: f64, n: i64", "np.linspace(a, b, n, dtype=np.float32)"),
        [start, stop, num],
    )
    _check(_source("a: f64, b: f64", "np.linspace(a, b)"), [start, stop])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(-1, 5), m=st.integers(0, 5), k=st.integers(-6, 6))
def test_eye_and_identity(n: int, m: int, k: int) -> None:
    _check(_source("n: i64, m: i64, k: i64", "np.eye(n, m, k)"), [n, m, k])
    _check(_source("n: i64", "np.eye(n, dtype=np.int32)"), [n])
    _check(_source("n: i64", "np.identity(n)"), [n])
    _check(_source("n: i64, k: i64", "np.eye(n, k=k, dtype=bool)"), [n, k])


@settings(max_examples=20, deadline=None)
@given(x=st.floats(-1e6, 1e6), i=st.integers(-100, 100), t=st.booleans())
def test_array_literals_and_scalar_conversions(x: float, i: int, t: bool) -> None:
    params = "x: f64, i: i64, t: boolean"
    for body in (
        "np.array([[x, 2.0, i], [i, 5, x * 2]])",
        "np.array((i, 3, -i))",
        "np.array([t, False])",
        "np.array([[i], [t]], dtype=np.float32)",
        "np.array([np.float32(x), np.float32(2.5)])",
        "np.array([[[x]]])",
        "np.float32(x) * np.float32(3.0)",
        "np.int64(x) + np.int32(i)",
        "np.float64(i) / 3",
        "np.bool_(x)",
    ):
        _check(_source(params, body), [x, i, t])


@settings(max_examples=30, deadline=None)
@given(
    a=_array(2, "f64"), b=_array(2, "i64"), c=_array(1, "f32"), d=_array(1, "i1"), data=st.data()
)
def test_joins(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, data: st.DataObject
) -> None:
    # shapes mostly compatible: b reshaped from a's where it can be
    if data.draw(st.booleans()):
        b = _laid_out(data.draw, np.arange(a.size, dtype=np.int64).reshape(a.shape))
    if data.draw(st.booleans()):
        d = np.ones(c.shape, dtype=np.bool_)
    params = "a: f64[:, :], b: i64[:, :], c: f32[:], d: boolean[:]"
    args = [a, b, c, d]
    for body in (
        "np.concatenate((a, b, a))",
        "np.concatenate([a, b], axis=1)",
        "np.concatenate((a, b), axis=-1)",
        "np.concatenate((c, d, c))",
        "np.stack((a, b))",
        "np.stack((a, b), axis=2)",
        "np.stack((c, d), axis=-1)",
        "np.vstack((c, d))",
        "np.vstack((a, b))",
        "np.hstack((a, b))",
        "np.hstack((c, d))",
    ):
        _check(_source(params, body), args)


@settings(max_examples=30, deadline=None)
@given(a=_array(2), data=st.data())
def test_astype_and_copy(a: np.ndarray, data: st.DataObject) -> None:
    dtype = {
        np.float64: "f64",
        np.float32: "f32",
        np.int64: "i64",
        np.int32: "i32",
        np.bool_: "i1",
    }[a.dtype.type]
    if dtype.startswith("f") and data.draw(st.booleans()):
        a = a * 0.37
    params = f"a: {_sig(dtype, 2)}"
    for target in ("np.float64", "np.float32", "np.int64", "np.int32", "bool"):
        _check(_source(params, f"a.astype({target})"), [a])
    _check(_source(params, "a.copy()"), [a])


def test_astype_nan_to_int_raises_where_numpy_gives_garbage() -> None:
    # documented difference (docs/arrays_linalg.md): float -> int converts as int() does
    before, after = _pair(_source("a: f64[:]", "a.astype(np.int64)"))
    a = np.array([1.0, np.nan])
    assert (
        _outcome(before, [a])
        == _outcome(after, [a])
        == (ValueError, "cannot convert float NaN to integer")
    )


MODULE_CONSTANTS = """
EPS = np.float32(1e-6)
SCALE = np.float64(2.5) * 2
W = np.array([[1.0, 2.0], [3.0, 4.0]])
V = np.arange(2.0)
I = np.eye(2, dtype=np.int32)
N = 3
"""


@settings(max_examples=20, deadline=None)
@given(x=_array(1, "f64"), y=st.floats(-10, 10, width=32))
def test_module_numpy_constants_are_folded_and_read_only_copies(x: np.ndarray, y: float) -> None:
    x = x[:2] if x.shape[0] >= 2 else np.ones(2)
    source = MODULE_CONSTANTS + textwrap.dedent("""
    @gradc.export
    def f(x: f64[:], y: f32):
        return (np.dot(W @ x, V) + W[1, 0] * SCALE + W.shape[0] + N + np.trace(I), y + EPS)
    """)
    before, after = _pair(source)
    want = _numpy(source, [x, np.float32(y)])
    for got in (_outcome(before, [x, y]), _outcome(after, [x, y])):
        assert got[0] == pytest.approx(float(want[0]), rel=1e-12)
        assert np.float32(got[1]) == want[1]


@pytest.mark.parametrize("dtype", ["f64", "f32", "i32", "boolean"])
def test_dtype_of_a_parameter(dtype: str) -> None:
    a = np.ones(2, dtype=DTYPES["i1" if dtype == "boolean" else dtype])
    body = "(np.zeros(n, dtype=a.dtype), np.eye(n, dtype=a.dtype), a.astype(a.dtype), h(a, n))"
    source = (
        _source(f"a: {dtype}[:], n: i64", body)
        + """
    def h(x, n):
        return np.ones(n, dtype=x.dtype)
    """
    )
    _check(source, [a, 3])
