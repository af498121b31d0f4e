"""NumPy's operator ufuncs called as functions: ``np.add(a, b)``, ``np.multiply``,
``np.divide``, ``np.negative``, ``np.less``, ... (with ``out=``, compiler/frontend/
ufunc_out.py).

Each is lowered to the very instruction its Python operator gives (``np.add(a, b)`` is
``a + b``, ``np.less(a, b)`` is ``a < b``), so dtypes, broadcasting, loops and derivative
rules are the operator's: on arrays NumPy's ufunc; on two scalars gradc's scalar
arithmetic, where a division by zero raises ZeroDivisionError as for every scalar (NumPy:
inf or nan with a warning; docs/supported.md "Differences from NumPy"). ``np.add``,
``np.subtract``, ``np.multiply`` and ``np.negative`` of bool scalars are compile errors
(NumPy's bool result or TypeError is not Python's int; fuzz seed 620588).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.frontend import ufunc_out
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering

#: ``np.<name>`` of two operands -> the binary instruction of its operator.
BINARY_FUNCTIONS: dict[str, type[ops.BinaryOp]] = {
    "add": ops.Add,
    "subtract": ops.Sub,
    "multiply": ops.Mul,
    "divide": ops.Div,
    "true_divide": ops.Div,
    "floor_divide": ops.FloorDiv,
    "remainder": ops.Mod,
    "mod": ops.Mod,
    "bitwise_and": ops.BitAnd,
    "bitwise_or": ops.BitOr,
    "bitwise_xor": ops.BitXor,
    "left_shift": ops.LShift,
    "right_shift": ops.RShift,
}

#: ``np.<name>`` of two operands -> the comparison predicate of its operator.
COMPARISON_FUNCTIONS: dict[str, ops.CmpPred] = {
    "equal": ops.CmpPred("eq"),
    "not_equal": ops.CmpPred("ne"),
    "less": ops.CmpPred("lt"),
    "less_equal": ops.CmpPred("le"),
    "greater": ops.CmpPred("gt"),
    "greater_equal": ops.CmpPred("ge"),
}

#: ``np.<name>`` of one operand -> the unary instruction of its operator.
UNARY_FUNCTIONS: dict[str, type[ops.Neg] | type[ops.Invert]] = {
    "negative": ops.Neg,
    "invert": ops.Invert,
    "bitwise_not": ops.Invert,
}

#: Every ``np.<name>`` this module lowers.
OPERATOR_FUNCTIONS = (
    frozenset(BINARY_FUNCTIONS) | frozenset(COMPARISON_FUNCTIONS) | frozenset(UNARY_FUNCTIONS)
)


def operator_call(low: CallLowering, name: str, e: ast.Call) -> Value:
    """``np.<name>(operands..., out=None)`` for a name of :data:`OPERATOR_FUNCTIONS`.

    Raises:
        CompileError: the wrong number of operands, a keyword other than ``out=``.
    """
    arity = 1 if name in UNARY_FUNCTIONS else 2
    operands, out = ufunc_out.split_out(low, name, e, arity)
    if len(operands) != arity:
        raise low.src.error(
            f"np.{name}() takes {arity} argument{'s' * (arity != 1)} "
            f"but {len(operands)} were given",
            e,
        )
    args = [low.expr(a) for a in operands]
    with low.b.at(low.src.loc(e)):
        if name in UNARY_FUNCTIONS:
            unary = UNARY_FUNCTIONS[name](args[0])
            if isinstance(unary, ops.Neg):
                unary.numpy = True
            result = low.b.insert(unary)
        elif name in COMPARISON_FUNCTIONS:
            result = low.b.insert(ops.Cmp(COMPARISON_FUNCTIONS[name], args[0], args[1]))
        else:
            binary = BINARY_FUNCTIONS[name](args[0], args[1])
            if isinstance(binary, ops.Add | ops.Sub | ops.Mul):
                binary.numpy = True  # NumPy's bools are not Python's (rules._ambiguous_bools)
            result = low.b.insert(binary)
    return result if out is None else ufunc_out.write_out(low, result, out, e)
