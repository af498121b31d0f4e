"""``Type.contains``: the one walk for "this type is or holds a <kind>"."""

from __future__ import annotations

from gradc.compiler.ir.types import (
    F64,
    I64,
    UNKNOWN,
    ArrayType,
    PointerType,
    TupleType,
    UnknownType,
)

FLOATS = ArrayType(F64, 1, "C")
INTS = ArrayType(I64, 2, "A")


def test_contains_sees_the_type_itself_and_tuples_at_any_depth() -> None:
    assert FLOATS.contains(ArrayType)
    assert TupleType((F64, TupleType((I64, INTS)))).contains(ArrayType)
    assert not TupleType((F64, TupleType((I64,)))).contains(ArrayType)
    assert not F64.contains(ArrayType)
    assert TupleType((PointerType(F64),)).contains(PointerType)
    assert TupleType((F64, UNKNOWN)).contains(UnknownType)
    assert TupleType(()).contains(TupleType)


def test_contains_with_a_condition() -> None:
    def is_float(a: ArrayType) -> bool:
        return a.dtype.is_float

    assert TupleType((INTS, FLOATS)).contains(ArrayType, is_float)
    assert not TupleType((INTS, F64)).contains(ArrayType, is_float)
