"""The code generator's rule table: one lowering rule per operation.

A rule gets the function's lowering state and the instruction, emits LLVM IR at the
builder, and returns the instruction's LLVM value (None for operations without one):
``(FunctionLowering, Instruction) -> ll.Value | None``. The rules are registered by
:mod:`.lower_scalar`, :mod:`.lower_arith`, :mod:`.lower_bitwise`, :mod:`.lower_math`, :mod:`.lower_control`,
:mod:`.arrays`, :mod:`.array_alloc` and :mod:`.tape`; importing :mod:`.lower` imports
all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.dispatch import OpTable

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

#: A lowering rule (module docstring).
LowerRule = Callable[["FunctionLowering", Instruction], "ll.Value | None"]

#: The lowering rule of every operation of typed IR.
LOWERING: OpTable[LowerRule] = OpTable("codegen")
