"""Control flow: phis, calls, branches, returns and raises."""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import ClassVar, final

# The one leaf of gradc outside the IR that the IR imports (standard library only;
# pyproject.toml contract ``ir-standalone``): the exception codes are an ABI fact.
from gradc.artifacts.abi.codes import EXCEPTION_CODES
from gradc.compiler.ir.core import Block, Instruction, Symbol, Text, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.types import F64, I1, NONE, ScalarType


@final
@operation
class Phi(Instruction):
    """SSA phi: the value from the predecessor control came from.

    ``incoming`` holds one ``(predecessor block, value)`` pair per CFG edge.
    """

    OPNAME: ClassVar[str] = "phi"
    EDGES: ClassVar[tuple[str, ...]] = ("incoming",)
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

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Incoming values have the phi's type."""
        for blk, val in self.incoming:
            if val.type != self.type:
                return (
                    f"phi value {ctx.show(val)} from {ctx.show_block(blk)} has type {val.type}, "
                    f"expected {self.type}"
                )
        return None


# ---------------------------------------------------------------------------------
# calls


@final
@operation
class Call(Instruction):
    """A call of another function of the module, by symbol name."""

    OPNAME: ClassVar[str] = "call"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("callee",)
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    callee: Symbol
    args: tuple[Value, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The callee is in the module (when verifying one), called with its arity."""
        if ctx.module is None:
            return None
        callee = ctx.module.functions.get(self.callee)
        if callee is None:
            return f"call of @{self.callee}, which is not in module {ctx.module.name!r}"
        if len(self.args) != len(callee.params):
            return f"@{callee.name} takes {len(callee.params)} argument(s), got {len(self.args)}"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Argument types equal the callee's parameter types, the result type its return
        type (checked when verifying a module)."""
        if ctx.module is None:
            return None
        callee = ctx.module.functions[self.callee]
        for i, (arg, p) in enumerate(zip(self.args, callee.params, strict=False)):
            if arg.type != p.type:
                return (
                    f"argument {i} ({ctx.show(arg)}: {arg.type}) of @{callee.name} must be {p.type}"
                )
        if self.type != callee.return_type:
            return (
                f"call result type {self.type} differs from @{callee.name}'s return type "
                f"{callee.return_type}"
            )
        return None


# ---------------------------------------------------------------------------------
# terminators


@final
@operation
class Jump(Instruction):
    """Unconditional branch."""

    OPNAME: ClassVar[str] = "br"
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("target",)
    IS_TERMINATOR: ClassVar[bool] = True
    target: Block

    def verify_(self, ctx: VerifyContext) -> str | None:
        """No types to check."""
        return None


@final
@operation
class Branch(Instruction):
    """Two-way branch on an ``i1``."""

    OPNAME: ClassVar[str] = "condbr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond",)
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("if_true", "if_false")
    IS_TERMINATOR: ClassVar[bool] = True
    cond: Value
    if_true: Block
    if_false: Block

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The condition is ``i1``."""
        if self.cond.type != I1:
            return f"branch condition {ctx.show(self.cond)} has type {self.cond.type}, expected i1"
        return None


@final
@operation
class Return(Instruction):
    """Return ``value`` (None for a function returning ``none``)."""

    OPNAME: ClassVar[str] = "ret"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    IS_TERMINATOR: ClassVar[bool] = True
    value: Value | None = None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The value's type is the function's return type; no value exactly when that is
        ``none``."""
        rt = ctx.function.return_type
        if self.value is None:
            if rt != NONE:
                return f"ret without a value in a function returning {rt}"
            return None
        if rt == NONE:
            return "ret with a value in a function returning none"
        if self.value.type != rt:
            return f"ret value {ctx.show(self.value)} has type {self.value.type}, expected {rt}"
        return None


class ExceptionKind(StrEnum):
    """The Python exceptions compiled code raises (:class:`Raise`), by class name."""

    VALUE_ERROR = "ValueError"
    ZERO_DIVISION_ERROR = "ZeroDivisionError"
    ASSERTION_ERROR = "AssertionError"
    OVERFLOW_ERROR = "OverflowError"
    INDEX_ERROR = "IndexError"
    TYPE_ERROR = "TypeError"
    MEMORY_ERROR = "MemoryError"
    RUNTIME_ERROR = "RuntimeError"


#: Exception kinds of :class:`Raise`, with their error-record codes: the ABI's one table
#: (docs/abi.md "Error record", ``gradc.artifacts.abi.codes``), keyed by name.
EXCEPTION_KINDS: dict[str, int] = EXCEPTION_CODES


@final
@operation
class Raise(Instruction):
    """Raise ``exception(message)``: leave the function with an error status."""

    OPNAME: ClassVar[str] = "raise"
    ATTRS: ClassVar[tuple[str, ...]] = ("exception", "message")
    IS_TERMINATOR: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    exception: ExceptionKind
    message: Text

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The kind is an :class:`ExceptionKind`; the message a string."""
        if self.exception not in EXCEPTION_KINDS:
            return f"unknown exception kind {self.exception!r}"
        if not isinstance(self.message, str):
            return "raise message is not a string"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """No types to check."""
        return None


#: The most run-time fields a :class:`RaiseFormat` message may have: the error record's
#: ``data[0..2]`` (docs/abi.md "Message templates").
FORMAT_FIELDS = 3


@final
@operation
class RaiseFormat(Instruction):
    """Raise ``exception(template.format(*values))``: an f-string message (``raise
    ValueError(f"bad {n}")``) with up to :data:`FORMAT_FIELDS` integer, bool or f64 fields
    (``{0}``, ``{1:>4}`` ...; literal braces doubled), formatted as CPython formats them.

    Compiled code passes int and f64 fields in the error record's ``data`` words and the
    loader formats the template; bool fields are substituted into the template when
    lowering (docs/abi.md "Message templates")."""

    OPNAME: ClassVar[str] = "raisef"
    OPERANDS: ClassVar[tuple[str, ...]] = ("values",)
    ATTRS: ClassVar[tuple[str, ...]] = ("exception", "template")
    IS_TERMINATOR: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    exception: ExceptionKind
    template: Text
    values: tuple[Value, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """A known kind, a string template, at most :data:`FORMAT_FIELDS` values."""
        if self.exception not in EXCEPTION_KINDS:
            return f"unknown exception kind {self.exception!r}"
        if not isinstance(self.template, str):
            return "raise message template is not a string"
        if len(self.values) > FORMAT_FIELDS:
            return f"raisef takes at most {FORMAT_FIELDS} values, got {len(self.values)}"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Every value is an integer, a bool or an f64."""
        for v in self.values:
            t = v.type
            if not (isinstance(t, ScalarType) and (t.is_int or t == F64)):
                return f"raisef value {ctx.show(v)} is {t}, not an integer or f64"
        return None
