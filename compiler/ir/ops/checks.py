"""Helpers the operations' verification rules share (``verify_`` beside each operation).

Each helper returns None when the check passes, else the verifier's reason, the message
:class:`gradc.compiler.ir.verifier.VerificationError` carries after the location.
"""

from __future__ import annotations

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.types import TAPE, ArrayType, ScalarType, Type


def show_types(ctx: VerifyContext, values: list[Value]) -> str:
    """``%a: f64, %b: i64``: the values with their types, for messages."""
    return ", ".join(f"{ctx.show(x)}: {x.type}" for x in values)


def is_scalar(t: Type) -> bool:
    """True for scalar types (``f64``, ``i1``, ...)."""
    return isinstance(t, ScalarType)


def array_operand(ctx: VerifyContext, inst: Instruction, value: Value) -> ArrayType | str:
    """The array type of operand ``value`` of ``inst``, or the reason it is not an array."""
    if not isinstance(value.type, ArrayType):
        return f"{inst.OPNAME} operand {ctx.show(value)} has type {value.type}, expected an array"
    return value.type


def tape_operand(ctx: VerifyContext, inst: Instruction, value: Value) -> str | None:
    """None when operand ``value`` of ``inst`` is a ``tape``, else the reason."""
    if value.type != TAPE:
        return f"{inst.OPNAME} operand {ctx.show(value)} has type {value.type}, expected tape"
    return None


def front_end_only(inst: Instruction) -> str:
    """The reason a front-end operation may not occur in typed IR."""
    return f"{inst.OPNAME} is a front-end operation; inference must replace it"


def holds_array_operand(ctx: VerifyContext, inst: Instruction, value: Value) -> str | None:
    """None when operand ``value`` of ``inst`` holds an array (an array, or a tuple with
    one at any depth), else the reason."""
    if not value.type.contains(ArrayType):
        return (
            f"{inst.OPNAME} operand {ctx.show(value)} has type {value.type}, which holds no array"
        )
    return None
