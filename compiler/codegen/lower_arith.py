"""Lowering of arithmetic with Python's semantics: wrapping ints, ``//`` and ``%``
rounding toward -inf, CPython's float ``//``, ``%`` and ``**`` (see :mod:`.lower`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.types import I1, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_ZERO_NEGATIVE_POW = "0.0 cannot be raised to a negative power"  # also for ints: 0 ** -1
_NUMPY_NEGATIVE_INT_POW = "Integers to negative integer powers are not allowed."
_NEGATIVE_INT_POW = (
    "negative exponent in integer power: the result would be a float, which gradc's "
    "static types do not allow"
)


def _operands(fl: FunctionLowering, inst: ops.BinaryOp) -> tuple[ScalarType, ll.Value, ll.Value]:
    """The operands' scalar type and LLVM values."""
    return fl.scalar(inst.lhs), fl.value(inst.lhs), fl.value(inst.rhs)


# wrapping int arithmetic: no nsw/nuw (docs/abi.md)


@LOWERING.register(ops.Add)
def _add(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Add)
    t, x, y = _operands(fl, inst)
    return fl.b.fadd(x, y, flags=fl.fast) if t.is_float else fl.b.add(x, y)


@LOWERING.register(ops.Sub)
def _sub(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Sub)
    t, x, y = _operands(fl, inst)
    return fl.b.fsub(x, y, flags=fl.fast) if t.is_float else fl.b.sub(x, y)


@LOWERING.register(ops.Mul)
def _mul(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Mul)
    t, x, y = _operands(fl, inst)
    return fl.b.fmul(x, y, flags=fl.fast) if t.is_float else fl.b.mul(x, y)


@LOWERING.register(ops.Div)
def _div(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Div)
    t = fl.scalar(inst.lhs)
    if not t.is_float:
        raise fl.ice(f"true division of {t} (inference converts ints to f64)")
    x, y = fl.value(inst.lhs), fl.value(inst.rhs)
    is_zero = fl.b.fcmp_ordered("==", y, fl.fconst(y.type, 0.0))
    message = "division by zero" if inst.of_ints() else "float division by zero"
    fl.raise_if(is_zero, "ZeroDivisionError", message)
    return fl.b.fdiv(x, y, flags=fl.fast)


@LOWERING.register(ops.FDiv)
def _fdiv(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """IEEE division (derivative code): no ZeroDivisionError."""
    assert isinstance(inst, ops.FDiv)
    if not fl.scalar(inst.lhs).is_float:
        raise fl.ice(f"fdiv of {inst.lhs.type}")
    return fl.b.fdiv(fl.value(inst.lhs), fl.value(inst.rhs), flags=fl.fast)


def _floordiv_mod(fl: FunctionLowering, inst: ops.BinaryOp, is_mod: bool) -> ll.Value:
    t = fl.scalar(inst.lhs)
    x, y = fl.value(inst.lhs), fl.value(inst.rhs)
    if t.is_float:
        return _float_floordiv_mod(fl, x, y, is_mod)
    if t == I1:
        raise fl.ice("floor division of bools (inference converts them to int)")
    return _int_floordiv_mod(fl, x, y, is_mod)


@LOWERING.register(ops.FloorDiv)
def _floordiv(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.FloorDiv)
    return _floordiv_mod(fl, inst, is_mod=False)


@LOWERING.register(ops.Mod)
def _mod(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Mod)
    return _floordiv_mod(fl, inst, is_mod=True)


def _int_floordiv_mod(fl: FunctionLowering, x: ll.Value, y: ll.Value, is_mod: bool) -> ll.Value:
    """Python's ``//`` / ``%`` on wrapping ints (round toward -inf, sign of divisor).

    ``MIN // -1`` wraps to ``MIN`` and ``MIN % -1`` is 0; the divisor -1 is replaced
    by 1 before ``sdiv``/``srem`` (which are undefined there and trap on x86).
    """
    b = fl.b
    ty = x.type
    zero, one, minus1 = ll.Constant(ty, 0), ll.Constant(ty, 1), ll.Constant(ty, -1)
    message = "integer modulo by zero" if is_mod else "integer division or modulo by zero"
    fl.raise_if(b.icmp_signed("==", y, zero), "ZeroDivisionError", message)
    y_is_m1 = b.icmp_signed("==", y, minus1)
    safe_y = b.select(y_is_m1, one, y)
    r = b.srem(x, safe_y)
    # the C remainder has the sign of x; Python's has the sign of y
    fix = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero), name="fix")
    if is_mod:
        return b.add(r, b.select(fix, y, zero))
    q = b.sdiv(x, safe_y)
    q = b.select(y_is_m1, b.sub(zero, x), q)
    return b.sub(q, b.zext(fix, ty))


def _float_floordiv_mod(fl: FunctionLowering, x: ll.Value, y: ll.Value, is_mod: bool) -> ll.Value:
    """CPython's ``float_rem`` / ``_float_div_mod`` (Objects/floatobject.c), branch-free.

    ::

        mod = fmod(vx, wx); div = (vx - mod) / wx
        if mod: if (wx < 0) != (mod < 0): mod += wx; div -= 1.0
        else: mod = copysign(0.0, wx)
        if div: floordiv = floor(div); if div - floordiv > 0.5: floordiv += 1.0
        else: floordiv = copysign(0.0, vx / wx)

    No fast-math flags here: the sign and NaN cases are the point.
    """
    b = fl.b
    ty = x.type
    zero, one, half = fl.fconst(ty, 0.0), fl.fconst(ty, 1.0), fl.fconst(ty, 0.5)
    message = "float modulo" if is_mod else "float floor division by zero"
    fl.raise_if(b.fcmp_ordered("==", y, zero), "ZeroDivisionError", message)
    mod = b.frem(x, y, name="fmod")
    mod_nonzero = b.fcmp_unordered("!=", mod, zero)
    signs_differ = b.xor(b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero))
    adjust = b.and_(mod_nonzero, signs_differ)
    if is_mod:
        adjusted = b.select(adjust, b.fadd(mod, y), mod)
        return b.select(mod_nonzero, adjusted, fl.call_intrinsic("copysign", zero, y))
    div = b.fdiv(b.fsub(x, mod), y, name="div")
    div = b.select(adjust, b.fsub(div, one), div)
    floor = fl.call_intrinsic("floor", div)
    snapped = b.select(b.fcmp_ordered(">", b.fsub(div, floor), half), b.fadd(floor, one), floor)
    signed_zero = fl.call_intrinsic("copysign", zero, b.fdiv(x, y))
    return b.select(b.fcmp_unordered("!=", div, zero), snapped, signed_zero)


