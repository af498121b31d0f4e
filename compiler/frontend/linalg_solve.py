"""``np.linalg.inv(a)``, ``np.linalg.solve(a, b)``, ``np.linalg.det(a)`` and
``np.linalg.cholesky(a)`` in compiled
code (:class:`~gradc.compiler.ir.ops.LinalgSolve`; listed on the supported-constructs
page from :data:`SOLVE_FUNCTIONS`). Arguments bind by position or NumPy's names and are
evaluated in source order."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering

#: ``np.linalg.<name>`` -> (NumPy's parameters, the accepted forms).
SOLVE_FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "inv": (("a",), "np.linalg.inv(a) of a square matrix or a stack (..., M, M)"),
    "solve": (
        ("a", "b"),
        "np.linalg.solve(a, b): a (..., M, M), b (M,) or (..., M, K), batch axes broadcast",
    ),
    "det": (("a",), "np.linalg.det(a) of a square matrix or a stack (..., M, M)"),
    "cholesky": (
        ("a",),
        "np.linalg.cholesky(a) of a square matrix or a stack (..., M, M): the lower factor",
    ),
}


def is_solve_call(low: CallLowering, func: ast.expr) -> bool:
    """``func`` is ``np.linalg.<name>`` of :data:`SOLVE_FUNCTIONS`."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr in SOLVE_FUNCTIONS
        and low.info.numpy_attr(func.value) == "linalg"
    )


def solve_call(low: CallLowering, func: ast.Attribute, e: ast.Call) -> Value:
    """``np.linalg.inv/solve/det(...)``.

    Raises:
        CompileError: a wrong number of arguments, an unknown or repeated keyword.
    """
    name = func.attr
    params, forms = SOLVE_FUNCTIONS[name]
    if len(e.args) > len(params):
        raise low.src.error(f"np.linalg.{name}() takes {len(params)} arguments ({forms})", e)
    bound = dict(zip(params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in params or kw.arg in bound:
            raise low.src.error(
                f"np.linalg.{name}() argument '{kw.arg}=' is not supported ({forms})", kw.value
            )
        bound[kw.arg] = kw.value
    missing = [p for p in params if p not in bound]
    if missing:
        raise low.src.error(f"np.linalg.{name}() missing required argument '{missing[0]}'", e)
    items = sorted(bound.items(), key=lambda item: (item[1].lineno, item[1].col_offset))
    values = {param: low.expr(node) for param, node in items}
    rhs = (values["b"],) if "b" in values else ()
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.LinalgSolve(ops.SolveKind(name), values["a"], rhs))
