"""The adjoint of each instruction in the reverse sweep (:mod:`.reverse_sweep`).

Operations that move derivatives through memory, tuple elements or callees have their
adjoint here, in :data:`SWEEP_ADJOINTS` (the reverse sweep owns the shadows and adjoint
variables they move):

==========  ============================================================================
store       v̄ += shadow[i]; shadow[i] = 0 (the old value no longer reaches the output)
load        shadow[i] += ā
newarray    ȳ += Σ shadow (``np.full(shape, y)``)
copyarray   source shadow += the copy's shadow
call        the callee's reverse sweep, on the shadows of the array arguments and the
            adjoint of the result; the adjoints of scalar arguments it returns are added
extract     the tuple element's adjoint += ā
tuple       each element's adjoint += its part of ā
cast        the operand's adjoint += ā cast back (a float operand)
==========  ============================================================================

(``elemaddr``: none; the access through it moves the adjoint.) These are the operations
whose rule is a :class:`.rules.base.SweepRule`. The others (arithmetic, ``math``,
``select``) are scalar operations: their adjoint is the transpose of their rule
(:mod:`.rules`), applied to the adjoint of the result read and reset here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc.compiler.ir import ops
from gradc.compiler.ir.clone import remap
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.types import I64, NONE, ArrayType, TupleType
from gradc.passes.ad.layout import fill_adjoint
from gradc.passes.ad.rules import make_ops, scalar_rule
from gradc.passes.ad.sweep_state import adjoint_type, is_float, zero

if TYPE_CHECKING:
    from gradc.passes.ad.reverse_sweep import BlockState, ReverseSweep

SweepAdjoint = Callable[["ReverseSweep", "BlockState", Instruction], None]

#: The adjoints the reverse sweep applies itself, by operation class.
SWEEP_ADJOINTS: OpTable[SweepAdjoint] = OpTable("reverse sweep")


def apply_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    """Emit the adjoint of forward instruction ``inst`` at the sweep's insertion point.

    Raises:
        NotDifferentiable: its rule cannot differentiate it.
    """
    rule = SWEEP_ADJOINTS.get(inst)
    if rule is not None:
        rule(sweep, state, inst)
    else:
        _scalar_adjoint(sweep, state, inst)


@SWEEP_ADJOINTS.register(ops.Store)
def _store(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
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


@SWEEP_ADJOINTS.register(ops.Load)
def _load(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Load)
    b, adj = sweep.b, sweep.adjoints
    a = adj.read(sweep.current(), (inst, 0))
    adj.reset((inst, 0))
    address = sweep.address(state, inst.pointer)
    old = b.insert(ops.Load(address, type=inst.type))
    b.insert(ops.Store(address, b.add(old, a), type=NONE))


@SWEEP_ADJOINTS.register(ops.ElementAddr)
def _element_addr(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    pass  # the load or store through it moves the adjoint


@SWEEP_ADJOINTS.register(ops.NewArray)
def _new_array(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.NewArray)
    fill = inst.fill
    if fill is not None and sweep.p.active(fill):
        # np.full(shape, y): every element is y, so ȳ += Σ shadow
        total = fill_adjoint(sweep.p.module, sweep.b, sweep.shadow(state, inst))
        sweep.adjoints.accumulate((fill, 0), total)


@SWEEP_ADJOINTS.register(ops.CopyArray)
def _copy_array(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    # the copy's adjoints flow back into the source's, element by element; a constant
    # source (a Const parameter copied, the copy then made active by a store) has no
    # shadow, and its adjoint is not wanted
    assert isinstance(inst, ops.CopyArray)
    source, s = inst.array, sweep.shadows
    if sweep.p.active(source) or source in s.shadows or source in s.selectors:
        sweep.b.insert(
            ops.AccumulateArray(sweep.shadow(state, source), sweep.shadow(state, inst), type=NONE)
        )


@SWEEP_ADJOINTS.register(ops.TupleGet)
def _tuple_get(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.TupleGet)
    adj = sweep.adjoints
    if is_float(inst.type):
        a = adj.read(sweep.current(), (inst, 0))
        adj.reset((inst, 0))
        adj.accumulate((inst.tuple, inst.index), a)


@SWEEP_ADJOINTS.register(ops.MakeTuple)
def _make_tuple(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.MakeTuple)
    adj = sweep.adjoints
    for _, k in adj.keys_of(inst):
        a = adj.read(sweep.current(), (inst, k))
        adj.reset((inst, k))
        adj.accumulate((inst.elements[k], 0), a)


@SWEEP_ADJOINTS.register(ops.Cast)
def _cast(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Cast)
    b, adj = sweep.b, sweep.adjoints
    if not is_float(inst.type):
        return
    a = adj.read(sweep.current(), (inst, 0))
    adj.reset((inst, 0))
    if not adj.is_shared_zero(a) and is_float(inst.value.type):
        adj.accumulate((inst.value, 0), b.cast(a, inst.value.type))


@SWEEP_ADJOINTS.register(ops.Call)
def _call(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Call)
    if not sweep.p.activity.call_patterns.get(inst):
        return
    b, adj = sweep.b, sweep.adjoints
    derived = sweep.p.callee(inst)
    shadows = [
        s if s.type == derived.rev.params[k].type else b.cast(s, derived.rev.params[k].type)
        for k, s in enumerate(sweep.shadow(state, inst.args[i]) for i in derived.array_params)
    ]
    seed = _call_seed(sweep, state, inst)
    for key in adj.keys_of(inst):
        adj.reset(key)
    result = b.call(derived.rev.name, [*shadows, sweep.tape, seed], derived.rev.return_type)
    for position, i in enumerate(derived.scalar_params):
        adjoint, arg = b.tuple_get(result, position), inst.args[i]
        if isinstance(arg.type, TupleType):  # a tuple argument: element by element
            for _, k in adj.keys_of(arg):
                adj.accumulate((arg, k), b.tuple_get(adjoint, k))
        else:
            adj.accumulate((arg, 0), adjoint)


def _call_seed(sweep: ReverseSweep, state: BlockState, call: ops.Call) -> Value:
    """The adjoint of ``call``'s result, as its callee's reverse sweep takes it."""
    b, adj = sweep.b, sweep.adjoints
    block = sweep.current()
    keys = adj.keys_of(call)
    seed_type = adjoint_type(call.type)
    if isinstance(seed_type, TupleType):
        parts = []
        for k, t in enumerate(seed_type.elements):
            if (call, k) in keys:
                parts.append(adj.read(block, (call, k)))
            else:
                parts.append(zero(b, t))
        return b.make_tuple(parts)
    if keys:
        return adj.read(block, (call, 0))
    if isinstance(seed_type, ArrayType):
        # the shadow of the returned array (a placeholder if the caller needs none)
        if call in sweep.shadows.shadows:
            return sweep.shadow(state, call)
        return b.insert(
            ops.NewArray(
                (b.const(0, I64),) * seed_type.ndim,
                b.const(0.0, seed_type.dtype),
                type=seed_type,
            )
        )
    return zero(b, seed_type)


def _scalar_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    """The transpose of a scalar operation's rule, applied to the adjoint of its result."""
    b, adj = sweep.b, sweep.adjoints
    if not is_float(inst.type):
        return
    a = adj.read(sweep.current(), (inst, 0))
    adj.reset((inst, 0))
    if adj.is_shared_zero(a):
        return  # an unused value: no adjoint, and no 0·inf from its partials
    o = make_ops(b)
    proxy = copy.copy(inst)
    # operands the rule needs were pushed (or are constants); the others stand for
    # themselves, as keys of the contributions (the verifier catches a rule that
    # used a value it should have pushed)
    mapping = {
        v: sweep.primal(state, v) if v in state.popped or isinstance(v, ops.Const) else v
        for v in inst.operands()
    }
    remap(proxy, mapping, {})
    back = {id(mapping[v]): v for v in inst.operands()}

    def active(v: Value) -> bool:
        original = back.get(id(v))
        return original is not None and sweep.p.active(original)

    def accumulate(operand: Value, contribution: Value) -> None:
        original = back.get(id(operand))
        if original is not None:
            adj.accumulate((original, 0), contribution)

    # the popped result where the rule needs it (its plan pushed it); otherwise the
    # rule uses the result only for its type
    result = state.popped.get(inst, inst)
    scalar_rule(inst).transpose(o, proxy, a, result, active, accumulate)
