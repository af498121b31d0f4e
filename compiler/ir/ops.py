"""The IR's operations: one small final dataclass each.

Arithmetic follows Python semantics on the typed subset gradc compiles; where Python
raises, the operation is marked ``MAY_RAISE`` and lowering emits the check. Operand types
are made equal by inference (it inserts :class:`Cast`), so ``add %a, %b : f64`` has two
``f64`` operands. Ints are 64-bit two's complement and wrap (docs/abi.md).

Printed form (see :mod:`gradc.compiler.ir.printer`)::

    %2 = add %0, %1 : f64
    %3 = cmp lt %2, %c : i1
    condbr %3, ^then, ^else
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

# The one leaf of gradc outside the IR that the IR imports (standard library only;
# pyproject.toml contract ``ir-standalone``): the exception codes are an ABI fact.
from gradc.artifacts.abi.codes import EXCEPTION_CODES
from gradc.compiler.ir.core import Block, Instruction, Value

# ---------------------------------------------------------------------------------
# constants and data movement


@dataclass(eq=False)
class Const(Instruction):
    """A scalar constant (``int``, ``float`` or ``bool``; its type is the result type)."""

    OPNAME: ClassVar[str] = "const"
    ATTRS: ClassVar[tuple[str, ...]] = ("value",)
    value: int | float | bool


@dataclass(eq=False)
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


@dataclass(eq=False)
class Select(Instruction):
    """``if_true if cond else if_false`` without control flow (both already computed)."""

    OPNAME: ClassVar[str] = "select"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond", "if_true", "if_false")
    cond: Value
    if_true: Value
    if_false: Value


@dataclass(eq=False)
class Phi(Instruction):
    """SSA phi: the value from the predecessor control came from.

    ``incoming`` holds one ``(predecessor block, value)`` pair per CFG edge.
    """

    OPNAME: ClassVar[str] = "phi"
    incoming: list[tuple[Block, Value]] = field(default_factory=list)

    def operands(self) -> list[Value]:
        return [v for _, v in self.incoming]

    def replace_operand(self, old: Value, new: Value) -> None:
        self.incoming = [(b, new if v is old else v) for b, v in self.incoming]

    def replace_block(self, old: Block, new: Block) -> None:
        """Rename the incoming edge from ``old`` to come from ``new``."""
        self.incoming = [(new if b is old else b, v) for b, v in self.incoming]

    def value_for(self, pred: Block) -> Value:
        """The incoming value on the edge from ``pred``.

        Raises:
            KeyError: ``pred`` is not an incoming block.
        """
        for b, v in self.incoming:
            if b is pred:
                return v
        raise KeyError(pred.label)


@dataclass(eq=False)
class MakeTuple(Instruction):
    """Build a tuple value from its elements."""

    OPNAME: ClassVar[str] = "tuple"
    OPERANDS: ClassVar[tuple[str, ...]] = ("elements",)
    elements: tuple[Value, ...]


@dataclass(eq=False)
class TupleGet(Instruction):
    """Element ``index`` of a tuple value."""

    OPNAME: ClassVar[str] = "extract"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tuple",)
    ATTRS: ClassVar[tuple[str, ...]] = ("index",)
    tuple: Value
    index: int


# ---------------------------------------------------------------------------------
# arithmetic


@dataclass(eq=False)
class BinaryOp(Instruction):
    """Base of two-operand arithmetic; both operands have the result type."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    lhs: Value
    rhs: Value


@dataclass(eq=False)
class Add(BinaryOp):
    """``lhs + rhs``."""

    OPNAME: ClassVar[str] = "add"


@dataclass(eq=False)
class Sub(BinaryOp):
    """``lhs - rhs``."""

    OPNAME: ClassVar[str] = "sub"


@dataclass(eq=False)
class Mul(BinaryOp):
    """``lhs * rhs``."""

    OPNAME: ClassVar[str] = "mul"


@dataclass(eq=False)
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


@dataclass(eq=False)
class FDiv(BinaryOp):
    """IEEE 754 float division: never raises (``x / 0.0`` is ±inf or NaN).

    Derivative code uses it where a Python ``ZeroDivisionError`` would be wrong (the
    derivative of ``sqrt`` at 0 is +inf, as in JAX).
    """

    OPNAME: ClassVar[str] = "fdiv"


