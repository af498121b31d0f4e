"""Memory: arrays allocated by compiled code are reference-counted (docs/abi.md, Arrays).

``gradc.runtime_stats()["live"]`` counts the runtime's blocks allocated and not yet freed.
The tests check that
- temporaries are freed: many calls of functions that allocate (in helpers, loops,
  branches, swaps, early returns, and on the way out of an exception) leave ``live`` at
  its starting value — 2,000 calls here, 100,000 in the ``slow`` test; every export of
  tests/codegen/corpus_arrays/ is run 20 times under the same check;
- a returned array is one block owned by its NumPy array: ``live`` goes up by one per
  returned array and back down when the array (and every view of it) is dropped;
- a returned array outlives the Library that made it (``del lib; gc.collect()``) and
  stays valid and writable;
- arrays from the caller are borrowed: their reference counts are unchanged after many
  calls (also calls that raise, and in-place calls), their data stays valid, and
  ``live`` does not move.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.codegen.test_arrays_differential import (
    EXPORTS,
    Case,
    Export,
    build_library,
    compiled_params,
    deterministic_case,
    materialize,
    middle_dims,
    zero_dim_variants,
)

CORPUS = Path(__file__).parent / "corpus_arrays"

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

#: A module of its own for the tests that drop their Library (its names are unique, so
#: loading it never meets another artifact's symbols).
MEMORY_SOURCE = """\
import numpy as np

import gradc
from gradc import f64, i64


def _scaled(a, s):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = a[i] * s
    return out


@gradc.export
def mem_scaled(a: f64[:], s: f64) -> f64[:]:
    tmp = _scaled(a, 2.0)
    return _scaled(tmp, s * 0.5)


@gradc.export
def mem_pair(n: i64):
    a = np.zeros((n, 2))
    b = np.ones(n, dtype=np.int64)
    for i in range(n):
        a[i, 0] = i
        a[i, 1] = -i
        b[i] = i * i
    return a, b


@gradc.export
def mem_temporaries(a: f64[:]) -> f64:
    s = 0.0
    for k in range(3):
        t = _scaled(a, k + 1.0)
        u = t.copy()
        for v in u:
            s += v
    return s
"""


def live() -> int:
    import gradc

    stats = gradc.runtime_stats()
    return int(stats["live"])


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Callable[[str], Any]:
    """``lib("calls")`` -> the compiled corpus module tests/codegen/corpus_arrays/calls.py."""
    return lambda stem: build_library(compile_module, CORPUS / f"{stem}.py")


@pytest.fixture(scope="module")
def memory_artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The artifact directory of MEMORY_SOURCE (each test loads its own Library)."""
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    src_dir = tmp_path_factory.mktemp("memsrc")
    source = src_dir / "memory_mod.py"
    source.write_text(MEMORY_SOURCE)
    out = tmp_path_factory.mktemp("memory_mod.gradc")
    write_artifact(out, build_module(source, CompilerOptions()))
    return out


def _load(path: Path) -> Any:
    import gradc

    return gradc.load(path)


def _settled_live() -> int:
    gc.collect()
    return live()


def _vector(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-5.0, 5.0, n)


def _call_quietly(fn: Callable[..., Any], *args: Any) -> None:
    with contextlib.suppress(IndexError, ZeroDivisionError, AssertionError, ValueError):
        fn(*args)


# ------------------------------------------------------------------------- the counter


def test_runtime_stats_reports_live_blocks(memory_artifact: Path) -> None:
    import gradc

    _load(memory_artifact)  # the runtime exists once something is loaded
    stats = gradc.runtime_stats()
    assert isinstance(stats, dict)
    assert isinstance(stats["live"], int) and stats["live"] >= 0


# ------------------------------------------------------------------------- temporaries

