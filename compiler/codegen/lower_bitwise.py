"""Lowering of Python's bitwise operators on wrapping ints and bools: ``&``, ``|``,
``^`` (LLVM ``and``/``or``/``xor``, on ``i1`` too), ``~`` (``xor`` with -1), ``<<`` and
``>>`` (``shl``/``ashr`` with CPython's ValueError for a negative count and the count
clamped to the width: LLVM's shifts by ``>= bits`` are poison)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_NEGATIVE_SHIFT = "negative shift count"  # CPython's ValueError (Objects/longobject.c)


def _int_operands(fl: FunctionLowering, inst: ops.BinaryOp) -> tuple[ll.Value, ll.Value]:
    if fl.scalar(inst.lhs).is_float:
        raise fl.ice(f"{inst.OPNAME} of {inst.lhs.type} (inference rejects floats)")
    return fl.value(inst.lhs), fl.value(inst.rhs)


@LOWERING.register(ops.BitAnd)
def _bitand(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.BitAnd)
    return fl.b.and_(*_int_operands(fl, inst))


@LOWERING.register(ops.BitOr)
def _bitor(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.BitOr)
    return fl.b.or_(*_int_operands(fl, inst))


@LOWERING.register(ops.BitXor)
def _bitxor(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.BitXor)
    return fl.b.xor(*_int_operands(fl, inst))


def _checked_count(fl: FunctionLowering, inst: ops.BinaryOp) -> tuple[ll.Value, ll.Value, ll.Value]:
    """``(x, n, past)`` of ``x << n`` / ``x >> n`` after raising ValueError for ``n < 0``;
    ``past`` (i1) is ``n >= bits``, where every bit is shifted out."""
    x, n = _int_operands(fl, inst)
    zero = ll.Constant(n.type, 0)
    fl.raise_if(fl.b.icmp_signed("<", n, zero), "ValueError", _NEGATIVE_SHIFT)
    width = ll.Constant(n.type, n.type.width)
    return x, n, fl.b.icmp_unsigned(">=", n, width)


@LOWERING.register(ops.LShift)
def _lshift(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """Wrapping: ``x << n`` is 0 for ``n >= bits`` (docs/abi.md)."""
    assert isinstance(inst, ops.LShift)
    x, n, past = _checked_count(fl, inst)
    zero = ll.Constant(x.type, 0)
    shifted = fl.b.shl(x, fl.b.select(past, zero, n))
    return fl.b.select(past, zero, shifted)


@LOWERING.register(ops.RShift)
def _rshift(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """Arithmetic, exact: ``x >> n`` for ``n >= bits`` is ``x >> (bits - 1)``, 0 or -1."""
    assert isinstance(inst, ops.RShift)
    x, n, past = _checked_count(fl, inst)
    top = ll.Constant(n.type, n.type.width - 1)
    return fl.b.ashr(x, fl.b.select(past, top, n))


@LOWERING.register(ops.Invert)
def _invert(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """``~x`` is ``x ^ -1`` (``-x - 1`` in two's complement)."""
    assert isinstance(inst, ops.Invert)
    t = fl.scalar(inst.operand)
    if t.is_float or t.is_bool:
        raise fl.ice(f"invert of {t} (inference makes it an int)")
    x = fl.value(inst.operand)
    return fl.b.xor(x, ll.Constant(x.type, -1))
