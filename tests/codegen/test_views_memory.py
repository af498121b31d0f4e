"""Memory of views (compiler/ir/ops/views.py): a view shares its base's block and holds a
reference of its own, so the block lives exactly as long as the base or any view of it.

Checked with the runtime's allocation counter (``gradc.runtime_stats()["live"]``):
- a view of a local array returned while the base variable dies keeps the block (one
  live block per result, freed when NumPy drops it), and its values survive other calls
  that allocate and free (a block freed early would be reused and overwritten);
- two views of one block returned in a tuple hold one reference each;
- views made in loops, and views whose indices raise IndexError/ValueError, leak nothing;
- a small constant-shape local array whose view escapes is not put on the stack;
- a view of an argument is returned as a view of the argument array (NumPy's aliasing),
  negative strides included, and allocates nothing.
(Every export of tests/codegen/corpus_arrays/views.py also runs under
tests/codegen/test_arrays_memory.py's leak check.)
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

SOURCE = """\
import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def tail_of_local(n: i64) -> f64[:]:
    z = np.zeros(n + 2)
    for k in range(n + 2):
        z[k] = k * 1.5
    return z[2:]


@gradc.export
def two_views(n: i64):
    z = np.zeros((n, 3))
    for i in range(n):
        z[i, 0] = i
        z[i, 2] = -i
    return z[:, 0], z[::-1, 2]


@gradc.export
def rows_in_loop(n: i64) -> f64:
    z = np.zeros((n, 4))
    s = 0.0
    for i in range(n):
        r = z[i]
        r[1] = i
        t = z.T
        s += r[1] + t[1, i]
    return s


@gradc.export
def row_out_of_range(n: i64, i: i64) -> f64:
    z = np.ones((n, 2))
    r = z[i]
    return r[0]


@gradc.export
def zero_step(n: i64, s: i64) -> f64:
    z = np.ones(n)
    w = np.ones(n)
    v = z[::s]
    return v[0] + w[0]


@gradc.export
def small_escaping() -> f64[:]:
    z = np.zeros(4)
    z[1] = 3.0
    z[3] = 4.0
    return z[1::2]


@gradc.export
def tail_of_argument(a: f64[:]) -> f64[:]:
    return a[1:]


@gradc.export
def flipped_argument(A: f64[:, :]) -> f64[:, :]:
    return A[::-1, ::2].T


@gradc.export
def churn(n: i64) -> f64:
    a = np.full(n, 99.0)
    return a[0]
"""


def live() -> int:
    import gradc

    gc.collect()
    return int(gradc.runtime_stats()["live"])


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory, compile_module: Callable[[Path], Any]) -> Any:
    path = tmp_path_factory.mktemp("viewsmem") / "views_memory_mod.py"
    path.write_text(SOURCE)
    return compile_module(path)


def test_returned_view_keeps_its_block(lib: Any) -> None:
    before = live()
    v = lib.tail_of_local(5)
    assert live() == before + 1
    for _ in range(50):
        lib.churn(7)  # would reuse a block freed too early
    np.testing.assert_array_equal(v, np.arange(7)[2:] * 1.5)
    del v
    assert live() == before


def test_two_views_of_one_block(lib: Any) -> None:
    before = live()
    a, b = lib.two_views(4)
    assert np.may_share_memory(a, b)  # one block (different elements)
    assert live() == before + 1
    del a
    assert live() == before + 1
    for _ in range(50):
        lib.churn(12)
    np.testing.assert_array_equal(b, [-3.0, -2.0, -1.0, 0.0])
    del b
    assert live() == before


def test_views_in_loops_leak_nothing(lib: Any) -> None:
    assert lib.rows_in_loop(5) == 2 * sum(range(5))
    before = live()
    for _ in range(2_000):
        lib.rows_in_loop(6)
    assert live() == before


@pytest.mark.parametrize(
    ("name", "args", "error"),
    [
        ("row_out_of_range", (3, 3), IndexError),
        ("row_out_of_range", (3, -4), IndexError),
        ("zero_step", (3, 0), ValueError),
    ],
)
def test_raising_views_leak_nothing(
    lib: Any, name: str, args: tuple[int, ...], error: type[Exception]
) -> None:
    fn = getattr(lib, name)
    before = live()
    for _ in range(500):
        with pytest.raises(error):
            fn(*args)
    assert live() == before


def test_small_array_with_an_escaping_view_is_not_on_the_stack(lib: Any) -> None:
    before = live()
    v = lib.small_escaping()
    assert live() == before + 1  # a runtime block, not frame memory
    for _ in range(50):
        lib.churn(4)
    np.testing.assert_array_equal(v, [3.0, 4.0])
    del v
    assert live() == before


def test_views_of_arguments_alias_them(lib: Any) -> None:
    before = live()
    a = np.arange(5.0)
    t = lib.tail_of_argument(a)
    assert np.shares_memory(t, a)
    t[0] = -1.0
    assert a[1] == -1.0
    A = np.arange(12.0).reshape(3, 4)
    for base in (A, A[:, ::-1], np.asfortranarray(A)):
        r = lib.flipped_argument(base)
        assert np.shares_memory(r, base)
        np.testing.assert_array_equal(r, base[::-1, ::2].T)
    assert live() == before
