"""Derivative tests over the AD corpus (tests/ad/corpus/*.py, see its ``_harness.py``).

For every export ``f`` of the corpus, with its reverse-mode ``d_f`` and forward-mode
``t_f`` (both with respect to every float parameter), on inputs drawn by hypothesis from
the module's DOMAINS/SHAPES/DIMS and kept away from the KINKS:

(a) ``d_f`` vs central finite differences of the plain Python ``f`` (every element of
    array parameters of up to 6 elements);
(b) ``t_f`` along a random direction vs finite differences along that direction;
(c) the dot-product test ``<d_f(x), v> == t_f(x, v)`` to 1e-9 relative;
(d) the value returned by ``t_f`` equals the plain function's value.

The oracle itself is checked first, without compiling anything: finite differences of the
plain function agree with exact forward-mode dual numbers run through the same source,
within the tolerance the compiled tests use (so a domain that straddles a kink, or a step
too coarse for a function, is a corpus bug caught here, not a false AD failure).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.corpus import _harness as H

CASES = H.all_cases()
FILES = H.corpus_files()

#: Hypothesis examples per export and test (compiled tests; the oracle check uses more).
EXAMPLES = 6
ORACLE_EXAMPLES = 8

SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much],
}


def _ids(case: H.Case) -> str:
    return case.id


def _params(cases: list[H.Case]) -> list[Any]:
    """``cases`` as test parameters: slow for a module declaring ``SLOW = True``."""
    return [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in cases]


# ------------------------------------------------------------------------- the corpus


def test_corpus_has_enough_functions() -> None:
    assert len(FILES) >= 5
    assert len(CASES) >= 80, f"only {len(CASES)} differentiable exports"
    assert len({c.id for c in CASES}) == len(CASES)
    kinds = {p.kind for c in CASES for p in c.params}
    assert {"float", "int", "array"} <= kinds
    assert any(p.ndim == 2 for c in CASES for p in c.params)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_declarations_follow_the_convention(case: H.Case) -> None:
    """``d_f = gradc.grad(f, wrt=<all float params>)`` and ``t_f = gradc.jvp(...)``."""
    assert case.grad_name == f"d_{case.name}", f"{case.id}: no d_{case.name} = gradc.grad(...)"
    assert case.jvp_name == f"t_{case.name}", f"{case.id}: no t_{case.name} = gradc.jvp(...)"
    assert case.grad_wrt == case.float_params, f"{case.id}: d_ wrt {case.grad_wrt}"
    assert case.jvp_wrt == case.float_params, f"{case.id}: t_ wrt {case.jvp_wrt}"
    for p in case.params:
        if p.kind == "array":
            assert p.name in case.shapes, f"{case.id}: SHAPES has no entry for {p.name!r}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_specs_name_real_parameters(path: Path) -> None:
    cases = {c.name: c for c in H.discover(path)}
    module = H.load_plain(path)
    for table in ("DOMAINS", "SHAPES", "DIMS", "KINKS"):
        for fname, spec in getattr(module, table, {}).items():
            assert fname in cases, f"{table} names {fname!r}, which is not an export"
            if table == "KINKS":
                params = [p.name for p in cases[fname].params]
                assert list(inspect.signature(spec).parameters) == params, (
                    f"KINKS[{fname!r}] must take the parameters {params}"
                )
                continue
            names = {p.name for p in cases[fname].params}
            if table == "DIMS":
                continue
            for pname in spec:
                assert pname in names, f"{table}[{fname!r}] names unknown parameter {pname!r}"


DIFF_CASES = [c for c in CASES if c.grad_name is not None and c.jvp_name is not None]


# ------------------------------------------------------------------------- the oracle


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_finite_differences_match_dual_numbers(case: H.Case) -> None:
    """The FD oracle agrees with exact derivatives of the plain function (no compiling)."""
    plain = H.plain_fn(case)
    wrt = case.wrt_indices

    @settings(max_examples=ORACLE_EXAMPLES, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        value = plain(*H.copy_args(args))
        dual_value, exact = H.dual_gradient(case, args)
        assert math.isclose(dual_value, value, rel_tol=1e-14, abs_tol=1e-300), (
            f"{case.id}{args}: dual-number value {dual_value!r} != plain {value!r}"
        )
        fd = H.fd_gradient(plain, args, wrt)
        H.assert_grad_matches_fd(f"{case.id}{args!r} exact", exact, fd, case.grad_wrt, value)
        v = data.draw(H.directions(case, args), label="v")
        _, dual_dir = H.dual_jvp(case, args, v)
        fd_dir = H.fd_directional(plain, args, wrt, v)
        assert H.fd_close(dual_dir, fd_dir, value), (
            f"{case.id}{args!r} v={v!r}: exact directional {dual_dir!r}, FD {fd_dir!r}"
        )
        assert H.dot_close(exact, v, dual_dir, value), (
            f"{case.id}{args!r} v={v!r}: <exact grad, v> = {H.dot(exact, v)!r}, "
            f"dual directional {dual_dir!r}"
        )

    check()


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_checks_accept_exact_and_reject_wrong_derivatives(case: H.Case) -> None:
    """The four checks pass on exact derivatives (dual numbers, returned the way a
    compiled library returns them) and fail when those are off by 1e-3."""
    good = H.DualLibrary([case])
    bad = H.DualLibrary([case], error=1e-3)

    @settings(max_examples=2, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        v = data.draw(H.directions(case, args), label="v")
        H.check_reverse(case, good, args)
        H.check_forward(case, good, args, v)
        H.check_dot_product(case, good, args, v)
        H.check_jvp_value(case, good, args, v)
        first = args[case.wrt_indices[0]]
        if isinstance(first, np.ndarray) and first.size == 0:
            return  # nothing to perturb in an empty gradient array
        with pytest.raises(AssertionError):
            H.check_reverse(case, bad, args)
        with pytest.raises(AssertionError):
            H.check_forward(case, bad, args, v)

    check()


# ------------------------------------------------------------------------- compiled


@pytest.fixture(scope="module")
def library(compile_module: Callable[[Path], Any]) -> Callable[[H.Case], Any]:
    reported: set[int] = set()

    def get(case: H.Case) -> Any:
        try:
            return compile_module(case.path)
        except Exception as exc:
            # compile_module re-raises a failed build's exception object for every test
            # of the module: its traceback grows each time (and slows reporting down), so
            # only the first report keeps it
            if id(exc) in reported:
                raise exc.with_traceback(None) from None
            reported.add(id(exc))
            raise

    return get


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_reverse_matches_finite_differences(case: H.Case, library: Any) -> None:
    lib = library(case)

    @settings(max_examples=EXAMPLES, **SETTINGS)
    @given(args=H.inputs(case))
    def check(args: tuple[Any, ...]) -> None:
        H.check_reverse(case, lib, args)

    check()


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_forward_matches_finite_differences(case: H.Case, library: Any) -> None:
    lib = library(case)

    @settings(max_examples=EXAMPLES, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        H.check_forward(case, lib, args, data.draw(H.directions(case, args), label="v"))

    check()


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_dot_product_reverse_vs_forward(case: H.Case, library: Any) -> None:
    lib = library(case)

    @settings(max_examples=EXAMPLES, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        H.check_dot_product(case, lib, args, data.draw(H.directions(case, args), label="v"))

    check()


@pytest.mark.parametrize("case", _params(DIFF_CASES))
def test_jvp_value_matches_plain(case: H.Case, library: Any) -> None:
    lib = library(case)

    @settings(max_examples=EXAMPLES, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        H.check_jvp_value(case, lib, args, data.draw(H.directions(case, args), label="v"))

    check()


ARRAY_CASES = [c for c in DIFF_CASES if any(p.kind == "array" for p in c.params)]


@pytest.mark.parametrize("case", _params(ARRAY_CASES))
def test_strided_arrays_give_the_same_derivatives(case: H.Case, library: Any) -> None:
    """Reversed, every-other-element views in (arguments and tangents) give what
    contiguous copies give; arguments are left as the plain function leaves them (a
    function may write into its array parameters), tangents as they were. Parameters
    typed C or F (``f64[:, ::1]``, ``f64[::1, :]``) get contiguous copies instead."""
    lib = library(case)
    any_strides = [p.kind == "array" and p.layout == "A" for p in case.params]
    d_f = getattr(lib, case.grad_name)
    t_f = getattr(lib, case.jvp_name)
    plain = H.plain_fn(case)

    def close(a: Any, b: Any) -> bool:
        return bool(np.allclose(a, b, rtol=1e-13, atol=1e-300))

    def strided(values: Any, which: list[int]) -> list[Any]:
        return [
            H.strided(a) if any_strides[i] else H.copy_args([a])[0] for a, i in zip(values, which)
        ]

    def untouched_padding(view: np.ndarray) -> bool:
        if view.base is None:
            return True  # a contiguous copy (a C or F parameter): no padding
        return bool(np.isnan(view.base).sum() == view.base.size - view.size)

    everything = list(range(len(case.params)))

    @settings(max_examples=3, **SETTINGS)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        v = data.draw(H.directions(case, args), label="v")
        after = H.copy_args(args)
        plain(*after)  # what the function leaves in its array arguments
        views = strided(args, everything)
        expected = d_f(*H.copy_args(args))
        got = d_f(*views)
        for name, e, g in zip(case.grad_wrt, expected, got):
            assert close(g, e), f"{case.grad_name}: d/d{name} {g!r} from views, {e!r} contiguous"
        jviews, vviews = strided(args, everything), strided(v, case.wrt_indices)
        value, tangent = t_f(*jviews, *vviews)
        value0, tangent0 = t_f(*H.copy_args(args), *H.copy_args(v))
        assert close(value, value0) and close(tangent, tangent0), (
            f"{case.jvp_name}: ({value!r}, {tangent!r}) from views, ({value0!r}, {tangent0!r})"
        )
        for a, view, jview in zip(after, views, jviews):
            if isinstance(a, np.ndarray):
                assert close(view, a) and close(jview, a), "an argument was written wrongly"
                assert untouched_padding(view) and untouched_padding(jview), "padding written"
        for d, vview in zip(v, vviews):
            if isinstance(d, np.ndarray):
                assert np.array_equal(vview, d), "a tangent was modified"
                assert untouched_padding(vview), "padding written"

    check()


def test_arguments_are_not_modified(library: Any) -> None:
    """Derivative exports leave their array arguments alone (the caller's data)."""
    case = next(c for c in DIFF_CASES if c.id == "arrays.overwrite_after_read")
    lib = library(case)
    a = np.array([0.5, -1.0, 2.0])
    before = a.copy()
    getattr(lib, case.grad_name)(a)
    getattr(lib, case.jvp_name)(a, np.ones(3))
    assert np.array_equal(a, before)
