"""Operations only derivative code and the passes after AD make: the tape
(``tapenew``, ``tapepush``, ``tapepop``, ``tapefree``), shadow accumulation
(``arrayacc``), reference counts (``incref``, ``decref``) and decayed pointers
(``elemoffset``, ``addr``, ``ptradd``). A function holding one is derivative code; an
active value reaching one is a compile-time error (:class:`.base.Refused`), never a
derivative silently dropped.

Forward mode differentiates the tape and ``arrayacc`` (:class:`.base.ForwardOnly`), so
``gradc.jvp`` of a reverse-mode derivative works (forward-over-reverse): the tangent of
a tape is a second tape, onto which every push of a value that can carry a derivative
(a float, a float array, a tuple holding one) pushes its tangent (a zero where the value
is inactive), and from which every pop of such a value pops it. Both tapes see the same
sequence of those pushes and pops, so the tangent popped is the tangent of the value
popped. The tangent of ``arrayacc t, s`` is ``arrayacc ṫ, ṡ`` (it is linear); the
reverse sweep's shadow element ``addr s, (elemoffset s, i)`` has the tangent
``addr ṡ, (elemoffset ṡ, i)`` (the tangent array's own strides).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I64, NONE, TAPE, ArrayType, ScalarType, TupleType, Type
from gradc.passes.ad.layout import shadow_type
from gradc.passes.ad.rules.base import ForwardOnly, ForwardSweep, NotDifferentiable, Refused
from gradc.passes.ad.rules.registry import AD_RULES


def carries_tangent(t: Type) -> bool:
    """Does a value of type ``t`` pushed on a differentiated tape get a tangent there?"""
    if isinstance(t, ScalarType):
        return t.is_float
    if isinstance(t, ArrayType):
        return t.dtype.is_float
    if isinstance(t, TupleType):
        return any(carries_tangent(e) for e in t.elements)
    return False


def _tape_new(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    return sweep.b.insert(ops.TapeNew(type=TAPE))


def _tape_push(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.TapePush)
    tangent_tape = sweep.known_tangent(inst.tape)
    if tangent_tape is not None and carries_tangent(inst.value.type):
        sweep.b.insert(ops.TapePush(tangent_tape, sweep.tangent(inst.value), type=NONE))
    return None


def _tape_pop(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.TapePop)
    tangent_tape = sweep.known_tangent(inst.tape)
    if tangent_tape is None or not carries_tangent(inst.type):
        return None
    return sweep.b.insert(ops.TapePop(tangent_tape, type=shadow_type(inst.type)))


def _tape_free(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.TapeFree)
    tangent_tape = sweep.known_tangent(inst.tape)
    if tangent_tape is not None:
        sweep.b.insert(ops.TapeFree(tangent_tape, type=NONE))
    return None


def _accumulate(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.AccumulateArray)
    source = sweep.known_tangent(inst.source)
    if source is not None:
        sweep.b.insert(ops.AccumulateArray(sweep.tangent(inst.target), source, type=NONE))
    return None


def _element_offset(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    return None  # an integer: the address built from it gets the tangent's own offset


def _addr(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    # the reverse sweep addresses shadow elements as addr(s, elemoffset(s, i)); the
    # tangent array may have other strides, so its element is addressed by its own offset
    assert isinstance(inst, ops.Addr)
    offset = inst.offset
    if not (isinstance(offset, ops.ElementOffset) and offset.array is inst.array):
        raise NotDifferentiable("'addr' at an offset computed elsewhere (derivative code)")
    b, tangent = sweep.b, sweep.tangent(inst.array)
    own = b.insert(ops.ElementOffset(tangent, offset.indices, in_range=offset.in_range, type=I64))
    return b.insert(ops.Addr(tangent, own, type=inst.type))


AD_RULES.set([ops.TapeNew], ForwardOnly(_tape_new))
AD_RULES.set([ops.TapePush], ForwardOnly(_tape_push))
AD_RULES.set([ops.TapePop], ForwardOnly(_tape_pop))
AD_RULES.set([ops.TapeFree], ForwardOnly(_tape_free))
AD_RULES.set([ops.AccumulateArray], ForwardOnly(_accumulate))
AD_RULES.set([ops.ElementOffset], ForwardOnly(_element_offset))
AD_RULES.set([ops.Addr], ForwardOnly(_addr))
AD_RULES.set([ops.IncRef, ops.DecRef, ops.PointerAdd], Refused())
