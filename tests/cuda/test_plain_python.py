"""``gradc.kernel`` and ``gradc.cuda`` as plain Python: a sequential simulator whose
indices follow CUDA's definitions, which refuses what it cannot simulate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gradc
from gradc import cuda


@gradc.kernel
def _record(out):  # type: ignore[no-untyped-def]
    i, j = cuda.grid(2)
    out[i, j, 0] = cuda.thread_idx.x + 10 * cuda.block_idx.x
    out[i, j, 1] = cuda.block_dim.y + 10 * cuda.grid_dim.y


def test_indices_follow_cuda() -> None:
    out = np.zeros((6, 4, 2), np.int64)
    _record[(3, 2), (2, 2)](out)
    i, _ = np.indices((6, 4))
    assert np.array_equal(out[..., 0], i % 2 + 10 * (i // 2))
    assert (out[..., 1] == 2 + 10 * 2).all()


def test_misuse_is_refused() -> None:
    with pytest.raises(TypeError, match=r"launched as _record\[grid, block\]"):
        _record(np.zeros(3))
    with pytest.raises(ValueError, match="block must be a positive int"):
        _record[1, 0]
    with pytest.raises(RuntimeError, match="outside a kernel launch"):
        cuda.grid(1)
    with pytest.raises(ValueError, match="1, 2 or 3"):
        _record[1, 1].__call__  # noqa: B018 (building the launch is fine)
        cuda.grid(4)


@gradc.kernel
def _barrier(x):  # type: ignore[no-untyped-def]
    cuda.syncthreads()
    x[cuda.grid(1)] += 1.0


def _helper_barrier() -> None:
    cuda.syncthreads()


@gradc.kernel
def _barrier_in_helper(x):  # type: ignore[no-untyped-def]
    _helper_barrier()
    x[cuda.grid(1)] += 1.0


@gradc.kernel
def _shift(x, out):  # type: ignore[no-untyped-def]
    buf = cuda.shared_array(4, np.float64)
    t = cuda.thread_idx.x
    buf[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = buf[(t + 1) % 4]


def test_syncthreads_meets_the_threads_of_a_block() -> None:
    x = np.zeros(4)
    _barrier[4, 1](x)
    _barrier[1, 4](x)  # the block's threads run as Python threads
    assert np.array_equal(x, np.full(4, 2.0))
    out = np.zeros(8)
    _shift[2, 4](np.arange(8.0), out)  # one shared array per block
    assert np.array_equal(out, [1, 2, 3, 0, 5, 6, 7, 4])
    with pytest.raises(RuntimeError, match="sequential grid loop"):
        _barrier_in_helper[1, 4](x)  # not seen in the kernel's own code: run in order


def test_atomic_add_returns_old_value() -> None:
    a = np.array([1.5, 2.0])
    assert cuda.atomic_add(a, 1, 0.5) == 2.0
    assert a[1] == 2.5


def test_cpu_build_runs_barriers_in_phases(tmp_path: Path) -> None:
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    src = tmp_path / "m.py"
    src.write_text(
        "import gradc\nfrom gradc import cuda, f64\n\n@gradc.kernel\ndef k(x: f64[:]):\n"
        "    cuda.syncthreads()\n    x[cuda.grid(1)] += 1.0\n\n"
        "@gradc.kernel\ndef t(x: f64[:]):\n    i = cuda.grid(1)\n    if i % 2 == 0:\n"
        "        p = (i, 1.0)\n    else:\n        p = (i, 1.0)\n"  # a phi: not folded
        "    cuda.syncthreads()\n    x[p[0]] += p[1]\n"
    )
    write_artifact(tmp_path / "m.gradc", build_module(src, CompilerOptions()))
    lib = gradc.load(tmp_path / "m.gradc")
    x = np.zeros(3)
    lib.k(3, 1, 1, 1, 1, 1, x)
    lib.k(1, 1, 1, 3, 1, 1, x)
    assert np.array_equal(x, np.full(3, 2.0))
    lib.t(3, 1, 1, 1, 1, 1, x)
    with pytest.raises(RuntimeError, match="sequential grid loop with more than one") as info:
        lib.t(1, 1, 1, 3, 1, 1, x)  # a tuple lives across the barrier: no phases
    assert info.value.__notes__ == ["raised by compiled m.t at m.py:16"]
