"""The ``lower-arrays`` pass: every whole-array operation with a rule in
:data:`~.table.ARRAY_LOWERING` becomes loop nests of scalar IR (before AD, so that AD
sees loops and reuses the scalar rules; docs/ad.md).

Fusion is decided first, per function: a producer whose rule can be read inside a
consumer (``ArrayRule.read``) is fused into its consumer when that is its only use (one
operand occurrence), the consumer's rule ``fuses``, both are in one block with nothing
between them that writes memory (``HAS_SIDE_EFFECTS``), and the producer has the rank the
consumer iterates over (the highest rank of its array operands; so a producer is never
recomputed along axes it lacks). Then the operations are lowered in program order: a
fused producer only checks its shape where it was (``ArrayRule.prepare``), its consumer
computes its elements. An unused operation that could be fused only checks its shape
(:func:`unused`).

Example (``-p lower-arrays``)::

    %y = elementwise negative(%x) : array[f64,1,C]
    %z = elementwise exp(%y) : array[f64,1,C]

becomes one loop (``%y`` is fused into ``%z``)::

    %n = dim %x, 0 : i64
    %z = newarray(%n) : array[f64,1,C]
    ...
    ^ew.body0:
      %p = elemaddr %x, (%i0) : ptr[f64]
      %v = load %p : f64
      %nv = neg %v : f64
      %e = math ieee_exp(%nv) : f64
      %q = elemaddr %z, (%i0) : ptr[f64]
      store %q, %e
"""

from __future__ import annotations

from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Function, Instruction, Module, Value
from gradc.compiler.ir.types import ArrayType
from gradc.passes.arrays import rules  # noqa: F401 (registrations)
from gradc.passes.arrays.loops import ArrayLowering, merge, split_after
from gradc.passes.arrays.table import ARRAY_LOWERING


def run(module: Module) -> Module:
    """Lower every whole-array operation of every function of ``module`` (in place)."""
    for fn in module.functions.values():
        lower_function(fn)
    return module


def lower_function(fn: Function) -> None:
    """Lower the whole-array operations of ``fn``, fusing what :func:`fusion` allows."""
    todo = [inst for inst in fn.instructions() if inst.LOWERED_TO_LOOPS]
    if not todo:
        return
    fused = fusion(fn, todo)
    skipped = fused | unused(fn, todo)
    lw = ArrayLowering(fn, Builder(fn), fused)
    replaced: dict[Value, Value] = {}
    # every user is redirected when its operand is lowered, views included: the overlap
    # checks compare a view's root with the arrays a value reads (``z[::-1] = z`` of a
    # lowered ``z``), which must then be the same value
    users = fn.uses()
    for inst in todo:
        _redirect(inst, replaced)
        rule = ARRAY_LOWERING.lookup(inst)
        lw.moves = []
        block = inst.block
        assert block is not None
        cont = split_after(inst)
        lw.b.position_at_end(block)
        with lw.b.at(inst.loc):
            if inst in skipped:
                assert rule.prepare is not None
                rule.prepare(lw, inst)
            else:
                result = rule.lower(lw, inst)
                if result is not None:
                    replaced[inst] = result
                    for user in users.get(inst, ()):
                        user.replace_operand(inst, result)
        lw.b.jump(cont)
        assert lw.b.block is not None
        merge(lw.b.block, cont)
        if inst not in skipped:
            inst.erase()
    for inst in todo:
        if inst in skipped:
            inst.erase()
    for inst in fn.instructions():
        _redirect(inst, replaced)


def _redirect(inst: Instruction, replaced: dict[Value, Value]) -> None:
    for v in inst.operands():
        if v in replaced:
            inst.replace_operand(v, replaced[v])


def iteration_rank(inst: Instruction) -> int:
    """The rank a consumer iterates over: the highest of its array operands'."""
    return max((v.type.ndim for v in inst.operands() if isinstance(v.type, ArrayType)), default=0)


def unused(fn: Function, todo: list[Instruction]) -> set[Instruction]:
    """The operations among ``todo`` whose result nothing uses and that could be fused
    (they raise nothing inside their loops): only their shape checks are emitted
    (``ArrayRule.prepare``), so NumPy's errors stay and no element is computed. Reverse
    mode then never sees an unused ``x * np.log1p(y)``, whose zero adjoint times a NaN
    partial would be a NaN gradient (issue 18, class 7, for arrays)."""
    uses = fn.uses()
    return {
        inst
        for inst in todo
        if not uses.get(inst)
        and ARRAY_LOWERING.lookup(inst).prepare is not None
        and ARRAY_LOWERING.lookup(inst).can_fuse(inst)
    }


def fusion(fn: Function, todo: list[Instruction]) -> set[Instruction]:
    """The producers among ``todo`` to compute inside their consumer (the module
    docstring's conditions)."""
    uses = fn.uses()
    fused: set[Instruction] = set()
    for p in todo:
        if not ARRAY_LOWERING.lookup(p).can_fuse(p):
            continue
        users = uses.get(p, [])
        if len(users) != 1:
            continue
        c = users[0]
        consumer = ARRAY_LOWERING.get(c)
        if consumer is None or not consumer.fuses or c.block is not p.block:
            continue
        assert isinstance(p.type, ArrayType)
        if iteration_rank(c) != p.type.ndim:
            continue
        insts = c.block.instructions if c.block is not None else []
        between = insts[insts.index(p) + 1 : insts.index(c)]
        if any(i.HAS_SIDE_EFFECTS for i in between):
            continue
        fused.add(p)
    return fused
