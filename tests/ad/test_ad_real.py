"""Derivatives of real numeric Python (tests/ad/corpus_real/, issue 11's new-user
trial), by the checks of test_ad_corpus.py and its harness (tests/ad/corpus/_harness.py
explains the corpus conventions and tolerances):

(a) reverse mode vs central finite differences of the plain function;
(b) forward mode along a random direction vs finite differences;
(c) the dot-product test ``<d_f(x), v> == t_f(x, v)``;
(d) the value returned by ``t_f`` equals the plain function's;

after checking the oracle itself (finite differences vs dual numbers run through the
same source). losses.py runs by default; kernels.py, whose derivatives take 3-9 s each
to compile, is marked slow.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.corpus import _harness as H

CORPUS_DIR = Path(__file__).parent / "corpus_real"
SLOW_MODULES = {"kernels", "models"}

EXAMPLES = 5
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _params() -> list[Any]:
    out = []
    for path in sorted(CORPUS_DIR.glob("*.py")):
        marks = [pytest.mark.slow] if path.stem in SLOW_MODULES else []
        out += [pytest.param(c, id=c.id, marks=marks) for c in H.discover(path)]
    return out


CASES = _params()


def test_declarations_follow_the_convention() -> None:
    assert len(CASES) >= 12
    for param in CASES:
        case = param.values[0]
        assert case.grad_name == f"d_{case.name}" and case.grad_wrt == case.float_params
        assert case.jvp_name == f"t_{case.name}" and case.jvp_wrt == case.float_params
        assert {p.name for p in case.params if p.kind == "array"} <= set(case.shapes)


@pytest.mark.parametrize("case", CASES)
def test_oracle_finite_differences_match_dual_numbers(case: H.Case) -> None:
    plain = H.plain_fn(case)

    @SETTINGS
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        value = plain(*H.copy_args(args))
        dual_value, exact = H.dual_gradient(case, args)
        assert math.isclose(dual_value, value, rel_tol=1e-14, abs_tol=1e-300)
        fd = H.fd_gradient(plain, args, case.wrt_indices)
        H.assert_grad_matches_fd(f"{case.id}{args!r} exact", exact, fd, case.grad_wrt, value)

    check()


@pytest.mark.parametrize("case", CASES)
def test_derivatives(case: H.Case, compile_module: Callable[[Path], Any]) -> None:
    lib = compile_module(case.path)

    @SETTINGS
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        v = data.draw(H.directions(case, args), label="v")
        H.check_reverse(case, lib, args)
        H.check_forward(case, lib, args, v)
        H.check_dot_product(case, lib, args, v)
        H.check_jvp_value(case, lib, args, v)

    check()