@dataclass(eq=False)
class FloorDiv(BinaryOp):
    """Python ``//`` (rounds toward -inf; floats use CPython's fmod-based algorithm).

    Raises ZeroDivisionError ("integer division or modulo by zero" for ints,
    "float floor division by zero" for floats).
    """

    OPNAME: ClassVar[str] = "floordiv"
    MAY_RAISE: ClassVar[bool] = True


@dataclass(eq=False)
class Mod(BinaryOp):
    """Python ``%`` (the result has the sign of ``rhs``).

    Raises ZeroDivisionError ("integer modulo by zero" / "float modulo").
    """

    OPNAME: ClassVar[str] = "mod"
    MAY_RAISE: ClassVar[bool] = True


@dataclass(eq=False)
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


@dataclass(eq=False)
class Min(BinaryOp):
    """Python ``min(lhs, rhs)``: ``rhs if rhs < lhs else lhs`` (NaN handling as CPython)."""

    OPNAME: ClassVar[str] = "min"


@dataclass(eq=False)
class Max(BinaryOp):
    """Python ``max(lhs, rhs)``: ``rhs if rhs > lhs else lhs``."""

    OPNAME: ClassVar[str] = "max"


@dataclass(eq=False)
class UnaryOp(Instruction):
    """Base of one-operand arithmetic; the operand has the result type."""

    OPERANDS: ClassVar[tuple[str, ...]] = ("operand",)
    operand: Value


@dataclass(eq=False)
class Neg(UnaryOp):
    """``-operand``."""

    OPNAME: ClassVar[str] = "neg"


@dataclass(eq=False)
class Abs(UnaryOp):
    """``abs(operand)`` (ints wrap at the minimum value)."""

    OPNAME: ClassVar[str] = "abs"


@dataclass(eq=False)
class Not(UnaryOp):
    """Logical ``not`` of an ``i1``."""

    OPNAME: ClassVar[str] = "not"


#: Comparison predicates, Python's operators. Float comparisons are ordered: any
#: comparison with NaN is False except ``ne``, which is True (as in Python).
CMP_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@dataclass(eq=False)
class Cmp(Instruction):
    """Compare two operands of one scalar type; the result is ``i1``."""

    OPNAME: ClassVar[str] = "cmp"
    OPERANDS: ClassVar[tuple[str, ...]] = ("lhs", "rhs")
    ATTRS: ClassVar[tuple[str, ...]] = ("pred",)
    pred: str
    lhs: Value
    rhs: Value


@dataclass(frozen=True)
class MathFn:
    """A ``math`` module function as the IR knows it.

    Attributes:
        name: the Python name (``"sin"``), also the IR attribute.
        arity: number of float arguments.
        check: how lowering reports errors, after CPython's ``mathmodule.c``:
            ``"none"`` (never raises); ``"domain"`` (NaN from non-NaN input → ValueError
            "math domain error"; ±inf from finite input → ValueError too); ``"overflow"``
            (as domain, but ±inf from finite input → OverflowError "math range error");
            ``"pow"`` (``math.pow``'s own rules).
        returns_bool: the result is ``i1`` (``isnan``), else ``f64``.
        internal: not a Python ``math`` function; made by passes only (``ieee_pow``,
            ``ieee_log`` and the other :data:`IEEE_MATH` twins, ``digamma``).
    """

    name: str
    arity: int
    check: str
    returns_bool: bool = False
    internal: bool = False


#: The one-argument functions with a non-checking ``ieee_<name>`` twin (C's result, no
#: Python exception), for derivative code.
IEEE_MATH = ("sin", "cos", "sinh", "cosh", "exp", "log", "sqrt")

