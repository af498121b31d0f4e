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
callees: the reverse sweep applies their adjoints (:class:`.base.SweepRule`).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.passes.ad.layout import shadow_type
from gradc.passes.ad.rules.algebra import RuleOps
from gradc.passes.ad.rules.base import Choice, ForwardSweep, Keep, NoDerivative, Rebuild, SweepRule
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


AD_RULES.set([ops.Cast], SweepRule(_cast, rebuild=Rebuild.SCALAR))
AD_RULES.set([ops.MakeTuple], SweepRule(_make_tuple, rebuild=Rebuild.SCALAR_TUPLE))
AD_RULES.set([ops.TupleGet], SweepRule(_tuple_get, rebuild=Rebuild.SCALAR_TUPLE))
AD_RULES.set([ops.Call], SweepRule(_call))
# results never active: a bool, an int; the reverse sweep rebuilds them
AD_RULES.set([ops.Cmp], NoDerivative(Rebuild.SCALAR))
AD_RULES.set([ops.Not], NoDerivative(Rebuild.INTEGER))
