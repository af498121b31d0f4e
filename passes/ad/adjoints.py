"""Adjoint accumulation in the reverse sweep (:mod:`.reverse_sweep`).

Adjoints of scalars are SSA variables of the reverse function, one per active forward
value (and tuple element), built with the on-the-fly SSA construction of
:mod:`gradc.compiler.ir.ssa` over the reverse CFG: a contribution is added to the
variable's current value; the value is read and reset to zero in the reverse of the
block defining it. The forward values the reverse sweep reads (popped or rebuilt) are
variables of the same construction (``primal.<n>``).

Every adjoint starts from one shared zero per type, so the construction sees the same
value on both sides of a loop and keeps no phi for adjoints that do not cross
iterations; :meth:`Adjoints.known_zero` tells it where an adjoint is zero all through a
reverse block, so each adjoint costs phis in its live range only; and
:func:`fold_zero_adjoints` removes what remains of zeros (phi cycles of the zero,
additions of a zero).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ssa import SSABuilder
from gradc.compiler.ir.types import ScalarType, Type
from gradc.passes.ad.layout import is_float
from gradc.passes.ad.leaves import leaves
from gradc.passes.ad.loops import LoopForest
from gradc.passes.ad.sweep_state import AdjKey, Primal


class Adjoints:
    """The adjoint (and primal) variables of one reverse sweep.

    Args:
        p: the function being differentiated.
        b: the reverse sweep's builder; contributions are added at its insertion point.

    Attributes:
        ssa: the SSA construction over the reverse function.
        origin: reverse block -> the forward block whose reverse it is part of (edge
            blocks: the predecessor's, whose phi operands they take); filled by the
            reverse sweep, read by :meth:`known_zero`.
    """

    def __init__(self, p: Primal, b: Builder) -> None:
        self.p = p
        self.b = b
        self.ssa = SSABuilder(
            p.rev, phi_type=lambda name: self._var_types[name], known=self.known_zero
        )
        self.origin: dict[Block, Block] = {}
        self._names: dict[Value, int] = {}
        self._var_types: dict[str, Type] = {}
        self._adjoint_of: dict[str, Value] = {}  # adjoint variable -> its forward value
        self._use_regions: dict[Value, set[Block]] = {}
        self._use_blocks: dict[Value, set[Block]] | None = None
        self._forest: LoopForest | None = None
        self._zeros: dict[Type, Value] = {}
        self._primal_names: dict[Value, str] = {}
        self.accumulations: set[ops.Add] = set()  # adds of contributions to adjoints

    # -- keys ----------------------------------------------------------------------------

    def all_keys(self) -> list[AdjKey]:
        """Every adjoint variable: the float parts of the active values and of the
        active scalar parameters, in definition order."""
        p = self.p
        keys: list[AdjKey] = []
        values: list[Value] = [*p.fwd.params[:-1], *p.fwd.instructions()]
        for v in values:
            if p.active(v) or (isinstance(v, Argument) and v.index in p.scalars):
                keys.extend(self.keys_of(v))
        return keys

    @staticmethod
    def keys_of(v: Value) -> list[AdjKey]:
        """The adjoint variables of ``v``: one per float leaf of a (nested) tuple, by
        leaf number (:mod:`.leaves`)."""
        return [(v, k) for k, (_, e) in enumerate(leaves(v.type)) if is_float(e)]

    @staticmethod
    def key_type(key: AdjKey) -> Type:
        v, k = key
        return leaves(v.type)[k][1]

    def var(self, key: AdjKey) -> str:
        """The SSA variable of adjoint ``key``."""
        v, k = key
        n = self._names.setdefault(v, len(self._names))
        name = f"adj.{n}.{k}"
        self._var_types[name] = self.key_type(key)
        self._adjoint_of[name] = v
        return name

    def primal_var(self, v: Value) -> str:
        """The reverse function's variable holding forward value ``v``."""
        name = self._primal_names.get(v)
        if name is None:
            name = f"primal.{len(self._primal_names)}"
            self._primal_names[v] = name
            self._var_types[name] = v.type
        return name

    # -- reads and contributions ---------------------------------------------------------

    def read(self, block: Block, key: AdjKey) -> Value:
        """The current value of adjoint ``key`` in reverse block ``block``."""
        return self.ssa.read(block, self.var(key), self.p.fwd.loc)

    def read_primal(self, block: Block, v: Value, loc: Loc) -> Value:
        """The current reverse-sweep copy of forward value ``v`` in ``block``."""
        return self.ssa.read(block, self.primal_var(v), loc)

    def write_primal(self, block: Block, v: Value, value: Value) -> None:
        """Make ``value`` the reverse-sweep copy of forward value ``v`` in ``block``."""
        self.ssa.write(block, self.primal_var(v), value)

    def accumulate(self, key: AdjKey, contribution: Value | None) -> None:
        """Add ``contribution`` to adjoint ``key`` at the builder's insertion point
        (nothing for None or a value that carries no adjoint)."""
        if contribution is None or not self._is_adjoint_key(key):
            return
        assert self.b.block is not None
        block = self.b.block
        current = self.read(block, key)
        if current is self._zeros.get(current.type):
            # 0 + c is c (up to the sign of a zero, which no gradient depends on);
            # LLVM may not fold it without fast-math
            self.ssa.write(block, self.var(key), contribution)
            return
        total = self.b.add(current, contribution)
        assert isinstance(total, ops.Add)
        self.accumulations.add(total)
        self.ssa.write(block, self.var(key), total)

    def _is_adjoint_key(self, key: AdjKey) -> bool:
        v, _ = key
        return self.p.active(v) or (isinstance(v, Argument) and v.index in self.p.scalars)

    def reset(self, key: AdjKey) -> None:
        """Adjoint ``key`` is zero again from the builder's insertion point on."""
        assert self.b.block is not None
        self.ssa.write(self.b.block, self.var(key), self.zero_of(self.key_type(key)))

    def zero_of(self, t: Type) -> Value:
        """The shared zero of type ``t`` (a constant at the top of the entry block)."""
        zero = self._zeros.get(t)
        if zero is None:
            assert isinstance(t, ScalarType)
            zero = ops.Const(0.0 if t.is_float else 0, type=t, name="zero")
            zero.loc = self.p.fwd.loc
            self.p.rev.blocks[0].insert(0, zero)
            self._zeros[t] = zero
        return zero

    def is_shared_zero(self, v: Value) -> bool:
        """Is ``v`` the shared zero of its type (an adjoint nothing reached)?"""
        return v is self._zeros.get(v.type)

    # -- where an adjoint is zero ------------------------------------------------------

    def known_zero(self, rblk: Block, name: str) -> Value | None:
        """The zero, if adjoint variable ``name`` is zero all through reverse block
        ``rblk`` (the SSA construction then looks no further back; see
        :class:`~gradc.compiler.ir.ssa.SSABuilder`); else None.

        The adjoint of ``v`` (defined in forward block ``D``) is non-zero only between
        a contribution, made in the reverse of a block ``U`` using ``v``, and its read
        and reset in the reverse of ``D``. So it is zero all through the reverse of a
        forward block ``X`` that reaches no use of ``v`` except through ``D`` and lies
        on no cycle with ``D``: any path from ``X`` to a use passes ``D`` (whose reverse
        runs in between and resets the adjoint) or there is none.
        """
        v = self._adjoint_of.get(name)
        origin = self.origin.get(rblk)
        if not isinstance(v, Instruction) or v.block is None or origin is None:
            return None
        region = self._use_regions.get(v)
        if region is None:
            region = self._use_regions[v] = self._use_region(v)
        if origin in region or origin in self._cycle_of(v.block):
            return None
        return self.zero_of(self._var_types[name])

    def _use_region(self, v: Instruction) -> set[Block]:
        """The forward blocks from which a use of ``v`` is reachable without passing
        ``v``'s block (that block included when it reaches one); a phi operand counts
        as a use at the end of its predecessor."""
        if self._use_blocks is None:
            self._use_blocks = {}
            for blk in self.p.blocks:
                for inst in self.p.body[blk]:
                    if isinstance(inst, ops.Phi):
                        for pred, w in inst.incoming:
                            self._use_blocks.setdefault(w, set()).add(pred)
                    else:
                        for w in inst.operands():
                            self._use_blocks.setdefault(w, set()).add(blk)
        home = v.block
        region = set(self._use_blocks.get(v, ()))
        work = [blk for blk in region if blk is not home]
        while work:
            for p in self.p.preds[work.pop()]:
                if p not in region:
                    region.add(p)
                    if p is not home:
                        work.append(p)
        return region

    def _cycle_of(self, blk: Block) -> set[Block]:
        """The forward blocks on a cycle through ``blk`` (its outermost loop), or none."""
        if self._forest is None:
            self._forest = LoopForest(self.p.fwd)
        loops = self._forest.loops_of(blk)
        return loops[0].blocks if loops else set()


def fold_zero_adjoints(rev: Function, accumulations: set[ops.Add]) -> None:
    """Remove phis of adjoints that are zero on every path, and additions of a zero.

    An adjoint reset to zero in a loop of the reverse sweep meets the zero it started
    from at each loop header: cycles of phis whose only value is the shared zero
    (the SSA construction removes single trivial phis, not such cycles), after which
    ``0.0 + c`` remains, which LLVM does not fold without fast-math (-0.0 + 0.0 is
    +0.0). Both go here; the sign of a zero adjoint is not a gradient's concern.
    Additions of the primal computation (recomputed or not) are left alone: only
    ``accumulations`` are folded.
    """
    replace: dict[Value, Value] = {}
    for phi, found in _phi_leaves(rev).items():
        if len(found) == 1:
            (only,) = found
            if _is_zero(only):
                replace[phi] = only
    changed = True
    while changed:
        changed = False
        for add in list(accumulations):
            if add.block is None:
                continue
            lhs, rhs = replace.get(add.lhs, add.lhs), replace.get(add.rhs, add.rhs)
            if _is_zero(lhs):
                replace[add] = rhs
            elif _is_zero(rhs):
                replace[add] = lhs
            else:
                continue
            accumulations.discard(add)
            changed = True
    if replace:
        _replace_all(rev, replace)


def _phi_leaves(rev: Function) -> dict[ops.Phi, set[Value]]:
    """Each phi -> the values other than phis that reach it through phis (the search
    stops once two are found)."""
    phis = [inst for inst in rev.instructions() if isinstance(inst, ops.Phi)]
    leaves: dict[ops.Phi, set[Value]] = {}
    for phi in phis:
        found: set[Value] = set()
        seen = {phi}
        work: list[ops.Phi] = [phi]
        while work and len(found) <= 1:
            for _, v in work.pop().incoming:
                if isinstance(v, ops.Phi):
                    if v not in seen:
                        seen.add(v)
                        work.append(v)
                else:
                    found.add(v)
        leaves[phi] = found
    return leaves


def _replace_all(rev: Function, replace: dict[Value, Value]) -> None:
    """Replace every use of a key of ``replace`` (transitively), then erase the keys."""

    def final(v: Value) -> Value:
        while v in replace:
            v = replace[v]
        return v

    for inst in rev.instructions():
        if isinstance(inst, ops.Phi):
            inst.incoming = [(blk, final(v)) for blk, v in inst.incoming]
        else:
            for v in inst.operands():
                if v in replace:
                    inst.replace_operand(v, final(v))
    for v in replace:
        if isinstance(v, Instruction) and v.block is not None:
            v.erase()


def _is_zero(v: Value) -> bool:
    return isinstance(v, ops.Const) and isinstance(v.value, float) and v.value == 0.0