MATH_FUNCTIONS: dict[str, MathFn] = {
    f.name: f
    for f in (
        MathFn("sin", 1, "domain"),
        MathFn("cos", 1, "domain"),
        MathFn("tan", 1, "domain"),
        MathFn("asin", 1, "domain"),
        MathFn("acos", 1, "domain"),
        MathFn("atan", 1, "domain"),
        MathFn("sinh", 1, "overflow"),
        MathFn("cosh", 1, "overflow"),
        MathFn("tanh", 1, "domain"),
        MathFn("exp", 1, "overflow"),
        MathFn("expm1", 1, "overflow"),
        MathFn("log", 1, "domain"),
        MathFn("log1p", 1, "domain"),
        MathFn("log2", 1, "domain"),
        MathFn("log10", 1, "domain"),
        MathFn("sqrt", 1, "domain"),
        MathFn("fabs", 1, "none"),
        MathFn("floor", 1, "none"),
        MathFn("ceil", 1, "none"),
        MathFn("trunc", 1, "none"),
        MathFn("erf", 1, "domain"),
        MathFn("erfc", 1, "domain"),
        MathFn("gamma", 1, "overflow"),
        MathFn("lgamma", 1, "overflow"),
        MathFn("atan2", 2, "none"),
        MathFn("hypot", 2, "none"),
        MathFn("copysign", 2, "none"),
        MathFn("pow", 2, "pow"),
        MathFn("isnan", 1, "none", returns_bool=True),
        MathFn("isinf", 1, "none", returns_bool=True),
        MathFn("isfinite", 1, "none", returns_bool=True),
        # C pow without Python's checks, for derivative code (IEEE inf/NaN results)
        MathFn("ieee_pow", 2, "none", internal=True),
        # the same for the functions derivative rules evaluate (``ieee_log(0.0)`` is
        # -inf, ``ieee_sqrt(-1.0)`` NaN): a derivative never raises where its primal
        # did not (passes/ad/rules.py)
        *(MathFn(f"ieee_{name}", 1, "none", internal=True) for name in IEEE_MATH),
        # the digamma function psi = lgamma', for the rules of gamma/lgamma (special.py)
        MathFn("digamma", 1, "none", internal=True),
    )
}


@dataclass(eq=False)
class MathCall(Instruction):
    """A call of a ``math`` function (:data:`MATH_FUNCTIONS`) on ``f64`` arguments.

    ``math.floor/ceil/trunc`` compute the ``f64`` value here; the front end converts it to
    ``int`` with a :class:`Cast` as Python does.
    """

    OPNAME: ClassVar[str] = "math"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    MAY_RAISE: ClassVar[bool] = True
    fn: str
    args: tuple[Value, ...]


# ---------------------------------------------------------------------------------
# calls


@dataclass(eq=False)
class Call(Instruction):
    """A call of another function of the module, by symbol name."""

    OPNAME: ClassVar[str] = "call"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("callee",)
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    callee: str
    args: tuple[Value, ...]


# ---------------------------------------------------------------------------------
# terminators


@dataclass(eq=False)
class Jump(Instruction):
    """Unconditional branch."""

    OPNAME: ClassVar[str] = "br"
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("target",)
    IS_TERMINATOR: ClassVar[bool] = True
    target: Block


@dataclass(eq=False)
class Branch(Instruction):
    """Two-way branch on an ``i1``."""

    OPNAME: ClassVar[str] = "condbr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond",)
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("if_true", "if_false")
    IS_TERMINATOR: ClassVar[bool] = True
    cond: Value
    if_true: Block
    if_false: Block


@dataclass(eq=False)
class Return(Instruction):
    """Return ``value`` (None for a function returning ``none``)."""

    OPNAME: ClassVar[str] = "ret"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    IS_TERMINATOR: ClassVar[bool] = True
    value: Value | None = None


#: Exception kinds of :class:`Raise`, with their error-record codes: the ABI's one table
#: (docs/abi.md "Error record", ``gradc.artifacts.abi.codes``).
EXCEPTION_KINDS: dict[str, int] = EXCEPTION_CODES


@dataclass(eq=False)
class Raise(Instruction):
    """Raise ``exception(message)``: leave the function with an error status."""

    OPNAME: ClassVar[str] = "raise"
    ATTRS: ClassVar[tuple[str, ...]] = ("exception", "message")
    IS_TERMINATOR: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    exception: str
    message: str


# ---------------------------------------------------------------------------------
# arrays (docs/abi.md: descriptors, byte strides, reference-counted owned blocks)


@dataclass(eq=False)
class ArrayDim(Instruction):
    """``array.shape[axis]`` as ``i64`` (``axis`` is 0-based and in range)."""

    OPNAME: ClassVar[str] = "dim"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("axis",)
    array: Value
    axis: int


@dataclass(eq=False)
class ElementAddr(Instruction):
    """The derived pointer to ``array[indices]`` (one ``i64`` index per axis).

    Python indexing: a negative index counts from the end once. With bounds checks on
    (``CompilerOptions.boundscheck``), an index still outside ``[0, shape[k])`` raises
    IndexError with NumPy's message ("index 5 is out of bounds for axis 0 with size 3").
    The result is a derived pointer whose base is ``array`` (DESIGN.md §2).
    """

    OPNAME: ClassVar[str] = "elemaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    MAY_RAISE: ClassVar[bool] = True
    array: Value
    indices: tuple[Value, ...]


