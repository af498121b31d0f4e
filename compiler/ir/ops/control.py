"""Control flow: phis, calls, branches, returns and raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, final

# The one leaf of gradc outside the IR that the IR imports (standard library only;
# pyproject.toml contract ``ir-standalone``): the exception codes are an ABI fact.
from gradc.artifacts.abi.codes import EXCEPTION_CODES
from gradc.compiler.ir.core import Block, Instruction, Value


@final
@dataclass(eq=False, slots=True)
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


# ---------------------------------------------------------------------------------
# calls


@final
@dataclass(eq=False, slots=True)
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


@final
@dataclass(eq=False, slots=True)
class Jump(Instruction):
    """Unconditional branch."""

    OPNAME: ClassVar[str] = "br"
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("target",)
    IS_TERMINATOR: ClassVar[bool] = True
    target: Block


@final
@dataclass(eq=False, slots=True)
class Branch(Instruction):
    """Two-way branch on an ``i1``."""

    OPNAME: ClassVar[str] = "condbr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("cond",)
    SUCCESSORS: ClassVar[tuple[str, ...]] = ("if_true", "if_false")
    IS_TERMINATOR: ClassVar[bool] = True
    cond: Value
    if_true: Block
    if_false: Block


@final
@dataclass(eq=False, slots=True)
class Return(Instruction):
    """Return ``value`` (None for a function returning ``none``)."""

    OPNAME: ClassVar[str] = "ret"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value",)
    IS_TERMINATOR: ClassVar[bool] = True
    value: Value | None = None


#: Exception kinds of :class:`Raise`, with their error-record codes: the ABI's one table
#: (docs/abi.md "Error record", ``gradc.artifacts.abi.codes``).
EXCEPTION_KINDS: dict[str, int] = EXCEPTION_CODES


@final
@dataclass(eq=False, slots=True)
class Raise(Instruction):
    """Raise ``exception(message)``: leave the function with an error status."""

    OPNAME: ClassVar[str] = "raise"
    ATTRS: ClassVar[tuple[str, ...]] = ("exception", "message")
    IS_TERMINATOR: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    exception: str
    message: str
