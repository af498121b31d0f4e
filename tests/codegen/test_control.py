"""Control flow, calls and aggregates: phis, loops, status propagation, tuples, none."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, I1, I64, NONE, TupleType
from gradc.compiler.options import CompilerOptions


def build_module(codegen: Any) -> Module:
    m = Module("control")

    # sum_range(n): s = 0; i = 0; while i < n: s += i * i; i += 1; return s
    b = codegen.function(m, "sum_squares", [("n", I64)], I64, line=1)
    f = b.function
    zero, one = b.const(0, I64), b.const(1, I64)
    header, body, done = b.new_block("loop.header"), b.new_block("loop.body"), b.new_block("done")
    entry = b.block
    b.jump(header)
    b.position_at_end(header)
    i = b.phi(I64, "i")
    s = b.phi(I64, "s")
    b.branch(b.cmp("lt", i, f.params[0]), body, done)
    b.position_at_end(body)
    s2 = b.add(s, b.mul(i, i))
    i2 = b.add(i, one)
    b.jump(header)
    i.incoming = [(entry, zero), (body, i2)]
    s.incoming = [(entry, zero), (body, s2)]
    b.position_at_end(done)
    b.ret(s)

    # swap phis: a, b = b, a + b (fibonacci), n times: the phis read each other
    b = codegen.function(m, "fib", [("n", I64)], I64, line=2)
    f = b.function
    entry = b.block
    header, body, done = b.new_block("h"), b.new_block("b"), b.new_block("d")
    c0, c1 = b.const(0, I64), b.const(1, I64)
    b.jump(header)
    b.position_at_end(header)
    k, x, y = b.phi(I64, "k"), b.phi(I64, "x"), b.phi(I64, "y")
    b.branch(b.cmp("lt", k, f.params[0]), body, done)
    b.position_at_end(body)
    k2, xy = b.add(k, c1), b.add(x, y)
    b.jump(header)
    k.incoming = [(entry, c0), (body, k2)]
    x.incoming = [(entry, c0), (body, y)]
    y.incoming = [(entry, c1), (body, xy)]
    b.position_at_end(done)
    b.ret(x)

    # a call chain: outer -> middle -> inner, inner raises at line 103 for x < 0
    b = codegen.function(m, "inner", [("x", F64)], F64, line=100)
    # (a multi-item with enters b.at() before it evaluates the cmp: both get line 103)
    x = b.function.params[0]
    with b.at(Loc("control.py", 103, 8)), b.if_then(b.cmp("lt", x, b.const(0.0, F64))):
        b.raise_("ValueError", "x must be >= 0")
    with b.at(Loc("control.py", 104, 8)):
        b.ret(b.math("sqrt", b.function.params[0]))
    b = codegen.function(m, "middle", [("x", F64), ("flag", I1)], TupleType((F64, I1)), line=110)
    r = b.call("inner", [b.function.params[0]], F64)
    b.ret(b.make_tuple([r, b.unary(ops.Not, b.function.params[1])]))
    b = codegen.function(m, "outer", [("x", F64)], F64, line=120)
    t = b.call("middle", [b.function.params[0], b.const(True, I1)], TupleType((F64, I1)))
    r, flag = b.tuple_get(t, 0), b.tuple_get(t, 1)
    with b.at(Loc("control.py", 125, 4)):
        d = b.div(r, b.cast(b.cast(r, I64), F64))  # ZeroDivisionError for 0 <= x < 1
    b.ret(b.select(flag, b.const(-1.0, F64), d))

    # recursion through the ABI: fact(n) = 1 if n <= 1 else n * fact(n - 1)
    b = codegen.function(m, "fact", [("n", I64)], I64, line=130)
    n = b.function.params[0]
    with b.if_then(b.cmp("le", n, b.const(1, I64))):
        b.ret(b.const(1, I64))
    b.ret(b.mul(n, b.call("fact", [b.sub(n, b.const(1, I64))], I64)))

    # nested tuple with bools; a tuple through select and a phi
    tt = TupleType((I64, TupleType((I1, F64)), I1))
    b = codegen.function(m, "tuples", [("a", I64), ("p", I1)], tt, line=140)
    a, p = b.function.params
    t1 = b.make_tuple([a, b.make_tuple([p, b.const(0.5, F64)]), b.const(True, I1)])
    t2 = b.make_tuple(
        [b.unary(ops.Neg, a), b.make_tuple([b.const(False, I1), b.const(-0.0, F64)]), p]
    )
    chosen = b.select(p, t1, t2)
    then, join = b.new_block("then"), b.new_block("join")
    entry = b.block
    b.branch(p, then, join)
    b.position_at_end(then)
    b.jump(join)
    b.position_at_end(join)
    merged = b.phi(tt)
    merged.incoming = [(entry, t2), (then, chosen)]
    b.ret(merged)

    # returns None; an unreachable block; an assertion
    b = codegen.function(m, "check_positive", [("x", I64)], NONE, line=150)
    dead = b.new_block("dead")
    x = b.function.params[0]
    with b.at(Loc("control.py", 151, 4)), b.if_then(b.cmp("le", x, b.const(0, I64))):
        b.raise_("AssertionError", "x must be positive")
    b.ret(None)
    b.position_at_end(dead)
    b.ret(None)
    b = codegen.function(m, "use_none", [("x", I64)], I64, line=160)
    b.call("check_positive", [b.function.params[0]], NONE)
    b.ret(b.function.params[0])

    # a block that comes before its dominator in the block list
    b = codegen.function(m, "out_of_order", [("x", F64)], F64, line=170)
    late = b.new_block("late")
    early = b.new_block("early")
    b.jump(early)
    b.position_at_end(late)
    b.ret(b.mul(b.function.params[0], b.const(2.0, F64)))
    b.position_at_end(early)
    b.jump(late)
    return m


EXPORTS = ["sum_squares", "fib", "outer", "middle", "fact", "tuples", "use_none", "out_of_order"]


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    return codegen.build(build_module(codegen), EXPORTS)


@given(n=st.integers(-3, 300))
@settings(max_examples=40, deadline=None)
def test_loop_with_phis(fns: Any, n: int) -> None:
    assert fns["sum_squares"](n) == sum(i * i for i in range(n))


def test_phis_read_each_other(fns: Any) -> None:
    a, b = 0, 1
    for n in range(92):
        assert fns["fib"](n) == a
        a, b = b, a + b


def test_call_chain_and_tuple_result(fns: Any) -> None:
    assert fns["middle"](4.0, False) == (2.0, True)
    assert fns["middle"](9.0, True) == (3.0, False)
    assert fns["outer"](4.0) == 1.0
    with pytest.raises(ZeroDivisionError, match=r"^float division by zero$") as info:
        fns["outer"](0.25)
    assert info.value.line == 125  # type: ignore[attr-defined]


def test_status_propagates_unchanged(fns: Any) -> None:
    for name, args in (("outer", (-1.0,)), ("middle", (-2.0, True))):
        with pytest.raises(ValueError, match=r"^x must be >= 0$") as info:
            fns[name](*args)
        assert info.value.line == 103  # type: ignore[attr-defined]


def test_recursion(fns: Any) -> None:
    assert [fns["fact"](n) for n in range(8)] == [math.factorial(n) for n in range(8)]
    assert fns["fact"](25) == (math.factorial(25) + 2**63) % 2**64 - 2**63


def test_nested_tuples_with_bools(fns: Any) -> None:
    assert fns["tuples"](5, True) == (5, (True, 0.5), True)
    got = fns["tuples"](5, False)
    assert got == (-5, (False, -0.0), False)
    assert math.copysign(1.0, got[1][1]) == -1.0


def test_none_result_and_assertion(fns: Any) -> None:
    assert fns["use_none"](3) == 3
    with pytest.raises(AssertionError, match=r"^x must be positive$") as info:
        fns["use_none"](0)
    assert info.value.line == 151  # type: ignore[attr-defined]


def test_blocks_out_of_dominance_order(fns: Any) -> None:
    assert fns["out_of_order"](1.5) == 3.0


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_every_opt_level(codegen: Any, opt_level: int) -> None:
    m = build_module(codegen)
    fns = codegen.build(m, ["sum_squares", "outer", "tuples"], CompilerOptions(opt_level=opt_level))
    assert fns["sum_squares"](10) == 285
    assert fns["tuples"](1, True) == (1, (True, 0.5), True)
    with pytest.raises(ValueError) as info:
        fns["outer"](-1.0)
    assert info.value.line == 103  # type: ignore[attr-defined]


def test_callee_names_are_internal_and_derived_from_ir(codegen: Any) -> None:
    from gradc.compiler.codegen.lower import lower_export

    text = str(lower_export(build_module(codegen), "outer", "gradc_outer_0", CompilerOptions()))
    assert 'define i32 @"gradc_outer_0"(' in text
    assert 'define internal i32 @"gradc.middle"(' in text
    assert 'define internal i32 @"gradc.inner"(' in text
    assert "private unnamed_addr constant" in text


def test_unknown_callee_and_tuple_parameter_are_compile_errors(codegen: Any) -> None:
    from gradc.compiler.codegen.lower import lower_export

    m = Module("bad")
    b = codegen.function(m, "f", [("x", F64)], F64)
    b.ret(b.call("missing", [b.function.params[0]], F64))
    with pytest.raises(CompileError, match="unknown function 'missing'"):
        lower_export(m, "f", "f", CompilerOptions())
    b = codegen.function(m, "g", [("t", TupleType((F64, F64)))], F64)
    b.ret(b.tuple_get(b.function.params[0], 0))
    with pytest.raises(CompileError, match="tuple parameter"):
        lower_export(m, "g", "g", CompilerOptions())
