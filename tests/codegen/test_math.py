"""Every ``math`` function of the IR against CPython's ``math`` module.

Same exception type and message whenever CPython raises; otherwise the same value within
1 ulp (libm and CPython may round the last bit differently), except ``gamma`` and
``lgamma``, which CPython computes with its own Lanczos code rather than libm: they are
compared within 1e-14 relative (gamma differs by up to ~7 ulp), and lgamma also within
1e-14 absolute: near its roots (x ≈ -2.457) the two differ by ~1.5e-15 absolute, which is
thousands of ulps of a result close to zero.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import F64, I1

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, -2.5, 0.1, 1e-300, -1e-300]
SPECIAL += [1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan, 710.0, -710.0, 171.7]
SPECIAL += [172.0, 1e306, -1e306, -171.5, -200.5, math.pi, -math.pi / 2, 1e16, -1e16]
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-20, 20),
    st.floats(-1000, 1000),
    st.sampled_from(SPECIAL),
)

LOOSE = {"gamma", "lgamma"}


def ulp_close(a: float, b: float, ulps: int = 1) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b) or a == 0 or b == 0:
        return a == b
    return abs(a - b) <= ulps * math.ulp(max(abs(a), abs(b)))


def same_value(name: str, got: Any, want: Any) -> bool:
    if isinstance(want, bool):
        return got is want
    if name in LOOSE and math.isfinite(want) and math.isfinite(got):
        return math.isclose(got, want, rel_tol=1e-14, abs_tol=1e-14 if name == "lgamma" else 0)
    return ulp_close(got, want)


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    m = Module("mathfns")
    for name, fn in ops.MATH_FUNCTIONS.items():
        params = [(f"x{i}", F64) for i in range(fn.arity)]
        b = codegen.function(m, name, params, I1 if fn.returns_bool else F64, line=30)
        b.ret(b.math(name, *b.function.params))
    return codegen.build(m, list(m.functions))


def _as_float(fn: Any) -> Any:
    # The IR's floor/ceil/trunc return f64; the front end's Cast makes Python's int.
    return lambda x: float(fn(x)) if math.isfinite(x) else x


#: Python's ``math`` functions (``internal`` ones such as ``ieee_pow`` are tested in
#: test_ieee.py: they have no CPython oracle).
PYTHON_MATH = {name: fn for name, fn in ops.MATH_FUNCTIONS.items() if not fn.internal}

ORACLE = {name: getattr(math, name) for name in PYTHON_MATH}
ORACLE.update(floor=_as_float(math.floor), ceil=_as_float(math.ceil), trunc=_as_float(math.trunc))


def check(fns: dict[str, Any], codegen: Any, name: str, *args: float) -> None:
    got = codegen.outcome(fns[name], *args)
    want = codegen.outcome(ORACLE[name], *args)
    if got[0] == want[0] == "ok":
        assert same_value(name, got[1], want[1]), (name, args, got, want)
    else:
        assert got == want, (name, args)


UNARY = [f.name for f in PYTHON_MATH.values() if f.arity == 1]
BINARY = [f.name for f in PYTHON_MATH.values() if f.arity == 2]


@pytest.mark.parametrize("name", UNARY)
def test_unary_special_values(fns: Any, codegen: Any, name: str) -> None:
    for x in SPECIAL:
        check(fns, codegen, name, x)


@pytest.mark.parametrize("name", UNARY)
@given(x=floats)
@settings(max_examples=150, deadline=None)
def test_unary_matches_cpython(fns: Any, codegen: Any, name: str, x: float) -> None:
    check(fns, codegen, name, x)


@pytest.mark.parametrize("name", BINARY)
def test_binary_special_values(fns: Any, codegen: Any, name: str) -> None:
    for x in SPECIAL:
        for y in SPECIAL:
            check(fns, codegen, name, x, y)


@pytest.mark.parametrize("name", BINARY)
@given(x=floats, y=floats)
@settings(max_examples=300, deadline=None)
@example(x=-8.0, y=1 / 3)
@example(x=0.0, y=-1.0)
@example(x=-0.0, y=-3.0)
@example(x=10.0, y=400.0)
@example(x=0.0, y=-math.inf)
def test_binary_matches_cpython(fns: Any, codegen: Any, name: str, x: float, y: float) -> None:
    check(fns, codegen, name, x, y)


@pytest.mark.parametrize("x", [0.0, -0.0, -1.0, -2.0, -171.0, -1e300])
def test_gamma_poles_raise_domain_error(fns: Any, x: float) -> None:
    for name in ("gamma", "lgamma"):
        with pytest.raises(ValueError, match=r"^math domain error$") as info:
            fns[name](x)
        assert info.value.line == 30  # type: ignore[attr-defined]


def test_range_errors(fns: Any) -> None:
    for name, x in (("exp", 1000.0), ("sinh", -1000.0), ("cosh", 1000.0), ("gamma", 200.0)):
        with pytest.raises(OverflowError, match=r"^math range error$"):
            fns[name](x)
    with pytest.raises(ValueError, match=r"^math domain error$"):
        fns["sqrt"](-1.0)
    with pytest.raises(ValueError, match=r"^math domain error$"):
        fns["log"](0.0)
