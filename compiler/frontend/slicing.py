"""The front end of views: basic indexing with slices, ``None``/``np.newaxis`` and ``...``
(:class:`ops.BasicIndex`), ``a.T``, and the methods ``transpose``, ``reshape``, ``ravel``
and ``flatten`` (:data:`VIEW_METHODS`), plus ``np.shape``.

Every subexpression is evaluated once, left to right, as CPython evaluates the
subscript (the container, then each index; a slice's start, stop and step in order).
A slice bound written ``None`` is absent, and so is a step written ``1`` (a literal: the
result then keeps the base's contiguity, :func:`gradc.compiler.ir.ops.views.view_type`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import INT_ITEM, NEW_ITEM
from gradc.compiler.ir.types import I64

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_expr import ExpressionLowering

#: Array methods that make views (or, ``flatten``, a copy), with what they accept.
VIEW_METHODS = {
    "transpose": "a.transpose(), a.transpose(axes) or a.transpose(*axes) with constant axes",
    "reshape": "a.reshape(d0, d1, ...) or a.reshape(shape)",
    "ravel": "a.ravel()",
    "flatten": "a.flatten()",
}

ELLIPSIS = "..."


def is_basic_index(low: ExpressionLowering, index: ast.expr) -> bool:
    """Does subscript ``index`` hold a slice, ``None``, ``np.newaxis`` or ``...``?"""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(_special(low, p) is not None for p in parts)


def _special(low: ExpressionLowering, part: ast.expr) -> str | None:
    if isinstance(part, ast.Slice):
        return "slice"
    if isinstance(part, ast.Constant) and part.value is None:
        return NEW_ITEM
    if isinstance(part, ast.Constant) and part.value is Ellipsis:
        return ELLIPSIS
    if low.info.numpy_attr(part) == "newaxis":
        return NEW_ITEM
    return None


def _absent(node: ast.expr | None, *, unit: bool = False) -> bool:
    if node is None:
        return True
    if isinstance(node, ast.Constant) and node.value is None:
        return True
    return unit and isinstance(node, ast.Constant) and type(node.value) is int and node.value == 1


def basic_index(low: ExpressionLowering, e: ast.Subscript, index: ast.expr) -> Value:
    """``e.value[index]`` with slices, new axes or an ellipsis among the indices."""
    container = low.expr(e.value)
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    items: list[str] = []
    args: list[Value] = []
    for part in parts:
        kind = _special(low, part)
        if kind is None:
            items.append(INT_ITEM)
            args.append(low.expr(part))
        elif kind != "slice":
            items.append(kind)
        else:
            assert isinstance(part, ast.Slice)
            bounds = (part.lower, part.upper, part.step)
            present = [not _absent(x, unit=(k == 2)) for k, x in enumerate(bounds)]
            items.append("s" + "".join("1" if p else "0" for p in present))
            for x, p in zip(bounds, present, strict=True):
                if p:
                    assert x is not None
                    args.append(low.expr(x))
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.BasicIndex(container, tuple(args), tuple(items)))


def transpose_attribute(low: ExpressionLowering, e: ast.Attribute) -> Value:
    """``a.T``: the axes reversed (the permutation is filled in by inference)."""
    return low.b.insert(ops.Transpose(low.expr(e.value), ()))


def view_method(low: ExpressionLowering, func: ast.Attribute, e: ast.Call) -> Value:
    """``a.transpose(...)``, ``a.reshape(...)``, ``a.ravel()`` or ``a.flatten()``."""
    name = func.attr
    if e.keywords:
        raise low.src.error(f"{name}() takes no keyword arguments here ({VIEW_METHODS[name]})", e)
    array = low.expr(func.value)
    if name == "transpose":
        return low.b.insert(ops.Transpose(array, _axes(low, e)))
    if name in ("ravel", "flatten"):
        if e.args:
            raise low.src.error(f"{name}() takes no arguments here ({VIEW_METHODS[name]})", e)
        if name == "flatten":
            array = low.b.insert(ops.CopyArray(array))
        minus_one = low.b.const(-1, I64)
        return low.b.insert(ops.Reshape(array, (minus_one,), "", ravel=True))
    if not e.args:
        raise low.src.error("reshape() needs a shape", e)
    parts = e.args[0].elts if len(e.args) == 1 and isinstance(e.args[0], ast.Tuple) else e.args
    if any(isinstance(p, ast.Starred) for p in parts):
        raise low.src.error("unsupported expression 'Starred'", e)
    dims = tuple(low.expr(p) for p in parts)
    return low.b.insert(ops.Reshape(array, dims, ""))


def _axes(low: ExpressionLowering, e: ast.Call) -> tuple[int, ...]:
    """The constant axes of ``a.transpose(...)`` (empty: reversed)."""
    parts = e.args
    if len(parts) == 1 and isinstance(parts[0], ast.Tuple | ast.List):
        parts = parts[0].elts
    axes = []
    for p in parts:
        value = p.value if isinstance(p, ast.Constant) else None
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub):
            inner = p.operand
            if isinstance(inner, ast.Constant) and type(inner.value) is int:
                value = -inner.value
        if type(value) is not int:
            raise low.src.error(
                f"transpose axes must be constant integers ({VIEW_METHODS['transpose']})", p
            )
        axes.append(value)
    return tuple(axes)
