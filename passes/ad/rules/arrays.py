"""Rules of the array operations. Array adjoints live in *shadow* arrays (Enzyme's
``Duplicated``), tangents in tangent arrays of the same shape (docs/ad.md):

==========  ===================================  =======================================
operation   JVP                                  adjoint
==========  ===================================  =======================================
elemaddr    the same address in the tangent      (none: the load or store using it)
load        load the tangent element             shadow[i] += ā
store       store the value's tangent beside     v̄ += shadow[i]; shadow[i] = 0 (the old
            the value                            value no longer reaches the output)
atomicadd   atomically add the value's tangent   v̄ += shadow[i] (the shadow stays: the old
            into the tangent element             value still reaches the output)
newarray    np.full(shape, y): every element's   ȳ += Σ shadow
            tangent is ẏ
copyarray   a copy of the tangent                source shadow += copy's shadow
dim         (none: an int, rebuilt where needed)
==========  ===================================  =======================================

What the reverse sweep keeps for them (indices of accesses, shadows of local arrays) is
planned by the reverse sweep with the array's aliases, not listed here.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Instruction, Value
from gradc.compiler.ir.types import NONE, ArrayType
from gradc.passes.ad.layout import fill_adjoint, zero
from gradc.passes.ad.rules.base import (
    BlockState,
    ForwardSweep,
    NoDerivative,
    Rebuild,
    ReverseSweep,
    SweepRule,
)
from gradc.passes.ad.rules.registry import AD_RULES


def _element_addr(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.ElementAddr)
    tangent = sweep.tangent(inst.array)
    return sweep.b.insert(ops.ElementAddr(tangent, inst.indices, type=inst.type))


def _load(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Load)
    return sweep.b.insert(ops.Load(sweep.tangent(inst.pointer), type=inst.type))


def _store(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Store)
    memory = sweep.known_tangent(inst.pointer)
    if memory is not None:
        sweep.b.insert(ops.Store(memory, sweep.tangent(inst.value), type=NONE))
    elif sweep.must_have_tangent(inst.value):
        raise AssertionError(f"forward mode: no tangent memory for {inst!r}")
    return None


def _atomic_add(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    # a[i] += v: the tangent of a[i] accumulates v's; the old value's tangent is never
    # wanted (a differentiated kernel refuses its use, passes/ad/kernels.py)
    assert isinstance(inst, ops.AtomicAdd)
    memory = sweep.known_tangent(inst.pointer)
    if memory is not None:
        sweep.b.insert(ops.AtomicAdd(memory, sweep.tangent(inst.value), type=inst.type))
    elif sweep.must_have_tangent(inst.value):
        raise AssertionError(f"forward mode: no tangent memory for {inst!r}")
    return None


def _new_array(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    # np.full(shape, y): every element's tangent is y's
    assert isinstance(inst, ops.NewArray)
    t = inst.type
    assert isinstance(t, ArrayType)
    b = sweep.b
    start = sweep.tangent(inst.fill) if inst.fill is not None else b.const(0.0, t.dtype)
    return b.insert(ops.NewArray(inst.shape, start, type=t))


def _copy_array(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.CopyArray)
    return sweep.b.insert(ops.CopyArray(sweep.tangent(inst.array), type=inst.type))


def _element_addr_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    pass  # the load or store through it moves the adjoint


def _load_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Load)
    b, adj = sweep.b, sweep.adjoints
    a = adj.read(sweep.current(), (inst, 0))
    adj.reset((inst, 0))
    address = sweep.address(state, inst.pointer)
    private = sweep.p.private
    if private is not None and not private(inst):  # a kernel's element other threads share
        array = inst.pointer.array if isinstance(inst.pointer, ops.ElementAddr) else None
        on_global = isinstance(array, Argument) and array.index in sweep.p.global_arrays
        b.insert(ops.AtomicAdd(address, a, type=inst.type, global_memory=on_global))
        return
    old = b.insert(ops.Load(address, type=inst.type))
    b.insert(ops.Store(address, b.add(old, a), type=NONE))


def _store_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Store)
    if not sweep.p.active(inst.pointer):
        return
    # value was written over the old contents: its adjoint is the shadow's, and the
    # shadow restarts from zero (the old value did not reach later)
    b, value = sweep.b, inst.value
    address = sweep.address(state, inst.pointer)
    a = b.insert(ops.Load(address, type=value.type))
    sweep.adjoints.accumulate((value, 0), a)
    b.insert(ops.Store(address, zero(b, value.type), type=NONE))


def _atomic_add_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.AtomicAdd)
    if not sweep.p.active(inst.pointer) or not sweep.p.active(inst.value):
        return
    # a[i] += v adds v to what a[i] held: v's adjoint is the shadow's, which is not
    # consumed (what a[i] held before still reaches the output beside v)
    address = sweep.address(state, inst.pointer)
    a = sweep.b.insert(ops.Load(address, type=inst.value.type))
    sweep.adjoints.accumulate((inst.value, 0), a)


def _new_array_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.NewArray)
    fill = inst.fill
    if fill is not None and sweep.p.active(fill):
        # np.full(shape, y): every element is y, so ȳ += Σ shadow
        total = fill_adjoint(sweep.p.module, sweep.b, sweep.shadow(state, inst))
        sweep.adjoints.accumulate((fill, 0), total)


def _copy_array_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    # the copy's adjoints flow back into the source's, element by element; a constant
    # source (a Const parameter copied, the copy then made active by a store) has no
    # shadow, and its adjoint is not wanted
    assert isinstance(inst, ops.CopyArray)
    source, s = inst.array, sweep.shadows
    if sweep.p.active(source) or source in s.shadows or source in s.selectors:
        sweep.b.insert(
            ops.AccumulateArray(sweep.shadow(state, source), sweep.shadow(state, inst), type=NONE)
        )


AD_RULES.set([ops.ElementAddr], SweepRule(_element_addr, _element_addr_adjoint))
AD_RULES.set([ops.Load], SweepRule(_load, _load_adjoint, rebuild=Rebuild.RELOAD))
AD_RULES.set([ops.Store], SweepRule(_store, _store_adjoint))
AD_RULES.set([ops.AtomicAdd], SweepRule(_atomic_add, _atomic_add_adjoint))
AD_RULES.set([ops.NewArray], SweepRule(_new_array, _new_array_adjoint))
AD_RULES.set([ops.CopyArray], SweepRule(_copy_array, _copy_array_adjoint))
AD_RULES.set([ops.ArrayDim], NoDerivative(Rebuild.ALWAYS))  # an int, rebuilt from the array
