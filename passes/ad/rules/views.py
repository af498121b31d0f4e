"""Rules of views (compiler/ir/ops/views.py): the derivative of a view is the same view of
the derivative, sharing its memory as the view shares its base's.

==========  =======================================  ===================================
operation   JVP                                      adjoint
==========  =======================================  ===================================
view        the same indices of the base's tangent   (none: loads and stores through it)
transpose   the same permutation of the tangent      (none)
reshape     the same reshape of the tangent          (none)
==========  =======================================  ===================================

The tangent's type is the view's type computed from the tangent's own layout
(:func:`~gradc.compiler.ir.ops.views.view_type`), relabelled ``A`` where the view's
:func:`~gradc.passes.ad.layout.shadow_type` is ``A`` (the transpose of a C tangent is
``F``; an F primal's tangent is typed ``A``). In reverse mode the shadow of a view is the
same view of its base's shadow (passes/ad/views.py says where each is made), so its
adjoint moves nothing itself.
"""

from __future__ import annotations

import copy

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.views import reshape_type, transpose_type, view_type
from gradc.compiler.ir.types import ArrayType
from gradc.passes.ad.layout import shadow_type
from gradc.passes.ad.rules.base import (
    BlockState,
    ForwardSweep,
    NoDerivative,
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
        assert isinstance(inst, ops.Reshape)
        t = reshape_type(base, len(inst.shape), ravel=inst.ravel)
    assert t is not None
    return t


def view_like(b: Builder, inst: Instruction, base: Value, args: list[Value]) -> Value:
    """The view ``inst`` makes, of ``base`` (a tangent or shadow) with index operands
    ``args`` in place of ``inst``'s, typed :func:`shadow_type` of ``inst``'s type."""
    t = base.type
    assert isinstance(inst, ops.SliceView | ops.Transpose | ops.Reshape)
    assert isinstance(t, ArrayType)
    made = copy.copy(inst)
    made.block = None
    made.unwind = ()
    made.name = None
    made.array = base
    if isinstance(made, ops.SliceView):
        made.args = tuple(args)
    elif isinstance(made, ops.Reshape):
        made.shape = tuple(args)
    made.type = _tangent_type(inst, t)
    view: Value = b.insert(made)
    wanted = shadow_type(inst.type)
    if view.type != wanted:  # relabelled A (a Cast of arrays moves no data)
        view = b.cast(view, wanted)
    return view


def _view(sweep: ForwardSweep, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.SliceView | ops.Transpose | ops.Reshape)
    args = [v for v in inst.operands() if v is not inst.array]
    return view_like(sweep.b, inst, sweep.tangent(inst.array), args)


def _no_adjoint(sweep: ReverseSweep, state: BlockState, inst: Instruction) -> None:
    pass  # loads and stores through the view move the adjoints, in the base's shadow


for _cls in (ops.SliceView, ops.Transpose, ops.Reshape):
    AD_RULES.set([_cls], SweepRule(_view, _no_adjoint))
AD_RULES.set([ops.FlatIndex], NoDerivative())  # an int (a position), never active
