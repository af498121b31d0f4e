"""Shadows of views in reverse mode: the shadow of a view is the same view of its base's
shadow (compiler/ir/ops/views.py; the rule table is passes/ad/rules/views.py).

* a view of a local array (whose shadow is a forward value): the forward sweep makes the
  view of the shadow right after the view, and the reverse sweep pops it like any
  shadow of a local array;
* a view of a parameter, or a view of such a view: the parameter's shadow exists only in
  the reverse function, so the reverse sweep rebuilds the view there from it and the
  view's indices (taped like other indices: :func:`view_operands`);
* anything else (a view of an array phi or cast that a parameter reaches) is refused at
  compile time, naming the view.

The adjoint of a view itself moves nothing: loads and stores through the view move
adjoints in the shadow memory, which is the base's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Instruction, Value
from gradc.passes.ad.rules.views import view_like
from gradc.passes.ad.sweep_state import Primal, Shadows, not_differentiable

#: The view operations.
VIEWS = ops.SliceView | ops.Transpose | ops.Reshape


def view_operands(view: Value) -> list[Value]:
    """The integer operands of ``view`` (its indices or dimensions)."""
    assert isinstance(view, VIEWS)
    return [v for v in view.operands() if v is not view.array]


def view_shadow(p: Primal, found: Shadows, b: Builder, view: Instruction) -> None:
    """Record how the reverse sweep finds the shadow of active view ``view``.

    Raises:
        NotDifferentiable: the base's shadow can be found neither as a forward value nor
            by rebuilding from a parameter's.
    """
    assert isinstance(view, VIEWS)
    base = view.array
    if base in found.shadows and base not in found.selectors:
        block = view.block
        assert block is not None
        b.position_before(block.instructions[block.instructions.index(view) + 1])
        with b.at(view.loc):
            found.shadows[view] = view_like(b, view, found.shadows[base], view_operands(view))
    elif isinstance(base, Argument) or base in found.views:
        found.views.add(view)
    else:
        raise not_differentiable(
            f"'{view.OPNAME}' of an array that may be one of several arrays (a branch or "
            "loop chose it) in reverse mode",
            view,
        )


def rebuild_view(
    b: Builder,
    view: Value,
    base_shadow: Value,
    primal: Callable[[Any, Value], Value],
    state: Any,
) -> Value:
    """In the reverse sweep: the shadow of ``view``, the same view of ``base_shadow``,
    with the view's indices read back by ``primal(state, v)``."""
    args = [primal(state, v) for v in view_operands(view)]
    assert isinstance(view, Instruction)
    return view_like(b, view, base_shadow, args)