#: (module, export, arguments): functions that allocate temporaries and return a scalar
#: or an array (dropped at once).
TEMPORARIES: list[tuple[str, str, Callable[[], tuple[Any, ...]]]] = [
    ("calls", "sum_of_doubled", lambda: (_vector(50),)),
    ("calls", "variance", lambda: (_vector(20),)),
    ("calls", "median", lambda: (_vector(9),)),
    ("calls", "quadrupled", lambda: (_vector(10),)),
    ("calls", "realloc_in_loop", lambda: (6, 5)),
    ("calls", "doubled_in_loop", lambda: (_vector(7), 4)),
    ("calls", "tuple_in_loop", lambda: (_vector(5), 3)),
    ("calls", "swap_and_bump", lambda: (_vector(4), _vector(6, 1))),
    ("calls", "conditional_alloc", lambda: (_vector(4), True)),
    ("calls", "conditional_alloc", lambda: (_vector(4), False)),
    ("calls", "first_negative_square", lambda: (np.array([1.0, 2.0, -3.0, 4.0]),)),
    ("calls", "count_until_zero", lambda: (np.array([3, 1, 0, 2], dtype=np.int64),)),
    ("calls", "nested_helpers_3d", lambda: (np.ones((2, 3, 4)),)),
    ("calls", "copy_sum_ones", lambda: (_vector(3),)),
    ("calls", "mask_count_via_helper", lambda: (_vector(8), 0.0)),
    ("kernels", "jacobi_swap", lambda: (_vector(8), 5)),
    ("kernels", "smooth_realloc", lambda: (_vector(8), 5)),
    ("kernels", "pingpong_inplace", lambda: (_vector(8), 5)),
    ("kernels", "matmul", lambda: (np.ones((3, 4)), np.ones((4, 2)))),
    ("alloc", "alloc_then_sum", lambda: (7,)),
    ("alloc", "zero_length", lambda: (5,)),
    ("numpy_reductions", "chained", lambda: (np.arange(24.0).reshape(2, 3, 4),)),
    ("numpy_reductions", "sum_axes_3d", lambda: (np.ones((2, 3, 4)),)),
]


@pytest.mark.parametrize(
    ("module", "name", "make_args"), TEMPORARIES, ids=[f"{m}.{n}" for m, n, _ in TEMPORARIES]
)
def test_temporaries_are_freed(
    lib: Callable[[str], Any], module: str, name: str, make_args: Callable[[], tuple[Any, ...]]
) -> None:
    fn = getattr(lib(module), name)
    args = make_args()
    fn(*args)  # warm up: anything allocated once is not a leak
    before = _settled_live()
    for _ in range(2_000):
        fn(*args)
    assert _settled_live() == before, f"{module}.{name}: blocks leaked"


@pytest.mark.slow
def test_no_leak_in_100k_calls(memory_artifact: Path, lib: Callable[[str], Any]) -> None:
    mod = _load(memory_artifact)
    a = _vector(16)
    alloc_then_sum = lib("alloc").alloc_then_sum
    expected = mod.mem_temporaries(a)
    alloc_then_sum(8)
    before = _settled_live()
    for _ in range(100_000):
        mod.mem_temporaries(a)
        alloc_then_sum(8)
    assert _settled_live() == before
    assert mod.mem_temporaries(a) == expected


def test_no_leak_in_2000_calls(memory_artifact: Path) -> None:
    mod = _load(memory_artifact)
    a = _vector(16)
    expected = mod.mem_temporaries(a)
    before = _settled_live()
    for _ in range(2_000):
        assert mod.mem_temporaries(a) == expected
    assert _settled_live() == before


#: Calls that raise after allocating: the temporaries must be released on the way out.
RAISING: list[tuple[str, str, Callable[[], tuple[Any, ...]], type[Exception]]] = [
    ("calls", "raise_with_temp", lambda: (_vector(3), 10), IndexError),
    ("calls", "raise_with_temp", lambda: (_vector(3), -4), IndexError),
    ("calls", "median", lambda: (np.zeros(0),), IndexError),
    ("calls", "variance", lambda: (np.zeros(0),), ZeroDivisionError),
    ("calls", "checked_dot", lambda: (_vector(3), _vector(4)), AssertionError),
    ("kernels", "rotate", lambda: (_vector(5), 9), IndexError),
    ("indexing", "gather", lambda: (_vector(3), np.array([0, 1, 7])), IndexError),
]


