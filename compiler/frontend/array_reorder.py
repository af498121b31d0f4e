"""``np.diag``, ``np.tril``, ``np.triu``, ``np.roll``, ``np.sort``, ``np.argsort`` and
``np.median`` in compiled code (the operations of compiler/ir/ops/reorder.py; listed on
the supported-constructs page from :data:`REORDER_FUNCTIONS`).

Arguments bind by position or NumPy's names and are evaluated in source order. ``k``
and ``shift`` are int expressions; ``axis`` is a constant int (negative counting from
the end) or None (``np.sort``, ``np.argsort``, ``np.median``: None sorts the flattened
array as NumPy does). ``a.sort(axis=-1, kind=None)`` sorts ``a`` (an array or a view of
one) in place: a statement, as NumPy's method returns None (:data:`SORT_METHOD`).
Anything else (``kind=``, ``order=``, ``out=``, ``keepdims=True``, a
tuple ``shift``) is a compile error naming the argument. ``kind=`` of ``np.sort``/
``np.argsort`` may name any of NumPy's algorithms: gradc's sort is always stable (ties
keep their order; NumPy's default ``quicksort`` may order tied indices otherwise).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import I64

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering

#: ``np.<name>`` -> (NumPy's parameters, how many are required, the accepted forms).
REORDER_FUNCTIONS: dict[str, tuple[tuple[str, ...], int, str]] = {
    "diag": (("v", "k"), 1, "np.diag(v, k=0): 1-D to 2-D, 2-D to its diagonal (a copy)"),
    "tril": (("m", "k"), 1, "np.tril(m, k=0) of 2-D or more"),
    "triu": (("m", "k"), 1, "np.triu(m, k=0) of 2-D or more"),
    "roll": (("a", "shift", "axis"), 2, "np.roll(a, shift, axis=None): an int shift"),
    "sort": (("a", "axis", "kind"), 1, "np.sort(a, axis=-1, kind=None): an int axis or None"),
    "argsort": (
        ("a", "axis", "kind"),
        1,
        "np.argsort(a, axis=-1, kind=None): an int axis or None; always stable",
    ),
    "median": (("a", "axis"), 1, "np.median(a, axis=None): None or an int axis"),
}

#: ``a.sort()``'s parameters (after ``a``) and its accepted forms.
SORT_METHOD: tuple[tuple[str, ...], str] = (
    ("axis", "kind"),
    "a.sort(axis=-1, kind=None): in place along an int axis, as a statement",
)


def _bind(low: CallLowering, name: str, e: ast.Call) -> dict[str, ast.expr]:
    params, required, forms = REORDER_FUNCTIONS[name]
    return _bind_params(low, f"np.{name}", (params, required, forms), e)


def _bind_params(
    low: CallLowering, shown: str, spec: tuple[tuple[str, ...], int, str], e: ast.Call
) -> dict[str, ast.expr]:
    """``e``'s arguments by parameter (``spec``: the parameters, how many are required,
    the accepted forms; ``shown``: the callee as errors name it)."""
    params, required, forms = spec
    if len(e.args) > len(params):
        raise low.src.error(
            f"{shown}() takes at most {len(params)} arguments here ({forms})", e.args[-1]
        )
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg is None or kw.arg not in params:
            raise low.src.error(
                f"{shown}() argument '{kw.arg}=' is not supported ({forms})", kw.value
            )
        if kw.arg in bound:
            raise low.src.error(f"{shown}() got multiple values for argument '{kw.arg}'", kw)
        bound[kw.arg] = kw.value
    for param in params[:required]:
        if param not in bound:
            raise low.src.error(f"{shown}() missing required argument '{param}'", e)
    return bound


def _axis(
    low: CallLowering, name: str, bound: dict[str, ast.expr], default: int | None
) -> int | None:
    """The constant ``axis=`` (None for ``axis=None``; ``name``: the callee as errors
    name it, ``np.sort``)."""
    node = bound.pop("axis", None)
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return default if node is None else None
    value = fold_constant(low.info, node)
    if not isinstance(value, int) or isinstance(value, bool):
        raise low.src.error(f"{name}() argument 'axis=' must be a constant int or None", node)
    return value


_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _kind(low: CallLowering, name: str, bound: dict[str, ast.expr]) -> None:
    """Check ``kind=``: None or one of NumPy's names (gradc's sort is always stable,
    which each of them allows)."""
    node = bound.pop("kind", None)
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return
    if not isinstance(node, ast.Constant) or node.value not in _KINDS:
        raise low.src.error(
            f"{name}() argument 'kind=' must be None or one of {', '.join(_KINDS)}", node
        )


def _values(low: CallLowering, bound: dict[str, ast.expr]) -> dict[str, Value]:
    items = sorted(bound.items(), key=lambda item: (item[1].lineno, item[1].col_offset))
    return {param: low.expr(node) for param, node in items}


def _flatten(low: CallLowering, array: Value) -> Value:
    """``array.flatten()``: a C copy reshaped to 1-D."""
    copy = low.b.insert(ops.CopyArray(array))
    return low.b.insert(ops.Reshape(copy, (low.b.const(-1, I64),), "", ravel=True))


def _diagonal_op(name: str) -> Callable[[CallLowering, ast.Call], Value]:
    def lower(low: CallLowering, e: ast.Call) -> Value:
        v = _values(low, _bind(low, name, e))
        with low.b.at(low.src.loc(e)):
            k = v.get("k") or low.b.const(0, I64)
            if name == "diag":
                return low.b.insert(ops.Diag(v["v"], k))
            return low.b.insert(ops.Triangle(v["m"], k, upper=name == "triu"))

    return lower


def _roll(low: CallLowering, e: ast.Call) -> Value:
    bound = _bind(low, "roll", e)
    if isinstance(bound["shift"], ast.Tuple | ast.List):
        raise low.src.error("np.roll() shift must be one int here (not a tuple)", bound["shift"])
    axis = _axis(low, "np.roll", bound, None)
    v = _values(low, bound)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.Roll(axis or 0, v["a"], v["shift"], flat=axis is None))


def _sort_op(kind: ops.SortKind, default: int | None) -> Callable[[CallLowering, ast.Call], Value]:
    def lower(low: CallLowering, e: ast.Call) -> Value:
        bound = _bind(low, kind.value, e)
        axis = _axis(low, f"np.{kind.value}", bound, default)
        _kind(low, f"np.{kind.value}", bound)
        array = _values(low, bound)["a"]
        with low.b.at(low.src.loc(e)):
            if axis is None:
                array, axis = _flatten(low, array), -1
            return low.b.insert(ops.Sort(kind, axis, array))

    return lower


_LOWER: dict[str, Callable[[CallLowering, ast.Call], Value]] = {
    "diag": _diagonal_op("diag"),
    "tril": _diagonal_op("tril"),
    "triu": _diagonal_op("triu"),
    "roll": _roll,
    "sort": _sort_op(ops.SortKind.SORT, -1),
    "argsort": _sort_op(ops.SortKind.ARGSORT, -1),
    "median": _sort_op(ops.SortKind.MEDIAN, None),
}


def sort_method(low: CallLowering, func: ast.Attribute, e: ast.Call) -> None:
    """``a.sort(axis=-1, kind=None)`` as a statement: ``a[...] = np.sort(a, axis)`` (the
    sorted copy written back through ``a``, so a view sorts its base's elements).

    Raises:
        CompileError: an unsupported argument (``order=``), a non-constant axis or
            ``axis=None`` (NumPy's method has no flattened form).
    """
    params, forms = SORT_METHOD
    bound = _bind_params(low, "sort", (params, 0, forms), e)
    axis_node = bound.get("axis")
    axis = _axis(low, "sort", bound, -1)
    _kind(low, "sort", bound)
    if axis is None:
        raise low.src.error(
            f"sort() argument 'axis=' must be a constant int ({forms})", axis_node or e
        )
    array = low.expr(func.value)
    with low.b.at(low.src.loc(e)):
        ordered = low.b.insert(ops.Sort(ops.SortKind.SORT, axis, array))
        low.b.insert(ops.SetItem(array, (), ordered))


def reorder_call(low: CallLowering, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` for a name of :data:`REORDER_FUNCTIONS`.

    Raises:
        CompileError: an unsupported argument or form (named), a missing one.
    """
    return _LOWER[name](low, e)
