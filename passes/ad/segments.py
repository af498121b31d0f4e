"""Bounded-memory reverse mode for long loops: checkpointed segments (``--tape-budget``).

A reverse sweep tapes every iteration of a loop, so a loop of ``n`` steps holds ``n``
iterations' values at once. Within a tape budget ``B`` (bytes, per loop), reverse mode
derives from a copy of ``f`` in which every *segmentable* loop runs one of two ways,
chosen at loop entry from its trip count ``T`` (known there: a ``range`` loop):

* ``T·b <= B`` (``b``: a static estimate of the bytes one iteration tapes, below): the
  loop as written, taped as usual;
* otherwise the loop is strip-mined into segments of ``c = max(isqrt(T), 1)`` iterations,
  and each segment is a call of ``f.seg.<header>`` — the loop itself
  outlined, run from a given loop-carried state up to a given bound, returning the state
  at its end — registered as a ``@gradc.checkpoint`` helper (:mod:`.checkpoint`). The
  forward sweep pushes each segment's entry state (the loop's header phis: scalars) and
  tapes nothing inside it; the reverse sweep, segment by segment from the last, runs it
  again taping its iterations and reverses them at once.

This is the simple two-level ``sqrt(n)`` scheme of Griewank & Walther, *Evaluating
Derivatives* (2nd ed., SIAM 2008), §12.3 (a one-level checkpointing schedule; their
binomial ``revolve`` schedule is not used): for ``T`` iterations, the tape holds ``T/c``
snapshots and one segment's ``c`` iterations at a time — O(sqrt(T)) instead of O(T) —
and every iteration runs forward twice (once more than with full taping). Of a loop
nest, the outermost segmentable loop is segmented, not the loops inside it (a segment
recomputing an outer loop's iterations tapes its inner loops whole): each level would
double the nest's code.

``b`` is 8 bytes per instruction of the loop (a callee's instructions counted at its
call, one level deep), 8 KiB per inner loop it contains: an upper estimate of one
iteration's pushes, which need not be exact (it only decides where segments start).

A loop is segmentable when it is a counted ``range`` loop — its header's one entry and
one latch, left only where ``i < n`` fails at the header (``i`` counting up by one, ``n``
computed before the loop), no ``break``/``return`` out of it (blocks that only raise may
be left to) — that writes no array (no stores, no calls that may write an argument),
whose loop-carried values are scalars, whose other inputs are scalars or arrays that
nothing writes before the reverse sweep (the segments push them by reference: a copy
per segment could outgrow the tape it saves), that calls nothing reaching ``f``, and
whose segment call makes no value active that was not (:func:`segment_loops`). Other loops (``while``
loops, whose trip count is not known at entry, loops with ``break`` or that write
arrays) are taped whole, as before: never a different derivative.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import clone_function, remap
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.types import F64, I64, ArrayType, ScalarType, TupleType
from gradc.passes.ad.activity import analyze
from gradc.passes.ad.checkpoint import register
from gradc.passes.ad.loops import Loop, LoopForest
from gradc.passes.ad.memory import MemoryFacts, callee_writes

__all__ = ["SEGMENT", "segment_loops"]

#: The infix of a segment function's name: ``f.seg.<loop header label>``.
SEGMENT = ".seg."

#: Estimated tape bytes per loop instruction, and per inner loop (see the module doc).
_BYTES_PER_INST = 8
_BYTES_PER_INNER_LOOP = 8192

#: Operations that may run in a segment although they have side effects.
_ALLOWED_EFFECTS = (ops.Call, ops.Raise, ops.RaiseFormat)


@dataclass
class _Shape:
    """A segmentable loop of the function being rewritten."""

    loop: Loop
    entry: Block  # the header's predecessor outside the loop
    exit: Block  # where the header's exit edge goes (its only predecessor)
    cond: ops.Cmp  # iv < bound, the header's branch condition
    bound: Value
    region: list[Block]  # the loop's blocks and the blocks that only raise
    inputs: list[Value]  # values from outside the region it uses (not constants)
    cost: int  # estimated tape bytes per iteration


def segment_loops(
    module: Module, fn: Function, budget: int, pattern: frozenset[int], frozen: frozenset[int]
) -> Function | None:
    """A copy of ``fn`` (same name, not added to ``module``) whose segmentable loops run
    in checkpointed segments when their taped iterations would exceed ``budget`` bytes;
    None when ``fn`` has no segmentable loop. The segment functions (``f.seg.<label>``)
    are added to ``module`` and registered ``@gradc.checkpoint``.

    ``pattern``: the active parameters. A loop is left as it is where the segment call
    would make a value active that is not (activity flows into every array argument of
    a call, and out of its result into every loop-carried value): that could ask for
    adjoints of operations that have none. ``frozen``: the array parameters the caller
    does not write before the reverse sweep.
    """
    out = clone_function(fn, fn.name).function
    done: set[str] = set()  # header labels (clones keep them)
    segmented: set[str] = set()
    changed = False
    while True:
        forest = LoopForest(out)
        pending = [
            lp
            for lp in forest.loops  # outermost first; none inside a segmented one
            if lp.header.label not in done and not _ancestors(lp) & segmented
        ]
        if not pending:
            return out if changed else None
        done.add(pending[0].header.label)
        if _shape(module, fn, out, pending[0], forest) is None:
            continue  # (cheaply) before copying the function
        trial = clone_function(out, fn.name)
        tforest = LoopForest(trial.function)
        loop = tforest.loops_of(trial.blocks[pending[0].header])[-1]
        shape = _shape(module, fn, trial.function, loop, tforest)
        if shape is None:
            continue
        seg, made, call = _rewrite(module, fn, trial.function, shape, budget)
        if _activity_grows(out, trial.values, trial.function, pattern) or _copies_arrays(
            module, fn, trial.function, call, frozen
        ):
            continue
        done.update(made)
        segmented.add(pending[0].header.label)
        if seg.name not in module.functions:
            module.add(seg)
            register(module, seg.name)
        out, changed = trial.function, True


def _ancestors(loop: Loop) -> set[str]:
    """The header labels of the loops containing ``loop``."""
    out: set[str] = set()
    while loop.parent is not None:
        loop = loop.parent
        out.add(loop.header.label)
    return out


def _activity_grows(
    out: Function, values: dict[Value, Value], trial: Function, pattern: frozenset[int]
) -> bool:
    """Is a value of ``out`` inactive whose copy in ``trial`` is active?"""
    before, after = analyze(out, pattern), analyze(trial, pattern)
    return any(v not in before and twin in after for v, twin in values.items())


def _shape(
    module: Module,
    fn: Function,
    out: Function,
    loop: Loop,
    forest: LoopForest,
) -> _Shape | None:
    """``loop`` as a :class:`_Shape`, or None when it is not segmentable."""
    preds = out.predecessors()
    entries = loop.entries(preds)
    header = loop.header
    term = header.terminator
    if len(entries) != 1 or len(loop.latches) != 1 or not isinstance(term, ops.Branch):
        return None
    cond, exit_ = term.cond, term.if_false
    if term.if_true not in loop.blocks or exit_ in loop.blocks or preds[exit_] != [header]:
        return None
    phis = header.phis()
    if not (isinstance(cond, ops.Cmp) and cond.pred == ops.CmpPred.LT and cond.lhs in phis):
        return None
    iv = cond.lhs
    assert isinstance(iv, ops.Phi)
    step = iv.value_for(loop.latches[0])
    if not (
        isinstance(step, ops.Add)
        and step.lhs is iv
        and isinstance(step.rhs, ops.Const)
        and step.rhs.value == 1
        and iv.type == I64
        and _outside(cond.rhs, loop.blocks)
    ):
        return None
    region = _region(out, loop, preds, exit_)
    if region is None or not all(isinstance(p.type, ScalarType) for p in phis):
        return None
    if not _escapes_ok(out, loop, region, phis, cond) or not _pure(module, fn, region):
        return None
    inputs = _inputs(region, header, entries[0], cond)
    if not all(isinstance(v.type, ScalarType | ArrayType) for v in inputs):
        return None
    return _Shape(
        loop, entries[0], exit_, cond, cond.rhs, region, inputs, _cost(module, loop, forest)
    )


def _outside(value: Value, blocks: set[Block]) -> bool:
    return not isinstance(value, Instruction) or value.block not in blocks


def _region(
    fn: Function, loop: Loop, preds: dict[Block, list[Block]], exit_: Block
) -> list[Block] | None:
    """The loop's blocks and the blocks outside it that it alone enters and that end in
    a raise (an error inside an iteration); None when it is left any other way."""
    extra: set[Block] = set()
    for x, e in loop.exit_edges(fn):
        if e is exit_ and x is loop.header:
            continue
        term = e.terminator
        if not isinstance(term, ops.Raise | ops.RaiseFormat) or any(
            p not in loop.blocks for p in preds[e]
        ):
            return None
        extra.add(e)
    return [b for b in fn.blocks if b in loop.blocks or b in extra]


def _escapes_ok(
    fn: Function, loop: Loop, region: list[Block], phis: list[Instruction], cond: ops.Cmp
) -> bool:
    """Only the header's phis are used after the loop."""
    inside = set(region)
    defined = {i for b in region for i in b.instructions if i not in phis}
    for blk in fn.blocks:
        if blk in inside:
            continue
        if any(v in defined for inst in blk.instructions for v in inst.operands()):
            return False
    return cond in defined


