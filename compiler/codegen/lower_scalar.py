"""Lowering of constants, casts, selects, tuples and comparisons (Python's semantics;
see :mod:`.lower`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.codegen.lltypes import value_type
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import F64, I1, ArrayType, NoneType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)

# CPython's float comparisons: ordered except ``!=`` (True when either side is NaN).
_FCMP = {
    "eq": ("ordered", "=="),
    "ne": ("unordered", "!="),
    "lt": ("ordered", "<"),
    "le": ("ordered", "<="),
    "gt": ("ordered", ">"),
    "ge": ("ordered", ">="),
}
_ICMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


@LOWERING.register(ops.Const)
def _const(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Const)
    t = inst.type
    if isinstance(t, NoneType):
        return ll.Constant(_I8, 0)
    if not isinstance(t, ScalarType):
        raise fl.ice(f"constant of non-scalar type {t}")
    ty = value_type(t)
    if t.is_float:
        return ll.Constant(ty, float(inst.value))
    v = int(inst.value)
    if t.bits == 1:
        return ll.Constant(ty, 1 if v else 0)
    half = 1 << (t.bits - 1)
    return ll.Constant(ty, (v + half) % (1 << t.bits) - half)  # two's complement wrap


def _truth(fl: FunctionLowering, v: Value) -> ll.Value:
    """``bool(v)`` as i1: ``!= 0`` (floats: unordered, so NaN is true as in Python)."""
    t = fl.scalar(v)
    x = fl.value(v)
    if t == I1:
        return x
    if t.is_float:
        return fl.b.fcmp_unordered("!=", x, fl.fconst(x.type, 0.0))
    return fl.b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))


@LOWERING.register(ops.Cast)
def _cast(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    """Python's conversions; float → int raises like ``int(x)`` (Objects/floatobject.c).

    A cast between array types only relabels the layout (C/F seen as A): no code.
    """
    assert isinstance(inst, ops.Cast)
    b = fl.b
    if isinstance(inst.value.type, ArrayType) and isinstance(inst.type, ArrayType):
        src_a, dst_a = inst.value.type, inst.type
        if (src_a.dtype, src_a.ndim) != (dst_a.dtype, dst_a.ndim):
            raise fl.ice(f"array cast from {src_a} to {dst_a}")
        return fl.value(inst.value)
    src = fl.scalar(inst.value)
    dst = inst.type
    if not isinstance(dst, ScalarType):
        raise fl.ice(f"cast to non-scalar type {dst}")
    x = fl.value(inst.value)
    ty = value_type(dst)
    if src == dst:
        return x
    if dst == I1:
        return _truth(fl, inst.value)
    if src.is_int and dst.is_int:
        if src.bits < dst.bits:
            return b.zext(x, ty) if src == I1 else b.sext(x, ty)
        return b.trunc(x, ty)
    if src.is_int and dst.is_float:
        return b.uitofp(x, ty) if src == I1 else b.sitofp(x, ty)
    if src.is_float and dst.is_float:
        return b.fpext(x, ty) if src.bits < dst.bits else b.fptrunc(x, ty)
    # float -> int: checks in f64 (exact for f32 sources), then truncate toward zero.
    if src != F64:
        x = b.fpext(x, ll.DoubleType())
    fl.raise_if(fl.is_nan(x), "ValueError", "cannot convert float NaN to integer")
    fl.raise_if(fl.is_inf(x), "OverflowError", "cannot convert float infinity to integer")
    lo, hi = -(1 << (dst.bits - 1)), 1 << (dst.bits - 1)
    dbl = ll.DoubleType()
    if dst.bits >= 54:  # lo - 1 is not a double; no double lies strictly in (lo-1, lo)
        above = b.fcmp_ordered(">=", x, ll.Constant(dbl, float(lo)))
    else:
        above = b.fcmp_ordered(">", x, ll.Constant(dbl, float(lo - 1)))
    below = b.fcmp_ordered("<", x, ll.Constant(dbl, float(hi)))
    in_range = b.and_(above, below)
    fl.raise_if(b.xor(in_range, ll.Constant(_I1, 1)), "OverflowError", "int too large to convert")
    return b.fptosi(x, ty)


@LOWERING.register(ops.Select)
def _select(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Select)
    return fl.b.select(fl.value(inst.cond), fl.value(inst.if_true), fl.value(inst.if_false))


@LOWERING.register(ops.MakeTuple)
def _make_tuple(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.MakeTuple)
    agg: ll.Value = ll.Constant(value_type(inst.type), ll.Undefined)
    for i, e in enumerate(inst.elements):
        agg = fl.b.insert_value(agg, fl.value(e), i)
    return agg


@LOWERING.register(ops.TupleGet)
def _tuple_get(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.TupleGet)
    return fl.b.extract_value(fl.value(inst.tuple), inst.index)


@LOWERING.register(ops.Poison)
def _poison(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    # no execution observes it: undef is a valid refinement
    return ll.Constant(value_type(inst.type), ll.Undefined)


@LOWERING.register(ops.Not)
def _not(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Not)
    return fl.b.xor(_truth(fl, inst.operand), ll.Constant(_I1, 1))


@LOWERING.register(ops.Cmp)
def _cmp(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Cmp)
    b = fl.b
    t = fl.scalar(inst.lhs)
    x, y = fl.value(inst.lhs), fl.value(inst.rhs)
    if inst.pred not in _ICMP:
        raise fl.ice(f"unknown comparison {inst.pred!r}")
    if t.is_float:
        kind, op = _FCMP[inst.pred]
        if kind == "ordered":
            return b.fcmp_ordered(op, x, y)
        return b.fcmp_unordered(op, x, y)
    if t == I1:
        return b.icmp_unsigned(_ICMP[inst.pred], x, y)
    return b.icmp_signed(_ICMP[inst.pred], x, y)
