"""Float arithmetic against CPython: ``//``, ``%``, ``/``, ``**``, min/max, comparisons.

Results must be the very same double (NaN matches NaN; the sign of zero counts), and
every case where CPython raises must raise the same type with the same message (a complex
result of ``**`` is gradc's ValueError).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import F32, F64, I1
from gradc.compiler.options import CompilerOptions

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e308, -1e308, 5e-324]
SPECIAL += [math.inf, -math.inf, math.nan, 0.1, -0.1, 1e-300, 7.0, -7.0, 2.5, -2.5]
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-100, 100),
    st.integers(-20, 20).map(float),
    st.sampled_from(SPECIAL),
)

BINARY = {
    "floordiv": (ops.FloorDiv, lambda a, b: a // b),
    "mod": (ops.Mod, lambda a, b: a % b),
    "div": (ops.Div, lambda a, b: a / b),
    "pow": (ops.Pow, lambda a, b: a**b),
    "min": (ops.Min, min),
    "max": (ops.Max, max),
    "add": (ops.Add, lambda a, b: a + b),
    "sub": (ops.Sub, lambda a, b: a - b),
    "mul": (ops.Mul, lambda a, b: a * b),
}


def same(a: float, b: float) -> bool:
    """The same double: both NaN, or equal with the same sign."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def python_outcome(name: str, a: float, b: float) -> tuple[Any, ...]:
    if name == "pow" and -math.inf < a < 0 and math.isfinite(b) and b != math.floor(b):
        # CPython goes complex here (and may even raise OverflowError("complex
        # exponentiation")); gradc's static float result raises ValueError instead.
        return ("raise", ValueError, "negative number cannot be raised to a fractional power")
    try:
        r = BINARY[name][1](a, b)
    except (ZeroDivisionError, OverflowError) as exc:
        return ("raise", type(exc), str(exc))
    assert not isinstance(r, complex)
    return ("ok", r)


def check(fns: dict[str, Any], codegen: Any, name: str, a: float, b: float) -> None:
    got = codegen.outcome(fns[name], a, b)
    want = python_outcome(name, a, b)
    if want[0] == "ok" and got[0] == "ok":
        assert same(got[1], want[1]), (name, a, b, got, want)
    else:
        assert got == want, (name, a, b)


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    m = Module("floatarith")
    for name, (cls, _) in BINARY.items():
        b = codegen.function(m, name, [("a", F64), ("b", F64)], F64, line=20)
        b.ret(b.binary(cls, *b.function.params))
    for pred in ops.CMP_PREDICATES:
        b = codegen.function(m, f"cmp_{pred}", [("a", F64), ("b", F64)], I1)
        b.ret(b.cmp(pred, *b.function.params))
    for name, cls in (("neg", ops.Neg), ("abs", ops.Abs)):
        b = codegen.function(m, name, [("a", F64)], F64)
        b.ret(b.unary(cls, b.function.params[0]))
    b = codegen.function(m, "not_", [("a", F64)], I1)
    b.ret(b.unary(ops.Not, b.function.params[0]))
    for name in ("floordiv", "mod"):
        b = codegen.function(m, f"{name}32", [("a", F32), ("b", F32)], F32)
        b.ret(b.binary(BINARY[name][0], *b.function.params))
    return codegen.build(m, list(m.functions))


@pytest.mark.parametrize("name", ["floordiv", "mod"])
@given(a=floats, b=floats)
@settings(max_examples=600, deadline=None)
@example(a=-0.0, b=1.0)
@example(a=0.0, b=-1.0)
@example(a=-1.0, b=math.inf)
@example(a=1.0, b=-math.inf)
@example(a=math.inf, b=1.0)
@example(a=1e308, b=1e-308)
@example(a=-5e-324, b=1.0)
@example(a=1.0, b=0.1)
@example(a=-1.0, b=-0.0)
def test_floordiv_mod_match_cpython(fns: Any, codegen: Any, name: str, a: float, b: float) -> None:
    check(fns, codegen, name, a, b)


@given(a=floats, b=floats)
@settings(max_examples=600, deadline=None)
@example(a=0.0, b=-1.0)
@example(a=-0.0, b=-3.0)
@example(a=0.0, b=-math.inf)
@example(a=-8.0, b=1 / 3)
@example(a=-math.inf, b=0.5)
@example(a=-2.0, b=1e300)
@example(a=-1.0, b=math.inf)
@example(a=1e300, b=2.0)
@example(a=-10.0, b=309.0)
@example(a=math.nan, b=0.0)
@example(a=1.0, b=math.nan)
@example(a=10.0, b=-400.0)
def test_pow_matches_cpython(fns: Any, codegen: Any, a: float, b: float) -> None:
    check(fns, codegen, "pow", a, b)


