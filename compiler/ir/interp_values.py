"""Values of the reference interpreter (:mod:`gradc.compiler.ir.interp`) and its rule table.

Python values stand for IR values (the interpreter's docstring): numbers normalised to
their IR type (:func:`normalize`: ints wrapped, ``f32`` rounded), arguments checked and
converted (:func:`from_python`), derived pointers (:class:`Pointer`) and the poison
marker (:data:`POISON`). :data:`RULES` maps each value-producing operation to its rule,
``(machine, instruction, operand values) -> result``; the rules live in
:mod:`.interp_scalar` and :mod:`.interp_memory`, the machine (control flow, calls) in
:mod:`.interp`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.types import NONE, ArrayType, ScalarType, TupleType, Type

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine

#: Exception messages of operations whose wording the IR (not CPython) decides; the same
#: strings as compiled code (gradc.compiler.codegen).
MESSAGES: dict[str, str] = {
    "int_floordiv_zero": "integer division or modulo by zero",
    "int_mod_zero": "integer modulo by zero",
    "int_div_zero": "division by zero",
    "float_div_zero": "float division by zero",
    "float_floordiv_zero": "float floor division by zero",
    "float_mod_zero": "float modulo",
    "int_pow_negative": (
        "negative exponent in integer power: the result would be a float, which gradc's "
        "static types do not allow"
    ),
    "numpy_int_pow_negative": "Integers to negative integer powers are not allowed.",
    "float_pow_zero_negative": "0.0 cannot be raised to a negative power",
    "float_pow_fractional": "negative number cannot be raised to a fractional power",
    "float_pow_overflow": "(34, 'Numerical result out of range')",  # str() of CPython's
    "negative_shift": "negative shift count",
    "cast_nan": "cannot convert float NaN to integer",
    "cast_inf": "cannot convert float infinity to integer",
    "cast_range": "int too large to convert",
    "index_range": "index {0} is out of bounds for axis {1} with size {2}",
    "negative_dims": "negative dimensions are not allowed",
}

#: NumPy dtype names of the IR's scalar types.
NUMPY_DTYPES: dict[str, str] = {
    "f64": "float64",
    "f32": "float32",
    "i64": "int64",
    "i32": "int32",
    "i8": "int8",
    "i1": "bool",
}


class InterpreterError(Exception):
    """The IR cannot be run (it is malformed: the verifier would reject it)."""


class StepLimitExceeded(RuntimeError):
    """More instructions were executed than the step limit allows (a runaway loop)."""


#: A rule: ``(machine, instruction, operand values) -> result`` (None for no result).
Rule = Callable[["Machine", Instruction, list[object]], object]

#: The rules of the operations that compute a value from their operands' values (the
#: machine itself runs control flow, calls and selects: ``interp.FRAME_RULES``).
RULES: OpTable[Rule] = OpTable("interpreter")


# ---------------------------------------------------------------------------------
# scalar helpers


def wrap_int(x: int, bits: int) -> int:
    """``x`` reduced to a ``bits``-wide two's complement integer."""
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def round_f32(x: float) -> float:
    """``x`` rounded to the nearest binary32 value (ties to even; overflow gives ±inf)."""
    try:
        result: float = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    return result


def int_to_f32(x: int) -> float:
    """``x`` rounded directly to binary32 (no double rounding through binary64)."""
    a = abs(x)
    shift = a.bit_length() - 24
    if shift > 0:
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    return round_f32(float(-a if x < 0 else a))


def normalize(x: object, t: Type) -> object:
    """A computed Python number as a value of scalar type ``t`` (wrap or round)."""
    if isinstance(t, ScalarType):
        if t.is_float:
            assert isinstance(x, float)
            return round_f32(x) if t.bits == 32 else x
        assert isinstance(x, int)
        if t.is_bool:
            return bool(x & 1)
        return wrap_int(x, t.bits)
    return x


def from_python(value: object, t: Type, index: int) -> object:
    """Argument ``index`` of a call from Python as the interpreter's value of type ``t``.

    Raises:
        TypeError: a value of the wrong kind (or shape, dtype, contiguity for arrays).
        OverflowError: an int out of range for ``t``.
        InterpreterError: ``t`` is not a type arguments may have.
    """
    where = f"argument {index}"
    if isinstance(t, ScalarType):
        if t.is_float:
            if not isinstance(value, int | float):
                raise TypeError(f"{where}: expected a float for {t}, got {value!r}")
            if isinstance(value, int) and t.bits == 32:
                return int_to_f32(value)
            return normalize(float(value), t)
        if not isinstance(value, int):
            raise TypeError(f"{where}: expected an int for {t}, got {value!r}")
        if t.is_bool:
            if value not in (0, 1):
                raise OverflowError(f"{where}: {value} is not a bool")
            return bool(value)
        if wrap_int(value, t.bits) != value:
            raise OverflowError(f"{where}: {value} out of range for {t}")
        return int(value)
    if isinstance(t, TupleType):
        if not isinstance(value, tuple | list) or len(value) != len(t.elements):
            raise TypeError(f"{where}: expected a {len(t.elements)}-tuple for {t}, got {value!r}")
        return tuple(from_python(v, e, index) for v, e in zip(value, t.elements))
    if isinstance(t, ArrayType):
        import numpy as np  # lazily: only array programs need NumPy

        if not isinstance(value, np.ndarray):
            raise TypeError(f"{where}: expected a NumPy array for {t}, got {type(value).__name__}")
        if value.dtype != np.dtype(NUMPY_DTYPES[t.dtype.name]) or value.ndim != t.ndim:
            raise TypeError(f"{where}: expected {t}, got a {value.ndim}-d {value.dtype} array")
        if t.layout == "C" and not value.flags.c_contiguous:
            raise TypeError(f"{where}: expected a C-contiguous array for {t}")
        if t.layout == "F" and not value.flags.f_contiguous:
            raise TypeError(f"{where}: expected a Fortran-contiguous array for {t}")
        return value
    if t == NONE:
        if value is not None:
            raise TypeError(f"{where}: expected None, got {value!r}")
        return None
    raise InterpreterError(f"{where}: the interpreter does not support type {t}")


def scalar_type(inst: Instruction) -> ScalarType:
    """The scalar result type of ``inst``.

    Raises:
        InterpreterError: the result type is not a scalar.
    """
    t = inst.type
    if not isinstance(t, ScalarType):
        raise InterpreterError(f"{inst.OPNAME}: result type {t} is not a scalar")
    return t


@dataclass(frozen=True)
class Pointer:
    """A derived pointer: ``offset`` bytes from the data of NumPy array ``array``."""

    array: Any
    offset: int


class PoisonType:
    """The value of ``poison``: may be carried by phis and selects, never observed."""

    def __repr__(self) -> str:
        return "poison"


#: The value of ``poison``.
POISON = PoisonType()