@pytest.mark.parametrize(
    ("module", "name", "make_args", "error"),
    RAISING,
    ids=[f"{m}.{n}-{i}" for i, (m, n, _, _) in enumerate(RAISING)],
)
def test_temporaries_are_freed_when_raising(
    lib: Callable[[str], Any],
    module: str,
    name: str,
    make_args: Callable[[], tuple[Any, ...]],
    error: type[Exception],
) -> None:
    fn = getattr(lib(module), name)
    args = make_args()
    with pytest.raises(error):
        fn(*args)
    before = _settled_live()
    for _ in range(2_000):
        with pytest.raises(error):
            fn(*args)
    assert _settled_live() == before, f"{module}.{name}: blocks leaked on {error.__name__}"


def _corpus_cases(export: Export) -> list[Case]:
    cases = [deterministic_case(export, middle_dims(export))]
    for dims in zero_dim_variants(export)[:2]:
        cases.append(deterministic_case(export, dims, "strided"))
    return cases


@pytest.mark.parametrize("export", compiled_params(EXPORTS))
def test_every_export_is_leak_free(export: Export, compile_module: Callable[[Path], Any]) -> None:
    """20 rounds over a few inputs (fresh copies each call: some exports write them)."""
    fn = getattr(build_library(compile_module, export.path), export.name)
    cases = _corpus_cases(export)
    for case in cases:
        _call_quietly(fn, *materialize(export, case)[0])
    before = _settled_live()
    for _ in range(20):
        for case in cases:
            _call_quietly(fn, *materialize(export, case)[0])
    assert _settled_live() == before, f"{export.id}: blocks leaked"


# ------------------------------------------------------------------------- results


def test_returned_array_is_one_block(lib: Callable[[str], Any]) -> None:
    zeros_2d = lib("alloc").zeros_2d
    before = _settled_live()
    r = zeros_2d(3, 4)
    assert live() == before + 1
    assert type(r) is np.ndarray and r.shape == (3, 4) and r.dtype == np.float64
    assert r.flags.writeable
    del r
    assert _settled_live() == before


def test_tuple_of_arrays_two_blocks(lib: Callable[[str], Any]) -> None:
    bool_and_or = lib("alloc").bool_and_or
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    before = _settled_live()
    both, either = bool_and_or(a, b)
    assert live() == before + 2
    assert not np.shares_memory(both, either)
    np.testing.assert_array_equal(both, [True, False, False, False])
    del both
    assert _settled_live() == before + 1
    np.testing.assert_array_equal(either, [True, True, True, False])
    del either
    assert _settled_live() == before


def test_views_keep_the_block_alive(lib: Callable[[str], Any]) -> None:
    full_f64 = lib("alloc").full_f64
    before = _settled_live()
    r = full_f64(6, 2.5)
    view = r[1::2]
    del r
    assert _settled_live() == before + 1, "the view's base must keep the block"
    np.testing.assert_array_equal(view, [2.5, 2.5, 2.5])
    view[:] = 7.0  # writable, and writes land in the live block
    np.testing.assert_array_equal(view, [7.0, 7.0, 7.0])
    del view
    assert _settled_live() == before


def test_kept_results_are_counted_and_released(lib: Callable[[str], Any]) -> None:
    zeros_2d = lib("alloc").zeros_2d
    before = _settled_live()
    kept = [zeros_2d(2, 3) for _ in range(100)]
    assert live() == before + 100
    for _ in range(2_000):
        zeros_2d(5, 5)  # dropped at once
    assert _settled_live() == before + 100
    for i, r in enumerate(kept):
        r[0, 0] = i
    assert [int(r[0, 0]) for r in kept] == list(range(100)), "results share memory"
    del kept, r
    assert _settled_live() == before


