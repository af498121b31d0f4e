"""The reference interpreter's ``gather`` (``a[rows, cols]``) and ``linsolve cholesky``:
NumPy's values and errors (LinAlgError as its base class ValueError)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.verifier import verify_module

SOURCE = textwrap.dedent("""
    func @pick(%a: array[f64,2,A], %r: array[i64,1,A], %j: i64) -> array[f64,1,C] {
    ^entry:
      %g = gather %a, (%r, %j) : array[f64,1,C]
      ret %g
    }

    func @factor(%a: array[f64,2,A]) -> array[f64,2,C] {
    ^entry:
      %l = linsolve cholesky %a, () : array[f64,2,C]
      ret %l
    }
""")


def test_gather_and_cholesky() -> None:
    module = parse_module(SOURCE)
    verify_module(module)
    a = np.arange(12.0).reshape(3, 4)
    r = np.array([2, -1, 0])
    assert np.array_equal(run_function(module, "pick", [a, r, -2]), a[r, -2])
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for axis 1 with size 4$"):
        run_function(module, "pick", [a, r, 4])
    spd = np.array([[4.0, 9.0], [2.0, 3.0]])  # the upper triangle is not read
    assert np.allclose(run_function(module, "factor", [spd]), np.linalg.cholesky(spd))
    with pytest.raises(ValueError, match=r"^Matrix is not positive definite$"):
        run_function(module, "factor", [-spd])
