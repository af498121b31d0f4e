"""What the forward sweep tapes, where, and how the reverse sweep gets every other value.

The reverse sweep of block ``B`` needs the forward values of some values (operands of
adjoint rules, array indices, shadows of local arrays): ``needs[B]``. For each such
value ``v`` the planner picks the cheapest way to have it at the start of ``R(B)``:

``const``
    a constant is rebuilt.
``induction``
    ``v`` is an induction variable ``i = phi [entry: start], [latch: i + step]`` of a
    *counted* loop containing ``B``: ``start + k·step``, ``k`` the iteration number the
    reverse sweep keeps (below).
``hoist``
    ``v`` is defined outside some loop containing ``B``: it cannot change while that
    loop runs, so it is pushed once each time the outermost such loop is left (at its
    exit points, :meth:`.loops.Loop.exit_points`), not once per iteration.
``recompute``
    a cheap pure instruction (integer arithmetic, casts, comparisons, float add, sub,
    mul and neg, tuple accesses, array dimensions) or a load that
    :class:`.memory.MemoryFacts` says may be repeated, whose operands are themselves
    available without a push of their own at ``B``: rebuilt in ``R(B)`` from them. In
    SSA form the operands' current values at ``B`` are the ones ``v`` was computed
    from (a definition that dominates ``B`` cannot run again before ``B`` without
    ``v``'s running again).
``here``
    pushed at the end of ``B`` (the general case).

A taped value is popped into an SSA variable of the reverse function at the block where
it was pushed; a read in ``R(B)`` sees the most recent pop, which is the first push
after ``B`` ran (a push at ``B`` itself, or at the exit of the hoisting loop, before the
value's definition can run again).

*Counted loops*: a loop whose header has exactly two predecessors, one entry from
outside and one latch, gets an iteration counter (``trip = phi [entry: 0], [latch: trip
+ 1]``) instead of a "which predecessor" token pushed per iteration: the counter is
pushed once at each exit point; the reverse of the header branches back to the latch
while it is positive, decrementing it, and leaves the loop when it is zero. Within the
reverse of the loop it is the forward iteration number, which recomputes induction
variables. A ``range`` loop — left only from its header, when ``i < n`` fails, ``i`` an
induction variable counting up by one from ``start``, ``n`` defined outside the loop —
pushes nothing when ``start`` and ``n`` come without a push at its exit (constants,
induction variables of an outer loop, hoisted values...): its trip count is
``max(n - start, 0)``, rebuilt there (a :class:`Trip`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Value
from gradc.compiler.ir.types import I64, ScalarType, TupleType
from gradc.passes.ad.loops import Loop, LoopForest
from gradc.passes.ad.memory import MemoryFacts
from gradc.passes.ad.rules.base import Rebuild
from gradc.passes.ad.rules.registry import rebuild_of

__all__ = [
    "DEFAULT_OPTIONS",
    "Counter",
    "Induction",
    "Recipe",
    "RecipeKind",
    "TapeOptions",
    "TapePlan",
    "Trip",
    "plan_tape",
]

#: The most instructions one recomputation in the reverse sweep may rebuild (GMM's
#: packed-triangle load ``icf[j, idx]`` rebuilds 13, its loop counters included).
MAX_RECOMPUTE = 16


@dataclass(frozen=True)
class TapeOptions:
    """Which of the planner's strategies are allowed (:data:`DEFAULT_OPTIONS`: what
    derivative exports use; switching one off shows what it saves, in tests and when
    measuring).

    Attributes:
        hoist: push loop-invariant values once per loop exit, not per iteration.
        count_loops: trip counts instead of per-iteration tokens; induction variables
            recomputed from them.
        reload: load again, in the reverse sweep, elements that cannot have changed.
        recompute: rebuild cheap pure values instead of taping them.
        budget: tape bytes per loop above which a long ``range`` loop runs in
            checkpointed segments (:mod:`.segments`); 0: every loop is taped whole.
    """

    hoist: bool = True
    count_loops: bool = True
    reload: bool = True
    recompute: bool = True
    budget: int = 0


#: What derivative exports use.
DEFAULT_OPTIONS = TapeOptions()


@dataclass(eq=False)
class Counter:
    """The iteration counter of a counted loop (its phi is inserted by the caller)."""

    loop: Loop
    entry: Block  # the header's predecessor outside the loop
    latch: Block  # the header's predecessor inside the loop
    phi: ops.Phi  # trip = phi [entry: 0], [latch: trip + 1]


@dataclass(frozen=True)
class Induction:
    """``v = start + counter·step`` in the reverse of a block of the counter's loop."""

    counter: ops.Phi
    start: Value
    step: Value


