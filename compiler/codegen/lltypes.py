"""LLVM types of IR types inside lowered functions and at the C ABI (docs/abi.md)."""

from __future__ import annotations

from llvmlite import ir as ll

from gradc.compiler.codegen import arrays, tape
from gradc.compiler.diagnostics import InternalCompilerError
from gradc.compiler.ir.types import (
    ArrayType,
    NoneType,
    PointerType,
    ScalarType,
    TapeType,
    TupleType,
    Type,
)

__all__ = ["abi_type", "param_type", "value_type"]

_I8 = ll.IntType(8)


def value_type(t: Type) -> ll.Type:
    """The LLVM type of an SSA value of IR type ``t`` inside a function.

    ``i1`` stays ``i1``; tuples are literal structs of their elements' value types;
    ``none`` is a dummy ``i8`` (only ever the constant 0); an array is its descriptor by
    value and a derived pointer a typed pointer to the element (:mod:`.arrays`).

    Raises:
        InternalCompilerError: an untyped value (``?``) reached the code generator.
    """
    return _lower_type(t, abi=False)


def abi_type(t: Type) -> ll.Type:
    """The LLVM type of ``t`` stored at the C ABI: in ``*out`` and inside tuples.

    As :func:`value_type`, but ``bool`` (``i1``) is a ``uint8_t`` (``i8``, 0 or 1), also
    inside tuples, and ``none`` is the one ignored byte ``out`` points to (docs/abi.md).
    Arrays are descriptors by value here; as parameters see :func:`param_type`.
    """
    return _lower_type(t, abi=True)


def param_type(t: Type) -> ll.Type:
    """The LLVM type of a parameter of IR type ``t``: :func:`abi_type`, except that an
    array is passed as a pointer to its descriptor (docs/abi.md "Arrays")."""
    if isinstance(t, ArrayType):
        return arrays.descriptor_type(t).as_pointer()
    return abi_type(t)


def _lower_type(t: Type, *, abi: bool) -> ll.Type:
    if isinstance(t, ScalarType):
        if t.is_float:
            return ll.DoubleType() if t.bits == 64 else ll.FloatType()
        if t.bits == 1 and abi:
            return _I8
        return ll.IntType(t.bits)
    if isinstance(t, TupleType):
        return ll.LiteralStructType([_lower_type(e, abi=abi) for e in t.elements])
    if isinstance(t, NoneType):
        return _I8
    if isinstance(t, ArrayType):
        return arrays.descriptor_type(t)
    if isinstance(t, PointerType):
        return arrays.pointer_type(t)
    if isinstance(t, TapeType):
        return tape.tape_type()
    raise InternalCompilerError(f"codegen: value of non-lowerable type {t} (untyped IR?)")
