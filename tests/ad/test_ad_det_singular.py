"""Derivatives of ``np.linalg.det`` at singular matrices: Jacobi's formula, ``d det(A) =
adj(A)ᵀ : dA``, whose adjugate is not zero at rank n - 1 (passes/arrays/solve.py: the
zero pivot is met last, a zero column swapped out). The oracle is the cofactor matrix,
each minor's determinant by NumPy; forward mode against reverse mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SOURCE = """\
import numpy as np
import gradc
from gradc import f64


@gradc.export
def det(a: f64[:, :]) -> f64:
    return np.linalg.det(a)


d_det = gradc.grad(det)
t_det = gradc.jvp(det)
"""


@pytest.fixture(scope="module")
def lib(compile_module: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("det_singular") / "det_singular.py"
    path.write_text(SOURCE)
    return compile_module(path)


def cofactors(a: np.ndarray) -> np.ndarray:
    """``adj(A)ᵀ``: ``(-1)^(i+j)`` times the determinant of ``a`` without row i, column j."""
    n = a.shape[0]
    out = np.ones_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if minor.size else 1.0)
    return out


@st.composite
def singular(draw: st.DrawFn) -> np.ndarray:
    """A small integer matrix made singular: a row or column repeated, scaled or zeroed
    (rank n - 1 mostly, lower where two such edits meet), rows or columns permuted."""
    n = draw(st.integers(1, 4))
    a = np.array(draw(st.lists(st.integers(-4, 4), min_size=n * n, max_size=n * n)), float)
    a = a.reshape(n, n)
    for _ in range(draw(st.integers(1, 2))):
        axis, i, j = (
            draw(st.integers(0, 1)),
            draw(st.integers(0, n - 1)),
            draw(st.integers(0, n - 1)),
        )
        k = draw(st.sampled_from([0.0, 1.0, -2.0, 0.5]))
        if axis:
            a = a.T.copy()
        a[i] = k * a[j] if i != j else 0.0
        if axis:
            a = a.T.copy()
    perm = draw(st.permutations(range(n)))
    return a[perm] if draw(st.booleans()) else a[:, perm]


@settings(max_examples=60, deadline=None)
@given(a=singular(), seed=st.integers(0, 2**16))
def test_gradient_is_the_adjugate(lib: Any, a: np.ndarray, seed: int) -> None:
    want = cofactors(a)
    got = lib.d_det(a)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    direction = np.random.default_rng(seed).uniform(-1.0, 1.0, size=a.shape)
    _, tangent = lib.t_det(a, direction)
    np.testing.assert_allclose(tangent, np.sum(got * direction), rtol=1e-9, atol=1e-9)
    assert lib.det(a) == 0.0 or abs(lib.det(a)) < 1e-9


@pytest.mark.parametrize(
    "a",
    [
        [[0.0, 1.0], [0.0, 3.0]],  # zero first column: the pivot k = 0 of n = 2
        [[1.0, 0.0, 2.0], [2.0, 0.0, 3.0], [3.0, 0.0, 1.0]],  # a zero middle column
        [[1.0, 2.0], [1.0, 2.0]],  # repeated rows: the zero pivot last
        [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [1.0, 1.0, 3.0]],  # rank 1 < n - 1: all zero
    ],
)
def test_named_cases(lib: Any, a: list[list[float]]) -> None:
    m = np.array(a)
    np.testing.assert_allclose(lib.d_det(m), cofactors(m), atol=1e-12)
    assert np.any(cofactors(m)) == (np.linalg.matrix_rank(m) == m.shape[0] - 1)
