"""Arrays through the whole pipeline: driver build -> write_artifact -> gradc.load.

Array results become NumPy arrays owned by a runtime block (``.base`` an ArrayOwner that
releases the block), borrowed results are views of the argument, the live-block counter
returns to its start, read-only arrays are refused for written parameters, and IndexError
messages are formatted from the error record's template.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gradc
from gradc.artifacts.loader.cpu import ArrayOwner, Library
from gradc.artifacts.store import read_manifest, write_artifact

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

SOURCE = textwrap.dedent(
    """
    import numpy as np

    import gradc
    from gradc import boolean, f64, i64


    @gradc.export
    def zeros(n: i64) -> f64[:]:
        return np.zeros(n)


    @gradc.export
    def matvec(A: f64[:, :], x: f64[:]) -> f64[:]:
        m = A.shape[0]
        y = np.zeros(m)
        for i in range(m):
            s = 0.0
            for j in range(A.shape[1]):
                s += A[i, j] * x[j]
            y[i] = s
        return y


    @gradc.export
    def grid(m: i64, n: i64) -> f64[:, :]:
        out = np.empty((m, n))
        for i in range(m):
            for j in range(n):
                out[i, j] = 10.0 * i + j
        return out


    @gradc.export
    def pieces(n: i64) -> tuple[f64[:], tuple[i64, i64[:]], boolean[:]]:
        a = np.ones(n)
        k = np.zeros(n, dtype=np.int64)
        flags = np.zeros(n, dtype=np.bool_)
        for i in range(n):
            k[i] = i * i
            flags[i] = i % 2 == 0
        return a, (n, k), flags


    @gradc.export
    def ident(a: f64[:]) -> f64[:]:
        return a


    @gradc.export
    def scale(a: f64[:], c: f64) -> None:
        for i in range(len(a)):
            a[i] = a[i] * c


    @gradc.export
    def total(a: f64[:]) -> f64:
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s


    @gradc.export
    def get(a: f64[:, :], i: i64, j: i64) -> f64:
        return a[i, j]
    """
)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    folder = tmp_path_factory.mktemp("arrays")
    source = folder / "arrays_e2e.py"
    source.write_text(SOURCE)
    out = folder / "arrays_e2e.gradc"
    write_artifact(out, build_module(source, CompilerOptions()))
    return out


@pytest.fixture(scope="module")
def lib(artifact: Path) -> Library:
    return gradc.load(artifact)


def _live() -> int:
    gc.collect()
    return gradc.runtime_stats()["live"]


def test_manifest_carries_runtime_and_writes(artifact: Path) -> None:
    m = read_manifest(artifact)
    assert m.runtime is not None
    assert m.runtime.abi == "rt2"
    assert (artifact / m.runtime.object).is_file()
    assert m.entry("scale").signature.writes == ("a",)
    assert m.entry("total").signature.writes == ()
    assert m.entry("matvec").signature.params == (("A", "f64[:, :]"), ("x", "f64[:]"))
    assert m.entry("zeros").signature.result == "f64[::1]"


def test_owned_result(lib: Library) -> None:
    start = _live()
    z = lib.zeros(5)
    assert type(z) is np.ndarray
    assert z.dtype == np.float64
    assert z.shape == (5,)
    assert np.array_equal(z, np.zeros(5))
    assert isinstance(z.base, ArrayOwner)
    assert z.flags.writeable and z.flags.c_contiguous
    assert z.ctypes.data % 64 == 0  # runtime blocks are 64-byte aligned
    assert _live() == start + 1
    z[:] = 7.0  # ours to write
    view = z[::2]
    del z
    assert _live() == start + 1  # the view keeps the block
    assert np.array_equal(view, [7.0, 7.0, 7.0])
    del view
    assert _live() == start


def test_empty_and_2d_results(lib: Library) -> None:
    start = _live()
    assert lib.zeros(0).shape == (0,)
    g = lib.grid(3, 4)
    assert g.shape == (3, 4)
    assert g.strides == (32, 8)
    assert np.array_equal(g, 10.0 * np.arange(3)[:, None] + np.arange(4))
    assert lib.grid(0, 3).shape == (0, 3)
    del g
    assert _live() == start


@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_matvec(lib: Library, layout: str) -> None:
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 3))
    x = rng.standard_normal(3)
    if layout == "F":
        A = np.asfortranarray(A)
    elif layout == "strided":
        big = rng.standard_normal((8, 9))
        A, x = big[::2, ::3], big[1, ::3]
    elif layout == "reversed":
        A, x = A[::-1, ::-1], x[::-1]
    y = lib.matvec(A, x)
    assert np.allclose(y, A @ x, rtol=1e-14, atol=0)


def test_tuple_of_arrays(lib: Library) -> None:
    start = _live()
    a, (n, k), flags = lib.pieces(4)
    assert _live() == start + 3
    assert n == 4 and type(n) is int
    assert a.dtype == np.float64 and np.array_equal(a, np.ones(4))
    assert k.dtype == np.int64 and np.array_equal(k, [0, 1, 4, 9])
    assert flags.dtype == np.bool_ and flags.tolist() == [True, False, True, False]
    assert len({id(x.base) for x in (a, k, flags)}) == 3
    del a, k
    assert _live() == start + 1
    del flags
    assert _live() == start


def test_borrowed_result_is_a_view_of_the_argument(lib: Library) -> None:
    start = _live()
    a = np.arange(6.0)
    v = lib.ident(a)
    assert v is not a
    assert v.base is a
    assert np.shares_memory(v, a) and np.array_equal(v, a)
    v[0] = 42.0
    assert a[0] == 42.0
    s = a[::-2]
    w = lib.ident(s)
    assert w.strides == s.strides and np.array_equal(w, s)
    assert w.base is a  # NumPy's views name the array that owns the memory
    ro = np.arange(3.0)
    ro.flags.writeable = False
    r = lib.ident(ro)
    assert not r.flags.writeable
    assert _live() == start


def test_results_outlive_the_library(artifact: Path) -> None:
    start = _live()
    lib = gradc.load(artifact)
    g = lib.grid(2, 2)
    t = lib.pieces(3)
    del lib
    gc.collect()
    assert np.array_equal(g, [[0.0, 1.0], [10.0, 11.0]])
    g[0, 0] = -1.0
    assert g[0, 0] == -1.0
    assert t[1][1].tolist() == [0, 1, 4]
    del g, t
    assert _live() == start


def test_read_only_array_for_a_written_parameter(lib: Library) -> None:
    a = np.arange(4.0)
    lib.scale(a, 2.0)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]
    ro = np.arange(4.0)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"scale\(\) argument 'a' is a read-only array"):
        lib.scale(ro, 2.0)
    with pytest.raises(ValueError, match="argument 'a'"):
        lib.scale(np.broadcast_to(np.arange(3.0), (3,)), 2.0)
    assert lib.total(ro) == 6.0  # only read: fine
    assert lib.total(np.broadcast_to(np.float64(2.0), (5,))) == 10.0


def test_array_argument_errors(lib: Library) -> None:
    with pytest.raises(TypeError, match=r"total\(\) argument 'a' must be f64\[:\]"):
        lib.total(np.arange(3))
    with pytest.raises(TypeError, match=r"argument 'a' must be f64\[:\] \(a numpy array\)"):
        lib.total([1.0, 2.0])
    with pytest.raises(TypeError, match=r"argument 'A' must be f64\[:, :\] \(float64, 2-d\)"):
        lib.matvec(np.ones(3), np.ones(3))


def test_index_error_message_from_template(lib: Library) -> None:
    a = np.zeros((2, 3))
    assert lib.get(a, -1, -3) == 0.0
    with pytest.raises(IndexError) as raised:
        lib.get(a, 0, 3)
    assert str(raised.value) == "index 3 is out of bounds for axis 1 with size 3"
    with pytest.raises(IndexError) as raised:
        lib.get(a, -3, 0)
    assert str(raised.value) == "index -3 is out of bounds for axis 0 with size 2"
    with pytest.raises(IndexError) as info:
        np.zeros((2, 3))[0, 3]
    assert "index 3 is out of bounds for axis 1 with size 3" in str(info.value)


def test_live_counter_after_many_calls(lib: Library) -> None:
    start = _live()
    for n in range(200):
        lib.matvec(np.ones((n % 5, 2)), np.ones(2))
        lib.pieces(n % 4)
    assert _live() == start


def test_runtime_stats_imports_nothing() -> None:
    code = (
        "import sys, gradc\n"
        "print(gradc.runtime_stats())\n"
        "print(any(m.startswith(('gradc.compiler', 'gradc.artifacts', 'llvmlite'))"
        " for m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["{'live':", "0,", "'allocated':", "0}", "False"]


def _counts() -> dict[str, Any]:
    return gradc.runtime_stats()


def test_runtime_is_linked_once(artifact: Path, tmp_path: Path) -> None:
    import shutil

    from gradc.artifacts.loader import linking

    gradc.load(artifact)
    first = linking.linked_runtime()
    copy = shutil.copytree(artifact, tmp_path / "again.gradc")
    lib2 = gradc.load(copy)
    assert linking.linked_runtime() is first
    assert _counts()["live"] >= 0
    assert np.array_equal(lib2.zeros(2), [0.0, 0.0])
