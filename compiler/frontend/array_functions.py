"""NumPy array functions and methods the front end writes with other array operations
(the supported-constructs page lists them from :data:`ARRAY_FUNCTIONS` and
:data:`ARRAY_METHODS`):

* ``np.diff(a)``, ``np.diff(a, axis=k)`` (``n=1``, a constant ``axis``): NumPy's
  ``a[..., 1:] - a[..., :-1]`` along the axis (``numpy/lib/_function_base_impl.py``),
  two views and one elementwise ``_diff`` ufunc: ``subtract``, or ``not_equal`` for bools
  as NumPy's ``diff`` does;
* ``np.transpose(a, axes=None)``: ``a.transpose(axes)``, the view (constant axes);
* ``a.clip(lo, hi)``, ``a.clip(min=lo, max=hi)``: the ``np.clip(a, lo, hi)`` ufunc.

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
from gradc.compiler.ir.types import I64

#: ``np.<name>`` -> the forms gradc accepts.
ARRAY_FUNCTIONS: dict[str, str] = {
    "diff": "np.diff(a), np.diff(a, axis=k) (n=1, a constant axis)",
    "transpose": "np.transpose(a, axes=None): the view a.transpose(axes), constant axes",
}


def array_function_call(low: LoweringState, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` of :data:`ARRAY_FUNCTIONS`."""
    return diff_call(low, e) if name == "diff" else transpose_call(low, e)


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