@dataclass(frozen=True)
class Trip:
    """The trip count of a ``range`` loop, ``max(bound - start, 0)``, at its exit."""

    counter: ops.Phi
    start: Value
    bound: Value


class RecipeKind(Enum):
    """How the reverse of a block obtains one forward value (:class:`Recipe`)."""

    TAPE = "tape"
    """Read the variable a pop wrote (pushed at the block, or hoisted)."""
    RECOMPUTE = "recompute"
    """Rebuild the instruction from its operands' values (or reload the element)."""
    INDUCTION = "induction"
    """``start + k·step`` from a counted loop's iteration number."""
    TRIP = "trip"
    """A ``range`` loop's trip count at its exit, which also sets the counter."""


class Source(Enum):
    """The planner's classification of a value the reverse of a block needs (the
    strategies of the module docstring, cheapest first)."""

    CONST = "const"
    COUNTER = "counter"  # a counted loop's counter: pushed at its exits, decremented by R(header)
    INDUCTION = "induction"
    HOIST = "hoist"
    RECOMPUTE = "recompute"
    HERE = "here"  # pushed at the end of the block


@dataclass(frozen=True)
class Recipe:
    """How ``R(B)`` obtains one forward value: ``kind`` (:class:`RecipeKind`), with
    ``induction`` set for :attr:`RecipeKind.INDUCTION` and ``trip`` for
    :attr:`RecipeKind.TRIP` (a counted loop's iteration counter at its exit, which also
    sets the counter's variable)."""

    kind: RecipeKind
    induction: Induction | None = None
    trip: Trip | None = None


@dataclass
class TapePlan:
    """The planner's answer.

    Attributes:
        pushes: values pushed at the end of each block, in push order.
        recipes: for each block, the forward values its reverse needs and how it gets
            them, operands before the values computed from them.
        counters: counted loops by header.
    """

    pushes: dict[Block, list[Value]] = field(default_factory=dict)
    recipes: dict[Block, dict[Value, Recipe]] = field(default_factory=dict)
    counters: dict[Block, Counter] = field(default_factory=dict)


def plan_tape(
    fn: Function,
    blocks: list[Block],
    needs: dict[Block, list[Value]],
    memory: MemoryFacts,
    options: TapeOptions = DEFAULT_OPTIONS,
) -> TapePlan:
    """Plan the tape of ``fn`` (critical edges split) whose reverse needs ``needs``.

    Args:
        fn: the forward function, before instrumentation.
        blocks: its blocks (those the reverse sweep mirrors).
        needs: for each block, the forward values its reverse reads.
        memory: which loads may be repeated (:class:`.memory.MemoryFacts`).
        options: the strategies allowed.
    """
    return _Planner(fn, blocks, memory, options).run(needs)


