"""CFG utilities shared by passes: critical-edge splitting."""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function


def split_critical_edges(fn: Function) -> list[Block]:
    """Give every critical edge its own block; return the new blocks.

    An edge ``P → S`` is critical when ``P`` has several successors and ``S`` several
    predecessors: code that must run on that edge alone has nowhere to go. The new block
    ``P.to.S`` holds just ``br ^S``; ``S``'s phis then name it as the predecessor.
    """
    preds = fn.predecessors()
    created: list[Block] = []
    for pred in list(fn.blocks):
        succs = pred.successors()
        if len(succs) < 2:
            continue
        term = pred.terminator
        assert term is not None
        for succ in dict.fromkeys(succs):  # each distinct successor once
            if len(preds[succ]) < 2:
                continue
            edge = fn.add_block(f"{pred.label}.to.{succ.label}")
            edge.append(ops.Jump(succ, loc=term.loc))
            term.replace_successor(succ, edge)
            for phi in succ.phis():
                assert isinstance(phi, ops.Phi)
                phi.replace_block(pred, edge)
            created.append(edge)
    return created
