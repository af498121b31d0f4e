"""Compiled reductions where the differential corpus cannot look (its oracle must not
warn, and it compares only IndexError messages): NumPy's ValueError messages for empty
min/max/argmin/argmax, NaN for the mean and variance of nothing, inf/NaN for ``ddof``
past the count, NaN propagation, and long sums against NumPy's within the documented
summation tolerance (passes/arrays/reduce.py). NumPy, run on the same source, is the
oracle (its warnings silenced: compiled code does not warn).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOURCE = """\
import numpy as np

import gradc
from gradc import f32, f64


@gradc.export
def mean_var(a: f64[:, :]):
    return np.mean(a), a.mean(axis=0), np.var(a, ddof=1), np.std(a, axis=1, ddof=3)


@gradc.export
def extrema(a: f64[:, :]):
    return np.min(a, axis=0), a.max(axis=1), np.argmin(a, axis=0), a.argmax()


@gradc.export
def long_sums(a: f64[:], b: f32[:]):
    return np.sum(a), np.mean(a * a), np.linalg.norm(a), np.sum(b), np.var(b)
"""


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("reductions") / "reductions_mod.py"
    path.write_text(SOURCE)
    return compile_module(path)


def _plain() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(SOURCE, "reductions_mod.py", "exec"), namespace)  # gradc decorators are inert
    return namespace


def _outcome(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*args)
    except ValueError as exc:
        return ("ValueError", str(exc))


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str):
        return expected == actual  # ("ValueError", message)
    if isinstance(expected, tuple):
        return len(expected) == len(actual) and all(map(_same, expected, actual))
    e, a = np.asarray(expected), np.asarray(actual)
    return e.shape == a.shape and bool(np.all((e == a) | (np.isnan(e) & np.isnan(a))))


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (1, 1), (1, 4), (3, 2)])
@pytest.mark.parametrize("name", ["mean_var", "extrema"])
def test_empty_and_small_shapes_match_numpy(lib: Any, name: str, shape: tuple[int, int]) -> None:
    a = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)[::-1]
    expected = _outcome(_plain()[name], a)
    actual = _outcome(getattr(lib, name), a)
    assert _same(expected, actual), f"{name}{shape}: NumPy {expected!r}, gradc {actual!r}"


@pytest.mark.parametrize("where", [(0, 0), (1, 2), (2, 1)])
def test_nan_propagates_and_is_found_first(lib: Any, where: tuple[int, int]) -> None:
    a = np.array([[3.0, -1.0, 2.0], [0.5, 7.0, -4.0], [1.0, 1.0, 9.0]])
    a[where] = np.nan
    a[2, 2] = np.nan
    expected = _outcome(_plain()["extrema"], a)
    assert _same(expected, _outcome(lib.extrema, a))


@pytest.mark.parametrize("n", [1, 7, 8, 9, 129, 10**5 + 3])
def test_long_sums_within_the_documented_tolerance(lib: Any, n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.uniform(-1.0, 1.0, n)
    b = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    expected = _plain()["long_sums"](a, b)
    actual = lib.long_sums(a, b)
    # both errors are below (n/4 + log2 n) * eps * sum|x| (reduce.py's bound for gradc,
    # NumPy's pairwise bound); sum|x| <= n and sum x^2 <= n here. For float32 that bound
    # says nothing at 10**5 elements: float32 is checked up to 129 (the code is the same)
    for k, (e, got) in enumerate(zip(expected, actual, strict=True)):
        if k >= 3 and n > 129:
            continue
        eps = float(np.finfo(np.float32 if k >= 3 else np.float64).eps)
        bound = (n / 4 + math.log2(n) + 2) * eps * n
        assert abs(float(e) - got) <= bound, (k, e, got)
