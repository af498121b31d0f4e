"""Integer arithmetic against CPython, reduced to wrapping 64-bit (docs/abi.md).

Floor division and modulo round toward -inf on every sign combination; ``**`` is exact
modulo 2**64; a zero divisor and a negative exponent raise with CPython's messages.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import I1, I32, I64

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
i64s = st.one_of(
    st.integers(INT_MIN, INT_MAX),
    st.integers(-10, 10),
    st.sampled_from([INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1, -1, 0, 1]),
)
nonzero_i64s = i64s.filter(lambda v: v != 0)

BINARY = {
    "add": ops.Add,
    "sub": ops.Sub,
    "mul": ops.Mul,
    "floordiv": ops.FloorDiv,
    "mod": ops.Mod,
    "pow": ops.Pow,
    "min": ops.Min,
    "max": ops.Max,
}
PYTHON = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "min": min,
    "max": max,
}


def wrap(v: int, bits: int = 64) -> int:
    """``v`` reduced to ``bits``-bit two's complement."""
    half = 1 << (bits - 1)
    return (v + half) % (1 << bits) - half


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    m = Module("intarith")
    for t, suffix in ((I64, ""), (I32, "32")):
        for name, cls in BINARY.items():
            b = codegen.function(m, name + suffix, [("a", t), ("b", t)], t, line=10)
            b.ret(b.binary(cls, *b.function.params))
    for name, cls in (("neg", ops.Neg), ("abs", ops.Abs)):
        b = codegen.function(m, name, [("a", I64)], I64)
        b.ret(b.unary(cls, b.function.params[0]))
    for pred in ops.CMP_PREDICATES:
        b = codegen.function(m, f"cmp_{pred}", [("a", I64), ("b", I64)], I1)
        b.ret(b.cmp(pred, *b.function.params))
        b = codegen.function(m, f"bcmp_{pred}", [("a", I1), ("b", I1)], I1)
        b.ret(b.cmp(pred, *b.function.params))
    b = codegen.function(m, "not_", [("a", I1)], I1)
    b.ret(b.unary(ops.Not, b.function.params[0]))
    for name in ("min", "max"):
        b = codegen.function(m, f"b{name}", [("a", I1), ("b", I1)], I1)
        b.ret(b.binary(BINARY[name], *b.function.params))
    return codegen.build(m, list(m.functions))


def expected(name: str, a: int, b: int, bits: int = 64) -> tuple[Any, ...]:
    if name == "pow" and b < 0 and a == 0:
        return ("raise", ZeroDivisionError, "0.0 cannot be raised to a negative power")
    if name == "pow" and b < 0:
        return ("raise", ValueError, "negative exponent in integer power: ")
    try:
        if name == "pow":
            return ("ok", wrap(pow(a, b, 1 << bits), bits))
        return ("ok", wrap(PYTHON[name](a, b), bits))
    except ZeroDivisionError as exc:
        return ("raise", ZeroDivisionError, str(exc))


def check(fns: dict[str, Any], codegen: Any, name: str, a: int, b: int, bits: int = 64) -> None:
    fn = fns[name if bits == 64 else f"{name}{bits}"]
    got = codegen.outcome(fn, a, b)
    want = expected(name, a, b, bits)
    if want[0] == "raise" and name == "pow":
        assert got[:2] == want[:2] and got[2].startswith(want[2]), (a, b, got)
    else:
        assert got == want, (name, a, b)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "min", "max"])
@given(a=i64s, b=i64s)
@settings(max_examples=150, deadline=None)
def test_ring_ops_wrap(fns: Any, codegen: Any, name: str, a: int, b: int) -> None:
    check(fns, codegen, name, a, b)


@pytest.mark.parametrize("name", ["floordiv", "mod"])
@given(a=i64s, b=i64s)
@settings(max_examples=400, deadline=None)
@example(a=INT_MIN, b=-1)
@example(a=INT_MIN, b=1)
@example(a=7, b=0)
@example(a=-7, b=2)
@example(a=7, b=-2)
@example(a=-7, b=-2)
@example(a=INT_MAX, b=INT_MIN)
def test_floordiv_mod_all_signs(fns: Any, codegen: Any, name: str, a: int, b: int) -> None:
    check(fns, codegen, name, a, b)


@pytest.mark.parametrize("name", ["floordiv", "mod", "pow", "mul"])
@given(a=st.integers(-(2**31), 2**31 - 1), b=st.integers(-(2**31), 2**31 - 1))
@settings(max_examples=100, deadline=None)
@example(a=-(2**31), b=-1)
def test_i32(fns: Any, codegen: Any, name: str, a: int, b: int) -> None:
    if name == "pow":
        b = b % 70 - 3
    check(fns, codegen, name, a, b, bits=32)


@given(a=i64s, b=st.integers(-3, 200))
@settings(max_examples=400, deadline=None)
@example(a=0, b=0)
@example(a=0, b=-1)
@example(a=0, b=-3)
@example(a=-1, b=INT_MAX)
@example(a=3, b=INT_MAX)
@example(a=2, b=63)
@example(a=2, b=64)
def test_pow_by_squaring(fns: Any, codegen: Any, a: int, b: int) -> None:
    check(fns, codegen, "pow", a, b)


def test_pow_negative_exponent_message(fns: Any) -> None:
    with pytest.raises(ValueError, match=r"^negative exponent in integer power") as info:
        fns["pow"](2, -1)
    assert info.value.line == 10  # type: ignore[attr-defined]


def test_zero_division_messages(fns: Any) -> None:
    with pytest.raises(ZeroDivisionError, match=r"^integer division or modulo by zero$"):
        fns["floordiv"](1, 0)
    with pytest.raises(ZeroDivisionError, match=r"^integer modulo by zero$"):
        fns["mod"](1, 0)


@given(a=i64s)
@settings(max_examples=100, deadline=None)
@example(a=INT_MIN)
def test_neg_abs(fns: Any, a: int) -> None:
    assert fns["neg"](a) == wrap(-a)
    assert fns["abs"](a) == wrap(abs(a))


@pytest.mark.parametrize("pred", ops.CMP_PREDICATES)
@given(a=i64s, b=i64s)
@settings(max_examples=50, deadline=None)
def test_signed_compare(fns: Any, pred: str, a: int, b: int) -> None:
    op = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[pred]
    assert fns[f"cmp_{pred}"](a, b) is eval(f"a {op} b")


@pytest.mark.parametrize("pred", ops.CMP_PREDICATES)
def test_bool_compare_is_unsigned(fns: Any, pred: str) -> None:
    op = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[pred]
    for a in (False, True):
        for b in (False, True):
            assert fns[f"bcmp_{pred}"](a, b) is eval(f"a {op} b"), (a, b)


def test_bool_not_min_max(fns: Any) -> None:
    assert fns["not_"](True) is False
    assert fns["not_"](False) is True
    for a in (False, True):
        for b in (False, True):
            assert fns["bmin"](a, b) is min(a, b)
            assert fns["bmax"](a, b) is max(a, b)
