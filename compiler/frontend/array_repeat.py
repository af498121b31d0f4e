"""NumPy's repetition functions and ``np.polyval``, written with operations that already
have their types, loops and derivative rules (inference, codegen and AD need nothing
more; the supported-constructs page lists them from :data:`REPEAT_FUNCTIONS`):

* ``np.repeat(a, k)`` of a 1-D array and an int: ``np.where(ones, a[:, None],
  a[:, None])`` with a bool ``ones`` of shape ``(k,)`` viewed as ``[None, :]``, raveled
  (each element ``k`` times in turn, as NumPy's);
* ``np.tile(a, k)`` of a 1-D array and an int: the same with the axes swapped (``a``
  ``k`` times over); a negative ``k`` is NumPy's ValueError("negative dimensions are not
  allowed") from the allocation;
* ``np.polyval(p, x)`` with ``p`` a literal list or tuple of coefficients: NumPy's
  Horner loop ``y = np.zeros_like(x); y = y * x + pv`` (``numpy/lib/_polynomial_impl.py``)
  unrolled, its first product ``x * 0`` (the same IEEE value and dtype, for scalars too),
  so ``x = inf`` gives NaN as NumPy's does (no coefficients: a compile error).
"""

from __future__ import annotations

import ast

from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import FULL_SLICE, NEW_ITEM
from gradc.compiler.ir.types import I64

#: ``np.<name>`` -> the forms gradc accepts.
REPEAT_FUNCTIONS: dict[str, str] = {
    "repeat": "np.repeat(a, repeats) of a 1-D array and an int (axis=None)",
    "tile": "np.tile(A, reps) of a 1-D array and an int",
    "polyval": "np.polyval(p, x) with p a literal list or tuple of coefficients",
}


def repeat_call(low: LoweringState, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` for a name of :data:`REPEAT_FUNCTIONS`.

    Raises:
        CompileError: keywords, other than two arguments, ``polyval`` coefficients that
            are not a non-empty literal list or tuple; an array that is not 1-D is inference's
            "axes don't match array".
    """
    if e.keywords or len(e.args) != 2 or any(isinstance(a, ast.Starred) for a in e.args):
        raise low.src.error(
            f"np.{name}() takes two positional arguments here ({REPEAT_FUNCTIONS[name]})", e
        )
    if name == "polyval":
        return _polyval(low, e)
    array, count = (low.expr(a) for a in e.args)
    b = low.b
    with b.at(low.src.loc(e)):
        array = b.insert(ops.Transpose(array, (0,)))  # 1-D: a check
        ones = b.insert(ops.Allocate(ops.AllocKind.ONES, "i1", count, None, None))
        inner, outer = (NEW_ITEM, FULL_SLICE), (FULL_SLICE, NEW_ITEM)
        if name == "repeat":
            inner, outer = outer, inner
        mask = b.insert(ops.BasicIndex(ones, (), outer))
        spread = b.insert(ops.BasicIndex(array, (), inner))
        grid = b.insert(ops.NumpyCall("where", (mask, spread, spread)))
        return b.insert(ops.Reshape(grid, (b.const(-1, I64),), "", ravel=True))


def _polyval(low: LoweringState, e: ast.Call) -> Value:
    """NumPy's Horner loop over literal coefficients."""
    coefficients = e.args[0]
    if not isinstance(coefficients, ast.List | ast.Tuple) or any(
        isinstance(c, ast.Starred) for c in coefficients.elts
    ):
        raise low.src.error(
            "np.polyval() coefficients must be a literal list or tuple here (an array of "
            "them: write Horner's loop, y = y * x + p[i])",
            coefficients,
        )
    if not coefficients.elts:
        raise low.src.error(
            "np.polyval() of no coefficients is not supported (it is np.zeros_like(x))",
            coefficients,
        )
    values = tuple(low.expr(c) for c in coefficients.elts)
    x = low.expr(e.args[1])
    b = low.b
    with b.at(low.src.loc(e)):
        # NumPy's p = np.asarray(p): its elements are NumPy scalars of the list's dtype
        # (NEP 50's strong operands: float coefficients make a float32 x's result float64)
        p = b.insert(ops.ArrayLiteral("", (len(values),), values))
        y = b.insert(ops.Mul(x, b.const(0, I64)))  # np.zeros_like(x) * x, x's dtype
        for k in range(len(values)):
            pv = b.insert(ops.GetItem(p, (b.const(k, I64),)))
            y = b.insert(ops.Add(y if k == 0 else b.insert(ops.Mul(y, x)), pv))
        return y
