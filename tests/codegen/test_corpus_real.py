"""Differential tests of real numeric Python (tests/codegen/corpus_real/): PolyBench and
NPBench kernels, dpbench, autograd-style losses, TheAlgorithms, nbody; compiled by gradc
and compared with CPython + NumPy running the same source.

The corpus modules follow tests/codegen/corpus_arrays/'s conventions (SHAPES, DIMS,
ELEMENTS, DOMAINS, RAISES, MUTATES, ULP, SUMMED; see test_arrays_differential.py, whose
input drawing, layouts and comparison this module reuses). One difference: real code
meets NaN and inf (a constant array normalised by its range, a division by a zero
norm), so the oracle runs with NumPy's default error handling and warnings silenced, and
gradc must give the same NaN/inf; an exception of the oracle must be raised by gradc
too (same type; RAISES lists the exports that may raise). Argument buffers afterwards
compare like results (within SUM_TOLERANCE for SUMMED exports, whose products and sums
add in another order than NumPy's BLAS and pairwise summation).

A module declaring ``SLOW = True`` (a big module whose constructs a default-run module
also covers) has its exports marked slow.

Per export: EXAMPLES hypothesis cases (dims, values, a layout per argument; the
environment variable GRADC_REAL_EXAMPLES overrides EXAMPLES), then one seeded case per
layout, then every symbolic dim 0 in turn (where DIMS allows it).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from tests.codegen import test_arrays_differential as D

CORPUS_DIR = Path(__file__).parent / "corpus_real"
CORPUS_FILES = sorted(CORPUS_DIR.glob("*.py"))
EXPORTS = [e for path in CORPUS_FILES for e in D.discover(path)]

EXAMPLES = int(os.environ.get("GRADC_REAL_EXAMPLES", "6"))

SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def run_oracle(export: D.Export, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """(result, None) or (None, exception) of the plain function; NumPy warnings silenced."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return D.normalize(fn(*args)), None
    except D.EXPECTED_ERRORS as exc:
        assert export.raises is not None and isinstance(exc, export.raises), (
            f"{export.id}: the oracle raised {type(exc).__name__}({exc}); RAISES says "
            f"{export.raises.__name__ if export.raises else 'nothing'}"
        )
        return None, exc


def assert_buffers_close(
    export: D.Export, expected: dict[str, np.ndarray], actual: dict[str, np.ndarray]
) -> None:
    """Every argument buffer (padding included) as the oracle left it."""
    for name, e in expected.items():
        a = actual[name]
        same = D._float_arrays_match(export, e, a) if e.dtype.kind == "f" else e == a
        if not np.all(same):
            bad = tuple(int(i) for i in np.argwhere(~same)[0])
            raise AssertionError(
                f"argument {name!r} afterwards: first difference at {bad}: expected "
                f"{e[bad]!r}, got {a[bad]!r}\nexpected {e!r}\ngot      {a!r}"
            )


def check(
    export: D.Export, plain: Callable[..., Any], compiled: Callable[..., Any], case: Any
) -> None:
    p_args, p_bufs = D.materialize(export, case)
    c_args, c_bufs = D.materialize(export, case)
    expected, error = run_oracle(export, plain, p_args)
    try:
        if error is not None:
            with pytest.raises(type(error)):
                compiled(*c_args)
        else:
            D.assert_same(export, expected, compiled(*c_args))
        assert_buffers_close(export, p_bufs, c_bufs)
    except (AssertionError, pytest.fail.Exception) as exc:
        raise AssertionError(f"{export.id} {case!r}:\n{exc}") from None


def test_corpus_size() -> None:
    assert len(EXPORTS) >= 30
    assert len({e.id for e in EXPORTS}) == len(EXPORTS)
    for e in EXPORTS:
        assert set(e.shapes) == {n for n, _ in e.array_params}, e.id


@pytest.mark.parametrize("export", D.compiled_params(EXPORTS))
def test_matches_numpy(export: D.Export, compile_module: Callable[[Path], Any]) -> None:
    plain = getattr(D.load_plain(export.path), export.name)
    compiled = D._compiled(export, compile_module)

    @SETTINGS
    @given(case=D.cases(export, "mixed"))
    def drawn(case: Any) -> None:
        check(export, plain, compiled, case)

    drawn()
    for layout in D.LAYOUTS:
        check(export, plain, compiled, D.deterministic_case(export, D.middle_dims(export), layout))
    for dims in D.zero_dim_variants(export):
        check(export, plain, compiled, D.deterministic_case(export, dims, "strided"))


NUMPY_SCALAR_DIVISION = """
import numpy as np

import gradc
from gradc import f64


@gradc.export
def cosine(a: f64[:], b: f64[:]) -> f64:
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


@gradc.export
def ratio(A: f64[:, :]) -> f64:
    return A[0, 1] / A[1, 1]
"""


@pytest.mark.xfail(
    strict=True,
    raises=ZeroDivisionError,
    reason="gradc's f64 scalars divide as Python floats (ZeroDivisionError); results of "
    "NumPy reductions and array elements are NumPy scalars, which give inf/nan",
)
def test_numpy_scalars_divide_by_zero_as_numpy_does(
    tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    """Known difference (found by the corpus: cosine similarity of zero vectors)."""
    path = tmp_path / "numpy_scalar_division.py"
    path.write_text(NUMPY_SCALAR_DIVISION)
    lib = compile_module(path)
    zeros = np.zeros(3)
    with np.errstate(all="ignore"):
        assert np.isnan(lib.cosine(zeros, zeros))
        assert lib.ratio(np.array([[1.0, 2.0], [3.0, 0.0]])) == np.inf