@dataclass(eq=False)
class Load(Instruction):
    """Read the scalar a derived pointer points to."""

    OPNAME: ClassVar[str] = "load"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer",)
    pointer: Value


@dataclass(eq=False)
class Store(Instruction):
    """Write ``value`` (of the pointee type) where a derived pointer points."""

    OPNAME: ClassVar[str] = "store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "value")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    pointer: Value
    value: Value


@dataclass(eq=False)
class NewArray(Instruction):
    """A new C-contiguous array owned by compiled code (reference count 1).

    ``shape`` holds one ``i64`` per axis; the result type gives dtype and rank. ``fill``
    is the initial value of every element (of the dtype), or None for uninitialised
    memory (``np.empty``). Raises ValueError("negative dimensions are not allowed") and
    MemoryError when the allocation fails.
    """

    OPNAME: ClassVar[str] = "newarray"
    OPERANDS: ClassVar[tuple[str, ...]] = ("shape", "fill")
    MAY_RAISE: ClassVar[bool] = True
    shape: tuple[Value, ...]
    fill: Value | None = None


@dataclass(eq=False)
class StackArray(NewArray):
    """A :class:`NewArray` of constant shape that does not outlive its function's frame.

    Made by the ``stack-promote`` pass (passes/gc/stack_promote.py) from a ``newarray``
    whose array provably does not escape; lowered to stack memory with no reference count
    (its descriptor's ``meminfo`` is NULL, like a borrowed argument's), so ``lifetimes``
    treats it as borrowed and it is never freed. Every dimension is a non-negative
    ``const``: it never raises.
    """

    OPNAME: ClassVar[str] = "stackarray"
    MAY_RAISE: ClassVar[bool] = False


@dataclass(eq=False)
class CopyArray(Instruction):
    """A new C-contiguous owned copy of ``array`` (``a.copy()``); MemoryError on failure."""

    OPNAME: ClassVar[str] = "copyarray"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value


@dataclass(eq=False)
class AccumulateArray(Instruction):
    """``target += source`` elementwise (same shape; any strides). Derivative code uses
    it to add one shadow array into another (the adjoint of ``a.copy()``)."""

    OPNAME: ClassVar[str] = "arrayacc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("target", "source")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    target: Value
    source: Value


@dataclass(eq=False)
class IncRef(Instruction):
    """Add an owner to the array's block (no-op for borrowed arrays); see ``lifetimes``."""

    OPNAME: ClassVar[str] = "incref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value


@dataclass(eq=False)
class DecRef(Instruction):
    """Drop an owner of the array's block, freeing it at zero (no-op for borrowed)."""

    OPNAME: ClassVar[str] = "decref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value


@dataclass(eq=False)
class ElementOffset(Instruction):
    """The byte offset of ``array[indices]`` from the array's data (no bounds check).

    A negative index counts from the end once, as in :class:`ElementAddr` (the code
    generator wraps it branch-free), but is not checked: ``elemaddr %a, (%i)`` is
    ``addr %a, (elemoffset %a, (%i))`` once the index has been checked; ``phi-decay``
    uses this form to carry (base, offset) pairs.
    """

    OPNAME: ClassVar[str] = "elemoffset"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    array: Value
    indices: tuple[Value, ...]


@dataclass(eq=False)
class Addr(Instruction):
    """The derived pointer ``array.data + offset`` (bytes); its base is ``array``."""

    OPNAME: ClassVar[str] = "addr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "offset")
    array: Value
    offset: Value


@dataclass(eq=False)
class PointerAdd(Instruction):
    """``pointer + offset`` bytes: a derived pointer with the same base."""

    OPNAME: ClassVar[str] = "ptradd"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "offset")
    pointer: Value
    offset: Value


@dataclass(eq=False)
class ArrayAddress(Instruction):
    """The address of ``array[0, ..., 0]`` (the descriptor's ``data``) as an ``i64``.

    Only for comparing where two arrays lie (the overlap checks of derivative exports,
    :mod:`gradc.passes.ad.aliasing`); no pointer is ever made from it (DESIGN.md §2).
    """

    OPNAME: ClassVar[str] = "dataaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    array: Value


@dataclass(eq=False)
class Poison(Instruction):
    """A value of the result type that no execution may observe (LLVM's ``poison``).

    It stands for "no value on this path", e.g. a phi's incoming value along an edge
    where the variable is dead.
    """

    OPNAME: ClassVar[str] = "poison"


# ---------------------------------------------------------------------------------
# the reverse-mode tape (a per-call LIFO stack of values; docs/ad.md)


