"""``np.linalg.cholesky``'s LinAlgErrors, compiled: gradc raises their base class
ValueError with NumPy's message (the differential corpus
tests/codegen/corpus_arrays/cholesky.py compares types only), for a matrix that is not
positive definite (a pivot <= 0, in a stack too) and one that is not square; NaN and
inf pivots give NumPy's (OpenBLAS's) NaN and inf factors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOURCE = """
import numpy as np
import gradc
from gradc import f64

@gradc.export
def factor(a: f64[:, :]) -> f64[:, :]:
    return np.linalg.cholesky(a)

@gradc.export
def factor_stack(a: f64[:, :, :]) -> f64[:, :, :]:
    return np.linalg.cholesky(a)
"""


def test_cholesky_errors(tmp_path: Path, compile_module: Callable[[Path], Any]) -> None:
    path = tmp_path / "cholesky_errors.py"
    path.write_text(SOURCE, encoding="utf-8")
    lib = compile_module(path)
    spd = np.array([[4.0, 2.0], [2.0, 3.0]])
    cases = [
        (lib.factor, np.array([[1.0, 2.0], [2.0, 1.0]])),  # the second pivot < 0
        (lib.factor, np.array([[-1.0]])),
        (lib.factor, np.array([[1.0, 0.0], [np.inf, 1.0]])),  # 1 - inf * inf
        (lib.factor, np.ones((2, 3))),
        (lib.factor_stack, np.stack([spd, -spd])),
    ]
    for fn, a in cases:
        with pytest.raises(np.linalg.LinAlgError) as expected:
            np.linalg.cholesky(a)
        with pytest.raises(ValueError, match=f"^{expected.value}"):
            fn(a)
    for a in (
        np.array([[np.nan, 0.0], [0.0, 1.0]]),
        np.array([[4.0, 0.0, 0.0], [np.nan, 1.0, 0.0], [1.0, 1.0, 9.0]]),
        np.array([[np.inf]]),
    ):
        np.testing.assert_array_equal(lib.factor(a), np.linalg.cholesky(a))
    # the upper triangle is not read
    upper = spd + np.triu(np.full((2, 2), 7.0), 1)
    assert np.allclose(lib.factor(upper), np.linalg.cholesky(upper), rtol=1e-15, atol=0)
    assert np.allclose(
        lib.factor_stack(np.stack([spd, 2 * spd])), np.linalg.cholesky(np.stack([spd, 2 * spd]))
    )
