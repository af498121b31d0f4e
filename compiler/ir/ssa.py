"""On-the-fly SSA construction for local variables.

The algorithm is Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient
Construction of Static Single Assignment Form" (CC 2013): each block maps variables to
their current SSA value; reading a variable in a block without a definition looks it up
in the predecessors, placing a phi where control flow joins. Blocks whose predecessors
are not all known yet (loop headers) are *unsealed*: their phis are created empty and
completed when the block is sealed.

A read that reaches the entry block without a definition yields :data:`UNDEFINED`. After
construction, :meth:`SSABuilder.finish` removes trivial and dead phis and reports every
read that may observe an undefined value ("may be used before assignment").
"""

from __future__ import annotations

from collections.abc import Callable

from gradc._dataclass import dataclass
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import Type


class _Undefined(Value):
    """The value of a variable on a path where it was never assigned."""

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Value = _Undefined()


@dataclass
class VariableRead:
    """A read of a source variable, checked for definedness by :meth:`SSABuilder.finish`."""

    name: str
    value: Value
    loc: Loc


class SSABuilder:
    """Variable definitions per block, phis placed on demand.

    Args:
        function: the function under construction (phis are inserted into its blocks).
        phi_type: the type of a variable's phis, when known (else they stay untyped
            for inference to fill in).
        known: ``known(block, name)``: the value ``name`` is known to have all through
            ``block`` (wherever it has no definition of its own there), or None. The
            search for a definition stops at such a block instead of placing phis on
            every join up to the one definition far away: the reverse sweep knows where
            an adjoint is zero (no contribution reaches there), so each adjoint costs
            phis in its live range only, not in the whole function.
    """

    def __init__(
        self,
        function: Function,
        phi_type: Callable[[str], Type] | None = None,
        known: Callable[[Block, str], Value | None] | None = None,
    ) -> None:
        self.function = function
        self.phi_type = phi_type
        self.known = known
        self.defs: dict[Block, dict[str, Value]] = {}
        self.preds: dict[Block, list[Block]] = {}
        self.sealed: set[Block] = set()
        self.incomplete: dict[Block, dict[str, ops.Phi]] = {}
        self.phi_var: dict[ops.Phi, str] = {}
        self.reads: list[VariableRead] = []
        self._loc: Loc | None = None
        self.replaced: dict[Value, Value] = {}

    def add_edge(self, pred: Block, succ: Block) -> None:
        """Record the CFG edge ``pred → succ`` (call before ``succ`` is sealed)."""
        assert succ not in self.sealed, f"edge into sealed block {succ.label}"
        self.preds.setdefault(succ, []).append(pred)

    def write(self, block: Block, name: str, value: Value) -> None:
        """``name = value`` at the end of ``block`` so far."""
        self.defs.setdefault(block, {})[name] = value

    def read(self, block: Block, name: str, loc: Loc) -> Value:
        """The current value of ``name`` in ``block``; the read is recorded for checking."""
        self._loc = loc
        value = self._read(block, name)
        self.reads.append(VariableRead(name, value, loc))
        return value

    def _read(self, block: Block, name: str) -> Value:
        value, pending = self._lookup(block, name)
        if pending is not None:
            self._fill(pending, name)
        return value

    def _lookup(self, block: Block, name: str) -> tuple[Value, ops.Phi | None]:
        """The value of ``name`` at the end of ``block``, following single predecessors
        back (in a loop, not by recursion: chains of blocks are as long as functions);
        a phi placed at a sealed join is returned with it, its operands still to fill."""
        chain: list[Block] = []
        value: Value
        pending: ops.Phi | None = None
        while True:
            local = self.defs.get(block)
            if local is not None and name in local:
                value = local[name]
                break
            chain.append(block)
            if self.known is not None:
                fixed = self.known(block, name)
                if fixed is not None:
                    value = fixed
                    break
            preds = self.preds.get(block, [])
            if block not in self.sealed:
                phi = self._new_phi(block, name)
                self.incomplete.setdefault(block, {})[name] = phi
                value = phi
                break
            if not preds:
                value = UNDEFINED
                break
            if len(preds) > 1:
                value = pending = self._new_phi(block, name)
                break
            block = preds[0]
        for blk in chain:
            self.write(blk, name, value)
        return value, pending

    def _fill(self, phi: ops.Phi, name: str) -> None:
        """Add the operands of ``phi`` (one per predecessor of its block), and of the phis
        placed at joins on the way, depth first with an explicit stack."""
        assert phi.block is not None
        stack = [(phi, iter(list(self.preds.get(phi.block, []))))]
        while stack:
            current, preds = stack[-1]
            pred = next(preds, None)
            if pred is None:
                stack.pop()
                continue
            value, pending = self._lookup(pred, name)
            current.incoming.append((pred, value))
            if pending is not None:
                assert pending.block is not None
                stack.append((pending, iter(list(self.preds.get(pending.block, [])))))

    def _new_phi(self, block: Block, name: str) -> ops.Phi:
        phi = ops.Phi(name=name)
        if self.phi_type is not None:
            phi.type = self.phi_type(name)
        if self._loc is not None:
            phi.loc = self._loc
        block.insert(len(block.phis()), phi)
        self.phi_var[phi] = name
        return phi

    def seal(self, block: Block) -> None:
        """All predecessors of ``block`` are known: complete its pending phis."""
        for name, phi in self.incomplete.pop(block, {}).items():
            self._fill(phi, name)
        self.sealed.add(block)

    def resolve(self, value: Value) -> Value:
        """What ``value`` became after :meth:`finish` removed trivial phis."""
        replaced = self.replaced
        root = value
        while root in replaced:
            root = replaced[root]
        while value in replaced and replaced[value] is not root:  # path compression
            value, replaced[value] = replaced[value], root
        return root

    def finish(self) -> list[VariableRead]:
        """Clean up phis; return the reads that may see an undefined variable.

        Removes trivial phis (all incoming values the same value or the phi itself) and
        phis no ordinary instruction depends on, then returns every recorded read whose
        value is :data:`UNDEFINED` or a phi that can carry it.

        Linear in the size of the function (up to the union-find's near-constant
        factor): a trivial phi is recorded in :attr:`replaced` (a forest whose roots are
        the surviving values, resolved with path compression) and only the phis that
        use it are looked at again (Braun et al.'s ``tryRemoveTrivialPhi`` on a worklist);
        the uses are rewritten in one pass at the end, not once per removed phi.
        """
        replaced = self.replaced
        resolve = self.resolve
        phis = [p for p in self.phi_var if p.block is not None and p not in replaced]
        # the phis using each value (keyed by the value's root once it was replaced):
        # the ones to look at again when that value turns out to be a trivial phi
        users: dict[Value, list[ops.Phi]] = {}
        for phi in phis:
            for _, v in phi.incoming:
                users.setdefault(resolve(v), []).append(phi)
        work = list(reversed(phis))
        while work:
            phi = work.pop()
            if phi in replaced:
                continue
            distinct = {resolve(v) for _, v in phi.incoming}
            distinct.discard(phi)
            if len(distinct) != 1:
                continue
            (same,) = distinct
            replaced[phi] = same
            moved = users.pop(phi, [])
            work.extend(moved)
            # the users of ``phi`` now use ``same``: merge the smaller list into the larger
            kept = users.get(same)
            if kept is None:
                users[same] = moved
            elif len(kept) < len(moved):
                moved.extend(kept)
                users[same] = moved
            else:
                kept.extend(moved)
        if replaced:
            self._rewrite_uses()
        self._remove_dead_phis()
        may_be_undefined = self._undefined_phis()
        bad = []
        for r in self.reads:
            v = resolve(r.value)
            if v is UNDEFINED or v in may_be_undefined:
                bad.append(r)
        return bad

    def _rewrite_uses(self) -> None:
        """Every operand that is a removed phi becomes the value it resolves to, and the
        removed phis leave their blocks (one pass over the function)."""
        replaced = self.replaced
        resolve = self.resolve
        for block in self.function.blocks:
            kept = []
            for inst in block.instructions:
                if inst in replaced:
                    inst.block = None
                    continue
                kept.append(inst)
                if isinstance(inst, ops.Phi):
                    if any(v in replaced for _, v in inst.incoming):
                        inst.incoming = [(b, resolve(v)) for b, v in inst.incoming]
                    continue
                for v in inst.operands():
                    if v in replaced:
                        inst.replace_operand(v, resolve(v))
            block.instructions = kept

    def _remove_dead_phis(self) -> None:
        live: set[Value] = set()
        work: list[Value] = []
        for inst in self.function.instructions():
            if inst.OPNAME != "phi":
                work.extend(inst.operands())
        while work:
            v = work.pop()
            if v in live:
                continue
            live.add(v)
            if isinstance(v, ops.Phi):
                work.extend(v.operands())
        for block in self.function.blocks:
            if any(isinstance(i, ops.Phi) and i not in live for i in block.instructions):
                kept = []
                for inst in block.instructions:
                    if isinstance(inst, ops.Phi) and inst not in live:
                        inst.block = None
                    else:
                        kept.append(inst)
                block.instructions = kept

    def _undefined_phis(self) -> set[Value]:
        """The phis through which :data:`UNDEFINED` may flow (a forward search)."""
        users: dict[Value, list[ops.Phi]] = {}
        work: list[ops.Phi] = []
        for inst in self.function.instructions():
            if isinstance(inst, ops.Phi):
                for _, v in inst.incoming:
                    if v is UNDEFINED:
                        work.append(inst)
                    users.setdefault(v, []).append(inst)
        bad: set[Value] = set()
        while work:
            phi = work.pop()
            if phi in bad:
                continue
            bad.add(phi)
            work.extend(users.get(phi, ()))
        return bad
