"""Rules of the operations that choose, convert or group values:

==========  ===============================  ==========================================
operation   JVP                              adjoint
==========  ===============================  ==========================================
select      the tangent of the operand       ā to the operand picked (reads ``cond``)
            picked
cast        the tangent cast to the          ā cast back (float to float; int() cuts
            result's (shadow) type           the dependence: an int is never active)
tuple       the tuple of the tangents        each element's adjoint to its element
extract     the element of the tangent       ā to that element of the tuple's adjoint
call        a call of the callee's JVP       a call of the callee's reverse sweep
cmp, not    (none: the result is a bool, never active)
==========  ===============================  ==========================================

``cast``, ``tuple``, ``extract`` and ``call`` move adjoints between tuple elements and
callees: their rules (:class:`.base.SweepRule`) are written against the sweeps'
adjoint variables (:class:`.base.ReverseSweep`). A call's adjoint calls the callee's
reverse sweep on the shadows of the array arguments and the adjoint of the result (its
*seed*), then adds the adjoints it returns to the scalar arguments'.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I64, ArrayType, TupleType
from gradc.passes.ad.layout import adjoint_type, is_float, shadow_type, zero
from gradc.passes.ad.leaves import build, element_of_leaf, first_leaf, get_leaf, leaves
from gradc.passes.ad.rules.algebra import RuleOps
from gradc.passes.ad.rules.base import (
    BlockState,
    Choice,
    ForwardSweep,
    Keep,
    NoDerivative,
    Rebuild,
    ReverseSweep,
    SweepRule,
)
from gradc.passes.ad.rules.registry import AD_RULES


def _select(o: RuleOps, inst: Instruction) -> tuple[Value, Value, Value]:
    assert isinstance(inst, ops.Select)
    return inst.cond, inst.if_true, inst.if_false


AD_RULES.set([ops.Select], Choice(_select, Keep((0,)), Rebuild.SCALAR))


def _cast(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Cast)
    return sweep.b.cast(sweep.tangent(inst.value), shadow_type(inst.type))


def _make_tuple(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.MakeTuple)
    return sweep.b.make_tuple([sweep.tangent(e) for e in inst.elements])


def _tuple_get(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.TupleGet)
    return sweep.b.tuple_get(sweep.tangent(inst.tuple), inst.index)


def _call(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Call)
    return sweep.call_jvp(inst)


def _cast_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.Cast)
    b, adj = sweep.b, sweep.adjoints
    if not is_float(inst.type):
        return
    a = adj.read(sweep.current(), (inst, 0))
    adj.reset((inst, 0))
    if not adj.is_shared_zero(a) and is_float(inst.value.type):
        adj.accumulate((inst.value, 0), b.cast(a, inst.value.type))


def _make_tuple_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.MakeTuple)
    adj = sweep.adjoints
    assert isinstance(inst.type, TupleType)
    for _, k in adj.keys_of(inst):  # leaf k is leaf j of element i (a nested tuple's)
        a = adj.read(sweep.current(), (inst, k))
        adj.reset((inst, k))
        i, j = element_of_leaf(inst.type, k)
        adj.accumulate((inst.elements[i], j), a)


def _tuple_get_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    assert isinstance(inst, ops.TupleGet)
    adj = sweep.adjoints
    assert isinstance(inst.tuple.type, TupleType)
    offset = first_leaf(inst.tuple.type, inst.index)
    for _, j in adj.keys_of(inst):  # a float, or the float leaves of a nested tuple
        a = adj.read(sweep.current(), (inst, j))
        adj.reset((inst, j))
        adj.accumulate((inst.tuple, offset + j), a)


def _call_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
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
        if isinstance(arg.type, TupleType):  # a tuple argument: leaf by leaf
            paths = leaves(arg.type)
            for _, k in adj.keys_of(arg):
                adj.accumulate((arg, k), get_leaf(b, adjoint, paths[k][0]))
        else:
            adj.accumulate((arg, 0), adjoint)


def _call_seed(sweep: ReverseSweep, state: BlockState, call: ops.Call) -> Value:
    """The adjoint of ``call``'s result, as its callee's reverse sweep takes it."""
    b, adj = sweep.b, sweep.adjoints
    block = sweep.current()
    keys = adj.keys_of(call)
    seed_type = adjoint_type(call.type)
    if isinstance(seed_type, TupleType):  # leaf by leaf (the leaves of call.type's)
        return build(
            b,
            seed_type,
            lambda k, t: adj.read(block, (call, k)) if (call, k) in keys else zero(b, t),
        )
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


AD_RULES.set([ops.Cast], SweepRule(_cast, _cast_adjoint, rebuild=Rebuild.SCALAR))
AD_RULES.set(
    [ops.MakeTuple], SweepRule(_make_tuple, _make_tuple_adjoint, rebuild=Rebuild.SCALAR_TUPLE)
)
AD_RULES.set(
    [ops.TupleGet], SweepRule(_tuple_get, _tuple_get_adjoint, rebuild=Rebuild.SCALAR_TUPLE)
)
AD_RULES.set([ops.Call], SweepRule(_call, _call_adjoint))
# results never active: a bool, an int; the reverse sweep rebuilds them
AD_RULES.set([ops.Cmp], NoDerivative(Rebuild.SCALAR))
AD_RULES.set([ops.Not], NoDerivative(Rebuild.INTEGER))
