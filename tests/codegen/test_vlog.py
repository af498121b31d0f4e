"""``np.log`` is computed inline (gradc.compiler.codegen.vlog, so that loops vectorise):
within 1 ulp of libm's ``log`` (CPython's ``math.log``, glibc's correctly rounded one) on
drawn inputs over the whole range (hypothesis: any double; and random bit patterns),
subnormals, both sides of sqrt(2) and 1, signed zeros, negatives, infinities and NaN, in
arrays (C and strided) and on scalars; float32 too (computed in float64 and rounded).
A quick sample in the default run, 4*10^6 inputs in the slow one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SOURCE = """\
import numpy as np
import gradc
from gradc import f32, f64


@gradc.export
def log64(x: f64[:]) -> f64[:]:
    return np.log(x)


@gradc.export
def log32(x: f32[:]) -> f32[:]:
    return np.log(x)


@gradc.export
def log_scalar(x: f64) -> f64:
    return np.log(x)


@gradc.export
def sum_log(x: f64[:]) -> f64:
    return np.sum(np.log(x))
"""

EDGES = [
    0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e-310, 2.2250738585072014e-308,
    2.225073858507201e-308, 1e-300, 0.5, 2.0, math.e, math.sqrt(2.0), math.sqrt(0.5),
    1.4142135623730951, 1.414213562373095, 0.7071067811865475, 0.7071067811865476,
    1.0 + 2**-52, 1.0 - 2**-53, 1e-17, 1.7976931348623157e308, math.inf, -math.inf,
    math.nan, -1e-300,
]  # fmt: skip


def _libm_log(v: float) -> float:
    if math.isnan(v):
        return v
    if v == 0.0:
        return -math.inf
    if v < 0.0:
        return math.nan
    return math.log(v)  # CPython's math.log: libm's, inf for inf


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (NaN to NaN 0, NaN to a number huge)."""
    a, b = got.view(np.int64), want.view(np.int64)
    a = np.where(a < 0, -(a & 0x7FFFFFFFFFFFFFFF), a)
    b = np.where(b < 0, -(b & 0x7FFFFFFFFFFFFFFF), b)
    both_nan = np.isnan(got) & np.isnan(want)
    one_nan = np.isnan(got) ^ np.isnan(want)
    return np.where(both_nan, 0, np.where(one_nan, 1 << 62, np.abs(a - b)))


def _inputs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**63, n, dtype=np.int64).view(np.float64)  # every positive
    parts = [
        bits,
        rng.uniform(0.5, 2.0, n // 2),  # k = 0 and +-1, around sqrt(2)
        1.0 + rng.standard_normal(n // 4) * 1e-6,  # near 1: cancellation
        rng.uniform(0.0, 1e-308, n // 4),  # subnormals
        -np.abs(bits[: n // 8]),  # negatives
        np.array(EDGES),
    ]
    return np.concatenate(parts)


def _check(lib: Any, x: np.ndarray) -> None:
    with np.errstate(invalid="ignore"):
        want = np.frompyfunc(_libm_log, 1, 1)(x).astype(np.float64)
    assert _ulps(lib.log64(x), want).max() <= 1
    assert _ulps(lib.log64(x[::-3]), want[::-3]).max() <= 1  # a strided view
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
        rounded = np.log(x32.astype(np.float64)).astype(np.float32)
    got32 = lib.log32(x32)
    assert got32.dtype == np.float32
    d32 = _ulps(got32.astype(np.float64), rounded.astype(np.float64))  # f32 values as f64
    assert d32.max() <= 1 << 29  # within 1 float32 ulp


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("vlog") / "vlog_module.py"
    path.write_text(SOURCE)
    return compile_module(path)


def test_log_is_within_an_ulp_of_libm_on_a_sample(lib: Any) -> None:
    _check(lib, _inputs(4000, seed=0))


@settings(max_examples=30, deadline=None)
@given(xs=st.lists(st.floats(), min_size=1, max_size=16))
def test_log_is_within_an_ulp_of_libm_on_drawn_values(lib: Any, xs: list[float]) -> None:
    _check(lib, np.array(xs))


def test_log_edges_are_libms(lib: Any) -> None:
    # exact where libm is exact: log(1) = 0, -inf, inf, NaN; scalars too
    for v in EDGES:
        got, want = lib.log_scalar(v), _libm_log(v)
        if math.isnan(want):
            assert math.isnan(got), v
        elif want in (0.0, math.inf, -math.inf):
            assert got == want, v
        else:
            assert _ulps(np.array([got]), np.array([want])).max() <= 1, v


def test_sum_of_log_is_numpys(lib: Any) -> None:
    x = np.random.default_rng(3).uniform(0.01, 50.0, 1000)
    assert lib.sum_log(x) == pytest.approx(np.sum(np.log(x)), rel=1e-13)


@pytest.mark.slow
def test_log_is_within_an_ulp_of_libm_on_many_inputs(lib: Any) -> None:
    for seed in range(4):
        _check(lib, _inputs(500_000, seed=seed + 1))
