"""The augmented forward sweep of reverse mode (:mod:`.reverse`): shadows, what each
block's reverse needs, and the tape pushes.

* :func:`make_shadows`: a zeroed shadow beside each active local array (``newarray``,
  ``copyarray``, an array a call returns), and for array phis and casts (other names of
  arrays) the shadows or *selectors* the reverse sweep finds theirs with;
* :func:`block_needs`: the forward values the reverse of a block reads — operands and
  results its adjoint rules read (:func:`.rules.needs_of`), array indices, shadows of
  local arrays — which :mod:`.taping` then tapes, reloads or recomputes;
* :func:`instrument`: the pushes :mod:`.taping` planned, at the end of each block;
  before a join, the index of the predecessor it came from; the trip counters of
  counted loops; calls of active callees become calls of their forward sweeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.dominance import reverse_postorder
from gradc.compiler.ir.types import I64, NONE, ArrayType
from gradc.passes.ad.rules import needs_of
from gradc.passes.ad.sweep_state import Primal, Shadows, not_differentiable, returns
from gradc.passes.ad.taping import TapePlan
from gradc.passes.ad.views import VIEWS, view_operands, view_shadow
from gradc.passes.analysis.pointers import array_sources


def make_shadows(p: Primal) -> Shadows:
    """The shadows of ``p``'s active local arrays and aliases, inserted into ``p.fwd``.

    Raises:
        NotDifferentiable: an active array made by an operation without a shadow rule.
    """
    found = Shadows()
    b = Builder(p.fwd)
    # dominators first: a view's base gets its shadow before the view (lower-arrays
    # appends the rest of a split block after blocks that it dominates)
    order = [blk for blk in reverse_postorder(p.fwd.entry) if blk in p.body]
    reached = set(order)
    for block in [*order, *(blk for blk in p.blocks if blk not in reached)]:
        for inst in p.body[block]:
            if not p.active(inst) or not isinstance(inst.type, ArrayType):
                continue
            if isinstance(inst, ops.NewArray | ops.CopyArray):
                b.position_before(block.instructions[block.instructions.index(inst) + 1])
                with b.at(inst.loc):
                    t = inst.type
                    assert isinstance(t, ArrayType)
                    shape = (
                        inst.shape
                        if isinstance(inst, ops.NewArray)
                        else tuple(b.insert(ops.ArrayDim(inst, k, type=I64)) for k in range(t.ndim))
                    )
                    found.shadows[inst] = b.insert(
                        ops.NewArray(shape, b.const(0.0, t.dtype), type=t, name="shadow")
                    )
            elif isinstance(inst, ops.Call) and inst in p.activity.call_patterns:
                # a zeroed shadow of the returned array: the reverse sweep adds the
                # adjoints of its elements there and hands it to the callee's reverse
                b.position_before(block.instructions[block.instructions.index(inst) + 1])
                with b.at(inst.loc):
                    t = inst.type
                    assert isinstance(t, ArrayType)
                    dims = tuple(b.insert(ops.ArrayDim(inst, k, type=I64)) for k in range(t.ndim))
                    found.shadows[inst] = b.insert(
                        ops.NewArray(
                            dims,
                            b.const(0.0, t.dtype),
                            type=ArrayType(t.dtype, t.ndim, "C"),
                            name="shadow",
                        )
                    )
            elif isinstance(inst, VIEWS):
                view_shadow(p, found, b, inst)
            elif not isinstance(inst, ops.Phi | ops.Cast):
                raise not_differentiable(f"'{inst.OPNAME}' producing an array", inst)
    _AliasShadows(p, found).run()
    return found


class _AliasShadows:
    """Shadows of array phis and layout casts: other names of arrays.

    The shadow of an array phi is the phi of its incoming arrays' shadows. Shadows of
    local arrays are forward values, but a parameter's lives in the reverse function
    only; so where parameters reach an alias ``v``, the forward sweep keeps an integer
    *selector* ``which(v)`` beside it (the index of the parameter ``v`` is, or -1 for a
    local array) and, where local arrays reach ``v`` too, a phi of their shadows
    (``shadows[v]``; where a parameter came in, it holds the incoming array itself: a
    tracked array the reverse sweep never uses as a shadow). The reverse sweep rebuilds
    the shadow from the popped selector. Only tracked arrays and integers cross the gap,
    never a derived pointer.
    """

    def __init__(self, p: Primal, found: Shadows) -> None:
        self.found = found
        self.b = Builder(p.fwd)
        self.aliases = [
            inst
            for block in p.blocks
            for inst in p.body[block]
            if isinstance(inst, ops.Phi | ops.Cast)
            and isinstance(inst.type, ArrayType)
            and p.active(inst)
        ]
        self.params: dict[Value, list[Argument]] = {}
        self.has_local: dict[Value, bool] = {}
        self.done: set[Value] = set()

    def run(self) -> None:
        found = self.found
        for v in self.aliases:
            roots = [r for r in array_sources(v) if not isinstance(r, ops.Phi | ops.Cast)]
            for r in roots:
                if not isinstance(r, Argument) and r not in found.shadows:
                    raise not_differentiable("an array whose shadow cannot be found", r)
            params = {r for r in roots if isinstance(r, Argument)}
            self.params[v] = sorted(params, key=lambda a: a.index)
            self.has_local[v] = any(not isinstance(r, Argument) for r in roots)
        found.alias_params = {v: ps for v, ps in self.params.items() if ps}
        # phis first: they may be cyclic (an array variable carried around a loop)
        for v in self.aliases:
            if isinstance(v, ops.Phi):
                self._phis(v)
        for v in self.aliases:
            if isinstance(v, ops.Cast):
                self._cast(v)
        for v in self.aliases:
            if isinstance(v, ops.Phi):
                self._incoming(v)

    def _phis(self, v: ops.Phi) -> None:
        """The (empty) selector and shadow phis beside array phi ``v``."""
        block = v.block
        assert block is not None
        if self.params[v]:
            which = ops.Phi(type=I64, name="which")
            which.loc = v.loc
            block.insert(len(block.phis()), which)
            self.found.selectors[v] = which
        if self.has_local[v]:
            shadow = ops.Phi(type=v.type, name="shadow")
            shadow.loc = v.loc
            block.insert(len(block.phis()), shadow)
            self.found.shadows[v] = shadow

    def _selector(self, w: Value, at: Instruction) -> Value:
        """``which(w)`` as a forward value, constants placed before ``at``."""
        if w in self.found.selectors:
            return self.found.selectors[w]
        self.b.position_before(at)
        with self.b.at(at.loc):
            return self.b.const(w.index if isinstance(w, Argument) else -1, I64)

    def _local_shadow(self, w: Value) -> Value:
        """The forward array in ``w``'s place in the phi of local shadows."""
        return self.found.shadows.get(w, w)

    def _cast(self, v: ops.Cast) -> None:
        if v in self.done:
            return
        self.done.add(v)
        w = v.operands()[0]
        if isinstance(w, ops.Cast) and w in self.params:
            self._cast(w)
        block = v.block
        assert block is not None
        after = block.instructions[block.instructions.index(v) + 1]
        if self.params[v]:
            self.found.selectors[v] = self._selector(w, after)
        if self.has_local[v]:
            self.b.position_before(after)
            with self.b.at(v.loc):
                self.found.shadows[v] = self.b.insert(ops.Cast(self._local_shadow(w), type=v.type))

    def _incoming(self, v: ops.Phi) -> None:
        """The incoming values of the selector and shadow phis of ``v``."""
        for pred, w in v.incoming:
            term = pred.terminator
            assert term is not None
            merged_which = self.found.selectors.get(v)
            if isinstance(merged_which, ops.Phi):
                merged_which.incoming.append((pred, self._selector(w, term)))
            merged_shadow = self.found.shadows.get(v)
            if isinstance(merged_shadow, ops.Phi):
                merged_shadow.incoming.append((pred, self._local_shadow(w)))


