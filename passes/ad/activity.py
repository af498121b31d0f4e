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

from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Function, Instruction, Value
from gradc.compiler.ir.types import ArrayType, PointerType, ScalarType, TupleType, Type
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


def analyze(fn: Function, active_params: frozenset[int]) -> Activity:
    """Forward activity of ``fn`` when the parameters at ``active_params`` are active."""
    active: set[Value] = {p for p in fn.params if p.index in active_params}
    changed = True
    while changed:
        changed = False
        for inst in fn.instructions():
            if inst in active:
                continue
            if _becomes_active(inst, active):
                active.add(inst)
                changed = True
            if isinstance(inst, ops.Store) and inst.value in active:
                # storing an active value makes the array (and everything it aliases) active
                for root in array_sources(inst.pointer):
                    if isinstance(root.type, ArrayType) and root not in active:
                        active.add(root)
                        changed = True
            if isinstance(inst, ops.Call) and any(a in active for a in inst.args):
                # the callee may store active values into any array it is given
                for a in inst.args:
                    if can_be_active(a.type) and isinstance(a.type, ArrayType) and a not in active:
                        for root in array_sources(a):
                            if isinstance(root.type, ArrayType) and root not in active:
                                active.add(root)
                                changed = True
            if isinstance(inst, ops.Phi | ops.Cast) and isinstance(inst.type, ArrayType):
                # an array phi and its incoming arrays share contents
                if any(v in active for v in inst.operands()) or inst in active:
                    for v in [inst, *inst.operands()]:
                        if v not in active and isinstance(v.type, ArrayType):
                            active.add(v)
                            changed = True
    patterns: dict[ops.Call, frozenset[int]] = {}
    for inst in fn.instructions():
        if isinstance(inst, ops.Call):
            pattern = frozenset(i for i, a in enumerate(inst.args) if a in active)
            if pattern:
                patterns[inst] = pattern
    return Activity(active, patterns)


def _becomes_active(inst: Instruction, active: set[Value]) -> bool:
    if not can_be_active(inst.type):
        return False
    if isinstance(inst, ops.Load):
        return any(r in active for r in array_sources(inst.pointer))
    if isinstance(inst, ops.ElementAddr):
        return inst.array in active
    if isinstance(inst, ops.NewArray):
        # a new array is active when filled with an active value (np.full(n, y)), or
        # later, when active values are stored into it
        return inst.fill is not None and inst.fill in active
    if isinstance(inst, ops.Const | ops.TapePop):
        return False
    if isinstance(inst, ops.Cmp | ops.MathCall) and not can_be_active(inst.type):
        return False
    return any(v in active for v in inst.operands())


def is_active_param(p: Argument) -> bool:
    """Can parameter ``p`` be differentiated (a float scalar or a float array)?"""
    return can_be_active(p.type) and not isinstance(p.type, TupleType)
