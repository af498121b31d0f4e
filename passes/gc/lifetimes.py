"""``lifetimes``: reference counting for arrays owned by compiled code.

Every array that compiled code allocates lives in a reference-counted block
(docs/abi.md). This pass makes ownership explicit with ``incref``/``decref`` so that each
block is freed exactly when its last owner lets go, and no block leaks.

Ownership rules (each SSA value of a *managed* type — an array, or a tuple holding
arrays — either owns one reference or borrows one):

* owners: ``newarray``, ``copyarray``, ``call`` results, phis, ``tuple`` results, casts,
  and ``extract`` of a managed element (which takes its own reference);
* borrowers: function arguments (the caller keeps them alive for the call) and
  ``newarray {on_stack}`` results (frame memory, no reference count: ``stack-promote``);
* consuming uses — ``ret``, a phi's incoming value, an element of ``tuple``, a cast, a
  ``tapepush`` — take a reference, so an ``incref`` goes before each of them (a
  ``tapepop`` result owns the reference the push took);
* an owned value is released by a ``decref`` where it dies: after its last use in a
  block, or on a CFG edge along which it stops being live (critical edges are split
  so that edge code has a block of its own).

Then an ``incref %v`` followed later in the same block by ``decref %v`` cancels: the
consuming use simply takes over the reference (a *move*). On tuples, ``incref`` and
``decref`` act on every array inside.

Before::

    %a = newarray(%n), %z : array[f64,1,C]
    %b = newarray(%n), %z : array[f64,1,C]
    %x = load %p : f64                       (reads %b)
    ret %a

After::

    %a = newarray(%n), %z : array[f64,1,C]
    %b = newarray(%n), %z : array[f64,1,C]
    %x = load %p : f64
    decref %b                                 (after %b's last use)
    ret %a                                    (incref/decref of %a cancelled: a move)

An operation that may raise records in ``unwind`` the owned arrays live across it, and
lowering releases them on its error exit, so exceptions leak nothing either.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.types import NONE, ArrayType, PointerType, Type
from gradc.passes.analysis.cfg import split_critical_edges
from gradc.passes.analysis.liveness import compute_liveness
from gradc.passes.analysis.pointers import pointer_bases


def is_managed(t: Type) -> bool:
    """True for arrays and tuples that contain arrays (at any depth)."""
    return t.contains(ArrayType)


def _managed(v: Value) -> bool:
    return is_managed(v.type)


def _owns(v: Value) -> bool:
    """Does ``v`` hold a reference of its own (rather than borrow one)?"""
    if (isinstance(v, ops.NewArray) and v.on_stack) or isinstance(v, ops.SharedArray):
        return False
    return _managed(v) and not isinstance(v, Argument)


def _uses(inst: Instruction) -> list[Value]:
    """What ``inst`` keeps alive: its operands, and the bases of derived pointers it uses."""
    if isinstance(inst, ops.Phi):
        return []
    out = []
    for v in inst.operands():
        out.append(v)
        if isinstance(v.type, PointerType):
            out.extend(pointer_bases(v))
    return out


def _consumed_operands(inst: Instruction) -> list[Value]:
    """The managed operands whose reference ``inst`` takes over."""
    if isinstance(inst, ops.Return | ops.MakeTuple | ops.Cast):
        return [v for v in inst.operands() if _managed(v)]
    if isinstance(inst, ops.TapePush) and _managed(inst.value):
        return [inst.value]  # the tape keeps the array alive until it is popped
    return []


def run_function(fn: Function) -> Function:
    """Insert and prune reference-count operations in ``fn``."""
    if not any(_managed(v) for v in [*fn.params, *fn.instructions()]):
        # no reference counts to insert, but a tape made here (the derivative wrapper of
        # a function of scalars) must still be freed on the error exits (``unwind``)
        if any(isinstance(inst, ops.TapeNew) for inst in fn.instructions()):
            _record_unwind(fn)
        return fn
    for inst in fn.instructions():
        if isinstance(inst, ops.Select) and _managed(inst):
            raise AssertionError("lifetimes: select of arrays is not supported")
    split_critical_edges(fn)
    cancellable = _insert_increfs(fn)
    _insert_decrefs(fn)
    _cancel_pairs(fn, cancellable)
    _record_unwind(fn)
    return fn


def run(module: Module) -> Module:
    """Run :func:`run_function` on every function of ``module``."""
    for fn in module.functions.values():
        run_function(fn)
    return module


def _rc(cls: type[ops.IncRef] | type[ops.DecRef], value: Value, loc: object) -> Instruction:
    inst = cls(value, type=NONE)
    inst.loc = loc  # type: ignore[assignment]
    return inst


def _insert_increfs(fn: Function) -> set[Instruction]:
    """Insert the increfs; return those made for consuming uses (which may cancel)."""
    for_consumers: set[Instruction] = set()
    for block in fn.blocks:
        for inst in list(block.instructions):
            for v in _consumed_operands(inst):
                for_consumers.add(block.insert_before(inst, _rc(ops.IncRef, v, inst.loc)))
            if isinstance(inst, ops.TupleGet) and _managed(inst):
                # an element taken out of a tuple gets a reference of its own
                block.insert(block.instructions.index(inst) + 1, _rc(ops.IncRef, inst, inst.loc))
        for phi in block.phis():
            assert isinstance(phi, ops.Phi)
            if not _managed(phi):
                continue
            for pred, v in phi.incoming:
                term = pred.terminator
                assert term is not None
                for_consumers.add(pred.insert_before(term, _rc(ops.IncRef, v, term.loc)))
    return for_consumers


def _insert_decrefs(fn: Function) -> None:
    live = compute_liveness(fn, _owns, _uses)
    preds = fn.predecessors()
    # positions of the values before any release is inserted (inserting does not
    # reorder them): computed once, not once per edge
    order = _order(fn)
    for block in fn.blocks:
        # live after the block, not counting values handed to successors' phis
        after: set[Value] = set()
        for succ in block.successors():
            after |= live.live_in[succ]
        # edges along which a value stops being live: release at the successor's start
        for succ in block.successors():
            dying = sorted(after - live.live_in[succ], key=order)
            if dying:
                assert len(preds[succ]) == 1, "critical edges are split"
                at = len(succ.phis())
                for v in reversed(dying):
                    succ.insert(at, _rc(ops.DecRef, v, succ.instructions[at].loc))
        _release_in_block(block, after)


def _release_in_block(block: Block, live_after: set[Value]) -> None:
    """Backward scan: a ``decref`` after each owned value's last use (or its definition)."""
    live = set(live_after)
    instructions = list(block.instructions)
    for inst in reversed(instructions):
        if isinstance(inst, ops.DecRef):  # already a release (made for a dying edge)
            live.add(inst.array)
            continue
        uses = _uses(inst)
        if inst.IS_TERMINATOR:
            # a value dying at the terminator is released just before it
            for v in _unique(uses):
                if _owns(v) and v not in live:
                    block.insert_before(inst, _rc(ops.DecRef, v, inst.loc))
                    live.add(v)
            continue
        if _owns(inst) and inst not in live:  # defined and never used afterwards
            _insert_after(block, inst, _rc(ops.DecRef, inst, inst.loc))
        live.discard(inst)
        for v in _unique(uses):
            if _owns(v) and v not in live:
                _insert_after(block, inst, _rc(ops.DecRef, v, inst.loc))
                live.add(v)


