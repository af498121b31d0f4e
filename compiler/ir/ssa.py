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
from dataclasses import dataclass

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
    """

    def __init__(self, function: Function, phi_type: Callable[[str], Type] | None = None) -> None:
        self.function = function
        self.phi_type = phi_type
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
        local = self.defs.get(block, {})
        if name in local:
            return local[name]
        return self._read_recursive(block, name)

    def _read_recursive(self, block: Block, name: str) -> Value:
        preds = self.preds.get(block, [])
        value: Value
        if block not in self.sealed:
            phi = self._new_phi(block, name)
            self.incomplete.setdefault(block, {})[name] = phi
            value = phi
        elif not preds:
            value = UNDEFINED
        elif len(preds) == 1:
            value = self._read(preds[0], name)
        else:
            phi = self._new_phi(block, name)
            self.write(block, name, phi)
            self._add_operands(phi, name)
            value = phi
        self.write(block, name, value)
        return value

    def _new_phi(self, block: Block, name: str) -> ops.Phi:
        phi = ops.Phi(name=name)
        if self.phi_type is not None:
            phi.type = self.phi_type(name)
        if self._loc is not None:
            phi.loc = self._loc
        block.insert(len(block.phis()), phi)
        self.phi_var[phi] = name
        return phi

    def _add_operands(self, phi: ops.Phi, name: str) -> None:
        assert phi.block is not None
        for pred in self.preds.get(phi.block, []):
            phi.incoming.append((pred, self._read(pred, name)))

    def seal(self, block: Block) -> None:
        """All predecessors of ``block`` are known: complete its pending phis."""
        for name, phi in self.incomplete.pop(block, {}).items():
            self._add_operands(phi, name)
        self.sealed.add(block)

    def resolve(self, value: Value) -> Value:
        """What ``value`` became after :meth:`finish` removed trivial phis."""
        while value in self.replaced:
            value = self.replaced[value]
        return value

    def finish(self) -> list[VariableRead]:
        """Clean up phis; return the reads that may see an undefined variable.

        Removes trivial phis (all incoming values the same value or the phi itself) and
        phis no ordinary instruction depends on, then returns every recorded read whose
        value is :data:`UNDEFINED` or a phi that can carry it.
        """
        replaced = self.replaced
        resolve = self.resolve
        changed = True
        while changed:
            changed = False
            for phi in [p for p in self.phi_var if p.block is not None]:
                distinct = {resolve(v) for _, v in phi.incoming} - {phi}
                if len(distinct) == 1:
                    (same,) = distinct
                    replaced[phi] = same
                    self.function.replace_all_uses(phi, same)
                    phi.erase()
                    changed = True
        self._remove_dead_phis()
        may_be_undefined = self._undefined_phis()
        bad = []
        for r in self.reads:
            v = resolve(r.value)
            if v is UNDEFINED or v in may_be_undefined:
                bad.append(r)
        return bad

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
            for phi in block.phis():
                if phi not in live:
                    phi.erase()

    def _undefined_phis(self) -> set[Value]:
        bad: set[Value] = set()
        changed = True
        while changed:
            changed = False
            for inst in self.function.instructions():
                if isinstance(inst, ops.Phi) and inst not in bad:
                    if any(v is UNDEFINED or v in bad for _, v in inst.incoming):
                        bad.add(inst)
                        changed = True
        return bad
