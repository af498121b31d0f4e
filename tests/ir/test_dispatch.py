"""The shared dispatch table of IR consumers (compiler/ir/dispatch.py)."""

from __future__ import annotations

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.dispatch import MissingRule, OpTable
from gradc.compiler.ir.types import F64


def _add() -> ops.Add:
    a = ops.Const(value=1.0, type=F64)
    return ops.Add(lhs=a, rhs=a, type=F64)


def test_lookup_is_by_exact_class_and_names_the_missing_op() -> None:
    table: OpTable[str] = OpTable("demo")
    table.register(ops.Add, ops.Sub)("arith")
    assert table.lookup(_add()) == "arith"
    assert table.get(ops.Const(value=1.0, type=F64)) is None
    with pytest.raises(MissingRule, match="demo: no rule for operation 'const'"):
        table.lookup(ops.Const(value=1.0, type=F64))
    assert table.missing([ops.Add, ops.Mul, ops.Const]) == ["const", "mul"]


def test_a_second_rule_for_one_class_is_refused() -> None:
    table: OpTable[str] = OpTable("demo")
    table.register(ops.Add)("first")
    with pytest.raises(ValueError, match="Add registered twice"):
        table.register(ops.Add)("second")
