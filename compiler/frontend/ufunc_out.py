"""``out=`` of NumPy's elementwise functions: ``np.maximum(D, 0, out=D)``,
``np.exp(X, X)`` (the output as the argument after the operands), ``out=None``.

NumPy computes the ufunc and writes the result into ``out`` ('same_kind' casting; the
operands broadcast to ``out``'s shape), then returns ``out`` itself. gradc lowers it as
the call followed by ``out[...] = result`` (the slice assignment of
:class:`~gradc.compiler.ir.ops.AssignInto`, which reads an operand that overlaps
``out`` as if copied first, as NumPy does) and gives ``out`` as the call's value. A
result that does not broadcast to ``out``'s shape raises ValueError with the slice
assignment's message ("could not broadcast input array from shape ...") where NumPy
says "non-broadcastable output operand ..." (docs/supported.md, "Differences from
NumPy").
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.frontend.slicing import ELLIPSIS
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering


def split_out(
    low: CallLowering, name: str, e: ast.Call, arity: int
) -> tuple[list[ast.expr], ast.expr | None]:
    """The operand nodes of ``np.<name>(...)`` and its ``out`` node (None when absent or
    ``out=None``).

    Raises:
        CompileError: a keyword other than ``out=``, ``out`` given twice, a tuple ``out``.
    """
    args = list(e.args)
    out: ast.expr | None = None
    if len(args) == arity + 1:
        out = args.pop()
    for kw in e.keywords:
        if kw.arg != "out":
            shown = f"argument '{kw.arg}='" if kw.arg else "'**' argument"
            raise low.src.error(f"np.{name}() {shown} is not supported (only out=)", kw.value)
        if out is not None:
            raise low.src.error(f"np.{name}() got multiple values for argument 'out'", kw.value)
        out = kw.value
    if isinstance(out, ast.Tuple):
        if len(out.elts) != 1:
            raise low.src.error(f"np.{name}() 'out' tuple must have exactly one entry", out)
        out = out.elts[0]
    if isinstance(out, ast.Constant) and out.value is None:
        out = None
    return args, out


def write_out(low: CallLowering, result: Value, out: ast.expr, e: ast.Call) -> Value:
    """``out[...] = result``; the value of the call is ``out``."""
    target = low.expr(out)
    with low.b.at(low.src.loc(e)):
        view = low.b.insert(ops.BasicIndex(target, (), (ELLIPSIS,)))
        low.b.insert(ops.SetItem(view, (), result))
    return target
