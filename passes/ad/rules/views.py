"""Rules of views (compiler/ir/ops/views.py): the derivative of a view is the same view of
the derivative, sharing its memory as the view shares its base's.

==========  =======================================  ===================================
operation   JVP                                      adjoint
==========  =======================================  ===================================
view        the same indices of the base's tangent   (reverse mode: refused for now)
transpose   the same permutation of the tangent      (reverse mode: refused for now)
reshape     the same reshape of the tangent          (reverse mode: refused for now)
==========  =======================================  ===================================

The tangent's type is the view's type computed from the tangent's own layout
(:func:`~gradc.compiler.ir.ops.views.view_type`), relabelled ``A`` where the view's
:func:`~gradc.passes.ad.layout.shadow_type` is ``A`` (the transpose of a C tangent is
``F``; an F primal's tangent is typed ``A``). Reverse mode needs the shadow of a view
of a parameter rebuilt in the reverse sweep from the parameter's shadow and the view's
indices; until that exists an active view in reverse mode is a compile-time error (the
sweep's ``make_shadows``), never a silently wrong adjoint.
"""

from __future__ import annotations

import copy

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.views import transpose_type, view_type
from gradc.compiler.ir.types import ArrayType
from gradc.passes.ad.layout import shadow_type
from gradc.passes.ad.rules.base import (
    BlockState,
    ForwardSweep,
    NotDifferentiable,
    ReverseSweep,
    SweepRule,
)
from gradc.passes.ad.rules.registry import AD_RULES


def _tangent_type(inst: Instruction, base: ArrayType) -> ArrayType:
    """The view's type over a base of type ``base`` (the tangent's)."""
    if isinstance(inst, ops.SliceView):
        t = view_type(base, inst.items)
    elif isinstance(inst, ops.Transpose):
        t = transpose_type(base, inst.perm)
    else:
        t = ArrayType(base.dtype, len(inst.operands()) - 1, "C")
    assert t is not None
    return t


def _view(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.SliceView | ops.Transpose | ops.Reshape)
    tangent = sweep.tangent(inst.array)
    base = tangent.type
    assert isinstance(base, ArrayType)
    made = copy.copy(inst)
    made.block = None
    made.unwind = ()
    made.name = None
    made.replace_operand(inst.array, tangent)
    made.type = _tangent_type(inst, base)
    view = sweep.b.insert(made)
    wanted = shadow_type(inst.type)
    if view.type != wanted:  # relabelled A (a Cast of arrays moves no data)
        view = sweep.b.cast(view, wanted)
    return view


def _refused(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    exc = NotDifferentiable(f"'{inst.OPNAME}' (a view) in reverse mode")
    exc.inst = inst  # type: ignore[attr-defined]
    raise exc


for _cls in (ops.SliceView, ops.Transpose, ops.Reshape):
    AD_RULES.set([_cls], SweepRule(_view, _refused))
