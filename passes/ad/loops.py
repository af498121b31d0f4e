"""Natural loops of a function's CFG, as the reverse-mode tape planner needs them.

A back edge is an edge ``T → H`` whose target dominates its source; the natural loop
of ``H`` is ``H`` and every block that reaches one of its back edges' sources without
passing ``H``. Loops with the same header are one loop. gradc's front end produces
reducible CFGs only, so natural loops nest (a loop is contained in its parent).

Example: ``for i in range(n): for j in range(i): ...`` has two loops, the inner one's
``parent`` the outer one; ``loops_of(block)`` of a block of the inner body lists the
outer loop first.

An *exit edge* ``X → E`` leaves a loop (``X`` inside, ``E`` outside). After critical-edge
splitting (:func:`gradc.passes.analysis.cfg.split_critical_edges`) either ``E`` has ``X``
as its only predecessor or ``X`` has ``E`` as its only successor; :meth:`Loop.exit_points`
names the block that runs exactly once each time the loop is left that way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradc.compiler.ir.core import Block, Function
from gradc.compiler.ir.dominance import DominatorTree


@dataclass(eq=False)
class Loop:
    """One natural loop.

    Attributes:
        header: the block every iteration starts with (dominates the loop).
        blocks: the loop's blocks, the header included.
        latches: the sources of its back edges, in block order.
        parent: the innermost loop containing this one, or None.
        depth: 1 for an outermost loop, parent's depth + 1 otherwise.
    """

    header: Block
    blocks: set[Block] = field(default_factory=set)
    latches: list[Block] = field(default_factory=list)
    parent: Loop | None = None
    depth: int = 1

    def __contains__(self, block: object) -> bool:
        return block in self.blocks

    def entries(self, preds: dict[Block, list[Block]]) -> list[Block]:
        """The header's predecessors outside the loop."""
        return [p for p in preds[self.header] if p not in self.blocks]

    def exit_edges(self, fn: Function) -> list[tuple[Block, Block]]:
        """``(X, E)`` for every edge from a loop block ``X`` to a block ``E`` outside."""
        edges = []
        for blk in fn.blocks:
            if blk in self.blocks:
                for succ in dict.fromkeys(blk.successors()):
                    if succ not in self.blocks:
                        edges.append((blk, succ))
        return edges

    def exit_points(self, fn: Function, preds: dict[Block, list[Block]]) -> list[Block]:
        """The blocks at whose end code runs once per exit of the loop: for each exit
        edge ``X → E``, ``E`` when ``X`` is its only predecessor, else ``X`` (whose only
        successor ``E`` then is, the critical edges being split).

        Raises:
            ValueError: an exit edge is critical (split critical edges first).
        """
        points: list[Block] = []
        for x, e in self.exit_edges(fn):
            if len(preds[e]) == 1:
                point = e
            elif len(x.successors()) == 1:
                point = x
            else:
                raise ValueError(f"critical exit edge {x.label} -> {e.label}")
            if point not in points:
                points.append(point)
        return points


class LoopForest:
    """The natural loops of ``fn`` (reachable blocks only), outermost first.

    Args:
        fn: a function whose CFG is reducible.
    """

    def __init__(self, fn: Function) -> None:
        self.function = fn
        dom = DominatorTree(fn)
        preds = fn.predecessors()
        by_header: dict[Block, Loop] = {}
        for blk in dom.reverse_postorder:
            for succ in blk.successors():
                if dom.dominates(succ, blk):
                    loop = by_header.setdefault(succ, Loop(succ, {succ}))
                    if blk not in loop.latches:
                        loop.latches.append(blk)
        for loop in by_header.values():
            work = [t for t in loop.latches if t is not loop.header]
            while work:
                blk = work.pop()
                if blk in loop.blocks:
                    continue
                loop.blocks.add(blk)
                work.extend(p for p in preds[blk] if dom.is_reachable(p))
        # parents: the smallest other loop containing the header
        loops = sorted(by_header.values(), key=lambda lp: len(lp.blocks), reverse=True)
        for i, loop in enumerate(loops):
            for outer in reversed(loops[:i]):
                if loop.header in outer.blocks and outer is not loop:
                    loop.parent = outer
                    break
        for loop in loops:  # larger loops come first, so a parent's depth is final
            loop.depth = 1 if loop.parent is None else loop.parent.depth + 1
        self.loops: list[Loop] = sorted(loops, key=lambda lp: lp.depth)
        self._of: dict[Block, list[Loop]] = {}
        for loop in self.loops:
            for blk in loop.blocks:
                self._of.setdefault(blk, []).append(loop)

    def loops_of(self, block: Block) -> list[Loop]:
        """The loops containing ``block``, outermost first."""
        return list(self._of.get(block, ()))

    def innermost(self, block: Block) -> Loop | None:
        """The innermost loop containing ``block``, or None."""
        loops = self._of.get(block)
        return loops[-1] if loops else None
