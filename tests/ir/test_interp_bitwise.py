"""The reference interpreter's bitwise operators against CPython's, reduced to wrapping
two's complement (docs/abi.md): ``& | ^ ~ >>`` are exact, ``<<`` wraps, a negative
shift count raises CPython's ValueError."""

from __future__ import annotations

import operator
import textwrap

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function, wrap_int
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.verifier import verify_module

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
i64s = st.one_of(
    st.integers(I64_MIN, I64_MAX), st.sampled_from([I64_MIN, I64_MAX, -1, 0, 1, 2**62])
)
i32s = st.integers(-(2**31), 2**31 - 1)
counts = st.integers(-70, 200)

PYTHON = {
    "bitand": operator.and_,
    "bitor": operator.or_,
    "bitxor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
}


def binop(op: str, t: str) -> Module:
    text = f"func @f(%a: {t}, %b: {t}) -> {t} {{\n^e:\n  %r = {op} %a, %b : {t}\n  ret %r\n}}\n"
    mod = parse_module(textwrap.dedent(text))
    verify_module(mod)
    return mod


def outcome(fn: object, *args: object) -> tuple[str, object]:
    try:
        return "value", fn(*args)  # type: ignore[operator]
    except ValueError as exc:
        return "raise", (type(exc), exc.args)


@pytest.mark.parametrize(("t", "bits", "ints"), [("i64", 64, i64s), ("i32", 32, i32s)])
@pytest.mark.parametrize("op", sorted(PYTHON))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_matches_cpython_wrapped(op: str, t: str, bits: int, ints: object, data: object) -> None:
    a = data.draw(ints)  # type: ignore[attr-defined]
    b = data.draw(counts if op.endswith("shift") else ints)  # type: ignore[attr-defined]
    mod = binop(op, t)
    got = outcome(lambda: run_function(mod, "f", [a, b]))
    want = outcome(lambda: wrap_int(PYTHON[op](a, b), bits))
    assert got == want, (op, t, a, b)


@pytest.mark.parametrize("op", ["bitand", "bitor", "bitxor"])
def test_bools_give_bools(op: str) -> None:
    for a in (False, True):
        for b in (False, True):
            got = run_function(binop(op, "i1"), "f", [a, b])
            assert type(got) is bool and got == PYTHON[op](a, b)


@given(a=i64s)
@example(a=I64_MIN)
@example(a=I64_MAX)
def test_invert(a: int) -> None:
    mod = parse_module("func @f(%a: i64) -> i64 {\n^e:\n  %r = invert %a : i64\n  ret %r\n}\n")
    assert run_function(mod, "f", [a]) == ~a


@pytest.mark.parametrize(
    ("op", "a", "n", "expected"),
    [
        ("lshift", 1, 63, I64_MIN),
        ("lshift", 1, 64, 0),
        ("lshift", -1, I64_MAX, 0),  # no unbounded int is built
        ("rshift", I64_MIN, 64, -1),
        ("rshift", I64_MAX, I64_MAX, 0),
        ("rshift", -5, 1, -3),  # rounds toward -inf
    ],
)
def test_shift_edges(op: str, a: int, n: int, expected: int) -> None:
    assert run_function(binop(op, "i64"), "f", [a, n]) == expected


@pytest.mark.parametrize("op", ["lshift", "rshift"])
def test_negative_shift_count_is_cpythons_error(op: str) -> None:
    with pytest.raises(ValueError) as info:
        run_function(binop(op, "i64"), "f", [1, -1])
    with pytest.raises(ValueError) as cpython:
        PYTHON[op](1, -1)
    assert info.value.args == cpython.value.args == ("negative shift count",)