def _pure(module: Module, fn: Function, region: list[Block]) -> bool:
    """The region writes no array and calls nothing that does or that reaches ``fn``."""
    for blk in region:
        for inst in blk.instructions:
            if isinstance(inst, ops.Call):
                if inst.callee not in module.functions:
                    return False
                reached = callee_writes(module, inst.callee)
                if fn.name in reached or reached[inst.callee]:
                    return False
            elif inst.HAS_SIDE_EFFECTS and not isinstance(inst, _ALLOWED_EFFECTS):
                return False
    return True


def _inputs(region: list[Block], header: Block, entry: Block, cond: ops.Cmp) -> list[Value]:
    """Values defined outside ``region`` that it uses, constants aside, except the
    header phis' initial values and the bound ``cond`` compares with (each of those
    counts when used elsewhere in the region)."""
    inside = {i for b in region for i in b.instructions}
    seen: dict[Value, None] = {}
    for blk in region:
        for inst in blk.instructions:
            if isinstance(inst, ops.Phi) and blk is header:
                used = [v for b, v in inst.incoming if b is not entry]
            elif inst is cond:
                used = [cond.lhs]
            else:
                used = inst.operands()
            for v in used:
                if v not in inside and not isinstance(v, ops.Const):
                    seen[v] = None
    return list(seen)


