"""Scalar operations: constants, conversions, tuples and arithmetic.

Arithmetic follows Python semantics on the typed subset gradc compiles; where Python
raises, the operation is marked ``MAY_RAISE`` and lowering emits the check. Operand types
are made equal by inference (it inserts :class:`Cast`), so ``add %a, %b : f64`` has two
``f64`` operands. Ints are 64-bit two's complement and wrap (docs/abi.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import is_scalar, show_types
from gradc.compiler.ir.types import I1, ArrayType, ScalarType, TupleType

# ---------------------------------------------------------------------------------
# constants and data movement


@final
@operation
class Const(Instruction):
    """A scalar constant (``int``, ``float`` or ``bool``; its type is the result type)."""

    OPNAME: ClassVar[str] = "const"
    ATTRS: ClassVar[tuple[str, ...]] = ("value",)
    value: int | float | bool

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The value is an int, float or bool."""
        if not isinstance(self.value, int | float):
            return f"const value {self.value!r} is not an int, float or bool"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The result is a scalar and the value a ``bool`` for ``i1``, an ``int`` (not
        bool) in the type's signed range for other ints, a ``float`` for floats."""
        t, value = self.type, self.value
        if not isinstance(t, ScalarType):
            return f"const of non-scalar type {t}"
        kind = type(value).__name__
        if t.is_bool:
            if not isinstance(value, bool):
                return f"const value {value!r} ({kind}) does not match type i1 (expected a bool)"
        elif t.is_int:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"const value {value!r} ({kind}) does not match type {t} (expected an int)"
            lo, hi = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
            if not lo <= value <= hi:
                return f"const value {value} out of range for {t}"
        elif not isinstance(value, float):
            return f"const value {value!r} ({kind}) does not match type {t} (expected a float)"
        return None


@final
@operation
class Cast(Instruction):
    """Convert a scalar to the result type with Python's meaning.

    int→int sign-extends or truncates (bool zero-extends); int→float rounds to nearest;
    float→float extends or rounds; float→int truncates toward zero and raises
    ValueError on NaN and OverflowError on ±inf or out-of-range values (as ``int()``);
    any→bool is ``!= 0``. ``numpy``: written ``np.float64(x)`` (any NumPy scalar type), so
    the result is a NumPy scalar (NEP 50's strong operand, compiler/infer/weak.py), not
    a Python one as of ``float(x)``; the same conversion otherwise.
    """

    OPNAME: ClassVar[str] = "cast"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy",)
    MAY_RAISE: ClassVar[bool] = True
    value: Value
    numpy: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Operand and result are scalars, or arrays of one dtype and rank where the
        result relabels a C/F layout as A (no code)."""
        src, dst = self.value.type, self.type
        if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
            if (src.dtype, src.ndim) != (dst.dtype, dst.ndim) or dst.layout not in (
                "A",
                src.layout,
            ):
                return f"cast from {src} to {dst}: an array cast may only relabel C/F as A"
            return None
        if not is_scalar(src) or not is_scalar(dst):
            return f"cast from {src} to {dst}: both must be scalars (or arrays relabelled)"
        return None


@final
@operation
class Select(Instruction):
    """``if_true if cond else if_false`` without control flow (both already computed)."""

    OPNAME: ClassVar[str] = "select"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond", "if_true", "if_false")
    cond: Value
    if_true: Value
    if_false: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The condition is ``i1``; both arms and the result have one type."""
        if self.cond.type != I1:
            return f"select condition {ctx.show(self.cond)} has type {self.cond.type}, expected i1"
        if self.if_true.type != self.type or self.if_false.type != self.type:
            return (
                f"select arms ({show_types(ctx, [self.if_true, self.if_false])}) differ from the "
                f"result type {self.type}"
            )
        return None


