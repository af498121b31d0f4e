"""Activity analysis: which values carry derivatives.

A value is *active* when it may depend, through floating-point arithmetic, on a
differentiated input (forward propagation from the active parameters, to a fixpoint
over phis and loops). Integers and booleans are never active: comparisons, ``int()``,
``math.floor`` and friends cut the dependence (their derivative is zero almost
everywhere). An array is active when active values may be stored into it or it is an
active parameter; loads from an active array are active.

Only active values get tangents (forward mode) or adjoints (reverse mode), which keeps
constant computations out of derivative code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Function, Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.types import ArrayType, PointerType, ScalarType, TupleType, Type
from gradc.passes.ad.rules import AD_RULES
from gradc.passes.ad.rules.base import ForwardOnly, Refused
from gradc.passes.analysis.pointers import array_sources


def can_be_active(t: Type) -> bool:
    """Floats, arrays of floats, pointers to floats and tuples holding any of them."""
    if isinstance(t, ScalarType):
        return t.is_float
    if isinstance(t, ArrayType):
        return t.dtype.is_float
    if isinstance(t, PointerType):
        return t.pointee.is_float
    if isinstance(t, TupleType):
        return any(can_be_active(e) for e in t.elements)
    return False


@dataclass
class Activity:
    """The active values of one function for one pattern of active parameters.

    Attributes:
        active: active SSA values (floats, arrays, derived pointers, tuples).
        call_patterns: for each call with active operands, the callee's active
            parameter indices.
    """

    active: set[Value]
    call_patterns: dict[ops.Call, frozenset[int]]

    def __contains__(self, v: object) -> bool:
        return v in self.active


def analyze(fn: Function, active_params: frozenset[int], *, tapes: bool = False) -> Activity:
    """Forward activity of ``fn`` when the parameters at ``active_params`` are active.

    With ``tapes`` (forward mode: ``gradc.jvp`` of a reverse-mode derivative), every tape
    ``fn`` makes is active, and so is every float value or array popped off an active
    tape (:mod:`.rules.derivative_code`).
    """
    active: set[Value] = {p for p in fn.params if p.index in active_params}
    if tapes:
        active.update(i for i in fn.instructions() if isinstance(i, ops.TapeNew))
    changed = True
    while changed:
        changed = False
        for inst in fn.instructions():
            if inst not in active and _becomes_active(inst, active):
                active.add(inst)
                changed = True
            # the sharing rules run for active instructions too: one made active by a
            # store through an alias (or a TupleGet of an array) propagates the same way
            share = _SHARING.get(inst)
            if share is not None and share(inst, active):
                changed = True
    patterns: dict[ops.Call, frozenset[int]] = {}
    for inst in fn.instructions():
        if isinstance(inst, ops.Call):
            pattern = frozenset(i for i, a in enumerate(inst.args) if a in active)
            if pattern:
                patterns[inst] = pattern
    return Activity(active, patterns)


Becomes = Callable[[Instruction, set[Value]], bool]
"""``(inst, active) -> is inst's result active?`` (its type can carry a derivative)."""

#: When the result of an operation becomes active; the default: when an operand is.
_BECOMES: OpTable[Becomes] = OpTable("activity")


def _becomes_active(inst: Instruction, active: set[Value]) -> bool:
    if not can_be_active(inst.type):
        return False
    rule = _BECOMES.get(inst)
    if rule is not None:
        return rule(inst, active)
    return any(v in active for v in inst.operands())


@_BECOMES.register(ops.Load)
def _load(inst: Instruction, active: set[Value]) -> bool:
    assert isinstance(inst, ops.Load)
    return any(r in active for r in array_sources(inst.pointer))


@_BECOMES.register(ops.ElementAddr)
def _element_addr(inst: Instruction, active: set[Value]) -> bool:
    assert isinstance(inst, ops.ElementAddr)
    return inst.array in active


@_BECOMES.register(ops.NewArray)
def _new_array(inst: Instruction, active: set[Value]) -> bool:
    # a new array is active when filled with an active value (np.full(n, y)), or later,
    # when active values are stored into it
    assert isinstance(inst, ops.NewArray)
    return inst.fill is not None and inst.fill in active


@_BECOMES.register(ops.Const)
def _never(inst: Instruction, active: set[Value]) -> bool:
    return False


@_BECOMES.register(ops.Add, ops.Sub, ops.Div, ops.FDiv, ops.Mod)
def _cancelling(inst: Instruction, active: set[Value]) -> bool:
    # x - x, x + (-x), x / x, x % x of one value (:func:`_same_value`) are constant (0,
    # 1, 0 wherever defined): their derivative is 0, while the chain rule through them
    # sums partials that cancel only where finite (an infinite adjoint from sqrt'(0) or a
    # NaN ln of a negative base made inf - inf: sqrt(x - x), (-2.5) ** (x - x))
    a, b = inst.operands()
    if not (a in active or b in active):
        return False
    x, y = _same_value(a), _same_value(b)
    if isinstance(inst, ops.Add):
        return _negated(x) is not y and _negated(y) is not x
    return x is not y


def _negated(v: Value) -> Value | None:
    """The value ``v`` negates (``-x``: ``x``, as :func:`_same_value`), or None."""
    return _same_value(v.operands()[0]) if isinstance(v, ops.Neg) else None