def test_result_outlives_its_library(memory_artifact: Path, lib: Callable[[str], Any]) -> None:
    mod = _load(memory_artifact)
    x = _vector(40, seed=3)
    scaled = mod.mem_scaled(x, 3.0)
    pair = mod.mem_pair(5)
    before_drop = live()
    del mod
    gc.collect()
    # churn the runtime allocator and NumPy's: freed blocks would be reused now
    full_f64 = lib("alloc").full_f64
    junk = [full_f64(40, float(k)) for k in range(50)]
    junk += [np.full(40, -1.0) for _ in range(50)]
    del junk
    gc.collect()
    assert type(scaled) is np.ndarray and scaled.dtype == np.float64
    np.testing.assert_array_equal(scaled, (x * 2.0) * 1.5)
    a, b = pair
    np.testing.assert_array_equal(a, np.array([[i, -i] for i in range(5)], dtype=np.float64))
    np.testing.assert_array_equal(b, np.arange(5, dtype=np.int64) ** 2)
    scaled += 1.0  # writable after the library is gone
    assert scaled.flags.owndata or scaled.base is not None
    assert live() == before_drop
    del scaled, pair, a, b
    assert _settled_live() == before_drop - 3


# ------------------------------------------------------------------------- borrowed


def _refcounts(**arrays: np.ndarray) -> dict[str, int]:
    return {name: sys.getrefcount(a) for name, a in arrays.items()}


def test_borrowed_arguments_are_never_freed(lib: Callable[[str], Any]) -> None:
    reductions, indexing, augassign, alloc = (
        lib("reductions"),
        lib("indexing"),
        lib("augassign"),
        lib("alloc"),
    )
    A = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4))
    base = np.arange(20, dtype=np.float64)
    x = base[::5]  # a view: borrowed memory owned by `base`
    acc = np.zeros(4)
    A_copy, x_copy = A.copy(), x.copy()
    counts = _refcounts(A=A, x=x, base=base, acc=acc)
    before = _settled_live()
    for _ in range(1_000):
        assert reductions.dot(x, x) == 350.0
        assert reductions.sum_2d(A) == 66.0
        np.testing.assert_array_equal(alloc.copy_then_mutate(x), 2.0 * x_copy + 1.0)
        augassign.aug_add_f64(acc, 1.0)  # writes the borrowed array
        with pytest.raises(IndexError):
            indexing.get(x, 99)
        with pytest.raises(TypeError):
            reductions.sum_2d(A.astype(np.float32))
    assert _settled_live() == before, "borrowed arrays or temporaries were counted"
    assert _refcounts(A=A, x=x, base=base, acc=acc) == counts
    np.testing.assert_array_equal(A, A_copy)
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_array_equal(acc, np.full(4, 1000.0))
    assert A.flags.owndata and base.flags.owndata and x.base is base
    # the caller still owns (and frees) its memory: no double free, no dangling data
    del A, x, acc
    gc.collect()
    fresh = [np.arange(20, dtype=np.float64) for _ in range(100)]
    assert all(f[7] == 7.0 for f in fresh)
    np.testing.assert_array_equal(base, np.arange(20, dtype=np.float64))


def test_borrowed_and_owned_in_one_variable(lib: Callable[[str], Any]) -> None:
    """Helpers writing borrowed arrays; a borrowed argument and an owned buffer swapped in
    a loop (``src, dst = dst, src``): the borrowed one is never released."""
    kernels, calls = lib("kernels"), lib("calls")
    A = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::-1]
    x = np.array([1.0, -1.0, 2.0, 0.5])
    acc = np.zeros(4)
    ping = np.ones(6)
    counts = _refcounts(A=A, x=x, acc=acc, ping=ping)
    expected_y = A @ x
    before = _settled_live()
    for steps in range(1_000):
        np.testing.assert_array_equal(kernels.matvec(A, x), expected_y)
        calls.accumulate_into(acc, x)  # a helper writes into the borrowed array
        ping[:] = 1.0
        kernels.pingpong_inplace(ping, steps % 5)
    assert _settled_live() == before
    assert _refcounts(A=A, x=x, acc=acc, ping=ping) == counts
    np.testing.assert_array_equal(acc, 2_000 * x)
    assert ping.flags.owndata and ping.flags.writeable
    del ping
    gc.collect()
    assert np.ones(6).sum() == 6.0