@final
@operation
class MakeTuple(Instruction):
    """Build a tuple value from its elements."""

    OPNAME: ClassVar[str] = "tuple"
    OPERANDS: ClassVar[tuple[str, ...]] = ("elements",)
    elements: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The result is ``tuple[...]`` of the element types."""
        expected = TupleType(tuple(e.type for e in self.elements))
        if self.type != expected:
            return f"tuple result type {self.type} differs from the element types {expected}"
        return None


@final
@operation
class TupleGet(Instruction):
    """Element ``index`` of a tuple value."""

    # no annotations on the class variables: the slot named ``tuple`` would shadow the
    # builtin when their annotations are evaluated (typing.get_type_hints)
    OPNAME = "extract"
    OPERANDS = ("tuple",)
    ATTRS = ("index",)
    tuple: Value
    index: int

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The index is an int >= 0."""
        if not isinstance(self.index, int) or isinstance(self.index, bool) or self.index < 0:
            return f"extract index {self.index!r} is not an int >= 0"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A tuple operand, the index in range, the result the element type."""
        t = self.tuple.type
        if not isinstance(t, TupleType):
            return f"extract from {ctx.show(self.tuple)} of non-tuple type {t}"
        if self.index >= len(t.elements):
            return f"extract index {self.index} out of range for {t}"
        if self.type != t.elements[self.index]:
            return f"extract result type {self.type} differs from element type {t.elements[self.index]}"
        return None


@final
@operation
class Poison(Instruction):
    """A value of the result type that no execution may observe (LLVM's ``poison``).

    It stands for "no value on this path", e.g. a phi's incoming value along an edge
    where the variable is dead.
    """

    OPNAME: ClassVar[str] = "poison"

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Any result type."""
        return None


# ---------------------------------------------------------------------------------
# arithmetic


class DivKind(StrEnum):
    """What a :class:`Div` divides in the source: floats, or ints (``int / int``, whose
    operands inference converted to floats; only the error message differs)."""

    FLOAT = "float"
    INT = "int"


@operation
class BinaryOp(Instruction):
    """Abstract base of two-operand arithmetic; both operands have the result type.

    Not an operation itself (not in ``OPERATIONS``): consumers register its final
    subclasses.
    """

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    #: Defined on ``i1`` too (``min``/``max``); the others need an int or a float.
    ON_BOOL: ClassVar[bool] = False
    #: Defined on floats only (true division).
    FLOATS_ONLY: ClassVar[bool] = False
    #: Defined on ints (and ``i1`` where ``ON_BOOL``) only (the bitwise operators).
    INTS_ONLY: ClassVar[bool] = False
    lhs: Value
    rhs: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Both operands have the result type, a scalar; not ``i1`` unless ``ON_BOOL``;
        a float unless not ``FLOATS_ONLY``; not a float if ``INTS_ONLY``."""
        t = self.type
        if not isinstance(t, ScalarType):
            return f"result type {t} is not a scalar"
        if self.lhs.type != t or self.rhs.type != t:
            return (
                f"operand types ({show_types(ctx, [self.lhs, self.rhs])}) differ from the "
                f"result type {t}"
            )
        if t.is_bool and not self.ON_BOOL:
            return f"{self.OPNAME} on i1 (cast to an int first)"
        if self.FLOATS_ONLY and not t.is_float:
            return f"{self.OPNAME} on {t}: true division is defined on floats only"
        if self.INTS_ONLY and t.is_float:
            return f"{self.OPNAME} on {t}: bitwise operators are defined on ints only"
        return None


@final
@operation
class Add(BinaryOp):
    """``lhs + rhs``."""

    OPNAME: ClassVar[str] = "add"
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy",)
    #: Written as a NumPy ufunc of scalars (``np.add(a, b)``): on bools NumPy's result
    #: is not Python's (``np.add(True, True)`` is ``True``, ``True + True`` is 2); inference refuses it there (compiler/infer/rules.py).
    numpy: bool = False


@final
@operation
class Sub(BinaryOp):
    """``lhs - rhs``."""

    OPNAME: ClassVar[str] = "sub"
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy",)
    #: Written as a NumPy ufunc of scalars (``np.subtract(a, b)``): on bools NumPy's result
    #: is not Python's (NumPy raises TypeError); inference refuses it there (compiler/infer/rules.py).
    numpy: bool = False


@final
@operation
class Mul(BinaryOp):
    """``lhs * rhs``."""

    OPNAME: ClassVar[str] = "mul"
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy", "positive")
    #: Written as a NumPy ufunc of scalars (``np.multiply(a, b)``): on bools NumPy's result
    #: is not Python's (a bool, Python's an int); inference refuses it there (compiler/infer/rules.py).
    numpy: bool = False
    #: Written ``+lhs`` (``rhs`` the int 1): ``+True`` is Python's int 1, but NumPy has no
    #: ``positive`` loop for its bools (a TypeError); inference refuses bools that may be
    #: NumPy's (compiler/infer/rules.py).
    positive: bool = False


@final
@operation
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
    FLOATS_ONLY: ClassVar[bool] = True
    kind: DivKind = DivKind.FLOAT

    def of_ints(self) -> bool:
        """The source was ``int / int``, whose ZeroDivisionError says ``"division by
        zero"``."""
        return self.kind == DivKind.INT


@final
@operation
class FDiv(BinaryOp):
    """IEEE 754 float division: never raises (``x / 0.0`` is ±inf or NaN).

    Derivative code uses it where a Python ``ZeroDivisionError`` would be wrong (the
    derivative of ``sqrt`` at 0 is +inf, as in JAX).
    """

    OPNAME: ClassVar[str] = "fdiv"
    FLOATS_ONLY: ClassVar[bool] = True


@final
@operation
class FloorDiv(BinaryOp):
    """Python ``//`` (rounds toward -inf; floats use CPython's fmod-based algorithm).

    Raises ZeroDivisionError ("integer division or modulo by zero" for ints,
    "float floor division by zero" for floats).
    """

    OPNAME: ClassVar[str] = "floordiv"
    MAY_RAISE: ClassVar[bool] = True


@final
@operation
class Mod(BinaryOp):
    """Python ``%`` (the result has the sign of ``rhs``).

    Raises ZeroDivisionError ("integer modulo by zero" / "float modulo").
    """

    OPNAME: ClassVar[str] = "mod"
    MAY_RAISE: ClassVar[bool] = True


@final
@operation
class Pow(BinaryOp):
    """Python ``**``.

    Ints: exact by repeated squaring (wrapping); a negative exponent raises ValueError
    (CPython would return a float; a static type cannot), except that ``0 ** -n`` raises
    ZeroDivisionError("0.0 cannot be raised to a negative power") as CPython does. Floats: C ``pow`` with CPython's
    checks — ``0.0 ** negative`` raises ZeroDivisionError, a negative base with a
    non-integer exponent raises ValueError (CPython returns a complex), overflow raises
    OverflowError. ``numpy``: see the field.
    """

    OPNAME: ClassVar[str] = "pow"
    MAY_RAISE: ClassVar[bool] = True
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy",)
    #: Ints only: an operand is a NumPy integer (NEP 50's strong operand,
    #: compiler/infer/weak.py), so any negative exponent raises NumPy's ValueError
    #: ("Integers to negative integer powers are not allowed."), ``0 ** -n`` included.
    numpy: bool = False


@final
@operation
class Min(BinaryOp):
    """Python ``min(lhs, rhs)``: ``rhs if rhs < lhs else lhs`` (NaN handling as CPython)."""

    OPNAME: ClassVar[str] = "min"
    ON_BOOL: ClassVar[bool] = True


@final
@operation
class Max(BinaryOp):
    """Python ``max(lhs, rhs)``: ``rhs if rhs > lhs else lhs``."""

    OPNAME: ClassVar[str] = "max"
    ON_BOOL: ClassVar[bool] = True


# Python's bitwise operators on ints (two's complement: ``&``, ``|``, ``^`` on i64 are
# exact) and, for ``&``, ``|``, ``^``, on bools (a bool result). Inference widens a bool
# mixed with an int to i64, as Python's ``True & 3`` is the int 1.


@final
@operation
class BitAnd(BinaryOp):
    """``lhs & rhs`` on ints or bools."""

    OPNAME: ClassVar[str] = "bitand"
    ON_BOOL: ClassVar[bool] = True
    INTS_ONLY: ClassVar[bool] = True


@final
@operation
class BitOr(BinaryOp):
    """``lhs | rhs`` on ints or bools."""

    OPNAME: ClassVar[str] = "bitor"
    ON_BOOL: ClassVar[bool] = True
    INTS_ONLY: ClassVar[bool] = True


@final
@operation
class BitXor(BinaryOp):
    """``lhs ^ rhs`` on ints or bools."""

    OPNAME: ClassVar[str] = "bitxor"
    ON_BOOL: ClassVar[bool] = True
    INTS_ONLY: ClassVar[bool] = True


@final
@operation
class LShift(BinaryOp):
    """``lhs << rhs`` on ints, wrapping (docs/abi.md): ``x << n`` is 0 for ``n >= 64``.

    Raises ValueError("negative shift count") for ``rhs < 0`` (CPython's message).
    """

    OPNAME: ClassVar[str] = "lshift"
    MAY_RAISE: ClassVar[bool] = True
    INTS_ONLY: ClassVar[bool] = True


@final
@operation
class RShift(BinaryOp):
    """``lhs >> rhs`` on ints: arithmetic (rounds toward -inf, as Python's), so exact:
    ``x >> n`` for ``n >= 64`` is 0 or -1 as in CPython.

    Raises ValueError("negative shift count") for ``rhs < 0`` (CPython's message).
    """

    OPNAME: ClassVar[str] = "rshift"
    MAY_RAISE: ClassVar[bool] = True
    INTS_ONLY: ClassVar[bool] = True


@operation
class UnaryOp(Instruction):
    """Abstract base of one-operand arithmetic; the operand has the result type.

    Not an operation itself (not in ``OPERATIONS``).
    """

    OPERANDS: ClassVar[tuple[str, ...]] = ("operand",)
    operand: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The operand has the result type, a non-``i1`` scalar."""
        t = self.type
        if not isinstance(t, ScalarType) or t.is_bool:
            return f"result type {t} is not a non-i1 scalar"
        if self.operand.type != t:
            return (
                f"operand type ({show_types(ctx, [self.operand])}) differs from the result type {t}"
            )
        return None


@final
@operation
class Neg(UnaryOp):
    """``-operand``."""

    OPNAME: ClassVar[str] = "neg"
    FLAGS: ClassVar[tuple[str, ...]] = ("numpy",)
    #: Written as a NumPy ufunc of scalars (``np.negative(a)``): on bools NumPy's result
    #: is not Python's (NumPy raises TypeError); inference refuses it there (compiler/infer/rules.py).
    numpy: bool = False


@final
@operation
class Abs(UnaryOp):
    """``abs(operand)`` (ints wrap at the minimum value)."""

    OPNAME: ClassVar[str] = "abs"


@final
@operation
class Invert(UnaryOp):
    """``~operand`` on an int: ``-operand - 1`` (exact in two's complement). Python's
    ``~True`` is the int -2: inference converts a bool operand to i64 first."""

    OPNAME: ClassVar[str] = "invert"

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The operand has the result type, a non-``i1`` int."""
        if isinstance(self.type, ScalarType) and self.type.is_float:
            return f"invert on {self.type}: bitwise operators are defined on ints only"
        return UnaryOp.verify_(self, ctx)


@final
@operation
class Not(UnaryOp):
    """Logical ``not`` of an ``i1``."""

    OPNAME: ClassVar[str] = "not"

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Operand and result ``i1``."""
        if self.type != I1 or self.operand.type != I1:
            return (
                f"not needs an i1 operand and result, got {show_types(ctx, [self.operand])} "
                f"-> {self.type}"
            )
        return None


class CmpPred(StrEnum):
    """Comparison predicates, Python's operators. Float comparisons are ordered: any
    comparison with NaN is False except ``ne``, which is True (as in Python)."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


#: The predicates in their canonical order.
CMP_PREDICATES: tuple[CmpPred, ...] = tuple(CmpPred)


@final
@operation
class Cmp(Instruction):
    """Compare two operands of one scalar type; the result is ``i1``."""

    OPNAME: ClassVar[str] = "cmp"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("pred",)
    pred: CmpPred
    lhs: Value
    rhs: Value

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The predicate is a :class:`CmpPred`."""
        if self.pred not in CMP_PREDICATES:
            return (
                f"unknown cmp predicate {self.pred!r} (expected one of {', '.join(CMP_PREDICATES)})"
            )
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Operands of one scalar type, result ``i1``."""
        if self.type != I1:
            return f"cmp result type is {self.type}, expected i1"
        if not is_scalar(self.lhs.type) or self.lhs.type != self.rhs.type:
            return f"cmp operands ({show_types(ctx, [self.lhs, self.rhs])}) are not one scalar type"
        return None
