"""Functions passed as arguments to user functions (``apply(_twice, x)``), as Numba does.

A module-level function (of this or an imported user module), a ``math`` function
(``math.sin``) or a NumPy function (``np.sin``) passed to a user function is a
compile-time constant: the call names a specialisation of the callee for it
(:attr:`~.imports.FunctionRef.symbol`: ``apply$f$_twice``), in which the parameter is no
IR parameter and each call ``f(x)`` is a direct call of the function. Passing it on
(``apply(f, x)`` inside ``apply2(f, x)``) specialises the next callee the same way, and
``g = _twice`` at the top level of a body binds ``g`` the same way (:func:`bind_aliases`).
Anything else a function parameter could do (read it as a value, assign it) is an error.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

from gradc.compiler.frontend.imports import FunctionConstant, FunctionRef, resolve
from gradc.compiler.frontend.kernels import is_kernel
from gradc.compiler.frontend.numpy_arrays import ARRAY_UFUNCS
from gradc.compiler.ir import ops
from gradc.compiler.ir.numpy_math import NUMPY_FUNCTIONS

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering
    from gradc.compiler.ir.core import Value


def function_constant(lw: CallLowering, node: ast.expr) -> FunctionConstant | None:
    """The function ``node`` names when passed as an argument, else None (a value).

    Raises:
        CompileError: ``node`` names a ``@gradc.kernel`` function (launched, not called).
    """
    info = lw.info
    if isinstance(node, ast.Name):
        if node.id in lw.bound_functions:
            return lw.bound_functions[node.id]
        if node.id in lw.locals:
            return None
        if node.id in info.functions:
            if is_kernel(info, info.functions[node.id]):
                raise lw.src.error(f"kernel '{node.id}' cannot be passed as an argument", node)
            return FunctionConstant(node.id, ref=FunctionRef(info, node.id))
    math_fn = info.math_attr(node)
    if math_fn is not None and math_fn in ops.MATH_FUNCTIONS:
        if not ops.MATH_FUNCTIONS[math_fn].internal:
            return FunctionConstant(f"math.{math_fn}", builtin="math", name=math_fn)
    numpy_fn = info.numpy_attr(node)
    if numpy_fn is not None and (numpy_fn in NUMPY_FUNCTIONS or numpy_fn in ARRAY_UFUNCS):
        return FunctionConstant(f"np.{numpy_fn}", builtin="numpy", name=numpy_fn)
    if isinstance(node, ast.Name | ast.Attribute) and lw._is_imported(node):
        ref = resolve(info, node)
        if isinstance(ref, FunctionRef):
            return FunctionConstant(ref.symbol, ref=ref)
    return None


def bind_functions(
    lw: CallLowering, callee: FunctionRef, shown: str, bound: dict[int, ast.expr], e: ast.Call
) -> tuple[FunctionRef, set[int]]:
    """The specialisation of ``callee`` for the functions among its arguments ``bound``
    (parameter index -> argument), and the indices of those arguments.

    Raises:
        CompileError: a kernel passed (:func:`function_constant`); a function passed to an
            export (whose parameters come from Python callers) or to a ``@gradc.custom_*``
            function.
    """
    names = [a.arg for a in callee.node.args.args]
    constants: dict[int, FunctionConstant] = {}
    for i, node in bound.items():
        constant = function_constant(lw, node)
        if constant is not None:
            constants[i] = constant
    if not constants:
        return callee, set()
    first = bound[min(constants)]
    if callee.name in {x.function for x in callee.module.exports}:
        raise lw.src.error(
            f"cannot pass function '{constants[min(constants)].shown}' to export '{shown}': "
            "an export's parameters come from Python callers (call a non-exported helper)",
            first,
        )
    if callee.name in callee.module.custom_rules:
        raise lw.src.error(
            f"cannot pass function '{constants[min(constants)].shown}' to "
            f"@gradc.custom_{callee.module.custom_rules[callee.name].kind} function '{shown}'",
            first,
        )
    binding = tuple((names[i], constants[i]) for i in sorted(constants))
    return FunctionRef(callee.module, callee.name, binding), set(constants)


def call_bound(lw: CallLowering, name: str, e: ast.Call) -> Value:
    """``f(...)`` where parameter ``f`` is bound to a function: a direct call of it."""
    constant = lw.bound_functions[name]
    if constant.builtin == "math":
        return lw.math_call(constant.name, e)
    if constant.builtin == "numpy":
        return lw.numpy_math_call(constant.name, e)
    assert constant.ref is not None
    return lw.user_call(constant.ref, constant.shown, e)


def check_bound_parameters(lw: CallLowering) -> None:
    """Parameters bound to functions are not assigned in the function's body.

    Raises:
        CompileError: at the first assignment of one.
    """
    for node in ast.walk(lw.node):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Store)
            and node.id in lw.bound_functions
        ):
            raise lw.src.error(
                f"parameter '{node.id}' is passed function "
                f"'{lw.bound_functions[node.id].shown}' and cannot be assigned",
                node,
            )


def bind_aliases(lw: CallLowering) -> None:
    """``g = _twice`` as a statement of the body's top level, ``g`` assigned nowhere else
    and not read before it: ``g`` names the function from there on (its calls are direct
    calls), as the statement runs once, before every read. Other assignments of a function
    stay errors (:meth:`~.lower_expr.ExpressionLowering.name`)."""
    body = lw.node.body
    params = {a.arg for a in lw.node.args.args}
    # one walk of the body for every statement's question (a walk per statement was
    # quadratic: 48 s of a 1,000-line function's inference)
    stores = Counter(
        n.id for n in ast.walk(lw.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )
    read: set[str] = set()  # the names the statements before this one read or write
    for stmt in body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id not in params
        ):
            name = stmt.targets[0].id
            once = stores[name] == 1 and name not in read
            constant = function_constant(lw, stmt.value) if once else None
            if constant is not None:
                lw.bound_functions[name] = constant
                lw.locals.discard(name)
                lw.function_aliases.add(stmt)
        read.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
