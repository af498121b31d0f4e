"""Liveness of SSA values at block boundaries (backward dataflow).

A value is live-in at block ``B`` when some path from ``B``'s start reaches a use of it
before leaving the function; a phi's incoming value counts as used at the *end* of the
predecessor it comes from, not in the phi's block (the usual SSA convention, Appel,
"Modern Compiler Implementation", §19.1). Sets are restricted to values for which
``tracked(value)`` is true, which keeps them small for passes that care about few values.
"""

from __future__ import annotations

from collections.abc import Callable

from gradc._dataclass import dataclass
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Value


@dataclass
class Liveness:
    """``live_in[B]`` and ``live_out[B]`` for every block; ``phi_uses[B]`` are the values
    ``B`` passes to its successors' phis (used at ``B``'s end)."""

    live_in: dict[Block, set[Value]]
    live_out: dict[Block, set[Value]]
    phi_uses: dict[Block, set[Value]]


def compute_liveness(
    fn: Function,
    tracked: Callable[[Value], bool],
    uses_of: Callable[[Instruction], list[Value]] | None = None,
) -> Liveness:
    """Live-in and live-out sets of the tracked values of ``fn`` (iterated to a fixpoint).

    ``uses_of(inst)`` gives the values an instruction keeps alive (its operands by
    default; the GC passes add the base objects of derived-pointer operands).
    """
    uses_of = uses_of or Instruction.operands
    phi_uses: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    for block in fn.blocks:
        for phi in block.phis():
            assert isinstance(phi, ops.Phi)
            for pred, v in phi.incoming:
                if tracked(v):
                    phi_uses[pred].add(v)
    # Per block: values used before any definition in it (upward-exposed) and defined.
    uses: dict[Block, set[Value]] = {}
    defs: dict[Block, set[Value]] = {}
    for block in fn.blocks:
        used: set[Value] = set()
        defined: set[Value] = set()
        for inst in block.instructions:
            if not isinstance(inst, ops.Phi):
                for v in uses_of(inst):
                    if tracked(v) and v not in defined:
                        used.add(v)
            defined.add(inst)
        uses[block], defs[block] = used, defined
    live_in: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    live_out: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    changed = True
    while changed:
        changed = False
        for block in reversed(fn.blocks):
            out = set(phi_uses[block])
            for succ in block.successors():
                out |= live_in[succ]
            new_in = uses[block] | (out - defs[block])
            if out != live_out[block] or new_in != live_in[block]:
                live_out[block], live_in[block] = out, new_in
                changed = True
    return Liveness(live_in, live_out, phi_uses)
