"""The rules of ``lower-arrays``: one :class:`ArrayRule` per whole-array operation.

Register a rule beside the other rules of its family (passes/arrays/<family>.py) and
import that module in passes/arrays/rules.py::

    ARRAY_LOWERING.set([ops.Elementwise], ArrayRule(lower=_lower, read=_read, fuses=True))

``lower`` replaces the operation by loops (:mod:`.loops`); ``read``, when given, lets a
consumer compute the operation's elements inside its own loops instead (fusion: the
producer is then never materialised); ``fuses`` says the rule reads its array operands
through :meth:`.loops.ArrayLowering.operand`, so that a producer with a ``read`` whose
only use it is may be fused into it. Every operation declared ``LOWERED_TO_LOOPS`` must
have a rule (tests/passes/test_lower_arrays.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.dispatch import OpTable

if TYPE_CHECKING:
    from gradc.passes.arrays.loops import ArrayLowering, Reader

Lower = Callable[["ArrayLowering", Instruction], "Value | None"]
"""``(lowering, operation) -> the value replacing it`` (None: it has no result)."""

Read = Callable[["ArrayLowering", Instruction, Sequence[Value]], "Reader"]
"""``(lowering, fused producer, consumer's output sizes) -> its reader`` (prepared
before the consumer's loops, as :meth:`.loops.ArrayLowering.operand`)."""


@dataclass(frozen=True)
class ArrayRule:
    """How ``lower-arrays`` handles one operation.

    Attributes:
        lower: emits the loops replacing it (the builder is where it was).
        read: computes its elements inside a consumer's loops when fused; None: never
            fused into a consumer.
        fuses: it reads its array operands through ``operand``, so it can absorb fused
            producers.
        prepare: emits, where a fused producer was, what must happen there (its shape
            checks, so that errors come in NumPy's order) and records its shape in
            ``lw.shapes``; required with ``read``.
        fusible: whether this instance may be fused (default: whenever ``read`` is
            given); an operation that may raise inside its loops is not, so that its
            error comes where NumPy's does.
    """

    lower: Lower
    read: Read | None = None
    fuses: bool = False
    prepare: Callable[[ArrayLowering, Instruction], None] | None = None
    fusible: Callable[[Instruction], bool] | None = None

    def can_fuse(self, inst: Instruction) -> bool:
        """``inst`` (an operation of this rule) may be computed inside a consumer."""
        return self.read is not None and (self.fusible is None or self.fusible(inst))


#: The rule of every operation ``lower-arrays`` replaces by loops.
ARRAY_LOWERING: OpTable[ArrayRule] = OpTable("lower-arrays")
