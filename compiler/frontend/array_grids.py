"""NumPy functions the front end writes with other array operations, second group (the
supported-constructs page lists them from :data:`GRID_FUNCTIONS`):

* ``np.meshgrid(x, y, indexing='xy')`` of 1-D arrays: NumPy's two coordinate matrices,
  written ``np.where(ones, x[None, :], x[None, :])`` with a bool
  ``ones`` of the other input's length: copies in the input's own dtype (NumPy's
  ``copy=True``), the derivative summed over the broadcast axis by ``where``'s rule;
  ``indexing='ij'`` swaps the roles (shapes ``(len(y), len(x))`` for ``xy``,
  ``(len(x), len(y))`` for ``ij``);
* ``np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`` and ``np.allclose`` (the
  ``np.all`` of it): NumPy's ``abs(x - y) <= atol + rtol * abs(y) & isfinite(y) | (x ==
  y)`` (``numpy/_core/numeric.py``), ``y`` first converted to ``result_type(y, 1.0)`` as
  NumPy does (here ``y * 1.0``, which NEP 50 types the same way); with ``equal_nan``,
  ``| isnan(x) & isnan(y)``;
* ``np.column_stack((a, b, ...))`` of 1-D arrays: NumPy's ``np.concatenate`` of the
  columns ``a[:, None]`` along axis 1 (its ValueError for unequal lengths).

Each becomes operations that already have their types, loops and derivative rules, so
inference, codegen and AD need nothing more.
"""

from __future__ import annotations

import ast

from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import FULL_SLICE, NEW_ITEM
from gradc.compiler.ir.types import F64

#: ``np.<name>`` -> the forms gradc accepts.
GRID_FUNCTIONS: dict[str, str] = {
    "meshgrid": "np.meshgrid(x, y, indexing='xy'|'ij') of two 1-D arrays: a tuple of copies",
    "isclose": "np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) (a constant equal_nan)",
    "allclose": "np.allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) (a constant equal_nan)",
    "column_stack": "np.column_stack(tup) of a literal tuple or list of 1-D arrays",
}