def _insert_after(block: Block, anchor: Instruction, inst: Instruction) -> None:
    index = block.instructions.index(anchor) + 1
    # keep phis together at the head of the block, and an ``extract`` with the incref
    # that gives its result a reference of its own (a release must not come between)
    while index < len(block.instructions):
        nxt = block.instructions[index]
        if isinstance(nxt, ops.Phi) or (isinstance(nxt, ops.IncRef) and nxt.array is anchor):
            index += 1
        else:
            break
    block.insert(index, inst)


def _cancel_pairs(fn: Function, cancellable: set[Instruction]) -> None:
    """Remove ``incref %v`` … ``decref %v`` pairs within a block (a move).

    Scanning back from ``decref %v`` (``%v``'s final release), the nearest incref of
    ``%v`` cancels with it when it was made for a consuming use and nothing in between
    uses ``%v`` other than as a consumed operand: the consumer then takes over ``%v``'s
    own reference, which nothing needs after it. (Releases of other values in between
    are harmless: ``%v``'s own reference is counted until the consumer takes it. The
    incref that gives an ``extract`` result its own reference never cancels.)
    """
    for block in fn.blocks:
        instructions = block.instructions
        dead: set[int] = set()
        for j, inst in enumerate(instructions):
            if not isinstance(inst, ops.DecRef):
                continue
            v = inst.array
            for k in range(j - 1, -1, -1):
                other = instructions[k]
                if id(other) in dead:
                    continue
                if isinstance(other, ops.IncRef) and other.array is v:
                    if other in cancellable:
                        dead.update((id(other), id(inst)))
                    break
                if v in _uses(other) and v not in _consumed_operands(other):
                    break
        if dead:
            block.instructions = [i for i in instructions if id(i) not in dead]


def _held_on_error(v: Value) -> bool:
    """Released on an error exit: owned arrays, and tapes made here (``tapenew``)."""
    return _owns(v) or isinstance(v, ops.TapeNew)


def _record_unwind(fn: Function) -> None:
    """Give each instruction that may raise the owned arrays (and the tapes this function
    made: ``tapefree`` on that exit) live across it.

    When it raises, the function leaves at once; lowering releases these on that exit so
    that an exception does not leak the temporaries (the normal-path ``decref`` after
    the instruction never runs).
    """
    live = compute_liveness(fn, _held_on_error, _uses)
    order = _order(fn)
    for block in fn.blocks:
        holding: set[Value] = set()
        for succ in block.successors():
            holding |= live.live_in[succ]
        holding |= live.phi_uses[block]
        for inst in reversed(block.instructions):
            holding.discard(inst)
            if inst.MAY_RAISE and not inst.IS_TERMINATOR:
                inst.unwind = tuple(sorted(holding, key=order))
            if not isinstance(inst, ops.Phi):
                holding.update(v for v in _uses(inst) if _held_on_error(v))


def _unique(values: list[Value]) -> list[Value]:
    return list(dict.fromkeys(values))


def _order(fn: Function):  # type: ignore[no-untyped-def]
    """A deterministic sort key for values: their position in the function."""
    position: dict[Value, int] = {p: i for i, p in enumerate(fn.params)}
    for i, inst in enumerate(fn.instructions()):
        position[inst] = len(fn.params) + i
    return lambda v: position[v]
