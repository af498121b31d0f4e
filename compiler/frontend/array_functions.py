"""NumPy array functions and methods the front end writes with other array operations
(the supported-constructs page lists them from :data:`ARRAY_FUNCTIONS` and
:data:`ARRAY_METHODS`):

* ``np.diff(a)``, ``np.diff(a, axis=k)`` (``n=1``, a constant ``axis``): NumPy's
  ``a[..., 1:] - a[..., :-1]`` along the axis (``numpy/lib/_function_base_impl.py``),
  two views and one elementwise ``_diff`` ufunc: ``subtract``, or ``not_equal`` for bools
  as NumPy's ``diff`` does;
* ``np.transpose(a, axes=None)``: ``a.transpose(axes)``, the view (constant axes);
* ``a.clip(lo, hi)``, ``a.clip(min=lo, max=hi)``: the ``np.clip(a, lo, hi)`` ufunc;
* ``np.flip(m)``, ``np.flip(m, axis=k)`` (a constant int or tuple of ints): the view
  ``m[::-1, ...]`` on those axes (every axis for ``axis=None``), as NumPy's ``flip``;
* ``np.count_nonzero(a)``, ``np.count_nonzero(a, axis=k, keepdims=False)``: the
  ``np.sum`` of ``a != 0`` (an int; NumPy's ``count_nonzero`` of an axis sums
  ``a.astype(bool)`` the same way);
* ``np.trapezoid(y, x=None, dx=1.0, axis=-1)``: NumPy's
  ``(d * (y[..., 1:] + y[..., :-1]) / 2.0).sum(axis)`` along the axis, ``d`` the
  ``np.diff`` of ``x`` or ``dx`` (with ``x``, only the last axis: a 1-D ``x`` then
  broadcasts along it as NumPy's).

Each becomes operations that already have their types, loops and derivative rules, so
inference, codegen and AD need nothing more.
"""

from __future__ import annotations

import ast

from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.frontend.slicing import ELLIPSIS, view_method
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import FLIP_ALL
from gradc.compiler.ir.types import F64, I64

#: ``np.<name>`` -> the forms gradc accepts.
ARRAY_FUNCTIONS: dict[str, str] = {
    "diff": "np.diff(a), np.diff(a, axis=k) (n=1, a constant axis)",
    "flip": "np.flip(m), np.flip(m, axis=k) (a constant int or tuple): a view",
    "count_nonzero": "np.count_nonzero(a, axis=None, keepdims=False) (a constant axis)",
    "trapezoid": "np.trapezoid(y, x=None, dx=1.0, axis=-1) (a constant axis; -1 with x)",
    "transpose": "np.transpose(a, axes=None): the view a.transpose(axes), constant axes",
}

#: ``a.<name>(...)`` -> the forms gradc accepts.
ARRAY_METHODS: dict[str, str] = {
    "clip": "a.clip(lo, hi), a.clip(min=lo, max=hi): np.clip(a, lo, hi)",
}


