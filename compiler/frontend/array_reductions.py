"""NumPy's reductions as the user writes them: ``np.sum(a, axis=0)``, ``a.max()``,
``np.cumsum(a)``, ``np.linalg.norm(x, np.inf)`` (the table :data:`ARRAY_REDUCTIONS`).

Each call becomes one :class:`~gradc.compiler.ir.ops.NumpyReduce`; inference types it and
replaces it by a typed ``reduce`` or ``cumulate`` (compiler/infer/reductions.py). The
array is the one evaluated argument; the others must be compile-time constants, as NumPy
code writes them: ``axis`` an int (negative counts from the end), a tuple of ints or
None; ``keepdims`` a bool; ``ddof`` an int; ``dtype`` a dtype (np.float64, float, "f8",
...); ``ord`` of ``np.linalg.norm`` None, 1, 2, ``np.inf`` or ``'fro'``. Parameters bind
by position or keyword in NumPy's order; NumPy's other parameters (``out=``, ``where=``,
``mean=``, ``correction=``) are a compile error naming the call and the parameter
(``out=None`` is accepted: it is the default). ``initial=x`` of ``min``/``max``/``sum``/
``prod`` (any expression): the reduction with kept dims (``min``/``max`` with the dtype's
extreme value as identity, ``minfrom``/``maxfrom``: an empty axis is no error), then
``np.minimum``/``np.maximum``/``np.add``/``np.multiply`` with ``np.full_like(r, x)``
(``x`` cast to the reduction's dtype, unsafely, as NumPy casts ``initial``), then the kept
dims reduced away unless ``keepdims``. NumPy starts its running sum or product at ``x``;
gradc combines ``x`` with the reduction's result: a sum is the same to NumPy's summation
tolerance, a product may differ in its last bits.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from gradc._dataclass import dataclass
from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value


@dataclass(frozen=True)
class ArrayReduction:
    """One reduction function of NumPy.

    Attributes:
        fn: the :class:`~ops.ReduceKind` or :class:`~ops.CumKind` it computes (``norm``
            for ``np.linalg.norm``, whose ``ord`` chooses the kind).
        params: NumPy's parameters after the array, in order (function and method alike).
        method: also an ``ndarray`` method (``a.sum()``).
        axes: ``"tuple"`` (an int, a tuple of ints or None), ``"int"`` (an int or None) or
            ``"none"`` (None only) for ``axis``.
    """

    fn: str
    params: tuple[str, ...]
    method: bool = True
    axes: str = "tuple"


_SUM = ("axis", "dtype", "out", "keepdims", "initial", "where")
_VAR = ("axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction")
_MIN = ("axis", "out", "keepdims", "initial", "where")
_ARG = ("axis", "out", "keepdims")
_ANY = ("axis", "out", "keepdims", "where")
_CUM = ("axis", "dtype", "out")

#: NumPy's reduction functions by name (``np.<name>``, ``np.linalg.norm`` as
#: ``linalg.norm``); the ones with ``method`` are also ``ndarray`` methods.
ARRAY_REDUCTIONS: dict[str, ArrayReduction] = {
    "sum": ArrayReduction("sum", _SUM),
    "prod": ArrayReduction("prod", _SUM),
    "mean": ArrayReduction("mean", (*_VAR[:3], "keepdims", "where")),
    "var": ArrayReduction("var", _VAR),
    "std": ArrayReduction("std", _VAR),
    "min": ArrayReduction("min", _MIN),
    "max": ArrayReduction("max", _MIN),
    "amin": ArrayReduction("min", _MIN, method=False),
    "amax": ArrayReduction("max", _MIN, method=False),
    "argmin": ArrayReduction("argmin", _ARG, axes="int"),
    "argmax": ArrayReduction("argmax", _ARG, axes="int"),
    "any": ArrayReduction("any", _ANY),
    "all": ArrayReduction("all", _ANY),
    "cumsum": ArrayReduction("cumsum", _CUM, axes="int"),
    "cumprod": ArrayReduction("cumprod", _CUM, axes="int"),
    "linalg.norm": ArrayReduction("norm", ("ord", "axis", "keepdims"), method=False),
}

#: Python's builtins of one iterable, on a 1-D array: the :class:`~ops.ReduceKind`.
BUILTIN_REDUCTIONS: dict[str, str] = {"sum": "pysum", "min": "pymin", "max": "pymax"}

#: The parameters gradc supports (others must be absent; ``out`` may be None).
_SUPPORTED = frozenset({"axis", "keepdims", "ddof", "dtype", "ord"})
#: Reductions whose ``initial=`` gradc supports.
_WITH_INITIAL = frozenset({"min", "max", "sum", "prod"})
#: Reductions whose ``dtype=`` gradc supports.
_WITH_DTYPE = frozenset({"sum", "prod", "mean", "cumsum", "cumprod"})


def find_reduction(low: LoweringState, func: ast.expr) -> tuple[str, ast.expr | None] | None:
    """``(name, array expression)`` when ``func`` is a reduction: ``np.sum`` (the array is
    the first argument: None), ``np.linalg.norm``, or a method ``a.sum`` of a value that is
    not a module (the array is ``a``); else None."""
    name = low.info.numpy_attr(func)
    if name is not None:
        return (name, None) if name in ARRAY_REDUCTIONS else None
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "norm" and low.info.numpy_attr(func.value) == "linalg":
        return ("linalg.norm", None)
    modules = low.info.math_modules | low.info.numpy_modules
    if isinstance(func.value, ast.Name) and func.value.id in modules:
        return None
    spec = ARRAY_REDUCTIONS.get(func.attr)
    if spec is None or not spec.method or low._is_imported(func):
        return None
    return (func.attr, func.value)


def lower_reduction(
    low: LoweringState, dtype_of: Callable[[ast.expr], str], e: ast.Call
) -> Value | None:
    """The :class:`~ops.NumpyReduce` of call ``e`` when it is a reduction
    (:func:`find_reduction`), else None. ``dtype_of`` reads a dtype expression.

    Raises:
        CompileError: a missing array, too many arguments, an unknown, repeated or
            unsupported parameter, an argument that is not a constant of its kind.
    """
    builtin = _builtin(low, e)
    if builtin is not None:
        array = low.expr(e.args[0])
        with low.b.at(low.src.loc(e)):
            kind, shown = builtin
            return low.b.insert(ops.NumpyReduce(kind, array, None, shown=shown))
    found = find_reduction(low, e.func)
    if found is None:
        return None
    name, receiver = found
    spec = ARRAY_REDUCTIONS[name]
    shown = f"np.{name}()" if receiver is None else f"{ast.unparse(e.func)}()"
    params = spec.params if receiver is not None else ("a", *spec.params)
    bound = _bind(low, shown, params, e)
    array_node = receiver if receiver is not None else bound.pop("a", None)
    if array_node is None:
        raise low.src.error(f"{shown} missing required argument 'a'", e)
    initial = bound.pop("initial", None) if spec.fn in _WITH_INITIAL else None
    for param, node in bound.items():
        if param not in _SUPPORTED and not (param == "out" and _is_none(node)):
            raise low.src.error(f"{shown} argument '{param}=' is not supported", node)
    fn = spec.fn
    if fn == "norm":
        fn = _norm_kind(low, shown, bound.get("ord"))
    axes = _axes(low, shown, spec.axes, bound.get("axis"))
    keepdims = _constant(low, shown, "keepdims", bound.get("keepdims"), bool, False)
    ddof = _constant(low, shown, "ddof", bound.get("ddof"), int, 0)
    dtype = ""
    dtype_node = bound.get("dtype")
    if dtype_node is not None and not _is_none(dtype_node):
        if spec.fn not in _WITH_DTYPE:
            raise low.src.error(f"{shown} argument 'dtype=' is not supported", dtype_node)
        dtype = dtype_of(dtype_node)
    array = low.expr(array_node)
    if initial is not None:
        x = low.expr(initial)  # NumPy's arguments are all evaluated first
        with low.b.at(low.src.loc(e)):
            kept = low.b.insert(
                ops.NumpyReduce(
                    f"{fn}from" if fn in ("min", "max") else fn,
                    array,
                    axes,
                    dtype=dtype,
                    shown=shown,
                    keepdims=True,
                )
            )
        return _with_initial(low, e, (fn, shown), kept, axes, bool(keepdims), x)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(
            ops.NumpyReduce(
                fn, array, axes, ddof=int(ddof), dtype=dtype, shown=shown, keepdims=bool(keepdims)
            )
        )


#: The ufunc that combines a reduction's result with ``initial=``.
_COMBINE = {"min": "minimum", "max": "maximum", "sum": "add", "prod": "multiply"}


def _with_initial(
    low: LoweringState,
    e: ast.Call,
    name: tuple[str, str],
    kept: Value,
    axes: tuple[int, ...] | None,
    keepdims: bool,
    x: Value,
) -> Value:
    """``np.max(a, axis, keepdims=keepdims, initial=x)`` from the reduction ``kept`` (its
    dims kept; ``name``: ``(fn, shown)``, fn ``min``, ``max``, ``sum`` or ``prod``): the
    module docstring's composition of typed operations."""
    fn, shown = name
    with low.b.at(low.src.loc(e)):
        b = low.b
        fill = b.insert(ops.Allocate(ops.AllocKind.FULL, "", None, kept, x))
        both = b.insert(ops.NumpyCall(_COMBINE[fn], (kept, fill)))
        if keepdims:
            return both
        return b.insert(ops.NumpyReduce(fn, both, axes, shown=shown))


