"""Which array reads the reverse sweep may repeat instead of taping their values.

The reverse sweep of ``f`` runs after ``f``'s whole forward sweep (and after whatever the
caller did in between). A value loaded from ``a[i]`` in the forward sweep can be loaded
again in the reverse sweep — from ``a`` and ``i``, which it then needs instead — when the
element cannot have changed in between:

* every array ``a`` may be (its *roots*, through phis, selects and casts) is either an
  array ``f`` allocated itself (and ``f`` returns no array, so nobody else sees it) or a
  parameter the caller promises not to write until the reverse sweep is over (a
  *frozen* parameter: the export wrapper promises it for all its arrays, and a caller
  promises it for an argument under the same conditions, see :func:`frozen_call_args`);
* no store, and no call of a function that may write its argument, that may touch the
  same memory is reachable from the load in ``f``'s CFG (the rest of its block, and every
  block reachable from there, the load's own block included when it is in a loop).

Two different parameters may be the same array (a caller may pass one array twice), so
a write through any parameter counts against a load from any parameter. Arrays of
unknown origin (a call's result, an element of a tuple) count as every array.

Example: in ``for i in range(n): s += x[i] * y[i]`` with ``x`` and ``y`` frozen and never
written, both loads are reloadable: the reverse sweep tapes nothing per iteration for
them (it needs ``x``, ``y`` and ``i``, which are loop-invariant or recomputed).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import ArrayType, PointerType, Type
from gradc.passes.analysis.pointers import array_roots

__all__ = ["MemoryFacts", "callee_writes"]


def _has_array(t: Type) -> bool:
    """An array or a derived pointer into one, or a tuple holding one (at any depth)."""
    return t.contains(ArrayType) or t.contains(PointerType)


def callee_writes(module: Module, root: str) -> dict[str, set[int]]:
    """Function name -> indices of the parameters it may write, for ``root`` and the
    functions it calls transitively (a fixpoint over calls, like
    :func:`gradc.passes.analysis.mutation.written_params`, but over these functions only:
    the module may hold derived functions under construction)."""
    names = [root]
    seen = {root}
    i = 0
    while i < len(names):
        for inst in module.functions[names[i]].instructions():
            if isinstance(inst, ops.Call) and inst.callee in module.functions:
                if inst.callee not in seen:
                    seen.add(inst.callee)
                    names.append(inst.callee)
        i += 1
    written: dict[str, set[int]] = {name: set() for name in names}
    changed = True
    while changed:
        changed = False
        for name in names:
            for inst in module.functions[name].instructions():
                targets: set[Value] = set()
                if isinstance(inst, ops.Store | ops.AtomicAdd):
                    targets = array_roots(inst.pointer)
                elif isinstance(inst, ops.Call):
                    for k in _written_args(inst, written):
                        targets |= array_roots(inst.args[k])
                new = {a.index for a in targets if isinstance(a, Argument)} - written[name]
                if new:
                    written[name] |= new
                    changed = True
    return written


def _written_args(call: ops.Call, written: dict[str, set[int]]) -> set[int]:
    """The argument positions of ``call`` its callee may write (all arrays if unknown)."""
    if call.callee in written:
        return written[call.callee]
    return {k for k, a in enumerate(call.args) if _has_array(a.type)}


class MemoryFacts:
    """The reloadable loads of ``fn`` and the frozen arguments of its calls.

    Args:
        fn: the function (its instructions as in ``body``, before instrumentation).
        body: the instructions of each block.
        frozen_params: indices of the array parameters the caller will not write until
            the reverse sweep has run.
        writes: function name -> parameters it may write (:func:`callee_writes`).
    """

    def __init__(
        self,
        fn: Function,
        body: dict[Block, list[Instruction]],
        frozen_params: frozenset[int],
        writes: dict[str, set[int]],
    ) -> None:
        self.fn = fn
        self.body = body
        self.frozen_params = frozen_params
        self.local_ok = not _has_array(fn.return_type)
        # every write: (block, position, roots written)
        self._writes: list[tuple[Block, int, set[Value]]] = []
        for blk, insts in body.items():
            for k, inst in enumerate(insts):
                if isinstance(inst, ops.Store | ops.AtomicAdd):
                    self._writes.append((blk, k, array_roots(inst.pointer)))
                elif isinstance(inst, ops.Call):
                    for a in _written_args(inst, writes):
                        self._writes.append((blk, k, array_roots(inst.args[a])))
        self._reach: dict[Block, set[Block]] = {}

    # -- queries ----------------------------------------------------------------------

    def reloadable(self, load: ops.Load) -> bool:
        """May the reverse sweep load ``load``'s element again (same array, same
        indices) and get the value the forward sweep loaded?"""
        pointer = load.pointer
        if not isinstance(pointer, ops.ElementAddr) or load.block is None:
            return False
        roots = array_roots(pointer.array)
        return self._frozen(roots) and not self._written_after(load, roots)

    def frozen_args(self, call: ops.Call) -> frozenset[int]:
        """The array parameters of ``call``'s callee that nothing writes from the call
        until the reverse sweep (the callee's own writes aside): its frozen set there."""
        out = set()
        for k, a in enumerate(call.args):
            if not isinstance(a.type, ArrayType):
                continue
            roots = array_roots(a)
            if self._frozen(roots) and not self._written_after(call, roots):
                out.add(k)
        return frozenset(out)

    # -- helpers ----------------------------------------------------------------------

    def _frozen(self, roots: set[Value]) -> bool:
        for r in roots:
            if isinstance(r, Argument):
                if r.index not in self.frozen_params:
                    return False
            elif isinstance(r, ops.NewArray | ops.CopyArray) and r.block is not None:
                if not self.local_ok or r.block.function is not self.fn:
                    return False
            else:
                return False
        return bool(roots)

    def _written_after(self, inst: Instruction, roots: set[Value]) -> bool:
        blk = inst.block
        assert blk is not None
        position = self.body[blk].index(inst)
        later = self._reachable(blk)
        for wblk, k, written in self._writes:
            if (wblk is blk and k > position) or wblk in later:
                if _may_alias(roots, written):
                    return True
        return False

    def _reachable(self, blk: Block) -> set[Block]:
        """Blocks reachable from ``blk``'s successors (``blk`` itself when on a cycle)."""
        if blk not in self._reach:
            seen: set[Block] = set()
            work = list(blk.successors())
            while work:
                b = work.pop()
                if b not in seen:
                    seen.add(b)
                    work.extend(b.successors())
            self._reach[blk] = seen
        return self._reach[blk]


def _may_alias(a: set[Value], b: set[Value]) -> bool:
    def known(r: Value) -> bool:
        return isinstance(r, Argument | ops.NewArray | ops.CopyArray)

    if not all(known(r) for r in a) or not all(known(r) for r in b):
        return True
    if a & b:
        return True
    return any(isinstance(r, Argument) for r in a) and any(isinstance(r, Argument) for r in b)


def refuse_argument_writes(module: Module, fn: Function, loc: Loc, message: str) -> None:
    """Refuse a derivative of ``fn`` that runs it more than once (or otherwise cannot
    take its array arguments being written): ``message`` is the error's text with
    ``{names}`` for the quoted names of the parameters ``fn`` may write.

    Raises:
        PassError: ``fn`` (or a function it calls) may write one of its array arguments.
    """
    written = callee_writes(module, fn.name)[fn.name]
    if written:
        names = ", ".join(f"'{fn.params[i].name}'" for i in sorted(written))
        raise PassError(message.format(names=names), loc)