def _copies_arrays(
    module: Module, fn: Function, trial: Function, call: ops.Call, frozen: frozenset[int]
) -> bool:
    """Would the checkpoint copy an array argument of the segment ``call`` in ``trial``
    (one written before the reverse sweep: each segment would hold a copy)?"""
    writes = callee_writes(module, fn.name)
    for inst in trial.instructions():
        if isinstance(inst, ops.Call) and SEGMENT in inst.callee:
            writes.setdefault(inst.callee, set())  # segments write no array
    facts = MemoryFacts(trial, {b: list(b.instructions) for b in trial.blocks}, frozen, writes)
    kept = facts.frozen_args(call)
    return any(isinstance(a.type, ArrayType) and k not in kept for k, a in enumerate(call.args))


def _cost(module: Module, loop: Loop, forest: LoopForest) -> int:
    """Estimated tape bytes of one iteration of ``loop`` (module doc)."""
    insts = 0
    for blk in loop.blocks:
        for inst in blk.instructions:
            insts += 1
            if isinstance(inst, ops.Call) and inst.callee in module.functions:
                insts += sum(1 for _ in module.functions[inst.callee].instructions())
    inner = sum(1 for lp in forest.loops if lp.parent is loop)
    return insts * _BYTES_PER_INST + inner * _BYTES_PER_INNER_LOOP


