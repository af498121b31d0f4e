"""``np.exp`` is computed inline (gradc.compiler.codegen.vexp, so that loops vectorise):
within 1 ulp of libm's ``exp`` (CPython's ``math.exp``) on drawn inputs, the subnormal
and overflow edges, signed zeros, infinities and NaN, in arrays (C and strided) and on
scalars. A quick sample in the default run, 3.5*10^6 inputs in the slow one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOURCE = """\
import numpy as np
import gradc
from gradc import f64


@gradc.export
def exp64(x: f64[:]) -> f64[:]:
    return np.exp(x)


@gradc.export
def exp_scalar(x: f64) -> f64:
    return np.exp(x)
"""

EDGES = [
    0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e-300, -1e-300, 1e-17, -1e-17,
    math.log(2.0) / 2, -math.log(2.0) / 2, 1.5 * math.log(2.0),
    709.782712893384, 709.7827128933841, 709.79, 710.0, 1e308, math.inf,
    -708.3964185322641, -708.4, -745.1332191019411, -745.1332191019412, -746.0, -1e308,
    -math.inf, math.nan,
]  # fmt: skip


def _libm_exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:  # CPython's range error: C's exp returns +inf
        return math.inf


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (same-sign finite or infinite values; NaN
    against NaN is 0, NaN against a number is huge)."""
    d = np.abs(got.view(np.int64) - want.view(np.int64))
    both_nan = np.isnan(got) & np.isnan(want)
    one_nan = np.isnan(got) ^ np.isnan(want)
    return np.where(both_nan, 0, np.where(one_nan, 1 << 62, d))


def _inputs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = [
        rng.uniform(-750.0, 712.0, n),  # the whole range, both ends past it
        rng.uniform(-1.0, 1.0, n // 2),  # k = 0 and +-1
        rng.uniform(-745.2, -708.0, n // 4),  # subnormal results
        rng.uniform(700.0, 709.8, n // 4),  # near overflow
        rng.standard_normal(n // 4) * 1e-9,  # tiny
        np.array(EDGES),
    ]
    return np.concatenate(parts)


def _check(lib: Any, x: np.ndarray) -> None:
    with np.errstate(over="ignore"):  # libm's overflow flag, raised for x > 709.78
        want = np.frompyfunc(_libm_exp, 1, 1)(x).astype(np.float64)
    assert _ulps(lib.exp64(x), want).max() <= 1
    assert _ulps(lib.exp64(x[::-3]), want[::-3]).max() <= 1  # a strided view


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("vexp") / "vexp_module.py"
    path.write_text(SOURCE)
    return compile_module(path)


def test_exp_is_within_an_ulp_of_libm_on_a_sample(lib: Any) -> None:
    _check(lib, _inputs(4000, seed=0))


def test_exp_edges_are_libms(lib: Any) -> None:
    # exact where libm is exact or saturates: 1, 0, inf, NaN; scalars too
    for v in EDGES:
        got, want = lib.exp_scalar(v), _libm_exp(v)
        if math.isnan(want):
            assert math.isnan(got)
        elif want in (0.0, 1.0, math.inf):
            assert got == want, v
        else:
            assert _ulps(np.array([got]), np.array([want])).max() <= 1, v


@pytest.mark.slow
def test_exp_is_within_an_ulp_of_libm_on_many_inputs(lib: Any) -> None:
    for seed in range(4):
        _check(lib, _inputs(500_000, seed=seed + 1))