@dataclass(eq=False)
class TapeNew(Instruction):
    """A new, empty tape (type ``tape``); MemoryError when it cannot be allocated."""

    OPNAME: ClassVar[str] = "tapenew"
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True


@dataclass(eq=False)
class TapePush(Instruction):
    """Push ``value`` (a scalar, tuple or array) onto ``tape``; MemoryError when full.

    Pushing an array keeps a reference to it until it is popped (``lifetimes``).
    """

    OPNAME: ClassVar[str] = "tapepush"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tape", "value")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    tape: Value
    value: Value


@dataclass(eq=False)
class TapePop(Instruction):
    """Pop the most recently pushed value (of the result type) off ``tape``."""

    OPNAME: ClassVar[str] = "tapepop"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tape",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    tape: Value


@dataclass(eq=False)
class TapeFree(Instruction):
    """Release ``tape``'s memory (it must be empty: every push was popped)."""

    OPNAME: ClassVar[str] = "tapefree"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tape",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    tape: Value


# ---------------------------------------------------------------------------------
# front-end operations: polymorphic over tuples and arrays, so the untyped front end can
# emit them; inference replaces each by typed operations (never in typed IR).


@dataclass(eq=False)
class GetItem(Instruction):
    """``value[indices]``: a tuple element (constant index) or an array element."""

    OPNAME: ClassVar[str] = "getitem"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "indices")
    MAY_RAISE: ClassVar[bool] = True
    value: Value
    indices: tuple[Value, ...]


@dataclass(eq=False)
class SetItem(Instruction):
    """``value[indices] = item`` on an array."""

    OPNAME: ClassVar[str] = "setitem"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "indices", "item")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    value: Value
    indices: tuple[Value, ...]
    item: Value


@dataclass(eq=False)
class Len(Instruction):
    """``len(value)``: the first axis of an array, or a tuple's length."""

    OPNAME: ClassVar[str] = "len"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    value: Value


@dataclass(eq=False)
class ArrayAttr(Instruction):
    """``value.shape``, ``value.size`` or ``value.ndim`` of an array (``attr``)."""

    OPNAME: ClassVar[str] = "arrayattr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    ATTRS: ClassVar[tuple[str, ...]] = ("attr",)
    attr: str
    value: Value


@dataclass(eq=False)
class Allocate(Instruction):
    """``np.zeros/ones/empty/full(shape[, fill], dtype=...)`` and the ``*_like`` forms.

    ``kind`` is ``zeros``, ``ones``, ``empty`` or ``full``; ``shape`` is an int or a tuple
    of ints (None with ``like``); ``like`` is the array a ``*_like`` call copies shape
    (and, without ``dtype``, dtype) from; ``dtype`` is the element type's IR name or
    ``""`` for NumPy's default (``f64``, or the fill value's type for ``np.full``);
    ``fill`` is the value of ``full`` (None otherwise).
    """

    OPNAME: ClassVar[str] = "allocate"
    OPERANDS: ClassVar[tuple[str, ...]] = ("shape", "like", "fill")
    ATTRS: ClassVar[tuple[str, ...]] = ("kind", "dtype")
    MAY_RAISE: ClassVar[bool] = True
    kind: str
    dtype: str
    shape: Value | None
    like: Value | None
    fill: Value | None


#: Every concrete operation class by its printed name (used by the parser).
OPERATIONS: dict[str, type[Instruction]] = {
    cls.OPNAME: cls
    for cls in (
        Const,
        Cast,
        Select,
        Phi,
        MakeTuple,
        TupleGet,
        Add,
        Sub,
        Mul,
        Div,
        FDiv,
        FloorDiv,
        Mod,
        Pow,
        Min,
        Max,
        Neg,
        Abs,
        Not,
        Cmp,
        MathCall,
        Call,
        Jump,
        Branch,
        Return,
        Raise,
        ArrayDim,
        ElementAddr,
        Load,
        Store,
        NewArray,
        StackArray,
        CopyArray,
        AccumulateArray,
        IncRef,
        DecRef,
        ElementOffset,
        Addr,
        PointerAdd,
        ArrayAddress,
        Poison,
        TapeNew,
        TapePush,
        TapePop,
        TapeFree,
        GetItem,
        SetItem,
        Len,
        ArrayAttr,
        Allocate,
    )
}

#: Operations only the untyped front end emits; inference replaces every one of them.
FRONT_END_OPERATIONS = (GetItem, SetItem, Len, ArrayAttr, Allocate)
