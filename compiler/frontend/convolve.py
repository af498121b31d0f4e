"""``np.convolve(a, v, mode='full')`` of two 1-D arrays, written with operations that
already have their types, loops and derivative rules (inference, codegen and AD need
nothing more):

* NumPy's checks first (``numpy/_core/numeric.py``): ValueError("a cannot be empty"),
  then ValueError("v cannot be empty");
* ``v`` padded with ``len(a) - 1`` zeros on each side (``np.concatenate``), the matrix
  ``rows[k, j] = v[k - j]`` gathered from it by the integer-array index
  ``np.arange(len(a) + len(v) - 1)[:, None] + np.arange(len(a))[::-1][None, :]``, and
  the row sums of ``np.where(inside, rows * a, rows)`` (``inside`` marks the
  positions within ``v``: products with the padding are never formed, as in NumPy's
  loop, so an inf or NaN in ``a`` spoils only the outputs it reaches): the ``full``
  convolution, in the promoted dtype as NumPy's;
* ``same`` and ``valid``: the slices ``[(k - 1) // 2 : (k - 1) // 2 + K]`` and
  ``[k - 1 : K]`` of it (``k``, ``K`` the shorter and longer length), as NumPy's
  ``correlate`` modes.

It takes ``len(a) * (len(a) + len(v) - 1)`` elements of memory, where NumPy's loop needs
none: meant for filters and short kernels, as real code uses it. Sums add in another
order than NumPy's (results agree to rounding).
"""

from __future__ import annotations

import ast

from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import FULL_SLICE, NEW_ITEM
from gradc.compiler.ir.types import I64

#: What gradc accepts, for the supported-constructs page.
CONVOLVE_FORM = "np.convolve(a, v, mode='full'|'same'|'valid') of 1-D arrays (a constant mode)"

_MODES = ("full", "same", "valid")


def convolve_call(low: LoweringState, e: ast.Call) -> Value:
    """``np.convolve(a, v, mode='full')``: a 1-D array of the promoted dtype.

    Raises:
        CompileError: a missing array, other arguments, a mode that is not one of the
            constant strings; an operand that is not 1-D is inference's "axes don't
            match array" (NumPy raises ValueError for it at run time).
    """
    params = ("a", "v", "mode")
    if len(e.args) > len(params):
        raise low.src.error(f"np.convolve() takes at most 3 arguments ({CONVOLVE_FORM})", e)
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in params or kw.arg in bound:
            raise low.src.error(
                f"np.convolve() argument '{kw.arg}=' is not supported ({CONVOLVE_FORM})", kw.value
            )
        bound[kw.arg] = kw.value
    for name in ("a", "v"):
        if name not in bound:
            raise low.src.error(f"np.convolve() missing required argument '{name}'", e)
    node = bound.get("mode")
    mode = "full" if node is None else node.value if isinstance(node, ast.Constant) else None
    if mode not in _MODES:
        raise low.src.error(
            "np.convolve() argument 'mode' must be the constant 'full', 'same' or 'valid'",
            node or e,
        )
    order = sorted(bound.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset))
    values = {name: low.expr(arg) for name, arg in order if name != "mode"}
    with low.b.at(low.src.loc(e)):
        a, v = (low.b.insert(ops.Transpose(values[n], (0,))) for n in ("a", "v"))
        n = low.b.insert(ops.Len(a))
        m = low.b.insert(ops.Len(v))
        _check_empty(low, n, m)
        full = _full(low, a, v, n, m)
        if mode == "full":
            return full
        b = low.b
        short = b.insert(ops.Min(n, m))
        long = b.insert(ops.Max(n, m))
        one = b.const(1, I64)
        if mode == "valid":
            start = b.insert(ops.Sub(short, one))
            return b.insert(ops.BasicIndex(full, (start, long), ("s110",)))
        start = b.insert(ops.FloorDiv(b.insert(ops.Sub(short, one)), b.const(2, I64)))
        stop = b.insert(ops.Add(start, long))
        return b.insert(ops.BasicIndex(full, (start, stop), ("s110",)))


def _check_empty(low: LoweringState, n: Value, m: Value) -> None:
    """NumPy's ValueErrors for empty operands (checked before its swap)."""
    zero = low.b.const(0, I64)
    for length, message in ((n, "a cannot be empty"), (m, "v cannot be empty")):
        bad = low.b.new_block("convolve.empty")
        ok = low.b.new_block("convolve.ok")
        low._branch(low.b.cmp("eq", length, zero), bad, ok)
        low._start(bad)
        low.b.raise_("ValueError", message)
        low._start(ok)


def _full(low: LoweringState, a: Value, v: Value, n: Value, m: Value) -> Value:
    """``full[k] = sum(a[j] * v[k - j])`` over ``0 <= k - j < len(v)`` only."""
    b = low.b
    zero, one = b.const(0, I64), b.const(1, I64)
    tail = b.insert(ops.BasicIndex(a, (one,), ("s100",)))  # len(a) - 1 elements
    pad = b.insert(ops.Allocate(ops.AllocKind.ZEROS, "", None, tail, None))
    padded = b.insert(ops.Concatenate(ops.JoinKind.CONCATENATE, 0, (pad, v, pad)))
    length = b.insert(ops.Sub(b.insert(ops.Add(n, m)), one))
    k = b.insert(ops.Arange("", zero, length, one))
    j = b.insert(ops.Arange("", zero, n, one))
    back = b.insert(ops.BasicIndex(j, (b.const(-1, I64),), ("s001",)))
    index = b.insert(
        ops.Add(
            b.insert(ops.BasicIndex(k, (), (FULL_SLICE, NEW_ITEM))),
            b.insert(ops.BasicIndex(back, (), (NEW_ITEM, FULL_SLICE))),
        )
    )
    rows = b.insert(ops.GetItem(padded, (index,)))  # a gather: padded[index]
    # Products with the padding are left out, as NumPy's loop never forms them (an inf
    # or NaN in a times a padding zero is NaN): np.where(inside, rows * a, rows).
    edge = b.insert(ops.Allocate(ops.AllocKind.ZEROS, "i1", b.insert(ops.Sub(n, one)), None, None))
    middle = b.insert(ops.Allocate(ops.AllocKind.ONES, "i1", m, None, None))
    marks = b.insert(ops.Concatenate(ops.JoinKind.CONCATENATE, 0, (edge, middle, edge)))
    inside = b.insert(ops.GetItem(marks, (index,)))
    terms = b.insert(ops.NumpyCall("multiply", (rows, a)))
    kept = b.insert(ops.NumpyCall("where", (inside, terms, rows)))
    ones = b.insert(ops.Allocate(ops.AllocKind.ONES, "", None, a, None))
    return b.insert(ops.Contract(ops.ContractKind.MATMUL, kept, ones))