def _rewrite(
    module: Module, fn: Function, out: Function, s: _Shape, budget: int
) -> tuple[Function, set[str], ops.Call]:
    """Outline ``s``'s loop into its segment function and add, in ``out``, the run-time
    choice between the loop as written and the segmented loop. Returns the segment
    function, the header label of the segmented loop (not to be segmented again) and
    the segment call."""
    seg = _outline(module, fn, s)
    header = s.loop.header
    phis = header.phis()
    iv = [p is s.cond.lhs for p in phis].index(True)
    dispatch, outer, body, join = (
        out.add_block(f"seg.{n}") for n in ("entry", "head", "body", "join")
    )
    s.entry.terminator.replace_successor(header, dispatch)  # type: ignore[union-attr]
    inits = []
    for phi in phis:
        assert isinstance(phi, ops.Phi)
        inits.append(phi.value_for(s.entry))
        phi.replace_block(s.entry, dispatch)
    b = Builder(out)
    with b.at(header.instructions[0].loc):
        b.position_at_end(dispatch)
        limit = b.const(max(budget // max(s.cost, 1), 1), I64)
        trips = b.binary(ops.Max, b.sub(s.bound, inits[iv]), b.const(0, I64))
        root = b.cast(b.math("sqrt", b.cast(trips, F64)), I64)
        width = b.binary(ops.Max, root, b.const(1, I64))
        b.branch(b.cmp("le", trips, limit), header, outer)
        b.position_at_end(outer)
        carried = [b.phi(p.type, p.name) for p in phis]
        b.branch(b.cmp("lt", carried[iv], s.bound), body, join)
        b.position_at_end(body)
        hi = b.binary(ops.Min, b.add(carried[iv], width), s.bound)
        state = b.call(seg.name, [*carried, hi, *s.inputs], seg.return_type)
        for k, phi in enumerate(carried):
            phi.incoming = [(dispatch, inits[k]), (body, b.tuple_get(state, k))]
        b.jump(outer)
        b.position_at_end(join)
        merged = [b.phi(p.type, p.name) for p in phis]
        for k, phi in enumerate(merged):
            phi.incoming = [(header, phis[k]), (outer, carried[k])]
        b.jump(s.exit)
    header.terminator.replace_successor(s.exit, join)  # type: ignore[union-attr]
    for phi in s.exit.phis():
        assert isinstance(phi, ops.Phi)
        phi.replace_block(header, join)
    keep = set(s.region) | {join}
    for blk in out.blocks:
        if blk not in keep:
            for inst in blk.instructions:
                for old, new in zip(phis, merged, strict=True):
                    inst.replace_operand(old, new)
    assert isinstance(state, ops.Call)
    return seg, {outer.label}, state


def _outline(module: Module, fn: Function, s: _Shape) -> Function:
    """The segment function of ``s`` (the module's, when made before; else a new one,
    not added to it): parameters the header phis' values at segment entry, the bound,
    then ``s.inputs``; it runs the loop while ``i < bound`` and returns the header phis'
    values as a tuple."""
    header = s.loop.header
    phis = header.phis()
    name = f"{fn.name}{SEGMENT}{header.label}"
    if name in module.functions:
        return module.functions[name]
    seg = Function(
        name,
        return_type=TupleType(tuple(p.type for p in phis)),
        loc=fn.loc,
        source_name=fn.source_name,
    )
    params = [*phis, s.bound, *s.inputs]
    for k, v in enumerate(params):
        seg.params.append(Argument(type=v.type, name=v.name, index=k))
    values: dict[Value, Value] = dict(zip(s.inputs, seg.params[len(phis) + 1 :], strict=True))
    entry = seg.add_block("entry")
    blocks = {blk: seg.add_block(blk.label) for blk in s.region}
    done = seg.add_block("seg.done")
    blocks[s.entry], blocks[s.exit] = entry, done
    for blk in s.region:
        for inst in blk.instructions:
            twin = copy.copy(inst)
            twin.block = None
            values[inst] = twin
            blocks[blk].append(twin)
    for blk in s.region:
        for inst in blocks[blk].instructions:
            for v in inst.operands():
                if isinstance(v, ops.Const) and v not in values:
                    values[v] = entry.append(copy.copy(v))
            remap(inst, values, blocks)
    for k, phi in enumerate(phis):
        twin_phi = values[phi]
        assert isinstance(twin_phi, ops.Phi)
        twin_phi.incoming = [(b, seg.params[k] if b is entry else v) for b, v in twin_phi.incoming]
    cond = values[s.cond]
    assert isinstance(cond, ops.Cmp)
    cond.rhs = seg.params[len(phis)]
    b = Builder(seg)
    with b.at(header.instructions[0].loc):
        b.position_at_end(entry)
        b.jump(blocks[header])
        b.position_at_end(done)
        b.ret(b.make_tuple([values[p] for p in phis]))
    return seg
