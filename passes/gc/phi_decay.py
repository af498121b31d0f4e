"""``phi-decay``: no phi or select of derived pointers; (base, offset) pairs instead.

A derived pointer points into an array (its *base*). Where control flow merges derived
pointers — ``src = a if c else b`` then indexing, a pointer advanced in a loop — the
merged pointer's base is no longer evident, so the base cannot be kept alive, and the
reverse sweep of AD could only tape a raw interior address. This pass (after Enzyme's
``nodecayed_phis`` for Julia's GC) rewrites every phi and select of pointers into a phi
(select) of base arrays plus a phi (select) of ``i64`` byte offsets, and rebuilds the
pointer after them with ``addr``::

    ^join:
      %p = phi [^l: %pa], [^r: %pb] : ptr[f64]          %pa = elemaddr %a, (%i)

becomes::

    ^join:
      %p.base = phi [^l: %a], [^r: %b] : array[f64,1,A]
      %p.offset = phi [^l: %oa], [^r: %ob] : i64         %oa = elemoffset %a, (%i)
      %p = addr %p.base, %p.offset : ptr[f64]

Every derived pointer then has a base found by walking ``addr``/``elemaddr``/``ptradd``
back to an array. Pointer induction variables become offset induction variables with a
loop-invariant base phi. ``poison`` incoming pointers become poison bases and offsets.
A pointer whose base cannot be traced (a pointer parameter) is reported as a
:class:`~gradc.compiler.ir.errors.PassError` at the user's source line naming what could
not be traced — never an IR dump.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Instruction, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.types import I64, ArrayType, PointerType, Type, join


def _is_pointer(v: Value) -> bool:
    return isinstance(v.type, PointerType)


def run_function(fn: Function) -> Function:
    """Decay every pointer phi and select of ``fn``."""
    merges: list[Instruction] = [
        inst
        for inst in fn.instructions()
        if isinstance(inst, ops.Phi | ops.Select) and _is_pointer(inst)
    ]
    if not merges:
        return fn
    _Decay(fn, merges).run()
    return fn


def run(module: Module) -> Module:
    """Run :func:`run_function` on every function of ``module``."""
    for fn in module.functions.values():
        run_function(fn)
    return module


class _Decay:
    def __init__(self, fn: Function, merges: list[Instruction]) -> None:
        self.fn = fn
        self.merges = merges
        self.b = Builder(fn)
        self.pairs: dict[Value, tuple[Value, Value]] = {}  # pointer -> (base, offset)

    def run(self) -> None:
        # 1. a base phi and an offset phi beside each pointer phi (filled in step 3),
        #    so that loop-carried pointers can refer to them before they are complete
        for merge in self.merges:
            if isinstance(merge, ops.Phi):
                self._placeholders(merge)
        # 2. selects, in order (their operands dominate them)
        for merge in self.merges:
            if isinstance(merge, ops.Select):
                self._select(merge)
        # 3. fill the phis' incoming (base, offset) pairs
        for merge in self.merges:
            if isinstance(merge, ops.Phi):
                self._fill(merge)
        # 4. rebuild each merged pointer from its pair, and drop the pointer merges
        for merge in self.merges:
            base, offset = self.pairs[merge]
            block = merge.block
            assert block is not None
            anchor = block.instructions[len(block.phis())] if isinstance(merge, ops.Phi) else merge
            self.b.position_before(anchor)
            with self.b.at(merge.loc):
                rebuilt = self.b.insert(ops.Addr(base, offset, type=merge.type, name=merge.name))
            self.fn.replace_all_uses(merge, rebuilt)
        for merge in self.merges:
            merge.erase()

    def _placeholders(self, phi: ops.Phi) -> None:
        block = phi.block
        assert block is not None
        base_type = self._base_type(phi)
        base = ops.Phi(type=base_type, name=_suffixed(phi.name, "base"))
        offset = ops.Phi(type=I64, name=_suffixed(phi.name, "offset"))
        base.loc = offset.loc = phi.loc
        index = block.instructions.index(phi)
        block.insert(index, offset)
        block.insert(index, base)
        self.pairs[phi] = (base, offset)

    def _fill(self, phi: ops.Phi) -> None:
        base, offset = self.pairs[phi]
        assert isinstance(base, ops.Phi) and isinstance(offset, ops.Phi)
        for pred, v in phi.incoming:
            term = pred.terminator
            assert term is not None
            b_v, o_v = self._pair(v, before=term, user=phi)
            if b_v.type != base.type:  # a layout relabel (C or F array into an A phi)
                self.b.position_before(term)
                with self.b.at(term.loc):
                    b_v = self.b.cast(b_v, base.type)
            base.incoming.append((pred, b_v))
            offset.incoming.append((pred, o_v))

    def _select(self, select: ops.Select) -> None:
        tb, to = self._pair(select.if_true, before=select, user=select)
        fb, fo = self._pair(select.if_false, before=select, user=select)
        self.b.position_before(select)
        with self.b.at(select.loc):
            base_type = self._base_type(select)
            base = self.b.select(
                select.cond, self.b.cast(tb, base_type), self.b.cast(fb, base_type)
            )
            base.name = _suffixed(select.name, "base")
            offset = self.b.select(select.cond, to, fo)
            offset.name = _suffixed(select.name, "offset")
        self.pairs[select] = (base, offset)

    def _pair(self, v: Value, before: Instruction, user: Instruction) -> tuple[Value, Value]:
        """(base array, byte offset) of pointer ``v``, computed just before ``before``."""
        if v in self.pairs:
            return self.pairs[v]
        b = self.b
        # the pair is computed right after the pointer itself, so it dominates every
        # place the pointer reaches (not just the first merge that asks for it)
        if isinstance(v, Instruction) and v.block is not None:
            block = v.block
            b.position_before(block.instructions[block.instructions.index(v) + 1])
        else:
            b.position_before(before)
        pair: tuple[Value, Value]
        with b.at(v.loc if isinstance(v, Instruction) else before.loc):
            if isinstance(v, ops.ElementAddr):
                pair = (v.array, b.insert(ops.ElementOffset(v.array, v.indices, type=I64)))
            elif isinstance(v, ops.Addr):
                pair = (v.array, v.offset)
            elif isinstance(v, ops.PointerAdd):
                base, offset = self._pair(v.pointer, before, user)
                assert v.block is not None
                b.position_before(v.block.instructions[v.block.instructions.index(v) + 1])
                pair = (base, b.add(offset, v.offset))
            elif isinstance(v, ops.Poison):
                pair = (
                    b.insert(ops.Poison(type=self._base_type(user))),
                    b.insert(ops.Poison(type=I64)),
                )
            else:
                raise PassError(self._untraceable(v), user.loc)
        self.pairs[v] = pair
        return pair

    def _base_type(self, merge: Instruction) -> Type:
        """The array type of a merged pointer's bases (their join; layout ``A`` if mixed)."""
        result: Type | None = None
        seen: set[Value] = set()
        work = list(merge.operands())
        while work:
            v = work.pop()
            if v in seen:
                continue
            seen.add(v)
            if isinstance(v, ops.ElementAddr | ops.Addr):
                t = v.array.type
            elif isinstance(v, ops.PointerAdd):
                work.append(v.pointer)
                continue
            elif isinstance(v, ops.Phi | ops.Select) and v in self.pairs:
                t = self.pairs[v][0].type
                if not isinstance(t, ArrayType):
                    work.extend(v.operands())
                    continue
            elif isinstance(v, ops.Phi | ops.Select):
                work.extend(x for x in v.operands() if _is_pointer(x))
                continue
            else:
                continue
            result = t if result is None else join(result, t)
        if not isinstance(result, ArrayType):
            raise PassError(self._untraceable(merge), merge.loc)
        return result

    def _untraceable(self, v: Value) -> str:
        what = (
            f"parameter '{v.name}'"
            if isinstance(v, Argument)
            else f"'{v.OPNAME}'"
            if isinstance(v, Instruction)
            else "a value"
        )
        return (
            f"cannot find the array a derived pointer points into: it comes from {what}, "
            "which is not an element address of a known array"
        )


def _suffixed(name: str | None, suffix: str) -> str | None:
    return f"{name}.{suffix}" if name else None
