"""``stack-promote``: escape analysis; small arrays that do not escape live on the stack.

A ``newarray`` is marked ``{on_stack}`` (frame memory, no reference count, never
freed: ``lifetimes`` treats it as borrowed) when all of these hold:

* every dimension is a non-negative ``const`` and the array takes at most
  :data:`STACK_LIMIT_BYTES` bytes;
* its block is on no CFG cycle, so it executes at most once per call and two of them are
  never live at once in one frame;
* the array does not escape the call. Following its aliases — ``cast`` results, ``phi``
  and ``select`` results that merge it, views of it, and arrays a ``call`` may return — it is never
  returned, pushed on the tape, put in a tuple, or passed to a call that returns a managed
  value (the result could be a view of it). Element reads and writes, ``dim``,
  ``copyarray`` (reads the source), ``arrayacc``, and calls returning no array (which
  borrow their arguments for the call only) do not make it escape.

Escape analysis after Choi et al., "Escape analysis for Java" (OOPSLA 1999), reduced to
the one question that matters here: may the block be reachable after the frame is gone.

Before::

    %a = newarray(%three), %z : array[f64,1,C]      (%three = const 3)
    store %p, %x
    %s = load %p : f64
    ret %s

After::

    %a = newarray(%three), %z {on_stack} : array[f64,1,C]
    ...                                              (no incref/decref, no runtime call)
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Module, Value
from gradc.compiler.ir.types import ArrayType

#: Largest array (in bytes) put on the stack.
STACK_LIMIT_BYTES = 4096

_ITEM_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "i8": 1, "i1": 1}


def run(module: Module) -> Module:
    """Promote every non-escaping small constant-shape ``newarray`` of ``module``."""
    for fn in module.functions.values():
        promote_function(fn)
    return module


def promote_function(fn: Function) -> list[ops.NewArray]:
    """Promote in ``fn``; returns the ``newarray`` instructions now ``on_stack``."""
    cyclic = _blocks_on_cycles(fn)
    uses = _uses(fn)
    promoted = []
    for block in fn.blocks:
        if block in cyclic:
            continue
        for inst in list(block.instructions):
            if not isinstance(inst, ops.NewArray) or inst.on_stack or not _small(inst):
                continue
            if _escapes(inst, uses):
                continue
            inst.on_stack = True
            promoted.append(inst)
    return promoted


def _small(inst: ops.NewArray) -> bool:
    t = inst.type
    assert isinstance(t, ArrayType)
    nbytes = _ITEM_BYTES.get(t.dtype.name)
    if nbytes is None:
        return False
    for d in inst.shape:
        if not isinstance(d, ops.Const) or type(d.value) is not int or d.value < 0:
            return False
        nbytes *= d.value
    return nbytes <= STACK_LIMIT_BYTES


def _escapes(root: Value, uses: dict[Value, list[Instruction]]) -> bool:
    """May the array ``root`` (or an alias of it) outlive the frame?"""
    seen = {root}
    work = [root]
    while work:
        v = work.pop()
        for user in uses.get(v, []):
            match user:
                case ops.Return() | ops.TapePush() | ops.MakeTuple():
                    return True
                case ops.Call():
                    if user.type.contains(ArrayType):
                        return True  # the result may be a view of the argument
                case (
                    ops.Cast()
                    | ops.Phi()
                    | ops.Select()
                    | ops.SliceView()
                    | ops.Transpose()
                    | ops.Reshape()
                ):
                    if user not in seen:
                        seen.add(user)
                        work.append(user)
                case (
                    ops.ElementAddr()
                    | ops.ArrayDim()
                    | ops.CopyArray()
                    | ops.AccumulateArray()
                    | ops.IncRef()
                    | ops.DecRef()
                    | ops.Addr()
                ):
                    pass
                case _:
                    return True  # anything not known to be harmless
    return False


def _uses(fn: Function) -> dict[Value, list[Instruction]]:
    out: dict[Value, list[Instruction]] = {}
    for inst in fn.instructions():
        for v in inst.operands():
            out.setdefault(v, []).append(inst)
        for v in inst.unwind:
            out.setdefault(v, []).append(inst)
    return out


def _blocks_on_cycles(fn: Function) -> set[Block]:
    """Blocks from which the block itself is reachable again (members of CFG cycles):
    the blocks of strongly connected components with more than one block or a self
    edge (Tarjan's algorithm, iterative; linear in the CFG, where a search from every
    block was quadratic)."""
    index: dict[Block, int] = {}
    low: dict[Block, int] = {}
    stack: list[Block] = []
    on_stack: set[Block] = set()
    on_cycle: set[Block] = set()
    for root in fn.blocks:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        frames = [(root, iter(root.successors()))]
        while frames:
            node, succs = frames[-1]
            succ = next(succs, None)
            if succ is not None:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    frames.append((succ, iter(succ.successors())))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            frames.pop()
            if frames:
                parent = frames[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member is node:
                        break
                if len(component) > 1 or node in node.successors():
                    on_cycle.update(component)
    return on_cycle
