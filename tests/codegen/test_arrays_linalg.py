"""Linear algebra and array construction compiled by gradc against NumPy running the
same source (one module of exports, built once).

Inputs are hypothesis-drawn: shapes with 0-length axes, dtypes f64/f32/i64/i32/bool,
layouts C, Fortran, strided and reversed; about one case in ten has mismatched inner
sizes, where both must raise ValueError with the same message (the one documented
difference: np.dot/np.inner of two 2-D arrays print the right operand's free size as
``...``). Integer and bool results are exact; float results of products agree within
``8·k·eps·(|a| @ |b|)`` (gradc's loops add in another order than OpenBLAS), every other
float result exactly.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

DTYPES = {
    "f64": np.float64,
    "f32": np.float32,
    "i64": np.int64,
    "i32": np.int32,
    "boolean": np.bool_,
}
FNS = {"@": "a @ b", "dot": "np.dot(a, b)", "inner": "np.inner(a, b)", "vdot": "np.vdot(a, b)"}

#: export name -> (its parameters, the expression it returns).
EXPORTS: dict[str, tuple[str, str]] = {}


def _sig(dtype: str, ndim: int) -> str:
    return f"{dtype}[{', '.join([':'] * ndim)}]"


def _contract_exports() -> None:
    for fn, body in FNS.items():
        name = {"@": "matmul"}.get(fn, fn)
        for ra in (1, 2):
            for rb in (1, 2):
                EXPORTS[f"{name}_{ra}{rb}_f64"] = (
                    f"a: {_sig('f64', ra)}, b: {_sig('f64', rb)}",
                    body,
                )
    for da, db in (
        ("f32", "f32"),
        ("i64", "i64"),
        ("i32", "f32"),
        ("boolean", "boolean"),
        ("i64", "f64"),
    ):
        for ra, rb in ((2, 2), (2, 1), (1, 2)):
            EXPORTS[f"matmul_{ra}{rb}_{da}_{db}"] = (
                f"a: {_sig(da, ra)}, b: {_sig(db, rb)}",
                "a @ b",
            )


_contract_exports()
EXPORTS.update(
    {
        "outer_f64_i64": ("a: f64[:, :], b: i64[:]", "np.outer(a, b)"),
        "outer_bool": ("a: boolean[:], b: boolean[:]", "np.outer(a, b)"),
        "trace_f32": ("a: f32[:, :]", "np.trace(a)"),
        "trace_i32": ("a: i32[:, :]", "np.trace(a)"),
    }
)

#: Construction exports: (parameters, body, a strategy of their arguments).
CONSTRUCT: dict[str, tuple[str, str, Any]] = {
    "arange_i": (
        "a: i64, b: i64, s: i64",
        "np.arange(a, b, s)",
        st.tuples(*[st.integers(-30, 30)] * 3),
    ),
    "arange_f": (
        "a: f64, b: f64, s: f64",
        "np.arange(a, b, s)",
        st.tuples(
            st.floats(-20, 20), st.floats(-20, 20), st.sampled_from([0.0, 0.5, -0.3, 1.0, 7.25])
        ),
    ),
    "arange_1": ("b: i64", "np.arange(b, dtype=np.float32)", st.tuples(st.integers(-3, 30))),
    "linspace": (
        "a: f64, b: f64, n: i64",
        "np.linspace(a, b, n)",
        st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.integers(-1, 40)),
    ),
    "linspace_open": (
        "a: f64, b: f64, n: i64",
        "np.linspace(a, b, n, endpoint=False, dtype=np.float32)",
        st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.integers(0, 40)),
    ),
    "eye": (
        "n: i64, m: i64, k: i64",
        "np.eye(n, m, k)",
        st.tuples(st.integers(-1, 6), st.integers(0, 6), st.integers(-7, 7)),
    ),
    "identity": ("n: i64", "np.identity(n, dtype=np.int64)", st.tuples(st.integers(0, 6))),
    "literal": (
        "x: f64, i: i64",
        "np.array([[x, i], [i * 2, 3.5], [x, x]])",
        st.tuples(st.floats(-1e9, 1e9), st.integers(-99, 99)),
    ),
    "scalar_f32": ("x: f64", "np.float32(x) + np.float32(1e-3)", st.tuples(st.floats(-1e9, 1e9))),
}
EXPORTS.update({name: (params, body) for name, (params, body, _) in CONSTRUCT.items()})
JOINS = {
    "concat": ("a: f64[:, :], b: i64[:, :]", "np.concatenate((a, b, a), axis=1)"),
    "stack": ("a: f64[:, :], b: i64[:, :]", "np.stack((a, b), axis=-1)"),
    "vstack": ("a: f64[:, :], b: i64[:, :]", "np.vstack((a, b))"),
    "vstack_1d": ("a: f32[:], b: boolean[:]", "np.vstack((a, b, a))"),
    "concat_1d": ("a: f32[:], b: boolean[:]", "np.concatenate([b, a])"),
    "hstack": ("a: f64[:, :], b: i64[:, :]", "np.hstack((b, a))"),
    "astype": ("a: f64[:, :], b: i64[:, :]", "a.astype(np.int32)"),
    "astype_f32": ("a: f64[:, :], b: i64[:, :]", "b.astype(np.float32)"),
}
EXPORTS.update(JOINS)

SOURCE = (
    "import numpy as np\nimport gradc\nfrom gradc import boolean, f32, f64, i32, i64\n"
    + "".join(
        textwrap.dedent(
            f"""

        @gradc.export
        def {name}({params}):
            return {body}
        """
        )
        for name, (params, body) in EXPORTS.items()
    )
)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("linalg") / "linalg_exports.py"
    path.write_text(SOURCE)
    return compile_module(path)


def _plain() -> dict[str, Any]:
    scope: dict[str, Any] = {}
    exec(SOURCE, scope)
    return scope


PLAIN = _plain()


def _params(name: str) -> list[tuple[str, int]]:
    found = re.findall(r"\w+: (\w+)\[([^\]]*)\]", EXPORTS[name][0])
    return [(dtype, dims.count(":")) for dtype, dims in found]


def _laid_out(draw: Any, a: np.ndarray) -> np.ndarray:
    layout = draw(st.sampled_from(["C", "F", "strided", "reversed"]))
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in a.shape), dtype=a.dtype)
        view = big[tuple(slice(1, None, 2) for _ in a.shape)]
        view[...] = a
        return view
    if layout == "reversed":
        rev = tuple(slice(None, None, -1) for _ in a.shape)
        return np.ascontiguousarray(a[rev])[rev]
    return np.ascontiguousarray(a)


def _values(draw: Any, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype == "boolean":
        strategy: Any = st.booleans()
    elif dtype.startswith("i"):
        strategy = st.integers(-1000, 1000)
    else:
        strategy = st.floats(-10, 10, width=32 if dtype == "f32" else 64)
    return np.array(draw(st.lists(strategy, min_size=n, max_size=n)), dtype=DTYPES[dtype]).reshape(
        shape
    )


def _shapes(draw: Any, name: str, ranks: list[int]) -> list[tuple[int, ...]]:
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    k2 = k if draw(st.integers(0, 9)) else draw(st.integers(0, 5))
    if name.startswith(("outer", "trace")):
        return [tuple(draw(st.integers(0, 5)) for _ in range(r)) for r in ranks]
    if name.startswith("inner"):
        return [(n, k)[2 - ranks[0] :], (m, k2)[2 - ranks[1] :]]
    if name.startswith("vdot"):
        size = (n, k)[2 - ranks[0] :]
        total = int(np.prod(size)) + (k2 != k)
        return [size, (1, total) if ranks[1] == 2 else (total,)]
    return [(n, k)[2 - ranks[0] :], (k2, m)[: ranks[1]]]


def _outcome(fn: Callable[..., Any], args: list[np.ndarray]) -> Any:
    try:
        return fn(*(a.copy() if a.base is None else a for a in args))
    except ValueError as exc:
        return (ValueError, str(exc))


def _documented(message: str) -> str:
    return re.sub(r"^(shapes \(\d+,\d+\) and \(\d+),\d+\)", r"\1,...)", message)


def _compare(name: str, args: list[np.ndarray], got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        assert got == (want[0], _documented(want[1]))
        return
    assert not isinstance(got, tuple), got
    want_a = np.asarray(want)
    got_a = np.asarray(got)
    assert got_a.shape == want_a.shape
    if want_a.ndim:
        assert isinstance(got, np.ndarray) and got.dtype == want_a.dtype
    if want_a.dtype.kind != "f":
        np.testing.assert_array_equal(got_a, want_a)
        return
    fn = PLAIN[name]
    bound = np.abs(np.asarray(fn(*(np.abs(a.astype(np.float64)) for a in args)), dtype=np.float64))
    k = max([1, *(a.shape[-1] for a in args if a.ndim)])
    eps = np.finfo(want_a.dtype).eps
    assert np.all(np.abs(got_a.astype(np.float64) - want_a) <= 8 * k * eps * bound + 1e-300)


@pytest.mark.parametrize("name", sorted(set(EXPORTS) - set(CONSTRUCT) - set(JOINS)))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_matches_numpy(lib: Any, name: str, data: st.DataObject) -> None:
    params = _params(name)
    shapes = _shapes(data.draw, name, [r for _, r in params])
    args = [
        _laid_out(data.draw, _values(data.draw, s, d))
        for s, (d, _) in zip(shapes, params, strict=True)
    ]
    want = _outcome(PLAIN[name], args)
    got = _outcome(getattr(lib, name), args)
    _compare(name, args, got, want)


@pytest.mark.parametrize("name", sorted(CONSTRUCT))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_construction_matches_numpy(lib: Any, name: str, data: st.DataObject) -> None:
    args = list(data.draw(CONSTRUCT[name][2]))
    want = _scalar_outcome(PLAIN[name], args)
    got = _scalar_outcome(getattr(lib, name), args)
    if isinstance(want, tuple):
        assert got == want
        return
    assert np.asarray(got).dtype == np.asarray(want).dtype or np.ndim(want) == 0
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _scalar_outcome(fn: Callable[..., Any], args: list[Any]) -> Any:
    try:
        with np.errstate(all="ignore"):
            return fn(*args)
    except (ValueError, ZeroDivisionError) as exc:
        return (type(exc), str(exc))


@pytest.mark.parametrize("name", sorted(JOINS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_joins_and_conversions_match_numpy(lib: Any, name: str, data: st.DataObject) -> None:
    rows, cols = data.draw(st.integers(1, 4)), data.draw(st.integers(0, 4))
    other = (rows, cols) if data.draw(st.integers(0, 5)) else (rows + 1, cols)
    flat = name.endswith("_1d")
    a_shape, b_shape = ((cols,), other[1:]) if flat else ((rows, cols), other)
    if flat and data.draw(st.booleans()):
        b_shape = (cols + 1,)
    a = _laid_out(data.draw, _values(data.draw, a_shape, "f32" if flat else "f64"))
    b = _laid_out(data.draw, _values(data.draw, b_shape, "boolean" if flat else "i64"))
    want = _outcome(PLAIN[name], [a, b])
    got = _outcome(getattr(lib, name), [a, b])
    if isinstance(want, tuple):
        assert got == want
        return
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_temporaries_are_freed(lib: Any) -> None:
    # a Fortran-ordered right operand is packed into a C copy first; results dropped,
    # and calls that raise, leave no live block behind (the runtime's counter)
    import gc

    import gradc

    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    b = np.asfortranarray(np.arange(8.0).reshape(4, 2))
    gc.collect()
    before = int(gradc.runtime_stats()["live"])
    for _ in range(3):
        assert lib.matmul_22_f64(a, b).shape == (3, 2)
        assert lib.concat(a, np.ones((3, 2), dtype=np.int64)).shape == (3, 10)
        with pytest.raises(ValueError):
            lib.matmul_22_f64(a, a)
        with pytest.raises(ValueError):
            lib.concat(a, np.ones((2, 2), dtype=np.int64))
    gc.collect()
    assert int(gradc.runtime_stats()["live"]) == before