# -- what the reverse of each block reads ----------------------------------------------


@dataclass
class BlockNeeds:
    """The forward values the reverse of one block reads, in first-use order.

    Attributes:
        values: forward values (operands, results, indices, shadows, selectors).
        aliases: aliases whose shadows the reverse rebuilds from their selectors.
    """

    values: list[Value] = field(default_factory=list)
    aliases: list[Value] = field(default_factory=list)

    def add(self, v: Value) -> None:
        """Need ``v`` (constants are rebuilt, never taped)."""
        if not isinstance(v, ops.Const) and v not in self.values:
            self.values.append(v)


class _Planner:
    """Plans :class:`BlockNeeds` with the shadows of ``p``."""

    def __init__(self, p: Primal, shadows: Shadows) -> None:
        self.p = p
        self.shadows = shadows

    def shadow_needed(self, array: Value, plan: BlockNeeds) -> None:
        """Make the shadow of ``array`` available to the reverse sweep of this block."""
        s = self.shadows
        if isinstance(array, Argument):
            return  # a parameter's shadow is a parameter of the reverse function
        if array in s.views:  # rebuilt from the base's shadow and the view's indices
            for v in view_operands(array):
                plan.add(v)
            self.shadow_needed(array.array, plan)  # type: ignore[attr-defined]
            return
        if array in s.selectors:
            plan.add(s.selectors[array])
            if array not in plan.aliases:
                plan.aliases.append(array)
        elif array not in s.shadows:
            raise not_differentiable("an array whose shadow cannot be found", array)
        if array in s.shadows:
            plan.add(s.shadows[array])

    def address(self, pointer: Value, plan: BlockNeeds) -> None:
        """The indices and the shadow the reverse of an access through ``pointer`` reads."""
        if not isinstance(pointer, ops.ElementAddr):
            raise not_differentiable("a derived pointer that is not an element address", pointer)
        for index in pointer.indices:
            plan.add(index)
        self.shadow_needed(pointer.array, plan)

    def block(self, block: Block) -> BlockNeeds:
        plan = BlockNeeds()
        p = self.p
        for inst in p.body[block]:
            if isinstance(inst, ops.Store | ops.AtomicAdd):
                if p.active(inst.pointer):
                    self.address(inst.pointer, plan)
            elif isinstance(inst, ops.Return):
                value = inst.value
                if value is not None and isinstance(value.type, ArrayType) and p.active(value):
                    if any(isinstance(r, Argument) for r in array_sources(value)):
                        # the caller's result would alias its argument, with shadows apart
                        raise not_differentiable("a returned array that may be a parameter", inst)
                    self.shadow_needed(value, plan)  # the caller's adjoints flow into it
            elif p.differentiated(inst) and not isinstance(inst, ops.Phi):
                rule = _NEEDS.get(inst)
                if rule is not None:
                    rule(self, inst, plan)
                else:
                    operands, result = needs_of(inst, p.active)
                    for v in operands:
                        plan.add(v)
                    if result:
                        plan.add(inst)
        return plan


