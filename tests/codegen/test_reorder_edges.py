"""Edges of np.sort/np.argsort/np.median and max(initial=) the differential corpus
cannot draw (tests/codegen/corpus_arrays/reorder.py): the median of an empty row (NaN,
where NumPy also warns), long arrays (many merge levels of the sort, ties and NaNs, -0.0
and 0.0 kept in order), against NumPy's stable sort on the same inputs."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

KERNELS = Path(__file__).parent / "reorder_edges" / "kernels.py"


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def _numpy_median(x: np.ndarray, axis: int | None = None) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on an empty row
        return np.median(x, axis=axis)


def test_median_of_empty_is_nan(lib: Any) -> None:
    assert math.isnan(_numpy_median(np.zeros(0)))
    assert math.isnan(lib.median_of(np.zeros(0)))
    rows = lib.medians_of_rows(np.zeros((3, 0)))
    assert rows.shape == (3,) and np.isnan(rows).all()
    assert np.isnan(_numpy_median(np.zeros((3, 0)), axis=-1)).all()


def test_median_with_nan_is_nan(lib: Any) -> None:
    x = np.array([3.0, np.nan, 1.0, 2.0])
    assert math.isnan(lib.median_of(x)) and math.isnan(_numpy_median(x))


_VALUES = st.sampled_from([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 7.25])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.one_of(_VALUES, st.floats(-1e3, 1e3)), min_size=0, max_size=300),
    st.booleans(),
)
def test_long_sorts_match_numpy_stable(lib: Any, values: list[float], reverse: bool) -> None:
    x = np.array(values, dtype=np.float64)
    if reverse:
        x = x[::-1]
    got_sorted, got_order = lib.sort_and_argsort(x)
    np.testing.assert_array_equal(got_order, np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(got_sorted, np.sort(x))
    assert np.array_equal(np.signbit(got_sorted), np.signbit(x[got_order]))
    if x.size:
        assert lib.median_of(x) == pytest.approx(_numpy_median(x), nan_ok=True, rel=1e-15)


def test_many_ties(lib: Any) -> None:
    k = np.random.default_rng(5).integers(-3, 4, 1000)
    np.testing.assert_array_equal(lib.argsort_ints(k), np.argsort(k, kind="stable"))


@pytest.mark.parametrize("s", [0.5, -np.inf, np.nan])
def test_max_initial_empty_and_nan(lib: Any, s: float) -> None:
    for x in (np.zeros(0), np.array([0.25, -1.0]), np.array([np.nan, 2.0])):
        expected = np.max(x, initial=s)
        got = lib.max_initial(x, s)
        assert (math.isnan(got) and math.isnan(expected)) or got == expected


@pytest.mark.parametrize("t", [2.2250738585e-313, 5e-324, 1e-310])
def test_subnormal_pivots(lib: Any, t: float) -> None:
    """A pivot below the smallest normal divides (LAPACK's dgetrf2): its reciprocal
    overflows, and ``0 * inf`` would make the next pivot NaN instead of 0."""
    singular = np.array([[t, t], [0.0, 0.0]])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        np.linalg.inv(singular)
    with pytest.raises(ValueError, match="Singular matrix"):
        lib.inverse_of(singular)
    assert lib.determinant_of(singular) == 0.0 == np.linalg.det(singular)
    upper = np.array([[t, 1.0], [0.0, 1.0]])
    assert lib.determinant_of(upper) == pytest.approx(np.linalg.det(upper), rel=1e-12)
    assert lib.determinant_of(upper) == t


@pytest.mark.parametrize(
    "a",
    [
        [[1.0, 2.0], [2.0, 4.0]],  # the product of the pivots was -0.0
        [[0.0, 1.0], [0.0, -3.0]],
        [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 2.0]],
        [[-0.0]],
        [[-1e-200, 0.0], [0.0, 1e-200]],  # underflow, no zero pivot: NumPy's -0.0
    ],
)
def test_det_sign_of_zero(lib: Any, a: list[list[float]]) -> None:
    """An exactly zero pivot gives NumPy's +0.0 (its sign 0 times exp(-inf)); a product
    that underflows keeps the sign of the pivots' product, as NumPy's sign does."""
    x = np.array(a)
    got, expected = lib.determinant_of(x), np.linalg.det(x)
    assert got == expected == 0.0
    assert math.copysign(1.0, got) == math.copysign(1.0, expected)
