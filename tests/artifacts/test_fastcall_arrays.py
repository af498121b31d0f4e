"""The fast call path for array exports (compiler/codegen/pywrapper_arrays.py) against the
ctypes path: every export of two modules, both ways, on the same hypothesis-drawn
arguments (right and wrong dtypes, ranks, layouts, read-only, aliasing, non-arrays):
the same values, exceptions and messages, the same writes into the arguments, the same
sharing of memory; plus signatures (issue 14) and the blamed parameter."""

from __future__ import annotations

import gc
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.artifacts.abi.types import Array, Scalar
from gradc.artifacts.loader.cpu import ArrayOwner
from gradc.artifacts.loader.linking import runtime_stats

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

HERE = Path(__file__).parent
MODULES = (HERE / "fastcall_arrays" / "kernels.py", HERE.parent / "ad" / "lowlevel" / "kernels.py")


@pytest.fixture(scope="module")
def libs(compile_module: Callable[[Path], Any]) -> list[Any]:
    return [compile_module(m) for m in MODULES]


@dataclass(frozen=True)
class Recipe:
    """How to make one argument array afresh (so each path gets an identical one)."""

    dtype: str
    shape: tuple[int, ...]
    style: str  # C, F, strided, reversed, broadcast
    readonly: bool
    seed: int

    def make(self) -> Any:
        rng = np.random.default_rng(self.seed)
        big = tuple(2 * n + 1 for n in self.shape)
        data = rng.uniform(-2.0, 2.0, big) * 3
        base = data.astype(self.dtype) if self.dtype != "bool" else data > 0
        if self.style == "strided":
            a = base[tuple(slice(1, 1 + 2 * n, 2) for n in self.shape)]
        elif self.style == "reversed":
            a = base[tuple(slice(n - 1, None, -1) if n else slice(0, 0) for n in self.shape)]
        elif self.style == "broadcast" and self.shape:
            a = np.broadcast_to(base[(slice(0, 1),) * len(self.shape)], self.shape)
        else:
            a = base[tuple(slice(0, n) for n in self.shape)]
            a = np.asfortranarray(a) if self.style == "F" else np.ascontiguousarray(a)
        if self.readonly and a.flags.writeable:
            a.flags.writeable = False
        return a


DTYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32", "bool": "bool"}
OTHERS = ["float64", "float32", "int64", "int32", "bool", "longlong", ">f8", "complex128"]


@st.composite
def array_recipe(draw: Any, t: Array) -> Recipe:
    good = draw(st.integers(0, 5)) > 0
    dtype = DTYPES[t.dtype] if good else draw(st.sampled_from(OTHERS))
    ndim = t.ndim if draw(st.integers(0, 5)) > 0 else draw(st.sampled_from([1, 2, 3]))
    shape = tuple(draw(st.integers(0, 4) if draw(st.integers(0, 6)) == 0 else st.integers(1, 4))
                  for _ in range(ndim))  # fmt: skip
    style = draw(st.sampled_from(["C", "C", "F", "strided", "reversed", "broadcast"]))
    return Recipe(dtype, shape, style, draw(st.integers(0, 9)) == 0, draw(st.integers(0, 999)))


class Matrix(np.ndarray):
    """An ndarray subclass (the fast path hands it to the slow path)."""


NOT_ARRAYS = [[1.0, 2.0], None, 2.5, "a", Recipe("float64", (3,), "C", False, 1)]