class _Planner:
    def __init__(
        self, fn: Function, blocks: list[Block], memory: MemoryFacts, options: TapeOptions
    ) -> None:
        self.options = options
        self.fn = fn
        self.blocks = blocks
        self.memory = memory
        self.forest = LoopForest(fn)
        self.preds = fn.predecessors()
        self.plan = TapePlan(pushes={b: [] for b in blocks}, recipes={b: {} for b in blocks})
        self.exits: dict[Loop, list[Block]] = {
            loop: loop.exit_points(fn, self.preds) for loop in self.forest.loops
        }
        self.inductions: dict[Value, tuple[Counter, Value, Value]] = {}
        self.trips: dict[Block, Trip] = {}  # exit point -> trip count rebuilt there
        if options.count_loops:
            for loop in self.forest.loops:
                self._count(loop)
        # per block (so that forgetting one block's is not a scan of all blocks')
        self._kinds: dict[Block, dict[Value, tuple[Source, frozenset[Value]]]] = {}
        self._no_reload: set[Block] = set()

    def run(self, needs: dict[Block, list[Value]]) -> TapePlan:
        for blk in self.blocks:
            values = needs.get(blk, [])
            if self.options.reload and not self._reload_pays(blk, values):
                self._forget(blk)
                self._no_reload.add(blk)
            for v in values:
                self._realize(blk, v)
        for point, trip in self.trips.items():
            if any(self._kind(point, w)[0] is Source.HERE for w in (trip.start, trip.bound)):
                self._push(point, trip.counter)  # rebuilding it would push more
                continue
            recipes = self.plan.recipes.setdefault(point, {})
            self._realize(point, trip.start)
            self._realize(point, trip.bound)
            recipes.pop(trip.counter, None)
            recipes[trip.counter] = Recipe(RecipeKind.TRIP, trip=trip)
        return self.plan

    def _reload_pays(self, blk: Block, values: list[Value]) -> bool:
        """Reload elements in ``R(blk)`` only when that leaves ``blk`` without a push of
        its own. Measured: a block that pushes anyway gains little from fewer pushes
        (GMM's inner loops reloading x and means next to a pushed ``icf[j, idx]``: 3.45x
        -> 3.65x), while a loop body left without any push is what pays, even when it
        loads more elements than it would have popped: its tape traffic is gone and the
        elements it reloads are mostly in cache (matvec's inner loop: 3.1x -> 2.3x; GMM,
        whose innermost loop reloads three elements for two pops: 3.3x -> 3.0x and a
        tape of 28 MB -> 2.6 MB per call)."""
        return not any(self._kind(blk, v)[0] is Source.HERE for v in values)

    def _forget(self, blk: Block) -> None:
        self._kinds.pop(blk, None)

    # -- counted loops ------------------------------------------------------------------

    def _count(self, loop: Loop) -> None:
        header = loop.header
        preds = self.preds[header]
        entries = loop.entries(self.preds)
        if len(preds) != 2 or len(entries) != 1 or len(loop.latches) != 1:
            return
        (entry,), (latch,) = entries, loop.latches
        if entry is latch:
            return
        phi = ops.Phi(type=I64, name="trip")
        phi.loc = header.instructions[0].loc if header.instructions else self.fn.loc
        counter = Counter(loop, entry, latch, phi)
        self.plan.counters[header] = counter
        for p in header.phis():
            assert isinstance(p, ops.Phi)
            if p.type != I64:
                continue
            start, nxt = p.value_for(entry), p.value_for(latch)
            if not isinstance(nxt, ops.Add) or nxt.type != I64:
                continue
            if nxt.lhs is p:
                step = nxt.rhs
            elif nxt.rhs is p:
                step = nxt.lhs
            else:
                continue
            if self._defined_in(step, loop):
                continue
            self.inductions[p] = (counter, start, step)
        trip = self._range_trip(loop, counter)
        if trip is not None:
            (point,) = self.exits[loop]
            self.trips[point] = trip
        else:
            for point in self.exits[loop]:
                self._push(point, phi)

    def _range_trip(self, loop: Loop, counter: Counter) -> Trip | None:
        """The trip count of ``loop`` as ``max(n - start, 0)``, when the loop is only
        left from its header, on ``i < n`` failing, with ``i`` an induction variable of
        step 1 from ``start`` and ``n`` defined outside the loop; else None."""
        header = loop.header
        term = header.terminator
        if not isinstance(term, ops.Branch) or len(self.exits[loop]) != 1:
            return None
        if [src for src, _ in loop.exit_edges(self.fn)] != [header]:
            return None
        if term.if_true not in loop.blocks or term.if_false in loop.blocks:
            return None
        cond = term.cond
        if not isinstance(cond, ops.Cmp) or cond.pred != "lt" or cond.lhs.type != I64:
            return None
        found = self.inductions.get(cond.lhs)
        if found is None or found[0] is not counter:
            return None
        _, start, step = found
        if not (isinstance(step, ops.Const) and step.value == 1):
            return None
        if self._defined_in(cond.rhs, loop) or cond.rhs.type != I64:
            return None
        return Trip(counter.phi, start, cond.rhs)

    # -- classification ------------------------------------------------------------------

    def _defined_in(self, v: Value, loop: Loop) -> bool:
        return isinstance(v, Instruction) and v.block in loop.blocks

    def _hoisting_loop(self, blk: Block, v: Value) -> Loop | None:
        """The outermost loop containing ``blk`` but not ``v``'s definition."""
        if not self.options.hoist:
            return None
        for loop in self.forest.loops_of(blk):
            if not self._defined_in(v, loop):
                return loop
        return None

    def _induction(self, blk: Block, v: Value) -> tuple[Counter, Value, Value] | None:
        found = self.inductions.get(v)
        if found is not None and blk in found[0].loop.blocks:
            return found
        return None

    def _operands(self, blk: Block, v: Instruction) -> list[Value] | None:
        """The values rebuilding ``v`` takes, or None when ``v`` is not rebuilt (its
        rule's :class:`.rules.base.Rebuild`)."""
        t = v.type
        how = rebuild_of(v)
        if how is Rebuild.RELOAD:
            assert isinstance(v, ops.Load)
            pointer = v.pointer
            if (
                self.options.reload
                and blk not in self._no_reload
                and isinstance(pointer, ops.ElementAddr)
                # the forward elemaddr checked the indices: the reload wraps a negative
                # one as it did and checks none (ReverseSweep.checked_address)
                and self.memory.reloadable(v)
            ):
                return [pointer.array, *pointer.indices]
            return None
        if not self.options.recompute:
            return None
        match how:
            case Rebuild.ALWAYS:
                return v.operands()
            case Rebuild.SCALAR_TUPLE:
                scalar = isinstance(t, ScalarType) or (
                    isinstance(t, TupleType) and all(isinstance(e, ScalarType) for e in t.elements)
                )
                return v.operands() if scalar else None
            case Rebuild.SCALAR if isinstance(t, ScalarType):
                return v.operands()
            case Rebuild.INTEGER if isinstance(t, ScalarType) and not t.is_float:
                return v.operands()
        return None

    def _kind(self, blk: Block, v: Value) -> tuple[Source, frozenset[Value]]:
        """How ``R(blk)`` gets ``v``, and the instructions that rebuilds."""
        known = self._kinds.setdefault(blk, {})
        if v in known:
            return known[v]
        kind: tuple[Source, frozenset[Value]]
        if isinstance(v, ops.Const):
            kind = (Source.CONST, frozenset())
        elif any(v is c.phi for c in self.plan.counters.values()):
            kind = (Source.COUNTER, frozenset())
        elif self._induction(blk, v) is not None:
            kind = (Source.INDUCTION, frozenset({v}))
        elif self._hoisting_loop(blk, v) is not None:
            kind = (Source.HOIST, frozenset())
        else:
            kind = (Source.HERE, frozenset())
            operands = self._operands(blk, v) if isinstance(v, Instruction) else None
            if operands is not None:
                rebuilt: set[Value] = {v}
                for w in operands:
                    k, more = self._kind(blk, w)
                    if k is Source.HERE:
                        break
                    rebuilt |= more
                else:
                    if len(rebuilt) <= MAX_RECOMPUTE:
                        kind = (Source.RECOMPUTE, frozenset(rebuilt))
        self._kinds.setdefault(blk, {})[v] = kind
        return kind

    # -- decisions -----------------------------------------------------------------------

    def _push(self, blk: Block, v: Value) -> None:
        pushes = self.plan.pushes.setdefault(blk, [])
        if v not in pushes:
            pushes.append(v)

    def _realize(self, blk: Block, v: Value) -> None:
        recipes = self.plan.recipes.setdefault(blk, {})
        if v in recipes:
            return
        kind, _ = self._kind(blk, v)
        match kind:
            case Source.CONST:
                return
            case Source.COUNTER:
                recipes[v] = Recipe(RecipeKind.TAPE)
            case Source.INDUCTION:
                found = self._induction(blk, v)
                assert found is not None
                counter, start, step = found
                for w in (counter.phi, start, step):
                    self._realize(blk, w)
                recipes[v] = Recipe(RecipeKind.INDUCTION, Induction(counter.phi, start, step))
            case Source.HOIST:
                loop = self._hoisting_loop(blk, v)
                assert loop is not None
                for point in self.exits[loop]:
                    self._push(point, v)
                recipes[v] = Recipe(RecipeKind.TAPE)
            case Source.RECOMPUTE:
                assert isinstance(v, Instruction)
                operands = self._operands(blk, v)
                assert operands is not None
                for w in operands:
                    self._realize(blk, w)
                recipes[v] = Recipe(RecipeKind.RECOMPUTE)
            case Source.HERE:
                self._push(blk, v)
                recipes[v] = Recipe(RecipeKind.TAPE)
