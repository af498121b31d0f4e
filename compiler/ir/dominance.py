"""Dominator tree and dominance frontiers of a function's CFG.

Block ``A`` dominates block ``B`` when every path from the entry to ``B`` passes through
``A`` (every block dominates itself). The immediate dominator of ``B`` is its closest
strict dominator; those edges form the dominator tree.

Algorithm: K. D. Cooper, T. J. Harvey and K. Kennedy, "A Simple, Fast Dominance
Algorithm", Software Practice and Experience 4 (2001), 1-10 (Rice University). Blocks
are numbered in reverse postorder of a depth-first search from the entry; the immediate
dominators are refined by iterating over that order, meeting predecessors with the
two-finger ``intersect`` walk over postorder numbers, until nothing changes. Dominance
frontiers use the same paper's Figure 5: for every join block ``B`` (two or more reachable
predecessors), walk up from each predecessor to ``idom(B)`` adding ``B`` to the frontier
of every block passed.

Only blocks reachable from the entry are in the tree. Queries about an unreachable block
answer as follows: it has no immediate dominator, no children and an empty frontier; it
dominates only itself and is dominated only by itself (callers decide what an unreachable
use means; the verifier exempts such uses from the dominance check).

Example (a diamond ``entry → a, b → join``)::

    dt = DominatorTree(fn)
    dt.idom(join) is entry          # neither a nor b dominates join
    dt.frontier(a) == [join]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from gradc.compiler.ir.core import Block, Function


class DominatorTree:
    """The dominator tree of ``fn``, computed at construction.

    The CFG is read from the blocks' terminators; successors must be blocks of ``fn``
    (the verifier checks this before building the tree). Construction is
    ``O(blocks × edges)`` in the worst case and near linear in practice.

    Args:
        fn: a function with at least one block.

    Attributes:
        function: the function.
        reverse_postorder: the reachable blocks in reverse postorder (entry first).
    """

    def __init__(self, fn: Function) -> None:
        self.function = fn
        self.reverse_postorder: list[Block] = reverse_postorder(fn.entry)
        order = {b: i for i, b in enumerate(self.reverse_postorder)}
        self._order = order
        preds: dict[Block, list[Block]] = {b: [] for b in self.reverse_postorder}
        for b in self.reverse_postorder:
            for s in b.successors():
                preds[s].append(b)
        self._preds = preds

        # Cooper-Harvey-Kennedy over RPO indices: a larger index = a smaller postorder
        # number, so intersect walks up while a finger's index is the larger.
        n = len(self.reverse_postorder)
        idom: list[int] = [-1] * n
        idom[0] = 0
        changed = True
        while changed:
            changed = False
            for i in range(1, n):
                new = -1
                for p in preds[self.reverse_postorder[i]]:
                    j = order[p]
                    if idom[j] == -1:
                        continue
                    new = j if new == -1 else _intersect(idom, j, new)
                if new != idom[i]:
                    idom[i] = new
                    changed = True
        self._idom: dict[Block, Block] = {
            self.reverse_postorder[i]: self.reverse_postorder[idom[i]] for i in range(1, n)
        }
        self._children: dict[Block, list[Block]] = {b: [] for b in self.reverse_postorder}
        for b in self.reverse_postorder[1:]:
            self._children[self._idom[b]].append(b)

        # Pre/post numbers of a DFS over the tree make dominates() O(1).
        self._pre: dict[Block, int] = {}
        self._post: dict[Block, int] = {}
        counter = 0
        stack: list[tuple[Block, Iterator[Block]]] = [(fn.entry, iter(self._children[fn.entry]))]
        self._pre[fn.entry] = counter
        while stack:
            block, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                counter += 1
                self._post[block] = counter
            else:
                counter += 1
                self._pre[child] = counter
                stack.append((child, iter(self._children[child])))
        self._frontiers: dict[Block, list[Block]] | None = None

    @property
    def entry(self) -> Block:
        """The root of the tree."""
        return self.reverse_postorder[0]

    def is_reachable(self, block: Block) -> bool:
        """True when ``block`` is reachable from the entry."""
        return block in self._order

    def idom(self, block: Block) -> Block | None:
        """The immediate dominator (None for the entry and for unreachable blocks)."""
        return self._idom.get(block)

    def children(self, block: Block) -> list[Block]:
        """The blocks ``block`` immediately dominates, in reverse postorder."""
        return list(self._children.get(block, ()))

    def dominates(self, a: Block, b: Block) -> bool:
        """True when ``a`` dominates ``b`` (reflexive; see the module docstring)."""
        if a is b:
            return True
        if a not in self._pre or b not in self._pre:
            return False
        return self._pre[a] <= self._pre[b] and self._post[b] <= self._post[a]

    def strictly_dominates(self, a: Block, b: Block) -> bool:
        """True when ``a`` dominates ``b`` and ``a is not b``."""
        return a is not b and self.dominates(a, b)

    def preorder(self) -> list[Block]:
        """The reachable blocks in a depth-first preorder of the tree (entry first)."""
        return sorted(self._pre, key=self._pre.__getitem__)

    def frontier(self, block: Block) -> list[Block]:
        """The dominance frontier of ``block``, in reverse postorder.

        The blocks ``F`` such that ``block`` dominates a predecessor of ``F`` but does
        not strictly dominate ``F`` (where phis go when a variable is assigned in
        ``block``).
        """
        if self._frontiers is None:
            self._frontiers = self._compute_frontiers()
        return list(self._frontiers.get(block, ()))

    def _compute_frontiers(self) -> dict[Block, list[Block]]:
        found: dict[Block, set[Block]] = {b: set() for b in self.reverse_postorder}
        for b in self.reverse_postorder:
            preds = self._preds[b]
            if len(preds) < 2:
                continue
            stop = self._idom.get(b)
            for p in preds:
                runner: Block | None = p
                while runner is not None and runner is not stop:
                    found[runner].add(b)
                    runner = self._idom.get(runner)
        return {b: sorted(fs, key=self._order.__getitem__) for b, fs in found.items()}


def _intersect(idom: list[int], a: int, b: int) -> int:
    while a != b:
        while a > b:
            a = idom[a]
        while b > a:
            b = idom[b]
    return a


def reverse_postorder(
    *roots: Block, edges: Callable[[Block], Iterable[Block]] = Block.successors
) -> list[Block]:
    """Blocks reachable from ``roots`` (usually the entry), in reverse postorder of an
    iterative DFS from each root in turn.

    Edges are followed in ``edges`` order (the terminator's successors by default), so
    the order is deterministic: every block comes after its dominators (definitions
    before uses, for codegen). The dominator tree numbers blocks in this order; codegen
    lowers them in it. With ``edges`` giving predecessors and the returning blocks as
    roots, it is the order of the reverse CFG (AD's reverse sweep).
    """
    seen: set[Block] = set()
    post: list[Block] = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[Block, Iterator[Block]]] = [(root, iter(edges(root)))]
        while stack:
            block, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(edges(s))))
                    break
            else:
                stack.pop()
                post.append(block)
    post.reverse()
    return post
