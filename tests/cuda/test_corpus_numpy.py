"""The rest of the kernel corpus (branches, loops, 2-d shared tiles, shared memory with
atomics, int32 atomics, vectorised math) in the CPU build: equal to NumPy and to the
plain-Python simulator, on hypothesis-drawn sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradc
from tests.cuda import kernels_corpus as corpus

CORPUS = Path(__file__).parent / "kernels_corpus.py"


def _grid(n: int, t: int) -> int:
    return max(1, -(-n // t))


@settings(max_examples=12, deadline=None)
@given(n=st.integers(0, 120), seed=st.integers(0, 2**16))
def test_elementwise_branches_and_loops(lib: Any, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, n)
    g = _grid(n, 32)
    out, sim = np.full(n, np.nan), np.full(n, np.nan)
    lib.clip_scale(g, 1, 1, 32, 1, 1, x, -0.5, 0.75, out)
    corpus.clip_scale[g, 32](x, -0.5, 0.75, sim)
    assert np.array_equal(out, 2.0 * np.clip(x, -0.5, 0.75)) and np.array_equal(out, sim)
    coef = rng.uniform(-1, 1, 5)
    lib.horner(g, 1, 1, 32, 1, 1, coef, x, out)
    expected = np.zeros(n)
    for c in coef:  # Horner's order, as the kernel
        expected = expected * x + c
    assert np.array_equal(out, expected)
    a = rng.uniform(-1, 1, (n, 7))
    v = rng.uniform(-1, 1, 7)
    lib.matvec(g, 1, 1, 32, 1, 1, a, v, out)
    np.testing.assert_allclose(out, a @ v, rtol=1e-13, atol=1e-13)
    lib.stencil3(g, 1, 1, 32, 1, 1, x, out)
    padded = np.concatenate([[0.0], x, [0.0]])
    assert np.array_equal(out, padded[:-2] - 2.0 * x + padded[2:])


@settings(max_examples=12, deadline=None)
@given(m=st.integers(0, 20), n=st.integers(0, 20), seed=st.integers(0, 2**16))
def test_shared_tiles_and_atomics(lib: Any, m: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, n))
    out = np.full((n, m), np.nan)
    lib.transpose_tiled(_grid(m, 8), _grid(n, 8), 1, 8, 8, 1, a, out)
    assert np.array_equal(out, a.T)
    sim = np.full((n, m), np.nan)
    corpus.transpose_tiled[(_grid(m, 8), _grid(n, 8)), (8, 8)](a, sim)
    assert np.array_equal(sim, a.T)
    x, y = rng.uniform(-1, 1, m * n), rng.uniform(-1, 1, m * n)
    acc = np.zeros(1)
    lib.dot_blocks(_grid(m * n, 32), 1, 1, 32, 1, 1, x, y, acc)
    np.testing.assert_allclose(acc[0], x @ y, rtol=1e-12, atol=1e-12)
    xf = x.astype(np.float32)
    counts = np.zeros(1, np.int32)
    lib.count_positive(_grid(m * n, 16), 1, 1, 16, 1, 1, xf, counts)
    assert counts[0] == np.count_nonzero(xf > 0)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(0, 50), seed=st.integers(0, 2**16))
def test_vectorised_math(lib: Any, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-30, 30, (n, 3))
    out = np.full((n, 3), np.nan)
    gradc.broadcast_call(lib.softplus, x, out=out)
    np.testing.assert_allclose(out, np.logaddexp(0.0, x), rtol=1e-15, atol=1e-300)
    assert np.array_equal(out, corpus.softplus(x))
    xf, w = x.astype(np.float32), np.float32(0.5)
    outf = np.full((n, 3), np.nan, np.float32)
    gradc.broadcast_call(lib.relu_mix, xf, np.full((1, 3), w), out=outf)
    assert np.array_equal(outf, np.where(xf > 0, w * xf, np.float32(0)))


def test_visit_order(lib: Any, request: pytest.FixtureRequest) -> None:
    counter, order = np.zeros(1, np.int64), np.full(50, -1)
    lib.visit_order(7, 1, 1, 8, 1, 1, counter, order)
    assert sorted(order) == list(range(50)) and counter[0] == 50
    shuffled = "shuffled" in request.node.callspec.id
    assert (list(order) == list(range(50))) != shuffled