def grid_call(low: LoweringState, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` for a name of :data:`GRID_FUNCTIONS`."""
    if name == "meshgrid":
        return meshgrid_call(low, e)
    if name == "column_stack":
        return column_stack_call(low, e)
    close = isclose_call(low, name, e)
    if name == "isclose":
        return close
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.NumpyReduce("all", close, None, shown="np.allclose()"))


def _bind(
    low: LoweringState,
    name: str,
    e: ast.Call,
    params: tuple[str, ...],
    keyword_only: tuple[str, ...],
) -> dict[str, ast.expr]:
    """The arguments of ``np.<name>(...)`` bound by position (``params``) or name
    (``params`` and ``keyword_only``).

    Raises:
        CompileError: too many positional arguments, an unknown or repeated keyword, a
            missing positional one.
    """
    if len(e.args) > len(params):
        raise low.src.error(
            f"np.{name}() takes at most {len(params)} positional arguments here "
            f"({GRID_FUNCTIONS[name]})",
            e.args[len(params)],
        )
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in (*params, *keyword_only) or kw.arg in bound:
            raise low.src.error(
                f"np.{name}() argument '{kw.arg}=' is not supported ({GRID_FUNCTIONS[name]})",
                kw.value,
            )
        bound[kw.arg] = kw.value
    required = params if name == "meshgrid" else params[:2]
    for param in required:
        if param not in bound:
            raise low.src.error(f"np.{name}() missing required argument '{param}'", e)
    return bound


def meshgrid_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.meshgrid(x, y, indexing='xy')``: the tuple ``(X, Y)`` of NumPy's coordinate
    matrices, copies of the inputs broadcast against each other.

    Raises:
        CompileError: other than two 1-D arrays (NumPy ravels others), ``indexing=`` not the constant ``'xy'`` or
            ``'ij'``, ``sparse=``/``copy=``.
    """
    if len(e.args) != 2 or any(isinstance(a, ast.Starred) for a in e.args):
        raise low.src.error(
            f"np.meshgrid() takes exactly two 1-D arrays here ({GRID_FUNCTIONS['meshgrid']})", e
        )
    bound = _bind(low, "meshgrid", e, ("x", "y"), ("indexing",))
    node = bound.get("indexing")
    indexing = node.value if isinstance(node, ast.Constant) else "xy" if node is None else None
    if indexing not in ("xy", "ij"):
        raise low.src.error(
            "np.meshgrid() argument 'indexing=' must be the constant 'xy' or 'ij'",
            node or e,
        )
    order = sorted(bound.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset))
    values = {name: low.expr(arg) for name, arg in order if name in ("x", "y")}
    b = low.b
    with b.at(low.src.loc(e)):
        x, y = (b.insert(ops.Transpose(values[n], (0,))) for n in "xy")  # 1-D: a check
        lead, trail = (NEW_ITEM, FULL_SLICE), (FULL_SLICE, NEW_ITEM)
        if indexing == "ij":
            lead, trail = trail, lead
        first = _spread(low, x, lead, y, trail)
        second = _spread(low, y, trail, x, lead)
        return b.insert(ops.MakeTuple((first, second)))


def isclose_call(low: LoweringState, name: str, e: ast.Call) -> Value:
    """``np.isclose(a, b, rtol, atol, equal_nan)`` as NumPy's formula (a bool array, or a
    bool for scalars).

    Raises:
        CompileError: ``equal_nan`` that is not a constant bool, other arguments.
    """
    bound = _bind(low, name, e, ("a", "b", "rtol", "atol", "equal_nan"), ())
    equal_nan = fold_constant(low.info, bound["equal_nan"]) if "equal_nan" in bound else False
    if not isinstance(equal_nan, bool):
        raise low.src.error(
            f"np.{name}() argument 'equal_nan=' must be a constant bool", bound["equal_nan"]
        )
    order = sorted(bound.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset))
    values = {n: low.expr(node) for n, node in order if n != "equal_nan"}
    b = low.b
    with b.at(low.src.loc(e)):
        x = values["a"]
        y = b.insert(ops.Mul(values["b"], b.const(1.0, F64)))
        rtol = values.get("rtol") or b.const(1e-05, F64)
        atol = values.get("atol") or b.const(1e-08, F64)
        diff = b.insert(ops.NumpyCall("absolute", (b.insert(ops.Sub(x, y)),)))
        scaled = b.insert(ops.Mul(rtol, b.insert(ops.NumpyCall("absolute", (y,)))))
        within = b.insert(ops.Cmp(ops.CmpPred.LE, diff, b.insert(ops.Add(atol, scaled))))
        finite = b.insert(ops.NumpyCall("isfinite", (y,)))
        equal = b.insert(ops.Cmp(ops.CmpPred.EQ, x, y))
        result = b.insert(ops.BitOr(b.insert(ops.BitAnd(within, finite)), equal))
        if equal_nan:
            nans = b.insert(
                ops.BitAnd(
                    b.insert(ops.NumpyCall("isnan", (x,))), b.insert(ops.NumpyCall("isnan", (y,)))
                )
            )
            result = b.insert(ops.BitOr(result, nans))
        return result


def _spread(
    low: LoweringState,
    along: Value,
    items: tuple[str, ...],
    other: Value,
    other_items: tuple[str, ...],
) -> Value:
    """``np.where(ones, along[items], along[items])``, ``ones`` a bool array of
    ``other``'s length viewed by ``other_items``: ``along`` copied along the other axis."""
    b = low.b
    ones = b.insert(ops.Allocate(ops.AllocKind.ONES, "i1", None, other, None))
    mask = b.insert(ops.BasicIndex(ones, (), other_items))
    spread = b.insert(ops.BasicIndex(along, (), items))
    return b.insert(ops.NumpyCall("where", (mask, spread, spread)))


def column_stack_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.column_stack(tup)`` of 1-D arrays: a new 2-D C array, one column each.

    Raises:
        CompileError: not one literal, non-empty tuple or list; an array that is not 1-D
            is inference's "axes don't match array" (NumPy stacks 2-D ones as they are).
    """
    node = e.args[0] if len(e.args) == 1 and not e.keywords else None
    if not isinstance(node, ast.List | ast.Tuple) or not node.elts:
        raise low.src.error(
            f"np.column_stack() takes a literal, non-empty tuple or list of arrays here "
            f"({GRID_FUNCTIONS['column_stack']})",
            node or e,
        )
    arrays = [low.expr(x) for x in node.elts]
    b = low.b
    with b.at(low.src.loc(e)):
        columns = tuple(
            b.insert(ops.BasicIndex(b.insert(ops.Transpose(a, (0,))), (), (FULL_SLICE, NEW_ITEM)))
            for a in arrays
        )
        return b.insert(ops.Concatenate(ops.JoinKind.CONCATENATE, 1, columns))
