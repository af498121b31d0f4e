"""Unary ``+``: ``+x`` is ``x`` for numbers and arrays of numbers, and Python's ``+True``
is the int 1; NumPy has no ``positive`` loop for its bools, which inference refuses
(tests/frontend/errors/unary_plus_*.py). Values equal CPython and NumPy running the same
source, dtypes included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SOURCE = """\
import gradc
import numpy as np
from gradc import f32, f64, i64


@gradc.export
def python_bools(x: f64, t: bool) -> i64:
    return +t + 2 * +(x > 0.0)


@gradc.export
def numbers(x: f64, n: i64) -> f64:
    return +x * +n


@gradc.export
def arrays(a: f64[:], k: i64[:]) -> f64:
    return np.sum(+a) + np.sum(+k) * 0.5


@gradc.export
def float32_array(a: f32[:]) -> f32[:]:
    return +a
"""

FLOATS = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(x=FLOATS, t=st.booleans(), n=st.integers(-(2**40), 2**40))
def test_scalars_equal_cpython(
    source_lib: Any, source_plain: dict[str, Any], x: float, t: bool, n: int
) -> None:
    got = source_lib.python_bools(x, t)
    want = source_plain["python_bools"](x, t)
    assert (type(got), got) == (type(want), want)
    assert source_lib.numbers(x, n) == source_plain["numbers"](x, n)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_arrays_equal_numpy(source_lib: Any, source_plain: dict[str, Any], n: int) -> None:
    rng = np.random.default_rng(n)
    a, k = rng.normal(size=n), rng.integers(-9, 9, size=n)
    assert source_lib.arrays(a, k) == source_plain["arrays"](a, k)
    a32 = rng.normal(size=n).astype(np.float32)[::-1]
    got, want = source_lib.float32_array(a32), source_plain["float32_array"](a32)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)
