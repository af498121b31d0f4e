"""Barriers on the CPU: a kernel's per-thread function cut into phases at its barriers.

A sequential grid loop cannot stop a thread at ``cuda.syncthreads()`` and run the block's
other threads up to it, unless the thread function returns there and can be resumed.
:func:`phase_function` makes that function from a kernel's ``k.thread``::

    func @k.phases(%resume: i64, %slot: i64, %ctx.0: i64[:], ..., %shared.0: f64[:], ...,
                   %tid.x: i64, ..., %x: f64[:]) -> i64

It starts at the beginning (``resume == 0``) or just after barrier ``resume`` (barriers
are numbered from 1 in block order), runs to the next barrier and returns its number, or
returns 0 at the end. What a thread computed before a barrier and uses after it lives
in context arrays, one element per thread of the block (``slot``, the thread's position
in it, x fastest): every such value is stored where it is defined and loaded where it
is used (the barriers' cuts break SSA dominance; memory does not). Constants move to
the entry, so they dominate every use. Each ``cuda.shared_array`` is a parameter: one
array per block, allocated by the grid loop (``compiler/infer/kernel_blocks.py``).

Only scalars can live across a barrier (an array view, a tuple or a pointer made before
one and used after it cannot): for such a kernel, or one whose entry block is a loop
header, :func:`phase_function` returns None and the grid loop stays sequential (where a
barrier in a block of more than one thread raises RuntimeError).
"""

from __future__ import annotations

from gradc._dataclass import dataclass
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import clone_function
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Value
from gradc.compiler.ir.types import I64, NONE, ArrayType, PointerType, ScalarType

__all__ = ["Phased", "phase_function"]


@dataclass
class Phased:
    """A kernel's phase function and the arrays its grid loop passes it.

    Attributes:
        function: ``k.phases`` (module docstring).
        context: the element type of each context array, in parameter order.
        shared: each shared array's type and shape, in parameter order.
    """

    function: Function
    context: list[ScalarType]
    shared: list[tuple[ArrayType, tuple[int, ...]]]


def phase_function(thread: Function, name: str) -> Phased | None:
    """The phase function ``name`` of per-thread function ``thread``, or None when
    ``thread`` has no barrier or cannot be cut (module docstring)."""
    if not any(isinstance(i, ops.SyncThreads) for i in thread.instructions()):
        return None
    if thread.entry.phis():
        return None
    fn = clone_function(thread, name).function
    tails = [
        _split(fn, inst) for inst in list(fn.instructions()) if isinstance(inst, ops.SyncThreads)
    ]
    if any(t is None for t in tails):
        return None
    dispatch = fn.add_block("dispatch")
    fn.blocks.remove(dispatch)
    fn.blocks.insert(0, dispatch)
    for inst in list(fn.instructions()):
        if isinstance(inst, ops.Const):
            _move(inst, dispatch)
    shared = _shared_params(fn)
    live_in = _liveness(fn)
    across: set[Value] = set()
    for tail in tails:
        assert tail is not None
        across |= live_in[tail]
    # in instruction order, never a set's (object addresses): builds are reproducible
    live = [i for i in fn.instructions() if i in across and not isinstance(i, ops.Const)]
    types: list[ScalarType] = []
    for v in live:
        if not isinstance(v.type, ScalarType):
            return None
        types.append(v.type)
    resume = Argument(type=I64, name="resume")
    slot = Argument(type=I64, name="slot")
    context = [Argument(type=ArrayType(t, 1, "C"), name=f"ctx.{k}") for k, t in enumerate(types)]
    for v, array in zip(live, context, strict=True):
        assert isinstance(v, Instruction)
        _demote(fn, v, array, slot)
    fn.return_type = I64
    for inst in list(fn.instructions()):
        if isinstance(inst, ops.Return):
            inst.value = _const(dispatch, 0)
    _dispatch(fn, dispatch, resume, [t for t in tails if t is not None])
    fn.params = [resume, slot, *context, *(a for a, _, _ in shared), *fn.params]
    for k, p in enumerate(fn.params):
        p.index = k
    return Phased(fn, types, [(t, shape) for _, t, shape in shared])


def _split(fn: Function, barrier: Instruction) -> Block | None:
    """Cut ``barrier``'s block after it: the tail (a new block) gets the instructions
    after the barrier; the head ends in ``ret <number>`` later, a jump to the tail now
    (for liveness). None when the barrier's result is used."""
    head = barrier.block
    assert head is not None
    if any(barrier in i.operands() for i in fn.instructions()):
        return None
    k = head.instructions.index(barrier)
    tail = fn.add_block(f"{head.label}.resume")
    tail.instructions = head.instructions[k + 1 :]
    for inst in tail.instructions:
        inst.block = tail
    for succ in tail.successors():
        for phi in succ.phis():
            assert isinstance(phi, ops.Phi)
            phi.replace_block(head, tail)
    head.instructions = head.instructions[:k]
    head.append(ops.Jump(tail, type=NONE, loc=barrier.loc))
    return tail