@pytest.mark.parametrize("name", ["div", "min", "max", "add", "sub", "mul"])
@given(a=floats, b=floats)
@settings(max_examples=200, deadline=None)
@example(a=math.nan, b=1.0)
@example(a=1.0, b=math.nan)
@example(a=0.0, b=-0.0)
@example(a=-0.0, b=0.0)
@example(a=1.0, b=0.0)
def test_simple_ops_match_cpython(fns: Any, codegen: Any, name: str, a: float, b: float) -> None:
    check(fns, codegen, name, a, b)


def test_messages(fns: Any) -> None:
    with pytest.raises(ZeroDivisionError, match=r"^float floor division by zero$") as info:
        fns["floordiv"](1.0, 0.0)
    assert info.value.line == 20  # type: ignore[attr-defined]
    with pytest.raises(ZeroDivisionError, match=r"^float modulo$"):
        fns["mod"](1.0, -0.0)
    with pytest.raises(ZeroDivisionError, match=r"^float division by zero$"):
        fns["div"](1.0, 0.0)
    with pytest.raises(ZeroDivisionError, match=r"^0\.0 cannot be raised to a negative power$"):
        fns["pow"](0.0, -1.0)
    with pytest.raises(ValueError, match=r"^negative number cannot be raised to a fractional"):
        fns["pow"](-8.0, 0.5)
    with pytest.raises(OverflowError, match=r"^\(34, 'Numerical result out of range'\)$"):
        fns["pow"](10.0, 400.0)


@pytest.mark.parametrize("pred", ops.CMP_PREDICATES)
@given(a=floats, b=floats)
@settings(max_examples=60, deadline=None)
@example(a=math.nan, b=math.nan)
@example(a=math.nan, b=1.0)
@example(a=0.0, b=-0.0)
def test_compare_nan_as_python(fns: Any, pred: str, a: float, b: float) -> None:
    op = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[pred]
    assert fns[f"cmp_{pred}"](a, b) is eval(f"a {op} b")


@given(a=floats)
@settings(max_examples=100, deadline=None)
@example(a=math.nan)
@example(a=-0.0)
def test_unary(fns: Any, a: float) -> None:
    assert same(fns["neg"](a), -a)
    assert same(fns["abs"](a), abs(a))
    assert fns["not_"](a) is (not a)


@pytest.mark.parametrize("name", ["floordiv", "mod"])
def test_f32_floordiv_mod(fns: Any, codegen: Any, name: str) -> None:
    import numpy as np

    for a in (-7.5, 7.5, -0.0, 3.0, 1e30, -1e-30):
        for b in (2.0, -2.0, 0.25, -3.0, 7.0):
            want = BINARY[name][1](np.float32(a), np.float32(b))
            assert same(fns[f"{name}32"](a, b), float(want)), (a, b)


def test_fastmath_flags_only_when_asked(codegen: Any) -> None:
    from gradc.compiler.codegen.lower import lower_export

    m = Module("fm")
    b = codegen.function(m, "f", [("a", F64), ("b", F64)], F64)
    b.ret(b.add(b.mul(*b.function.params), b.function.params[0]))
    fast = str(lower_export(m, "f", "f", CompilerOptions(fastmath=True)))
    plain = str(lower_export(m, "f", "f", CompilerOptions()))
    assert "fmul reassoc nsz arcp contract afn double" in fast
    assert "fadd reassoc nsz arcp contract afn double" in fast
    assert "nnan" not in fast and "ninf" not in fast
    assert "reassoc" not in plain
    result = codegen.build(m, ["f"], CompilerOptions(fastmath=True))["f"](3.0, 4.0)
    assert result == 15.0


CONSTANT_EXPONENTS = [2.0, 0.5, -1.0, 3.0, 1.0, -2.0, 0.0]


@pytest.fixture(scope="module")
def const_pow(codegen: Any) -> dict[float, Any]:
    """``a ** c`` for each constant ``c``: LLVM's pow folds (``pow(x, 2.0)`` -> ``x * x``,
    ``pow(x, 0.5)`` -> ``sqrt``) must not change CPython's libm result by an ulp."""
    m = Module("constpow")
    names = {}
    for k, c in enumerate(CONSTANT_EXPONENTS):
        b = codegen.function(m, f"pow{k}", [("a", F64)], F64, line=20)
        b.ret(b.binary(ops.Pow, b.function.params[0], b.const(c, F64)))
        names[c] = f"pow{k}"
    built = codegen.build(m, list(names.values()))
    return {c: built[n] for c, n in names.items()}


@pytest.mark.parametrize("c", CONSTANT_EXPONENTS)
@given(a=floats)
@settings(max_examples=200, deadline=None)
@example(a=7.2249061795510094)  # libm pow(a, 2.0) is 1 ulp from a * a here
def test_pow_by_a_constant_matches_cpython(
    const_pow: dict[float, Any], codegen: Any, c: float, a: float
) -> None:
    got = codegen.outcome(const_pow[c], a)
    want = python_outcome("pow", a, c)
    if want[0] == "ok" and got[0] == "ok":
        assert same(got[1], want[1]), (a, c, got, want)
    else:
        assert got == want, (a, c)