def _same_value(v: Value) -> Value:
    """``v``, or the value it equals whatever the inputs: the operand of ``min(x, x)``,
    ``max(x, x)`` or a ``select`` of one value on both sides (``x - min(x, x)`` is 0)."""
    while True:
        if isinstance(v, ops.Min | ops.Max) and v.operands()[0] is v.operands()[1]:
            v = v.operands()[0]
        elif isinstance(v, ops.Select) and v.if_true is v.if_false:
            v = v.if_true
        else:
            return v


Share = Callable[[Instruction, set[Value]], bool]
"""``(inst, active) -> changed``: make active the values that name the same memory as
an active one at ``inst``."""

#: The sharing rules: names of the same memory are active together.
_SHARING: OpTable[Share] = OpTable("activity sharing")


def _activate(active: set[Value], values: list[Value]) -> bool:
    """Add those of ``values`` that hold a float array to ``active``; any added?"""
    added = [v for v in values if v not in active and _holds_array(v.type)]
    active.update(added)
    return bool(added)


@_SHARING.register(ops.Store, ops.AtomicAdd)
def _store(inst: Instruction, active: set[Value]) -> bool:
    # storing (or atomically adding) an active value makes the array (and everything it
    # aliases) active
    assert isinstance(inst, ops.Store | ops.AtomicAdd)
    changed = False
    if inst.value in active:
        for root in array_sources(inst.pointer):
            if isinstance(root.type, ArrayType) and root not in active:
                active.add(root)
                changed = True
    return changed


@_SHARING.register(ops.AccumulateArray)
def _accumulate(inst: Instruction, active: set[Value]) -> bool:
    # adding an active array into another makes that one active (forward-over-reverse)
    assert isinstance(inst, ops.AccumulateArray)
    if inst.source in active:
        return _activate(active, list(array_sources(inst.target)))
    return False


@_SHARING.register(ops.TapePush)
def _tape_push(inst: Instruction, active: set[Value]) -> bool:
    # an array pushed on an active tape is active: its one tangent array goes on the
    # tangent tape each time it is pushed (a fresh zero per push would split it)
    assert isinstance(inst, ops.TapePush)
    if inst.tape in active and _holds_array(inst.value.type):
        return _activate(active, [inst.value, *array_sources(inst.value)])
    return False


@_SHARING.register(ops.Call)
def _call(inst: Instruction, active: set[Value]) -> bool:
    # the callee may store active values into any array it is given, and may return one
    # of them (the result is then that argument)
    assert isinstance(inst, ops.Call)
    changed = False
    if any(a in active for a in inst.args) or (inst in active and _holds_array(inst.type)):
        for a in inst.args:
            if _holds_array(a.type) and a not in active:
                changed |= _activate(active, list(array_sources(a)))
    return changed


@_SHARING.register(ops.Phi, ops.Cast, ops.SliceView, ops.Transpose, ops.Reshape)
def _same_contents(inst: Instruction, active: set[Value]) -> bool:
    # an array phi (or a phi of tuples holding arrays) and its incoming values share
    # contents; so do an array and its layout cast, and a view and its base
    if _holds_array(inst.type) and (any(v in active for v in inst.operands()) or inst in active):
        return _activate(active, [inst, *inst.operands()])
    return False


@_SHARING.register(ops.MakeTuple)
def _make_tuple(inst: Instruction, active: set[Value]) -> bool:
    # an array packed into an active tuple is the array unpacked from it: active values
    # stored through one are read through the other
    assert isinstance(inst, ops.MakeTuple)
    return inst in active and _activate(active, list(inst.elements))


@_SHARING.register(ops.TupleGet)
def _tuple_get(inst: Instruction, active: set[Value]) -> bool:
    assert isinstance(inst, ops.TupleGet)
    if inst in active and _holds_array(inst.type) and inst.tuple not in active:
        active.add(inst.tuple)
        return True
    return False


def check_rules_exist(fn: Function, activity: Activity, *, forward: bool = False) -> None:
    """Refuse operations that an active value reaches but neither mode differentiates.

    Those are the operations of derivative code and of the passes after AD (their rule
    is :class:`.rules.base.Refused`) with an active operand, or a float result that could
    carry a derivative (a value popped off a tape): without this they would be skipped
    and their derivative would be a silent zero. With ``forward``, the operations forward
    mode differentiates (:class:`.rules.base.ForwardOnly`: the tape, ``arrayacc``) pass.

    Raises:
        NotDifferentiable: naming the operation; its ``inst`` attribute is the instruction.
    """
    for inst in fn.instructions():
        rule = AD_RULES.get(inst)
        if not isinstance(rule, Refused) or (forward and isinstance(rule, ForwardOnly)):
            continue
        if any(v in activity.active for v in inst.operands()) or (
            isinstance(inst, ops.TapePop) and can_be_active(inst.type)
        ):
            raise rule.refusal(inst)


def _holds_array(t: Type) -> bool:
    """A float array, or a tuple holding one (at any depth)."""
    return t.contains(ArrayType, lambda a: a.dtype.is_float)


def is_active_param(p: Argument) -> bool:
    """Can parameter ``p`` be differentiated (a float scalar or a float array)?"""
    return can_be_active(p.type) and not isinstance(p.type, TupleType)