def diff_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.diff(a, axis=-1)``: ``a[hi] - a[lo]`` with ``hi``/``lo`` the slices ``1:`` and
    ``:-1`` on ``axis`` (NumPy's ``n=1``).

    Raises:
        CompileError: other arguments (``n=``, ``prepend=``, ``append=``) or an axis that is
            not a constant int.
    """
    params = ("a", "n", "axis")
    if len(e.args) > 1:
        raise low.src.error(
            f"np.diff() arguments after the array are supported by keyword only "
            f"({ARRAY_FUNCTIONS['diff']})",
            e.args[1],
        )
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in ("a", "axis", "n") or kw.arg in bound:
            raise low.src.error(
                f"np.diff() argument '{kw.arg}=' is not supported ({ARRAY_FUNCTIONS['diff']})",
                kw.value,
            )
        bound[kw.arg] = kw.value
    if "a" not in bound:
        raise low.src.error("np.diff() missing required argument 'a'", e)
    if "n" in bound and fold_constant(low.info, bound["n"]) != 1:
        raise low.src.error("np.diff() argument 'n=' is supported only as 1", bound["n"])
    axis = fold_constant(low.info, bound["axis"]) if "axis" in bound else -1
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise low.src.error("np.diff() argument 'axis=' must be a constant int", bound["axis"])
    array = low.expr(bound["a"])
    with low.b.at(low.src.loc(e)):
        hi = _axis_slice(low, array, axis, "s100", 1)
        lo = _axis_slice(low, array, axis, "s010", -1)
        return low.b.insert(ops.NumpyCall("_diff", (hi, lo)))


def _axis_slice(low: LoweringState, array: Value, axis: int, item: str, bound: int) -> Value:
    """``array[(:,) * axis + (slice,)]`` (``axis >= 0``) or ``array[..., slice] + (:,) *
    (-axis - 1)`` (``axis < 0``), the slice's one bound ``bound``."""
    full = "s000"
    items = (full,) * axis + (item,) if axis >= 0 else (ELLIPSIS, item) + (full,) * (-axis - 1)
    return low.b.insert(ops.BasicIndex(array, (low.b.const(bound, I64),), items))


def clip_method(low: LoweringState, func: ast.Attribute, e: ast.Call) -> Value:
    """``a.clip(lo, hi)`` or ``a.clip(min=lo, max=hi)``: ``np.clip(a, lo, hi)``, operands
    evaluated in source order (the array first).

    Raises:
        CompileError: not exactly the two bounds.
    """
    bound = dict(zip(("min", "max"), e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in ("min", "max") or kw.arg in bound:
            raise low.src.error(
                f"clip() argument '{kw.arg}=' is not supported ({ARRAY_METHODS['clip']})",
                kw.value,
            )
        bound[kw.arg] = kw.value
    if len(e.args) > 2 or set(bound) != {"min", "max"}:
        raise low.src.error(f"clip() takes both bounds here ({ARRAY_METHODS['clip']})", e)
    array = low.expr(func.value)
    order = sorted(bound.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset))
    values = {name: low.expr(node) for name, node in order}
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.NumpyCall("clip", (array, values["min"], values["max"])))


def array_function_call(low: LoweringState, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` for a name of :data:`ARRAY_FUNCTIONS`."""
    if name == "flip":
        return flip_call(low, e)
    if name == "count_nonzero":
        return count_nonzero_call(low, e)
    if name == "trapezoid":
        return trapezoid_call(low, e)
    if name == "transpose":
        return transpose_call(low, e)
    return diff_call(low, e)


def transpose_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.transpose(a, axes=None)``: the method ``a.transpose(axes)`` (NumPy's own
    definition, ``numpy/_core/fromnumeric.py``).

    Raises:
        CompileError: other arguments, axes that are not constant ints.
    """
    bound = dict(zip(("a", "axes"), e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in ("a", "axes") or kw.arg in bound:
            raise low.src.error(
                f"np.transpose() argument '{kw.arg}=' is not supported "
                f"({ARRAY_FUNCTIONS['transpose']})",
                kw.value,
            )
        bound[kw.arg] = kw.value
    if len(e.args) > 2 or "a" not in bound:
        raise low.src.error(f"np.transpose() takes a, axes ({ARRAY_FUNCTIONS['transpose']})", e)
    axes = bound.get("axes")
    if isinstance(axes, ast.Constant) and axes.value is None:
        axes = None
    method = ast.copy_location(ast.Attribute(bound["a"], "transpose", ast.Load()), e.func)
    call = ast.copy_location(ast.Call(method, [axes] if axes is not None else [], []), e)
    return view_method(low, method, call)  # type: ignore[arg-type]


def _bind_keywords(
    low: LoweringState, name: str, e: ast.Call, params: tuple[str, ...]
) -> dict[str, ast.expr]:
    """NumPy's parameters ``params`` of ``np.<name>(...)`` bound by position or name.

    Raises:
        CompileError: too many arguments, an unknown or repeated one, a missing array.
    """
    if len(e.args) > len(params):
        raise low.src.error(
            f"np.{name}() takes at most {len(params)} arguments here ({ARRAY_FUNCTIONS[name]})",
            e.args[-1],
        )
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in params or kw.arg in bound:
            raise low.src.error(
                f"np.{name}() argument '{kw.arg}=' is not supported ({ARRAY_FUNCTIONS[name]})",
                kw.value,
            )
        bound[kw.arg] = kw.value
    if params[0] not in bound:
        raise low.src.error(f"np.{name}() missing required argument '{params[0]}'", e)
    return bound


def _constant_axes(low: LoweringState, name: str, node: ast.expr | None) -> tuple[int, ...] | None:
    """A constant ``axis=``: None, an int or a tuple of ints.

    Raises:
        CompileError: anything else (a variable axis among them).
    """
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    values = [fold_constant(low.info, x) for x in elts]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise low.src.error(
            f"np.{name}() argument 'axis=' must be a constant int, a tuple of ints or None", node
        )
    return tuple(int(v) for v in values)  # type: ignore[arg-type]


def flip_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.flip(m, axis=None)``: the view reversing ``axis`` (every axis for None).

    Raises:
        CompileError: an axis that is not constant; axes out of range are inference's
            "too many indices" error.
    """
    bound = _bind_keywords(low, "flip", e, ("m", "axis"))
    axes = _constant_axes(low, "flip", bound.get("axis"))
    array = low.expr(bound["m"])
    with low.b.at(low.src.loc(e)):
        if axes is None:
            return low.b.insert(ops.BasicIndex(array, (), (FLIP_ALL,)))
        for axis in axes:
            array = _axis_slice(low, array, axis, "s001", -1)
        return array


def count_nonzero_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.count_nonzero(a, axis=None, keepdims=False)``: ``np.sum(a != 0, axis)``.

    Raises:
        CompileError: an axis or ``keepdims`` that is not constant.
    """
    bound = _bind_keywords(low, "count_nonzero", e, ("a", "axis", "keepdims"))
    axes = _constant_axes(low, "count_nonzero", bound.get("axis"))
    keepdims = fold_constant(low.info, bound["keepdims"]) if "keepdims" in bound else False
    if not isinstance(keepdims, bool):
        raise low.src.error(
            "np.count_nonzero() argument 'keepdims=' must be a constant bool", bound["keepdims"]
        )
    array = low.expr(bound["a"])
    with low.b.at(low.src.loc(e)):
        nonzero = low.b.insert(ops.Cmp(ops.CmpPred("ne"), array, low.b.const(0, I64)))
        shown = "np.count_nonzero()"
        return low.b.insert(ops.NumpyReduce("sum", nonzero, axes, shown=shown, keepdims=keepdims))


def trapezoid_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.trapezoid(y, x=None, dx=1.0, axis=-1)``: the trapezoidal rule as NumPy writes
    it (``numpy/lib/_function_base_impl.py``), the sum a ``np.sum`` along ``axis``.

    Raises:
        CompileError: an axis that is not a constant int; ``x`` with an axis other than
            -1 (NumPy reshapes a 1-D ``x`` to lie along the axis).
    """
    bound = _bind_keywords(low, "trapezoid", e, ("y", "x", "dx", "axis"))
    axes = _constant_axes(low, "trapezoid", bound.get("axis"))
    if axes is not None and len(axes) != 1:
        raise low.src.error("np.trapezoid() argument 'axis=' must be a constant int", e)
    axis = -1 if axes is None else axes[0]
    x_node = bound.get("x")
    if isinstance(x_node, ast.Constant) and x_node.value is None:
        x_node = None
    if x_node is not None and axis != -1:
        raise low.src.error(
            "np.trapezoid(y, x, axis=k) is supported only for axis=-1 (the default)", x_node
        )
    order = sorted(bound.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset))
    values = {name: low.expr(node) for name, node in order if name != "axis"}
    with low.b.at(low.src.loc(e)):
        d: Value
        if x_node is not None:
            x = values["x"]
            d = low.b.insert(
                ops.Sub(_axis_slice(low, x, -1, "s100", 1), _axis_slice(low, x, -1, "s010", -1))
            )
        else:
            d = values.get("dx") or low.b.const(1.0, F64)
        y = values["y"]
        pairs = low.b.insert(
            ops.Add(_axis_slice(low, y, axis, "s100", 1), _axis_slice(low, y, axis, "s010", -1))
        )
        terms = low.b.insert(ops.Div(low.b.insert(ops.Mul(d, pairs)), low.b.const(2.0, F64)))
        return low.b.insert(ops.NumpyReduce("sum", terms, (axis,), shown="np.trapezoid()"))
