"""Scalar operations: constants, conversions, tuples and arithmetic.

Arithmetic follows Python semantics on the typed subset gradc compiles; where Python
raises, the operation is marked ``MAY_RAISE`` and lowering emits the check. Operand types
are made equal by inference (it inserts :class:`Cast`), so ``add %a, %b : f64`` has two
``f64`` operands. Ints are 64-bit two's complement and wrap (docs/abi.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value

# ---------------------------------------------------------------------------------
# constants and data movement


@final
@dataclass(eq=False, slots=True)
class Const(Instruction):
    """A scalar constant (``int``, ``float`` or ``bool``; its type is the result type)."""

    OPNAME: ClassVar[str] = "const"
    ATTRS: ClassVar[tuple[str, ...]] = ("value",)
    value: int | float | bool


@final
@dataclass(eq=False, slots=True)
class Cast(Instruction):
    """Convert a scalar to the result type with Python's meaning.

    int→int sign-extends or truncates (bool zero-extends); int→float rounds to nearest;
    float→float extends or rounds; float→int truncates toward zero and raises
    ValueError on NaN and OverflowError on ±inf or out-of-range values (as ``int()``);
    any→bool is ``!= 0``.
    """

    OPNAME: ClassVar[str] = "cast"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    MAY_RAISE: ClassVar[bool] = True
    value: Value


@final
@dataclass(eq=False, slots=True)
class Select(Instruction):
    """``if_true if cond else if_false`` without control flow (both already computed)."""

    OPNAME: ClassVar[str] = "select"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond", "if_true", "if_false")
    cond: Value
    if_true: Value
    if_false: Value


@final
@dataclass(eq=False, slots=True)
class MakeTuple(Instruction):
    """Build a tuple value from its elements."""

    OPNAME: ClassVar[str] = "tuple"
    OPERANDS: ClassVar[tuple[str, ...]] = ("elements",)
    elements: tuple[Value, ...]


@final
@dataclass(eq=False, slots=True)
class TupleGet(Instruction):
    """Element ``index`` of a tuple value."""

    # no annotations on the class variables: the slot named ``tuple`` would shadow the
    # builtin when their annotations are evaluated (typing.get_type_hints)
    OPNAME = "extract"
    OPERANDS = ("tuple",)
    ATTRS = ("index",)
    tuple: Value
    index: int


@final
@dataclass(eq=False, slots=True)
class Poison(Instruction):
    """A value of the result type that no execution may observe (LLVM's ``poison``).

    It stands for "no value on this path", e.g. a phi's incoming value along an edge
    where the variable is dead.
    """

    OPNAME: ClassVar[str] = "poison"


# ---------------------------------------------------------------------------------
# arithmetic


@dataclass(eq=False, slots=True)
class BinaryOp(Instruction):
    """Abstract base of two-operand arithmetic; both operands have the result type.

    Not an operation itself (not in ``OPERATIONS``): consumers register its final
    subclasses.
    """

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs: Value
    rhs: Value


@final
@dataclass(eq=False, slots=True)
class Add(BinaryOp):
    """``lhs + rhs``."""

    OPNAME: ClassVar[str] = "add"


@final
@dataclass(eq=False, slots=True)
class Sub(BinaryOp):
    """``lhs - rhs``."""

    OPNAME: ClassVar[str] = "sub"


@final
@dataclass(eq=False, slots=True)
class Mul(BinaryOp):
    """``lhs * rhs``."""

    OPNAME: ClassVar[str] = "mul"


@final
@dataclass(eq=False, slots=True)
class Div(BinaryOp):
    """True division of floats; raises ZeroDivisionError("float division by zero"), or
    ZeroDivisionError("division by zero") where ``kind`` is ``"int"``: Python's
    ``int / int``, whose operands inference converted to floats (CPython's messages).

    ``kind`` is set by inference from the operand types before conversion, so
    ``float(n) / float(m)`` (explicit conversions) is a float division. Printed only when
    not ``"float"``: ``div %a, %b, int : f64``.
    """

    OPNAME: ClassVar[str] = "div"
    ATTRS: ClassVar[tuple[str, ...]] = ("kind",)
    MAY_RAISE: ClassVar[bool] = True
    kind: str = "float"

    def of_ints(self) -> bool:
        """The source was ``int / int``, whose ZeroDivisionError says ``"division by
        zero"``."""
        return self.kind == "int"


@final
@dataclass(eq=False, slots=True)
class FDiv(BinaryOp):
    """IEEE 754 float division: never raises (``x / 0.0`` is ±inf or NaN).

    Derivative code uses it where a Python ``ZeroDivisionError`` would be wrong (the
    derivative of ``sqrt`` at 0 is +inf, as in JAX).
    """

    OPNAME: ClassVar[str] = "fdiv"


@final
@dataclass(eq=False, slots=True)
class FloorDiv(BinaryOp):
    """Python ``//`` (rounds toward -inf; floats use CPython's fmod-based algorithm).

    Raises ZeroDivisionError ("integer division or modulo by zero" for ints,
    "float floor division by zero" for floats).
    """

    OPNAME: ClassVar[str] = "floordiv"
    MAY_RAISE: ClassVar[bool] = True


@final
@dataclass(eq=False, slots=True)
class Mod(BinaryOp):
    """Python ``%`` (the result has the sign of ``rhs``).

    Raises ZeroDivisionError ("integer modulo by zero" / "float modulo").
    """

    OPNAME: ClassVar[str] = "mod"
    MAY_RAISE: ClassVar[bool] = True


@final
@dataclass(eq=False, slots=True)
class Pow(BinaryOp):
    """Python ``**``.

    Ints: exact by repeated squaring (wrapping); a negative exponent raises ValueError
    (CPython would return a float; a static type cannot), except that ``0 ** -n`` raises
    ZeroDivisionError("0.0 cannot be raised to a negative power") as CPython does. Floats: C ``pow`` with CPython's
    checks — ``0.0 ** negative`` raises ZeroDivisionError, a negative base with a
    non-integer exponent raises ValueError (CPython returns a complex), overflow raises
    OverflowError.
    """

    OPNAME: ClassVar[str] = "pow"
    MAY_RAISE: ClassVar[bool] = True


@final
@dataclass(eq=False, slots=True)
class Min(BinaryOp):
    """Python ``min(lhs, rhs)``: ``rhs if rhs < lhs else lhs`` (NaN handling as CPython)."""

    OPNAME: ClassVar[str] = "min"


@final
@dataclass(eq=False, slots=True)
class Max(BinaryOp):
    """Python ``max(lhs, rhs)``: ``rhs if rhs > lhs else lhs``."""

    OPNAME: ClassVar[str] = "max"


@dataclass(eq=False, slots=True)
class UnaryOp(Instruction):
    """Abstract base of one-operand arithmetic; the operand has the result type.

    Not an operation itself (not in ``OPERATIONS``).
    """

    OPERANDS: ClassVar[tuple[str, ...]] = ("operand",)
    operand: Value


@final
@dataclass(eq=False, slots=True)
class Neg(UnaryOp):
    """``-operand``."""

    OPNAME: ClassVar[str] = "neg"


@final
@dataclass(eq=False, slots=True)
class Abs(UnaryOp):
    """``abs(operand)`` (ints wrap at the minimum value)."""

    OPNAME: ClassVar[str] = "abs"


@final
@dataclass(eq=False, slots=True)
class Not(UnaryOp):
    """Logical ``not`` of an ``i1``."""

    OPNAME: ClassVar[str] = "not"


#: Comparison predicates, Python's operators. Float comparisons are ordered: any
#: comparison with NaN is False except ``ne``, which is True (as in Python).
CMP_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@final
@dataclass(eq=False, slots=True)
class Cmp(Instruction):
    """Compare two operands of one scalar type; the result is ``i1``."""

    OPNAME: ClassVar[str] = "cmp"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("pred",)
    pred: str
    lhs: Value
    rhs: Value