def _builtin(low: LoweringState, e: ast.Call) -> tuple[str, str] | None:
    """``(kind, shown)`` of ``sum(a)``/``min(a)``/``max(a)`` (one argument: an
    iterable), else None (``min(x, y)`` of scalars is the builtin's other form)."""
    func = e.func
    if not isinstance(func, ast.Name) or func.id not in BUILTIN_REDUCTIONS:
        return None
    if func.id in low.locals or func.id in low.info.functions or low._is_imported(func):
        return None
    if len(e.args) != 1 or e.keywords:
        return None
    return BUILTIN_REDUCTIONS[func.id], f"{func.id}()"


def _bind(
    low: LoweringState, shown: str, params: tuple[str, ...], e: ast.Call
) -> dict[str, ast.expr]:
    """Arguments of ``e`` by parameter name, as NumPy binds them."""
    if len(e.args) > len(params):
        raise low.src.error(
            f"{shown} takes at most {len(params)} positional arguments "
            f"but {len(e.args)} were given",
            e,
        )
    bound: dict[str, ast.expr] = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg is None:
            raise low.src.error("'**' arguments are not supported", kw.value)
        if kw.arg not in params:
            raise low.src.error(f"{shown} got an unexpected keyword argument '{kw.arg}'", kw.value)
        if kw.arg in bound:
            raise low.src.error(f"{shown} got multiple values for argument '{kw.arg}'", kw.value)
        bound[kw.arg] = kw.value
    return bound


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _constant(
    low: LoweringState,
    shown: str,
    param: str,
    node: ast.expr | None,
    kind: type[int] | type[bool],
    default: int | bool,
) -> int | bool:
    """The constant value of argument ``param`` (an int, or a bool for ``keepdims``)."""
    if node is None:
        return default
    value = fold_constant(low.info, node)
    if value is None or isinstance(value, float) or (kind is int and isinstance(value, bool)):
        what = "a constant bool" if kind is bool else "a constant int"
        raise low.src.error(f"{shown} argument '{param}=' must be {what}", node)
    return kind(value)