_NeedsRule = Callable[[_Planner, Instruction, BlockNeeds], None]

#: What the reverse of the operations whose adjoints go through shadows reads (the
#: others: their rule's :func:`.rules.needs_of`).
_NEEDS: OpTable[_NeedsRule] = OpTable("reverse-mode needs")


@_NEEDS.register(ops.Load)
def _load(planner: _Planner, inst: Instruction, plan: BlockNeeds) -> None:
    assert isinstance(inst, ops.Load)
    planner.address(inst.pointer, plan)


@_NEEDS.register(ops.ElementAddr)
def _element_addr(planner: _Planner, inst: Instruction, plan: BlockNeeds) -> None:
    pass  # the load or store through it plans its indices


@_NEEDS.register(ops.NewArray)
def _new_array(planner: _Planner, inst: Instruction, plan: BlockNeeds) -> None:
    assert isinstance(inst, ops.NewArray)
    if inst.fill is not None and planner.p.active(inst.fill):
        planner.shadow_needed(inst, plan)  # np.full: Σ shadow flows to fill


@_NEEDS.register(ops.CopyArray)
def _copy_array(planner: _Planner, inst: Instruction, plan: BlockNeeds) -> None:
    assert isinstance(inst, ops.CopyArray)
    # an inactive source (an array of constants copied, the copy then made active by a
    # store) has no shadow: its adjoint is not wanted (``rules/arrays.py``)
    source, s = inst.array, planner.shadows
    if planner.p.active(source) or source in s.shadows or source in s.selectors:
        planner.shadow_needed(source, plan)
    planner.shadow_needed(inst, plan)