@st.composite
def arguments(draw: Any, lib: Any, name: str) -> tuple[Any, ...]:
    """Recipes and scalars for export ``name``'s parameters."""
    sig = lib.manifest.entry(name).signature.abi
    out: list[Any] = []
    for _, t in sig.params:
        if isinstance(t, Array):
            pick = draw(st.integers(0, 14))
            earlier = [i for i, v in enumerate(out) if isinstance(v, Recipe)]
            if pick == 0:
                out.append(draw(st.sampled_from(NOT_ARRAYS)))
            elif pick == 1 and earlier:
                out.append(("same", draw(st.sampled_from(earlier))))
            elif pick == 2:
                out.append(("matrix", draw(array_recipe(t))))
            else:
                out.append(draw(array_recipe(t)))
        else:
            assert isinstance(t, Scalar)
            value = {"f64": st.floats(-3, 3), "f32": st.floats(-3, 3), "i64": st.integers(0, 5),
                     "i32": st.integers(0, 5), "bool": st.booleans()}[t.name]  # fmt: skip
            out.append(
                draw(value) if draw(st.integers(0, 9)) else draw(st.sampled_from(["x", None]))
            )
    return tuple(out)


def materialize(spec: tuple[Any, ...]) -> list[Any]:
    args: list[Any] = []
    for v in spec:
        if isinstance(v, Recipe):
            args.append(v.make())
        elif isinstance(v, tuple) and v[0] == "same":
            args.append(args[v[1]])
        elif isinstance(v, tuple) and v[0] == "matrix":
            args.append(v[1].make().view(Matrix))
        else:
            args.append(v)
    return args


def describe(value: Any, args: list[Any]) -> Any:
    """A comparable picture of a result: arrays by dtype, shape, strides, contents,
    writability and the argument whose memory they share."""
    if isinstance(value, tuple):
        return tuple(describe(v, args) for v in value)
    if isinstance(value, np.ndarray):
        shares = [
            i
            for i, a in enumerate(args)
            if isinstance(a, np.ndarray) and np.shares_memory(a, value)
        ]
        return ("array", type(value).__name__, value.dtype.str, value.shape, value.strides,
                value.flags.writeable, repr(value.tolist()), shares)  # fmt: skip
    return (type(value).__name__, repr(value))


def outcome(fn: Any, spec: tuple[Any, ...]) -> Any:
    args = materialize(spec)
    try:
        got = describe(fn(*args), args)
    except Exception as exc:
        got = (type(exc).__name__, str(exc))
    after = [repr(a.tolist()) if isinstance(a, np.ndarray) else None for a in args]
    return got, after


EXPORTS = [(0, n) for n in ("first", "three", "scale", "count", "doubled", "ident", "pieces",
                            "energy", "d_energy")] + [(1, n) for n in (
    "energy", "scale_into", "bilinear", "overwrite", "pick", "r_energy", "f_energy", "g_energy")]  # fmt: skip


def test_every_export_is_fast(libs: list[Any]) -> None:
    for lib in libs:
        for name in lib:
            assert lib.is_fast(name), name


@pytest.mark.parametrize(("which", "name"), EXPORTS, ids=[f"{w}-{n}" for w, n in EXPORTS])
def test_same_as_the_ctypes_path(libs: list[Any], which: int, name: str) -> None:
    lib = libs[which]

    @settings(max_examples=40, deadline=None, database=None)
    @given(spec=arguments(lib, name))
    def check(spec: tuple[Any, ...]) -> None:
        fast = outcome(lib[name], spec)
        slow = outcome(lib.ctypes_function(name), spec)
        assert fast == slow, spec

    check()


def test_owned_results_leak_nothing(libs: list[Any]) -> None:
    lib = libs[0]
    gc.collect()
    start = runtime_stats()["live"]
    a = np.arange(5.0)
    for _ in range(200):
        d = lib.doubled(a)
        ones, (n, k), same = lib.pieces(a, 3)
    assert isinstance(d.base, ArrayOwner) and isinstance(k.base, ArrayOwner)
    assert same.base is a and n == 3 and runtime_stats()["live"] == start + 3
    del d, ones, k, same
    assert runtime_stats()["live"] == start
    g = lib.grid(0, 3)
    assert g.shape == (0, 3) and g.dtype == np.float64
    del g
    assert runtime_stats()["live"] == start