@LOWERING.register(ops.Pow)
def _pow(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Pow)
    b = fl.b
    t = fl.scalar(inst.lhs)
    x, y = fl.value(inst.lhs), fl.value(inst.rhs)
    if t == I1:
        raise fl.ice("power of bools (inference converts them to int)")
    if not t.is_float:
        negative = b.icmp_signed("<", y, ll.Constant(y.type, 0))
        if inst.numpy:  # NumPy's integer power: one ValueError, 0 ** -n too
            fl.raise_if(negative, "ValueError", _NUMPY_NEGATIVE_INT_POW)
            return b.call(fl.ml.ipow(x.type), [x, y])
        # CPython computes ``0 ** -n`` as a float power and raises; other negative
        # exponents give a float, which gradc's static int type cannot hold
        zero_base = b.and_(negative, b.icmp_signed("==", x, ll.Constant(x.type, 0)))
        fl.raise_if(zero_base, "ZeroDivisionError", _ZERO_NEGATIVE_POW)
        fl.raise_if(negative, "ValueError", _NEGATIVE_INT_POW)
        return b.call(fl.ml.ipow(x.type), [x, y])
    return _float_pow(fl, x, y)


def _float_pow(fl: FunctionLowering, x: ll.Value, y: ll.Value) -> ll.Value:
    """Python's ``x ** y`` on floats: CPython ``float_pow`` (Objects/floatobject.c).

    C99 Annex F ``pow`` already returns CPython's values for every non-raising
    special case (``x**0 == 1``, ``1**nan == 1``, ``(-1)**±inf == 1``, infinities);
    the checks are CPython's three exceptions, tested on the operands:

    - ``0.0 ** y`` with finite ``y < 0``: ZeroDivisionError;
    - finite ``x < 0`` with finite non-integer ``y``: ValueError (CPython returns a
      complex number, which gradc's static types cannot);
    - an infinite result from finite operands: OverflowError (``errno == ERANGE``
      raised by ``PyErr_SetFromErrno``, whose message is ``(34, '...')``).
    """
    b = fl.b
    ty = x.type
    zero = fl.fconst(ty, 0.0)
    y_finite = fl.is_finite(y)
    x_finite = fl.is_finite(x)
    zero_neg = b.and_(b.fcmp_ordered("==", x, zero), b.and_(b.fcmp_ordered("<", y, zero), y_finite))
    fl.raise_if(zero_neg, "ZeroDivisionError", _ZERO_NEGATIVE_POW)
    y_fraction = b.fcmp_ordered("!=", y, fl.call_intrinsic("floor", y))
    negative_fraction = fl.all_of([b.fcmp_ordered("<", x, zero), x_finite, y_finite, y_fraction])
    fl.raise_if(
        negative_fraction,
        "ValueError",
        "negative number cannot be raised to a fractional power",
    )
    r = fl.libm_pow(x, y)
    overflow = fl.all_of([fl.is_inf(r), x_finite, y_finite])
    fl.raise_if(overflow, "OverflowError", "(34, 'Numerical result out of range')")
    return r


def _min_max(fl: FunctionLowering, inst: ops.BinaryOp, op: str) -> ll.Value:
    """``min``: ``rhs if rhs < lhs else lhs``; ``max``: ``rhs if rhs > lhs else lhs``.

    Exactly Python's builtins on two arguments (Python/bltinmodule.c ``min_max``
    keeps the first item unless a later one compares strictly better), so NaN and
    signed zeros come out as in CPython; LLVM's ``minnum`` would not.
    """
    b = fl.b
    t = fl.scalar(inst.lhs)
    x, y = fl.value(inst.lhs), fl.value(inst.rhs)
    if t.is_float:
        better = b.fcmp_ordered(op, y, x)
    elif t == I1:
        better = b.icmp_unsigned(op, y, x)
    else:
        better = b.icmp_signed(op, y, x)
    return b.select(better, y, x)


@LOWERING.register(ops.Min)
def _min(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Min)
    return _min_max(fl, inst, "<")


@LOWERING.register(ops.Max)
def _max(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Max)
    return _min_max(fl, inst, ">")


@LOWERING.register(ops.Neg)
def _neg(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Neg)
    x = fl.value(inst.operand)
    if fl.scalar(inst.operand).is_float:
        return fl.b.fneg(x, flags=fl.fast)
    return fl.b.sub(ll.Constant(x.type, 0), x)


@LOWERING.register(ops.Abs)
def _abs(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Abs)
    b = fl.b
    x = fl.value(inst.operand)
    if fl.scalar(inst.operand).is_float:
        return fl.call_intrinsic("fabs", x)
    negative = b.icmp_signed("<", x, ll.Constant(x.type, 0))
    return b.select(negative, b.sub(ll.Constant(x.type, 0), x), x)
