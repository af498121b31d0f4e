"""The reverse-mode tape: a per-call LIFO stack of values (docs/ad.md)."""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import tape_operand
from gradc.compiler.ir.types import NONE, TAPE


@final
@operation
class TapeNew(Instruction):
    """A new, empty tape (type ``tape``); MemoryError when it cannot be allocated."""

    OPNAME: ClassVar[str] = "tapenew"
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The result is a ``tape``."""
        return None if self.type == TAPE else f"tapenew result type is {self.type}, expected tape"


@final
@operation
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

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A ``tape`` operand; the value is neither ``tape`` nor ``none``."""
        if self.value.type in (TAPE, NONE):
            return f"tapepush of {ctx.show(self.value)}: {self.value.type}"
        return tape_operand(ctx, self, self.tape)


@final
@operation
class TapePop(Instruction):
    """Pop the most recently pushed value (of the result type) off ``tape``."""

    OPNAME: ClassVar[str] = "tapepop"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tape",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    tape: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A ``tape`` operand; the result is neither ``tape`` nor ``none``."""
        if self.type in (TAPE, NONE):
            return f"tapepop result type is {self.type}"
        return tape_operand(ctx, self, self.tape)


@final
@operation
class TapeFree(Instruction):
    """Release ``tape``'s memory (it must be empty: every push was popped)."""

    OPNAME: ClassVar[str] = "tapefree"
    OPERANDS: ClassVar[tuple[str, ...]] = ("tape",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    tape: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A ``tape`` operand."""
        return tape_operand(ctx, self, self.tape)