@_NEEDS.register(ops.Call)
def _call(planner: _Planner, inst: Instruction, plan: BlockNeeds) -> None:
    assert isinstance(inst, ops.Call)
    for a in inst.args:
        if planner.p.active(a) and isinstance(a.type, ArrayType):
            planner.shadow_needed(a, plan)
    if planner.p.active(inst) and isinstance(inst.type, ArrayType):
        planner.shadow_needed(inst, plan)


def block_needs(p: Primal, shadows: Shadows) -> dict[Block, BlockNeeds]:
    """What the reverse of each block of ``p`` reads (nothing for a block that cannot
    reach a return: its reverse never runs).

    Raises:
        NotDifferentiable: an access whose shadow cannot be found, or a returned array
            that may be a parameter.
    """
    planner = _Planner(p, shadows)
    return {b: planner.block(b) if b in p.returning else BlockNeeds() for b in p.blocks}


# -- pushes ------------------------------------------------------------------------------


def instrument(p: Primal, plan: TapePlan) -> None:
    """Make ``p.fwd`` the forward sweep: the trip counters and pushes of ``plan``, the
    predecessor indices pushed before joins (and the return index where there are several
    returns), and calls of active callees turned into calls of their forward sweeps."""
    b = Builder(p.fwd)
    ret_blocks = p.return_blocks()
    counters = plan.counters
    for header, counter in counters.items():
        # trip = phi [entry: 0], [latch: trip + 1]
        header.insert(len(header.phis()), counter.phi)
        entry_term, latch_term = counter.entry.terminator, counter.latch.terminator
        assert entry_term is not None and latch_term is not None
        b.position_before(entry_term)
        with b.at(entry_term.loc):
            start = b.const(0, I64)
        b.position_before(latch_term)
        with b.at(latch_term.loc):
            nxt = b.add(counter.phi, b.const(1, I64))
        counter.phi.incoming = [(counter.entry, start), (counter.latch, nxt)]
    for block in p.blocks:
        term = block.terminator
        assert term is not None
        b.position_before(term)
        with b.at(term.loc):
            for v in plan.pushes.get(block, []):
                b.insert(ops.TapePush(p.tape, v, type=NONE))
            succs = block.successors()
            if len(succs) == 1 and succs[0] in counters:
                pass  # the loop's trip count tells the reverse sweep where it came from
            elif len(succs) == 1 and len(p.preds[succs[0]]) > 1 and succs[0] in p.returning:
                which = p.preds[succs[0]].index(block)
                b.insert(ops.TapePush(p.tape, b.const(which, I64), type=NONE))
            if returns(block) and len(ret_blocks) > 1:
                b.insert(ops.TapePush(p.tape, b.const(ret_blocks.index(block), I64), type=NONE))
    for block in p.blocks:
        for inst in p.body[block]:
            if isinstance(inst, ops.Call) and inst in p.activity.call_patterns:
                derived = p.callee(inst)
                inst.callee = derived.fwd.name
                inst.args = (*inst.args, p.tape)
