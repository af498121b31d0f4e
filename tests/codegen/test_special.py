"""The digamma function ψ (compiler/ir/special.py): the Python reference against finite
differences of ``math.lgamma`` and known values, and the compiled code (codegen/special.py)
against the reference."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.ir.core import Module
from gradc.compiler.ir.special import digamma
from gradc.compiler.ir.types import F64

EULER_GAMMA = 0.57721566490153286061  # ψ(1) = −γ (A&S 6.3.2)


@pytest.fixture(scope="module")
def compiled(codegen: Any) -> Any:
    m = Module("special")
    b = codegen.function(m, "psi", [("x", F64)], F64, line=3)
    b.ret(b.math("digamma", *b.function.params))
    return codegen.build(m, ["psi"])["psi"]


def test_known_values() -> None:
    assert digamma(1.0) == pytest.approx(-EULER_GAMMA, rel=4e-16)
    assert digamma(0.5) == pytest.approx(-EULER_GAMMA - 2 * math.log(2.0), rel=4e-16)
    # ψ(n + 1) = H_n − γ
    assert digamma(11.0) == pytest.approx(sum(1 / k for k in range(1, 11)) - EULER_GAMMA)
    # reflection: ψ(1 − x) − ψ(x) = π cot(πx)
    x = 0.3
    assert digamma(1 - x) - digamma(x) == pytest.approx(math.pi / math.tan(math.pi * x))


@settings(max_examples=200, deadline=None)
@given(x=st.one_of(st.floats(0.01, 1e6), st.floats(-30.0, -0.01)))
def test_reference_is_the_derivative_of_lgamma(x: float) -> None:
    frac = x - math.floor(x)
    if x < 0 and min(frac, 1 - frac) < 0.05:
        return  # too close to a pole for central differences
    h = 1e-6 * max(1.0, abs(x))
    fd = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
    # FD rounding: eps·|lgamma|/h; truncation: h²·|ψ''|/6
    tol = 1e-9 * max(1.0, abs(math.lgamma(x))) / max(1e-6, h / max(1.0, abs(x)))
    assert abs(digamma(x) - fd) <= 1e-6 * abs(fd) + tol, (x, digamma(x), fd)


@settings(max_examples=300, deadline=None)
@given(x=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-50, 50)))
def test_compiled_matches_the_reference(compiled: Any, x: float) -> None:
    want = digamma(x)
    got = compiled(x)
    if math.isnan(want):
        assert math.isnan(got), (x, got)
    elif math.isinf(want):
        assert got == want, (x, got)
    else:
        # the terms (ln y ≈ 2.3, Σ 1/x) cancel near the root ψ(1.4616) = 0: the error is a
        # few ulp of the terms, not of the result
        assert abs(got - want) <= 8 * math.ulp(max(abs(want), 4.0)), (x, got, want)


@pytest.mark.parametrize("x", [0.0, -0.0, -1.0, -2.0, -50.0, -math.inf, math.nan])
def test_poles_and_nan_give_nan(compiled: Any, x: float) -> None:
    assert math.isnan(digamma(x))
    assert math.isnan(compiled(x))


def test_infinity(compiled: Any) -> None:
    assert digamma(math.inf) == math.inf
    assert compiled(math.inf) == math.inf
