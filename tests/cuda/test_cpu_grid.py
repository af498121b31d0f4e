"""The CPU build of a kernel is a grid loop (compiler/infer/kernels.py): its results
equal NumPy's, and those of the same kernel run as plain Python (gradc.cuda's
sequential simulator), on hypothesis-drawn sizes and launch shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cuda import kernels_corpus as corpus

CORPUS = Path(__file__).parent / "kernels_corpus.py"


def _launch(lib: Any, name: str, grid: tuple[int, ...], block: tuple[int, ...], *args: Any) -> None:
    """Run kernel ``name`` compiled (``lib``) with a 3-component grid and block."""
    g = (*grid, *(1,) * (3 - len(grid)))
    b = (*block, *(1,) * (3 - len(block)))
    getattr(lib, name)(*g, *b, *args)


def _blocks(n: int, threads: int) -> int:
    return max(1, -(-n // threads))


sizes = st.integers(0, 300)
threads = st.sampled_from([1, 7, 32, 128])


@settings(max_examples=15, deadline=None)
@given(n=sizes, t=threads, a=st.floats(-4, 4), seed=st.integers(0, 2**16))
def test_saxpy_math_f32(lib: Any, n: int, t: int, a: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)
    out = np.full(n, np.nan)
    _launch(lib, "saxpy", (_blocks(n, t),), (t,), a, x, y, out)
    np.testing.assert_allclose(out, a * x + np.sin(y), rtol=1e-15, atol=1e-15)
    sim = np.full(n, np.nan)
    corpus.saxpy[_blocks(n, t), t](a, x, y, sim)
    assert np.array_equal(out, sim)
    mixed = np.zeros(n)
    _launch(lib, "math_mix", (_blocks(n, t),), (t,), x, mixed)
    corpus.math_mix[_blocks(n, t), t](x, sim)
    np.testing.assert_allclose(mixed, sim, rtol=1e-14, atol=1e-14)
    xf = x.astype(np.float32)
    outf = np.zeros(n, np.float32)
    _launch(lib, "scale_f32", (_blocks(n, t),), (t,), xf, np.float32(a), outf)
    np.testing.assert_array_equal(outf, xf * np.float32(a) + np.floor(xf))


@settings(max_examples=15, deadline=None)
@given(n=sizes, t=threads, bins=st.integers(1, 20), seed=st.integers(0, 2**16))
def test_atomics(lib: Any, n: int, t: int, bins: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, bins, n)
    counts = np.zeros(bins, np.int64)
    _launch(lib, "histogram", (_blocks(n, t),), (t,), x, counts)
    assert np.array_equal(counts, np.bincount(x, minlength=bins))
    v = rng.uniform(-1, 1, n)
    acc = np.zeros(1)
    _launch(lib, "total", (_blocks(n, t),), (t,), v, acc)
    np.testing.assert_allclose(acc[0], np.sum(v * v), rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    m=st.integers(0, 20),
    n=st.integers(0, 20),
    block=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    order=st.sampled_from(["C", "F", "strided", "reversed"]),
    seed=st.integers(0, 2**16),
)
def test_two_dimensional(
    lib: Any, m: int, n: int, block: tuple[int, int], order: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, (2 * m, 2 * n))
    a = {
        "C": np.ascontiguousarray(base[:m, :n]),
        "F": np.asfortranarray(base[:m, :n]),
        "strided": base[::2, ::2],
        "reversed": base[:m, :n][::-1, ::-1],
    }[order]
    grid = (_blocks(m, block[0]), _blocks(n, block[1]))
    out = np.full((m, n), np.nan)
    _launch(lib, "add2d", grid, block, a, out)
    np.testing.assert_array_equal(out, a * 2.0 + n)
    sums = np.full(m, np.nan)
    _launch(lib, "row_sums", (grid[0],), (block[0],), a, sums)
    ref = np.where(a > 0.5, a, -0.25 * a).sum(axis=1) if n else np.zeros(m)
    np.testing.assert_allclose(sums, ref, rtol=1e-13, atol=1e-13)


def test_thread_indices_3d(lib: Any) -> None:
    out = np.full((4, 6, 3), -1, np.int64)
    grid, block = (2, 3, 2), (2, 2, 2)
    _launch(lib, "indices3d", grid, block, out)
    sim = np.full_like(out, -1)
    corpus.indices3d[grid, block](sim)
    assert np.array_equal(out, sim)
    i, j, k = np.indices(out.shape)
    assert np.array_equal(out, i % 2 + 10 * (j // 2) + 100 * 2 + 1000 * 2 + 10000 * (k % 2))


def test_grid_stride_loop(lib: Any) -> None:
    x = np.arange(1000.0)
    out = np.zeros(1000)
    _launch(lib, "grid_stride", (3,), (32,), 1000, x, out)
    assert np.array_equal(out, x * x)


def test_index_error_and_bad_launch(lib: Any) -> None:
    x = np.zeros(5)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        _launch(lib, "out_of_bounds", (2,), (3,), x)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        corpus.out_of_bounds[2, 3](np.zeros(5))
    with pytest.raises(ValueError, match="grid and block dimensions must be >= 1"):
        _launch(lib, "saxpy", (0,), (1,), 1.0, x, x, x)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 80), blocks=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_barriers_and_shared_memory(lib: Any, n: int, blocks: int, seed: int) -> None:
    # a block's threads run in phases between barriers (compiler/infer/kernel_blocks.py)
    x = np.random.default_rng(seed).uniform(-1, 1, n)
    out = np.full(blocks, np.nan)
    _launch(lib, "block_sum_shared", (blocks,), (8,), x, out)
    padded = np.zeros(8 * blocks)
    padded[: min(n, 8 * blocks)] = x[: 8 * blocks]
    np.testing.assert_allclose(out, padded.reshape(blocks, 8).sum(axis=1), rtol=1e-14, atol=1e-14)
    sim = np.full(blocks, np.nan)
    corpus.block_sum_shared[blocks, 8](x, sim)
    assert np.array_equal(out, sim)
    t = _blocks(n, blocks)
    y, tmp = x.copy(), np.zeros(n)
    _launch(lib, "block_reverse", (blocks,), (t,), y, tmp)
    ref = x.copy()
    for i in range(n):  # each block reversed, within the array
        j = i // t * t + t - 1 - i % t
        if j < n:
            ref[i] = x[j]
    assert np.array_equal(y, ref)
    xf = x.astype(np.float32)
    state, sim_state = np.zeros(n), np.zeros(n)
    _launch(lib, "barrier_state", (_blocks(n, 16),), (16,), xf, state)
    corpus.barrier_state[_blocks(n, 16), 16](xf, sim_state)
    assert np.array_equal(state, sim_state)  # bool, f32, int, phi values across barriers
    scratch = np.full(n, np.nan)
    _launch(lib, "shared_scratch", (_blocks(n, 32),), (32,), x, scratch)
    expected = np.zeros(n)
    for k in range(4):  # float32 slots, summed in float64 in order
        expected += (x * (k + 1)).astype(np.float32)
    assert np.array_equal(scratch, expected)


def test_barriers_the_cpu_build_refuses(lib: Any) -> None:
    x, out = np.arange(5.0), np.zeros(5)
    _launch(lib, "barrier_tuple", (5,), (1,), x, out)
    assert np.array_equal(out, 2 * x)
    with pytest.raises(RuntimeError, match="more than one thread per block"):
        _launch(lib, "barrier_tuple", (1,), (5,), x, out)
    with pytest.raises(RuntimeError, match=r"did not all reach the same cuda\.syncthreads"):
        _launch(lib, "divergent_barrier", (1,), (4,), x)
    with pytest.raises(RuntimeError, match=r"did not all reach the same cuda\.syncthreads"):
        corpus.divergent_barrier[1, 4](x)
    with pytest.raises(ValueError, match="a block has at most 1024 threads"):
        _launch(lib, "block_reverse", (1,), (33, 32), x, out)