def _move(inst: Instruction, block: Block) -> None:
    assert inst.block is not None
    inst.block.instructions.remove(inst)
    block.append(inst)


def _liveness(fn: Function) -> dict[Block, set[Value]]:
    """The values live into each block (phi operands live out of their predecessors)."""
    uses: dict[Block, set[Value]] = {}
    defs: dict[Block, set[Value]] = {}
    phi_out: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    for b in fn.blocks:
        u: set[Value] = set()
        d: set[Value] = set()
        for inst in b.instructions:
            if isinstance(inst, ops.Phi):
                for pred, v in inst.incoming:
                    phi_out[pred].add(v)
            else:
                u.update(v for v in inst.operands() if v not in d)
            d.add(inst)
        uses[b], defs[b] = u, d
    live_in: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(fn.blocks):
            out = set(phi_out[b])
            for s in b.successors():
                out |= live_in[s]
            new = uses[b] | (out - defs[b])
            if new != live_in[b]:
                live_in[b], changed = new, True
    return live_in


def _demote(fn: Function, v: Instruction, array: Argument, slot: Argument) -> None:
    """Store ``v`` into ``array[slot]`` where it is defined; load it at every use."""
    users = [i for i in fn.instructions() if v in i.operands() and not _after(v, i)]
    block = v.block
    assert block is not None
    anchor = len(block.phis()) if isinstance(v, ops.Phi) else block.instructions.index(v) + 1
    ptr = ops.ElementAddr(array, (slot,), in_range=True, type=PointerType(v.type), loc=v.loc)  # type: ignore[arg-type]
    block.insert(anchor, ptr)
    block.insert(anchor + 1, ops.Store(ptr, v, type=NONE, loc=v.loc))
    for user in users:
        if isinstance(user, ops.Phi):
            for pred, value in list(user.incoming):
                if value is v:
                    term = pred.terminator
                    assert term is not None
                    user.incoming = [
                        (p, _load(pred, term, array, slot, v) if p is pred and x is v else x)
                        for p, x in user.incoming
                    ]
        else:
            assert user.block is not None
            user.replace_operand(v, _load(user.block, user, array, slot, v))


def _after(v: Instruction, user: Instruction) -> bool:
    """``user`` follows ``v`` in ``v``'s block (it sees ``v`` itself, on every path)."""
    block = v.block
    if isinstance(user, ops.Phi) or user.block is not block or block is None:
        return False
    return block.instructions.index(user) > block.instructions.index(v)


def _load(block: Block, before: Instruction, array: Argument, slot: Argument, v: Value) -> Value:
    ptr = ops.ElementAddr(array, (slot,), in_range=True, type=PointerType(v.type), loc=before.loc)  # type: ignore[arg-type]
    block.insert_before(before, ptr)
    load = ops.Load(ptr, type=v.type, loc=before.loc, name=v.name)
    block.insert_before(before, load)
    return load


def _shared_params(fn: Function) -> list[tuple[Argument, ArrayType, tuple[int, ...]]]:
    """Each ``sharedarray`` of ``fn`` replaced by a parameter (not yet in ``fn.params``)."""
    out: list[tuple[Argument, ArrayType, tuple[int, ...]]] = []
    for inst in list(fn.instructions()):
        if isinstance(inst, ops.SharedArray):
            assert isinstance(inst.type, ArrayType)
            arg = Argument(type=inst.type, name=f"shared.{len(out)}")
            fn.replace_all_uses(inst, arg)
            inst.erase()
            out.append((arg, inst.type, inst.shape))
    return out


def _const(block: Block, value: int) -> Value:
    return block.insert(0, ops.Const(value, type=I64))


def _dispatch(fn: Function, entry: Block, resume: Argument, tails: list[Block]) -> None:
    """Make each barrier's head return its number; the entry branches on ``resume``."""
    start = fn.blocks[1]
    at = entry
    b = Builder(fn)
    for k, tail in enumerate(tails, start=1):
        heads = [b for b in fn.blocks if b.terminator is not None and tail in b.successors()]
        assert len(heads) == 1, heads
        head = heads[0]
        jump = head.terminator
        assert jump is not None
        jump.erase()
        head.append(ops.Return(_const(entry, k), type=NONE, loc=jump.loc))
        b.position_at_end(at)
        nxt = b.new_block("dispatch")
        b.branch(b.cmp("eq", resume, _const(entry, k)), tail, nxt)
        at = nxt
    b.position_at_end(at)
    b.jump(start)
