"""Lowering of the reverse-mode tape (docs/ad.md "Reverse mode (VJP) and the tape").

A ``tape`` value is a pointer to the runtime's tape header (docs/abi.md "Runtime
functions")::

    typedef struct {
        uint8_t *base;     /* the stack's bytes (realloc'd; NULL until the first growth) */
        int64_t  top;      /* bytes in use */
        int64_t  cap;      /* bytes allocated */
        void   **refs;     /* meminfo of each array reference on the tape (realloc'd) */
        int64_t  nrefs;    /* entries of refs in use */
        int64_t  refcap;   /* entries of refs allocated */
    } gradc_tape;

``tapenew`` calls ``gradc_rt2_tape_new()`` (MemoryError on NULL) and ``tapefree`` calls
``gradc_rt2_tape_free(tape)``. ``tapepush`` and ``tapepop`` are inline::

    push v : T                        pop : T
      need = top + S                    top = top - S
      if need > cap:                    v   = *(T *)(base + top)
          if gradc_rt2_tape_grow(tape, need): MemoryError
      *(T *)(base + top) = v
      top = need

**Array references.** A pushed array (or tuple holding arrays: ``R`` arrays in all) moves
a reference onto the tape; its ``meminfo`` is also recorded on the reference stack, so
that ``gradc_rt2_tape_free`` can release whatever an error exit leaves there::

    push v (R > 0):                   pop (R > 0):
      need = nrefs + R                  nrefs = nrefs - R
      if need > refcap:                 (the popped value owns the references)
          if gradc_rt2_tape_grow_refs(tape, need): MemoryError
      (reserve the bytes as above)
      nrefs = need
      refs[need - R + k] = v's k-th meminfo

``nrefs`` always lives in the header (never in registers, see below), so it is exact at
every error exit; a group reserves its references once, like its bytes, and advances
``nrefs`` after both growths, when nothing can raise before the group's pushes have
written every entry below it (an out-of-memory error in a growth leaks the group's
arrays, never frees garbage). Pushes of scalars — all a hot loop usually tapes — do not
touch it.

``S`` is the size of ``T``'s value type in memory rounded up to 8 (an array is its
16 + 16·N-byte descriptor, a tuple its C struct, ``i1`` one byte), so every entry starts
8-byte aligned (``realloc`` gives 16); a pop reads back exactly the bytes of the matching
push. The grow check is one compare with a cold branch; growth doubles the capacity.

**Groups.** The reverse-mode pass pushes a block's values together before its terminator
and pops them together at the start of the reverse block. A run of pushes onto one tape
in one IR block — with nothing between them but instructions that neither touch a tape
nor raise nor call (constants, arithmetic, ``incref``/``decref``) — is lowered as *one*
reservation (``need = top + ΣS``, one grow check, one store of ``top``) followed by plain
stores at constant offsets; a run of pops likewise as one load and one store of ``top``
and loads at constant offsets. Per pushed value that leaves a single store.

**Header in registers.** In a function with exactly one tape value — its parameter or
a ``tapenew`` result — used only by pushes, pops, ``tapefree`` and as a call argument,
two pointers, ``cur = base + top`` and ``end = base + cap``, live in two stack slots
that LLVM promotes to SSA registers (mem2reg), instead of the header being loaded and
stored at every push and pop (two registers rather than three: hot loops of derivative
code are short of them)::

    entry (or after tapenew):   cur, end = base + top, base + cap   (header loaded once)
    push:                       need = cur + S; if need > end: grow, check again;
                                store at cur; cur = need
    pop:                        cur = cur - S; load at cur
    grow (cold):                top = cur - header.base; call the runtime with top + S;
                                cur, end = base' + top, base' + cap'
    before a call taking tape:  header.top = cur - header.base
    after it returns:           cur, end from the header       (the callee pushed/popped)
    before return (parameter):  header.top = cur - header.base

``base`` is NULL before the first growth: ``cur + S`` is then computed without
``inbounds`` (LLVM's inbounds offset from NULL would be poison), and the compare with
``end`` (NULL) sends the push to the runtime.

An exception leaves the header's ``top`` stale: that is harmless because an exception
from a derivative call never reaches code that pushes or pops that tape again (the error
exit of the function that made it only frees it, ``unwind``), and ``tapenew`` resets a
reused tape's ``top``.
Other functions keep every field in the header (loads and stores per group).

The loads and stores of the header fields, of the entries, of the reference stack, and
of array elements (:mod:`.arrays`) carry TBAA tags of their own (sibling types under one
root), which tells LLVM that writing an entry, a reference or an array element never
changes ``base``/``top``/``cap``/``nrefs``, and that a tape entry is never an array
element: header values and values loaded from arrays stay in registers across pushes.
Nothing else is tagged, so every
other access (descriptors, runtime calls, ``memcpy``) still aliases all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from llvmlite import ir as ll

from gradc._dataclass import dataclass
from gradc.artifacts.abi.symbols import (
    RUNTIME_TAPE_FREE,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_GROW_REFS,
    RUNTIME_TAPE_NEW,
)
from gradc.compiler.codegen.arrays import MEMINFO
from gradc.compiler.codegen.dispatch import LOWERING, LowerRule
from gradc.compiler.codegen.tape_grow import grow_outlined
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Instruction, Value
from gradc.compiler.ir.types import TAPE, ArrayType, NoneType, TapeType, TupleType, Type

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

__all__ = [
    "ENTRY_ALIGN",
    "RUNTIME_TAPE_FREE",
    "RUNTIME_TAPE_GROW",
    "RUNTIME_TAPE_GROW_REFS",
    "RUNTIME_TAPE_NEW",
    "TAPE_INITIAL_BYTES",
    "TAPE_INITIAL_REFS",
    "TapeLowering",
    "array_references",
    "entry_size",
    "memory_size_align",
    "registered_tape",
    "tape_header_type",
    "tape_type",
]

#: Every tape entry starts at a multiple of this many bytes.
ENTRY_ALIGN = 8

#: The capacity of the first buffer (growth doubles from there).
TAPE_INITIAL_BYTES = 4096

#: The capacity of the first reference stack, in entries.
TAPE_INITIAL_REFS = 512

_OUT_OF_MEMORY = "out of memory"

_TapeOp = ops.TapePush | ops.TapePop

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()

# header field indices
_BASE, _TOP, _CAP, _REFS, _NREFS, _REFCAP = range(6)


def tape_header_type() -> ll.LiteralStructType:
    """``{i8* base, i64 top, i64 cap, i8** refs, i64 nrefs, i64 refcap}``: the runtime's
    tape header."""
    return ll.LiteralStructType([_I8P, _I64, _I64, _I8P.as_pointer(), _I64, _I64])


def array_references(t: Type) -> int:
    """How many array references a value of gradc type ``t`` carries: 1 for an array,
    the sum over the elements for a tuple, 0 otherwise."""
    if isinstance(t, ArrayType):
        return 1
    if isinstance(t, TupleType):
        return sum(array_references(e) for e in t.elements)
    return 0


def tape_type() -> ll.PointerType:
    """The LLVM type of a ``tape`` value: a pointer to the header."""
    return tape_header_type().as_pointer()


def memory_size_align(ty: ll.Type) -> tuple[int, int]:
    """``(size, alignment)`` of LLVM type ``ty`` in memory on the LP64 targets gradc
    emits for (x86-64, AArch64): C struct layout, ``iN`` in the next power-of-two
    bytes, pointers 8 bytes. Equal to LLVM's alloc size and ABI alignment there."""
    if isinstance(ty, ll.IntType):
        size = 1
        while size * 8 < ty.width:
            size *= 2
        return size, size
    if isinstance(ty, ll.DoubleType):
        return 8, 8
    if isinstance(ty, ll.FloatType):
        return 4, 4
    if isinstance(ty, ll.PointerType):
        return 8, 8
    if isinstance(ty, ll.ArrayType):
        size, align = memory_size_align(ty.element)
        return size * ty.count, align
    if isinstance(ty, ll.LiteralStructType):
        offset, struct_align = 0, 1
        for element in ty.elements:
            size, align = memory_size_align(element)
            offset = -(-offset // align) * align
            offset += size
            struct_align = max(struct_align, align)
        return -(-offset // struct_align) * struct_align, struct_align
    raise TypeError(f"no memory layout for LLVM type {ty}")


def entry_size(ty: ll.Type) -> int:
    """Bytes one pushed value of LLVM type ``ty`` takes on the tape (a multiple of
    :data:`ENTRY_ALIGN`, at least one entry)."""
    size, align = memory_size_align(ty)
    if align > ENTRY_ALIGN:
        raise TypeError(f"LLVM type {ty} needs {align}-byte alignment")
    return max(ENTRY_ALIGN, -(-size // ENTRY_ALIGN) * ENTRY_ALIGN)


@dataclass(frozen=True)
class _Registers:
    """Stack slots (``alloca``, promoted to registers) holding one tape's ``cur``
    (``base + top``) and ``end`` (``base + cap``) pointers."""

    cur: ll.AllocaInstr
    end: ll.AllocaInstr


def registered_tape(func: Function) -> Value | None:
    """The tape value of ``func`` whose header fields may live in registers (module
    docstring): the only value of type ``tape`` in ``func``, a parameter or a ``tapenew``
    result, used only by pushes, pops, ``tapefree`` and calls. None otherwise."""
    tapes: list[Value] = [p for p in func.params if p.type == TAPE]
    for inst in func.instructions():
        if inst.type == TAPE:
            tapes.append(inst)
    if len(tapes) != 1:
        return None
    (tape,) = tapes
    if isinstance(tape, Instruction) and not isinstance(tape, ops.TapeNew):
        return None
    for inst in func.instructions():
        if isinstance(inst, ops.TapePush | ops.TapePop | ops.TapeFree | ops.Call):
            continue
        if any(v is tape for v in inst.operands()):
            return None
    return tape


class TapeLowering:
    """Lowers the tape operations of one function, on behalf of its function lowering."""

    def __init__(self, fl: FunctionLowering) -> None:
        self.fl = fl
        # entry address and type of each push or pop whose group is already reserved
        self._slots: dict[Instruction, tuple[ll.Value, ll.Type]] = {}
        # reference-stack address of each push of arrays whose group is already reserved
        self._ref_slots: dict[Instruction, ll.Value] = {}
        self._registered_value = registered_tape(fl.func)
        self._registers: _Registers | None = None
        self.oom_exit: ll.Block | None = None  # ``ret`` of MemoryError (tape_grow)

    def start(self) -> None:
        """Called once the parameters are lowered, with the prologue open: make the
        register slots, and fill them from a tape parameter's header."""
        if self._registered_value is None:
            return
        pro = self.fl.prologue
        self._registers = _Registers(
            pro.alloca(_I8P, name="tape.cur.slot"), pro.alloca(_I8P, name="tape.end.slot")
        )
        if not isinstance(self._registered_value, Instruction):  # a parameter
            self._fill(pro, self.fl.value(self._registered_value))

    # -- header fields: registers or memory ------------------------------------------

    def _registered(self, inst: Instruction) -> _Registers | None:
        """The register slots of ``inst``'s tape operand, if it has them."""
        if self._registers is not None and getattr(inst, "tape", None) is self._registered_value:
            return self._registers
        return None

    def _header_at(self, b: ll.IRBuilder, tape: ll.Value, field: int, name: str) -> ll.Value:
        v = b.load(self._field_at(b, tape, field), name=name, align=8)
        v.set_metadata("tbaa", self._tbaa("header"))
        return v

    def _fill(self, b: ll.IRBuilder, tape: ll.Value, top: ll.Value | None = None) -> None:
        """``cur, end = base + top, base + cap`` from the header (at ``b``); ``top``: the
        bytes in use when the header's own ``top`` is stale (after a growth)."""
        assert self._registers is not None
        base = self._header_at(b, tape, _BASE, "tape.base")
        if top is None:
            top = self._header_at(b, tape, _TOP, "tape.top")
        cap = self._header_at(b, tape, _CAP, "tape.cap")
        # not inbounds: base is NULL (and top, cap zero) before the first growth
        b.store(b.gep(base, [top], name="tape.cur"), self._registers.cur)
        b.store(b.gep(base, [cap], name="tape.end"), self._registers.end)

    def _top_of(self, b: ll.IRBuilder, tape: ll.Value, cur: ll.Value) -> ll.Value:
        """The bytes in use, ``cur - header.base``, at ``b``."""
        base = self._header_at(b, tape, _BASE, "tape.base")
        return b.sub(b.ptrtoint(cur, _I64), b.ptrtoint(base, _I64), name="tape.top")

    def _sync_out(self) -> None:
        """``header.top = cur - base`` from the registers, at the builder."""
        assert self._registers is not None and self._registered_value is not None
        tape = self.fl.value(self._registered_value)
        cur = self.b.load(self._registers.cur, name="tape.cur")
        self._store_field(tape, _TOP, self._top_of(self.b, tape, cur))

    def before_call(self, inst: ops.Call) -> None:
        """Before ``inst`` (a call): hand a registered tape's ``top`` to the callee."""
        if self._registers is not None and any(a is self._registered_value for a in inst.args):
            self._sync_out()

    def after_call(self, inst: ops.Call) -> None:
        """After ``inst`` returned normally: take the header back into the registers."""
        if self._registers is not None and any(a is self._registered_value for a in inst.args):
            assert self._registered_value is not None
            self._fill(self.b, self.fl.value(self._registered_value))

    def before_return(self) -> None:
        """Before a normal return: a tape parameter's header gets its ``top`` back."""
        if self._registers is not None and not isinstance(self._registered_value, Instruction):
            self._sync_out()

    @property
    def b(self) -> ll.IRBuilder:
        return self.fl.b

    # -- helpers ----------------------------------------------------------------------

    def _tape(self, inst: ops.TapePush | ops.TapePop | ops.TapeFree) -> ll.Value:
        if inst.tape.type != TAPE:
            raise self.fl.ice(f"{inst.OPNAME} of a {inst.tape.type} operand")
        return self.fl.value(inst.tape)

    def _tbaa(self, which: str) -> ll.MDValue:
        return self.fl.ml.tbaa(f"tape {which}")

    def _field(self, tape: ll.Value, field: int) -> ll.Value:
        return self._field_at(self.b, tape, field)

    @staticmethod
    def _field_at(b: ll.IRBuilder, tape: ll.Value, field: int) -> ll.Value:
        zero = ll.Constant(_I32, 0)
        return b.gep(tape, [zero, ll.Constant(_I32, field)], inbounds=True)

    def _load_field(self, tape: ll.Value, field: int, name: str) -> ll.Value:
        v = self.b.load(self._field(tape, field), name=name, align=8)
        v.set_metadata("tbaa", self._tbaa("header"))
        return v

    def _store_field(self, tape: ll.Value, field: int, v: ll.Value) -> None:
        st = self.b.store(v, self._field(tape, field), align=8)
        st.set_metadata("tbaa", self._tbaa("header"))

    def _value_type(self, inst: Instruction, t: Type) -> ll.Type:
        from gradc.compiler.codegen.lltypes import value_type  # it imports this module

        if isinstance(t, TapeType | NoneType):
            raise self.fl.ice(f"{inst.OPNAME} of a value of type {t}")
        return value_type(t)

    # -- groups -----------------------------------------------------------------------

    def _group(self, inst: _TapeOp) -> list[_TapeOp]:
        """``inst`` and the tape operations of the same kind on the same tape that follow
        it in its block with only transparent instructions between (module docstring)."""
        block = inst.block
        if block is None:
            return [inst]
        kind = type(inst)
        group: list[_TapeOp] = [inst]
        instructions = block.instructions
        for nxt in instructions[instructions.index(inst) + 1 :]:
            if (
                isinstance(nxt, ops.TapePush | ops.TapePop)
                and type(nxt) is kind
                and nxt.tape is inst.tape
            ):
                group.append(nxt)
            elif not _transparent(nxt):
                break
        return group

    # -- operations -------------------------------------------------------------------

    def _new(self, inst: ops.TapeNew) -> ll.Value:
        if inst.type != TAPE:
            raise self.fl.ice(f"tapenew typed {inst.type}")
        fn = self.fl.ml.declare(RUNTIME_TAPE_NEW, tape_type(), [], readnone=False)
        fn.return_value.add_attribute("noalias")
        tape = self.b.call(fn, [], name="tape")
        is_null = self.b.icmp_unsigned("==", tape, ll.Constant(tape_type(), None))
        self.fl.raise_if(is_null, "MemoryError", _OUT_OF_MEMORY)
        if self._registers is not None and inst is self._registered_value:
            self._fill(self.b, tape)
        return tape

    def _push(self, inst: ops.TapePush) -> None:
        b = self.b
        slot = self._slots.pop(inst, None)
        if slot is None:
            slot = self._reserve(inst)
        base, ty = slot
        value = self.fl.value(inst.value)
        st = b.store(value, b.bitcast(base, ty.as_pointer()), align=8)
        st.set_metadata("tbaa", self._tbaa("entry"))
        refs = self._ref_slots.pop(inst, None)
        if refs is not None:
            for k, meminfo in enumerate(_meminfos(b, value, inst.value.type)):
                at = refs if k == 0 else b.gep(refs, [ll.Constant(_I64, k)], inbounds=True)
                b.store(meminfo, at, align=8).set_metadata("tbaa", self._tbaa("refs"))

    def _reserve_refs(self, tape: ll.Value, count: int) -> tuple[ll.Value, ll.Value]:
        """Room for ``count`` array references on the reference stack (module docstring):
        one grow check; returns the address of the first and the new ``nrefs``, which the
        caller stores once the group can no longer raise before its pushes are done."""
        b = self.b
        used = self._load_field(tape, _NREFS, "tape.nrefs")
        cap = self._load_field(tape, _REFCAP, "tape.refcap")
        need = b.add(used, ll.Constant(_I64, count), name="tape.nrefs.need", flags=["nuw", "nsw"])
        grow = self.fl.llfn.append_basic_block("tape.grow.refs")
        store = self.fl.llfn.append_basic_block(self.fl.continuation())
        b.cbranch(b.icmp_unsigned(">", need, cap), grow, store).set_weights([1, 1 << 20])
        b.position_at_end(grow)
        fn = self.fl.ml.declare(RUNTIME_TAPE_GROW_REFS, _I32, [tape_type(), _I64], readnone=False)
        self._grow(fn, tape, need)
        b.branch(store)
        b.position_at_end(store)
        refs = self._load_field(tape, _REFS, "tape.refs")
        return b.gep(refs, [used], inbounds=True, name="tape.ref"), need

    def _reserve(self, inst: ops.TapePush) -> tuple[ll.Value, ll.Type]:
        """Make room for ``inst``'s group: one grow check, ``top`` advanced once; the
        other pushes of the group get their entry address in ``self._slots``."""
        b = self.b
        tape = self._tape(inst)
        group = self._group(inst)
        pushes = [p for p in group if isinstance(p, ops.TapePush)]
        types = [self._value_type(p, p.value.type) for p in pushes]
        sizes = [entry_size(ty) for ty in types]
        total = ll.Constant(_I64, sum(sizes))
        counts = [array_references(p.value.type) for p in pushes]
        nrefs = None
        if sum(counts):
            refs, nrefs = self._reserve_refs(tape, sum(counts))
            offset = 0
            for q, count in zip(pushes, counts):
                if count:
                    at = ll.Constant(_I64, offset)
                    self._ref_slots[q] = refs if offset == 0 else b.gep(refs, [at], inbounds=True)
                offset += count
        regs = self._registered(inst)
        grow = self.fl.llfn.append_basic_block("tape.grow")
        store = self.fl.llfn.append_basic_block(self.fl.continuation())
        fn = self.fl.ml.declare(RUNTIME_TAPE_GROW, _I32, [tape_type(), _I64], readnone=False)
        if regs is None:
            top = self._load_field(tape, _TOP, "tape.top")
            cap = self._load_field(tape, _CAP, "tape.cap")
            need = b.add(top, total, name="tape.need", flags=["nuw", "nsw"])
            b.cbranch(b.icmp_unsigned(">", need, cap), grow, store).set_weights([1, 1 << 20])
            b.position_at_end(grow)
            self._grow(fn, tape, need)
            b.branch(store)
            b.position_at_end(store)
            start = b.gep(self._load_field(tape, _BASE, "tape.base"), [top], inbounds=True)
            self._store_field(tape, _TOP, need)
        else:
            # after a growth the entries go at the refreshed ``cur`` (read again from the
            # registers where both paths meet). Not a loop back to the check: a loop per
            # push site made LLVM's loop passes (LoopRotate) quadratic in the number of
            # sites, 4.3 s of a 400-branch gradient's 14 s of optimisation
            first = b.load(regs.cur, name="tape.cur")
            need = b.gep(first, [total], name="tape.need")  # not inbounds: may be NULL
            end = b.load(regs.end, name="tape.end")
            b.cbranch(b.icmp_unsigned(">", need, end), grow, store).set_weights([1, 1 << 20])
            b.position_at_end(grow)
            if self.fl.ml.gpu:  # the GPU tape grows its own way (tape_gpu)
                used = self._top_of(b, tape, first)
                self._grow(fn, tape, b.add(used, total, name="tape.need", flags=["nuw", "nsw"]))
                self._fill(b, tape, used)  # the runtime moved the buffer; header.top is stale
            else:  # one call of the module's outlined growth (tape_grow)
                grow_outlined(self, fn, tape, first, total)
            b.branch(store)
            b.position_at_end(store)
            start = b.load(regs.cur, name="tape.cur")
            after = b.gep(start, [total], name="tape.next")
            b.store(after, regs.cur)
        if nrefs is not None:
            # only now: nothing between here and the group's last push may raise, so at
            # every error exit each of ``refs[0 .. nrefs)`` has been written
            self._store_field(tape, _NREFS, nrefs)
        offset = 0
        slots = []
        for ty, size in zip(types, sizes):
            at = start if offset == 0 else b.gep(start, [ll.Constant(_I64, offset)], inbounds=True)
            slots.append((at, ty))
            offset += size
        for p, slot in zip(group[1:], slots[1:]):
            self._slots[p] = slot
        return slots[0]

    def _grow(self, fn: ll.Function, tape: ll.Value, need: ll.Value) -> None:
        """Call the runtime's growth function ``fn`` to make room for ``need`` bytes (or
        reference entries); MemoryError on failure."""
        status = self.b.call(fn, [tape, need], name="tape.grown")
        self.fl.raise_if(
            self.b.icmp_unsigned("!=", status, ll.Constant(_I32, 0)), "MemoryError", _OUT_OF_MEMORY
        )

    def _pop(self, inst: ops.TapePop) -> ll.Value:
        b = self.b
        slot = self._slots.pop(inst, None)
        if slot is None:
            slot = self._release(inst)
        at, ty = slot
        v = b.load(b.bitcast(at, ty.as_pointer()), align=8)
        v.set_metadata("tbaa", self._tbaa("entry"))
        return v

    def _release(self, inst: ops.TapePop) -> tuple[ll.Value, ll.Type]:
        """Take ``inst``'s group off the tape: ``top`` moved down once; the other pops of
        the group (which read entries further down) get their addresses in ``self._slots``."""
        b = self.b
        tape = self._tape(inst)
        group = self._group(inst)
        types = [self._value_type(p, p.type) for p in group]
        sizes = [entry_size(ty) for ty in types]
        total = sum(sizes)
        count = sum(array_references(p.type) for p in group)
        if count:  # the popped values own these references now
            used = self._load_field(tape, _NREFS, "tape.nrefs")
            rest = b.sub(used, ll.Constant(_I64, count), name="tape.nrefs.rest", flags=["nuw"])
            self._store_field(tape, _NREFS, rest)
        regs = self._registered(inst)
        if regs is None:
            top = self._load_field(tape, _TOP, "tape.top")
            rest = b.sub(top, ll.Constant(_I64, total), name="tape.rest", flags=["nuw"])
            start = b.gep(self._load_field(tape, _BASE, "tape.base"), [rest], inbounds=True)
            self._store_field(tape, _TOP, rest)
        else:
            cur = b.load(regs.cur, name="tape.cur")
            start = b.gep(cur, [ll.Constant(_I64, -total)], inbounds=True, name="tape.rest")
            b.store(start, regs.cur)
        offset = total
        slots = []
        for ty, size in zip(types, sizes):
            offset -= size
            at = start if offset == 0 else b.gep(start, [ll.Constant(_I64, offset)], inbounds=True)
            slots.append((at, ty))
        for p, slot in zip(group[1:], slots[1:]):
            self._slots[p] = slot
        return slots[0]

    def _free(self, inst: ops.TapeFree) -> None:
        self.free_value(self._tape(inst))

    def free_value(self, tape: ll.Value) -> None:
        """Call ``gradc_rt2_tape_free`` on ``tape`` (also on error exits: ``unwind``), which
        also releases the array references still on it."""
        fn = self.fl.ml.declare(RUNTIME_TAPE_FREE, ll.VoidType(), [tape_type()], readnone=False)
        self.b.call(fn, [tape])


def _meminfos(b: ll.IRBuilder, v: ll.Value, t: Type) -> list[ll.Value]:
    """The ``meminfo`` of every array in value ``v`` of gradc type ``t``, in element order
    (:func:`array_references` of them)."""
    if isinstance(t, ArrayType):
        return [b.extract_value(v, MEMINFO)]
    if isinstance(t, TupleType):
        out: list[ll.Value] = []
        for i, et in enumerate(t.elements):
            if array_references(et):
                out.extend(_meminfos(b, b.extract_value(v, i), et))
        return out
    return []


def _transparent(inst: Instruction) -> bool:
    """May ``inst`` sit inside a group of pushes or pops? Yes when it cannot touch a tape
    (no call, no tape operation), cannot raise and does not end the block; reference
    counts qualify (they only touch array headers)."""
    if isinstance(inst, ops.IncRef | ops.DecRef):
        return True
    return not (inst.IS_TERMINATOR or inst.MAY_RAISE or inst.HAS_SIDE_EFFECTS)


def _on_tape(method: Callable[[TapeLowering, Any], ll.Value | None]) -> LowerRule:
    """The lowering rule running ``method`` of the function's :class:`TapeLowering`."""

    def rule(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
        return getattr(fl.tape, method.__name__)(inst)  # the GPU's overrides (tape_gpu)

    return rule


LOWERING.set([ops.TapeNew], _on_tape(TapeLowering._new))
LOWERING.set([ops.TapePush], _on_tape(TapeLowering._push))
LOWERING.set([ops.TapePop], _on_tape(TapeLowering._pop))
LOWERING.set([ops.TapeFree], _on_tape(TapeLowering._free))
