"""Fold module-level constant expressions at compile time (never running the module).

A constant expression is built from numeric literals, module constants (of this module or,
through a user-module import, of another), ``math`` constants, NumPy's constants
(``np.pi``) and ``math`` functions, with the arithmetic and bitwise operators: ``N = 10``,
``SCALE = 2 * math.pi``, ``TINY = math.exp(-30)``, ``MASK = (1 << 40) - 1``.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc.compiler.frontend.imports import ConstantRef, resolve, rooted_in_user_import
from gradc.compiler.ir.numpy_math import NUMPY_CONSTANTS
from gradc.compiler.ir.ops import MATH_FUNCTIONS

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo

#: The ``math`` module's constants.
MATH_CONSTANTS: dict[str, float] = {
    "pi": math.pi,
    "e": math.e,
    "tau": math.tau,
    "inf": math.inf,
    "nan": math.nan,
}

#: The largest ``<<`` count folded: past it the unbounded int CPython would build is
#: enormous, and no result outside 64 bits is a constant gradc can use anyway.
_MAX_FOLDED_SHIFT = 64


def _lshift(a: object, n: object) -> object:
    """``a << n``, refused (TypeError: not a constant) for counts over 64."""
    if isinstance(n, int) and n > _MAX_FOLDED_SHIFT:
        raise TypeError("shift count too large to fold")
    return operator.lshift(a, n)


_FOLD_BINOPS: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: _lshift,
    ast.RShift: operator.rshift,
}

Number = int | float | bool


def fold_constant(info: ModuleInfo, node: ast.expr) -> Number | None:
    """The value of a constant expression over literals, constants and ``math``.

    Returns None when ``node`` is not a numeric constant expression (or folding it
    raises, e.g. ``1 / 0``: the error then belongs to the code that uses it).
    """
    try:
        value = _fold(info, node)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, bool | int | float):
        return value
    return None


def _fold(info: ModuleInfo, node: ast.expr) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool | int | float):
        return node.value
    if isinstance(node, ast.Name) and node.id in info.constants:
        return info.constants[node.id]
    if isinstance(node, ast.Name | ast.Attribute) and rooted_in_user_import(info, node):
        ref = resolve(info, node)  # helpers.SCALE, or SCALE from ``from helpers import``
        if isinstance(ref, ConstantRef):
            return ref.value
        raise TypeError("not a constant")
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in info.math_modules
        and node.attr in MATH_CONSTANTS
    ):
        return MATH_CONSTANTS[node.attr]
    if isinstance(node, ast.Name | ast.Attribute) and info.numpy_attr(node) in NUMPY_CONSTANTS:
        return NUMPY_CONSTANTS[info.numpy_attr(node) or ""]
    if isinstance(node, ast.UnaryOp):
        operand = _fold(info, node.operand)
        if isinstance(node.op, ast.USub):
            return -operand  # type: ignore[operator]
        if isinstance(node.op, ast.UAdd):
            return +operand  # type: ignore[operator]
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.Invert):
            return ~operand  # type: ignore[operator]
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD_BINOPS:
        return _FOLD_BINOPS[type(node.op)](_fold(info, node.left), _fold(info, node.right))
    if isinstance(node, ast.Call) and not node.keywords:
        fn = info.math_attr(node.func)
        if fn in MATH_FUNCTIONS:
            return getattr(math, fn)(*(_fold(info, a) for a in node.args))
    raise TypeError("not a constant")


def default_values(info: ModuleInfo, fn: ast.FunctionDef) -> list[Number]:
    """The default values of ``fn``'s last parameters, folded (CPython evaluates them once,
    where ``def`` runs; gradc accepts only what :func:`fold_constant` folds: int, float and
    bool literals, module constants and constant expressions over them).

    Raises:
        CompileError: a default that is not such a constant (``None``, a call, an array).
    """
    values: list[Number] = []
    params = fn.args.args[len(fn.args.args) - len(fn.args.defaults) :]
    for param, node in zip(params, fn.args.defaults, strict=True):
        value = fold_constant(info, node)
        if value is None:
            raise info.source.error(
                f"the default value of parameter '{param.arg}' of '{fn.name}' must be a "
                "constant (an int, float or bool literal, or a module constant)",
                node,
            )
        values.append(value)
    return values