def _axes(
    low: LoweringState, shown: str, form: str, node: ast.expr | None
) -> tuple[int, ...] | None:
    """The ``axis`` argument as written (None: every axis)."""
    if node is None or _is_none(node):
        return None
    if form == "none":
        raise low.src.error(f"{shown} argument 'axis=' is not supported (vector norms only)", node)
    elts = node.elts if isinstance(node, ast.Tuple) else None
    if elts is not None and form == "tuple":
        return tuple(_axis(low, shown, x) for x in elts)
    if elts is not None:
        raise low.src.error(f"{shown} argument 'axis=' must be a constant int or None", node)
    return (_axis(low, shown, node),)


def _axis(low: LoweringState, shown: str, node: ast.expr) -> int:
    value = fold_constant(low.info, node)
    if not isinstance(value, int) or isinstance(value, bool):
        raise low.src.error(
            f"{shown} argument 'axis=' must be a constant int, a tuple of constant ints or None",
            node,
        )
    return value


def _norm_kind(low: LoweringState, shown: str, node: ast.expr | None) -> str:
    """The ``fn`` of ``np.linalg.norm(x, ord)``: ``norm:None`` (the 2-norm of the
    flattened array), ``norm:fro`` (2-D), ``norm:1``/``norm:2``/``norm:inf`` (1-D; ``1`` and
    ``inf`` also of a 2-D array: matrix norms); inference checks the rank and picks the
    :class:`~ops.ReduceKind`."""
    if node is None or _is_none(node):
        return "norm:None"
    if isinstance(node, ast.Constant) and node.value == "fro":
        return "norm:fro"
    value = fold_constant(low.info, node)
    if value is not None and not isinstance(value, bool):
        if value in (1, 2):
            return f"norm:{int(value)}"
        if value == math.inf:
            return "norm:inf"
    raise low.src.error(
        f"{shown} argument 'ord=' must be None, 1, 2, np.inf or 'fro' (got '{ast.unparse(node)}')",
        node,
    )