def test_the_bad_argument_is_named_with_its_type(libs: list[Any]) -> None:
    """Issue 14 item 4: the parameter at fault, spelled as the user wrote its type."""
    lib = libs[0]
    x, w = np.ones((5, 3)), np.ones(3)
    cases = [
        ((x, w, "0.1"), "energy() argument 'eps' must be f64 (float), got str"),
        ((x, [1.0], 0.1), "energy() argument 'w' must be f64[:] (a numpy array), got list"),
        ((w, w, 0.1), "energy() argument 'x' must be f64[:, :] (float64, 2-d), got float64, 1-d"),
        ((x, w.astype(np.float32)), "energy() argument 'w' must be f64[:] (float64, 1-d), got float32, 1-d"),
    ]  # fmt: skip
    for fn in (lib.energy, lib.ctypes_function("energy")):
        for args, message in cases:
            with pytest.raises(TypeError) as info:
                fn(*args)
            assert str(info.value) == message
        with pytest.raises(TypeError, match=r"^energy\(\) argument 'eps' must be f64"):
            fn(x, w=w, eps=None)


def test_signatures(libs: list[Any]) -> None:
    """``inspect.signature`` and ``help()`` show each export's parameters and defaults; the
    ctypes path's callables carry the types too."""
    lib = libs[0]
    slow = inspect.signature(lib.ctypes_function("energy"))
    assert str(slow) == "(x: 'f64[:, :]', w: 'f64[:]', eps: 'f64' = 0.5) -> 'f64'"
    assert str(inspect.signature(lib.energy)) == "(x, w, eps=0.5)"
    assert lib.energy.__doc__.startswith("energy(x: f64[:, :], w: f64[:], eps: f64 = 0.5) -> f64")
    # an infinite default has no text-signature spelling: the builtin has none, not a wrong one
    assert lib.clip.__text_signature__ is None
    assert inspect.signature(lib.ctypes_function("clip")).parameters["hi"].default == float("inf")
    for one in libs:
        for name in one:
            if (one, name) == (lib, "clip"):
                continue
            fast, ctypes_sig = (
                inspect.signature(one[name]),
                inspect.signature(one.ctypes_function(name)),
            )
            assert [(p.name, p.default) for p in fast.parameters.values()] == [
                (p.name, p.default) for p in ctypes_sig.parameters.values()
            ]


CALLS = [((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 3), {}), ((1, 2, 3, 4), {}),
         ((1,), {"w": 2}), ((1,), {"eps": 3}), ((), {"x": 1, "w": 2}), ((1, 2), {"x": 3}),
         ((1, 2), {"z": 3}), ((), {"w": 1, "eps": 2})]  # fmt: skip


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_binding_is_signature_bind(
    libs: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """The loader binds arguments as ``inspect.Signature.bind`` does (which call binds,
    and to what); a call it refuses is a TypeError both ways."""
    fn = libs[0].ctypes_function("energy")
    sig = inspect.signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        want: Any = tuple(bound.arguments.values())
    except TypeError:
        want = TypeError
    try:
        got: Any = fn.__gradc_bind__(args, kwargs)
    except TypeError:
        got = TypeError
    assert got == want


def test_no_reference_leaks(libs: list[Any]) -> None:
    """Fast calls that return, borrow, raise from compiled code, or hand over to the slow
    path leave the arguments' reference counts and the runtime's live blocks as they were."""
    lib = libs[0]
    a, x = np.arange(4.0), np.ones((2, 2))
    gc.collect()
    before = (sys.getrefcount(a), sys.getrefcount(x), runtime_stats()["live"])
    for _ in range(500):
        lib.first(a)
        lib.ident(x)
        lib.pieces(a, 2)
        lib.d_energy(x, a[:2])
        with pytest.raises(ValueError, match="energy below -100"):
            lib.energy(x, a[:2], -1000.0)
        with pytest.raises(IndexError):
            lib.first(a[:0])
        with pytest.raises(TypeError):
            lib.first(a.astype(np.float32))
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(x), runtime_stats()["live"]) == before
