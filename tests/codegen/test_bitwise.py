"""Bitwise operators in compiled code against CPython, reduced to wrapping two's
complement (docs/abi.md), on i64, i32 (the shift count clamps at the type's width) and
i1; a negative shift count raises CPython's ValueError at the operation's line.

The differential corpus (corpus/bitwise.py) runs the same operators from Python source.
"""

from __future__ import annotations

import operator
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
    st.sampled_from([INT_MIN, INT_MIN + 1, INT_MAX, -1, 0, 1, 2**62]),
)
i32s = st.integers(-(2**31), 2**31 - 1)
counts = st.integers(-5, 140)

BINARY: dict[str, tuple[type[ops.BinaryOp], Any]] = {
    "bitand": (ops.BitAnd, operator.and_),
    "bitor": (ops.BitOr, operator.or_),
    "bitxor": (ops.BitXor, operator.xor),
    "lshift": (ops.LShift, operator.lshift),
    "rshift": (ops.RShift, operator.rshift),
}


def wrap(v: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return (v + half) % (1 << bits) - half


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    m = Module("bitwise")
    for t, suffix in ((I64, ""), (I32, "32"), (I1, "_bool")):
        for name, (cls, _) in BINARY.items():
            if t == I1 and name.endswith("shift"):
                continue
            b = codegen.function(m, name + suffix, [("a", t), ("b", t)], t, line=20)
            b.ret(b.binary(cls, *b.function.params))
    for t, suffix in ((I64, ""), (I32, "32")):
        b = codegen.function(m, "invert" + suffix, [("a", t)], t)
        b.ret(b.unary(ops.Invert, b.function.params[0]))
    return codegen.build(m, list(m.functions))


def expected(name: str, a: int, b: int, bits: int) -> tuple[Any, ...]:
    try:
        return ("ok", wrap(BINARY[name][1](a, b), bits))
    except ValueError as exc:
        return ("raise", ValueError, str(exc))


@pytest.mark.parametrize("name", sorted(BINARY))
@given(a=i64s, b=i64s, n=counts)
@settings(max_examples=200, deadline=None)
@example(a=INT_MIN, b=INT_MIN, n=63)
@example(a=INT_MIN, b=-1, n=64)
@example(a=-1, b=INT_MAX, n=-1)
@example(a=INT_MAX, b=0, n=65)
def test_i64(fns: Any, codegen: Any, name: str, a: int, b: int, n: int) -> None:
    rhs = n if name.endswith("shift") else b
    assert codegen.outcome(fns[name], a, rhs) == expected(name, a, rhs, 64), (a, rhs)


@pytest.mark.parametrize("name", ["lshift", "rshift"])
def test_huge_counts(fns: Any, codegen: Any, name: str) -> None:
    for a in (INT_MIN, -3, 0, 5, INT_MAX):
        for n in (64, 1000, INT_MAX):
            want = 0 if name == "lshift" else a >> 63
            assert fns[name](a, n) == want, (a, n)


@pytest.mark.parametrize("name", sorted(BINARY))
@given(a=i32s, b=i32s, n=st.integers(-3, 70))
@settings(max_examples=100, deadline=None)
@example(a=-(2**31), b=0, n=32)
@example(a=1, b=0, n=31)
def test_i32(fns: Any, codegen: Any, name: str, a: int, b: int, n: int) -> None:
    rhs = n if name.endswith("shift") else b
    fn = fns[name + "32"]
    assert codegen.outcome(fn, a, rhs) == expected(name, a, rhs, 32), (a, rhs)


@pytest.mark.parametrize("name", ["bitand", "bitor", "bitxor"])
def test_bools(fns: Any, name: str) -> None:
    for a in (False, True):
        for b in (False, True):
            got = fns[name + "_bool"](a, b)
            assert type(got) is bool and got == BINARY[name][1](a, b)


@given(a=i64s, c=i32s)
def test_invert(fns: Any, a: int, c: int) -> None:
    assert fns["invert"](a) == ~a
    assert fns["invert32"](c) == ~c


@pytest.mark.parametrize("name", ["lshift", "rshift"])
def test_negative_count_message_and_line(fns: Any, name: str) -> None:
    with pytest.raises(ValueError, match=r"^negative shift count$") as info:
        fns[name](1, -1)
    assert info.value.line == 20  # type: ignore[attr-defined]
