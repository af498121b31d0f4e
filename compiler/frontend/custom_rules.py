"""Custom derivative rules (JAX's ``custom_jvp``/``custom_vjp``) declared in a module.

A helper or an export of f64 scalar and f64 array parameters (C or any layout) returning
an f64 or an f64 array may carry one::

    @gradc.custom_jvp
    def f(x, y): ...

    @f.defjvp
    def f_jvp(primals, tangents):      # (x, y), (ẋ, ẏ) -> (f(x, y), ḟ)
        ...

    @gradc.custom_vjp
    def g(x): ...

    def g_fwd(x):                      # -> (g(x), residuals)
        ...

    def g_bwd(res, ct):                # -> (x̄,): one cotangent per parameter
        ...

    g.defvjp(g_fwd, g_bwd)

The rule may come after the first use of the function, anywhere at module level. Every
derivative that reaches the function uses the rule instead of differentiating its body
(``passes/ad/custom.py``); the rule's code is then part of those derivatives' keys only.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.ir.types import F64, ArrayType, Type

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo


def rule_parameter(t: Type) -> bool:
    """May a function with a custom rule take a parameter of type ``t``? An f64, or an
    f64 array in C or any layout (an F-ordered array's tangent has another type, ``A``,
    than the rule's tangent parameter, typed like the primal)."""
    return t == F64 or (isinstance(t, ArrayType) and t.dtype == F64 and t.layout != "F")


@dataclass(frozen=True)
class CustomRule:
    """The custom rule of helper ``function``.

    Attributes:
        kind: ``"jvp"`` or ``"vjp"``.
        function: the helper's name.
        rules: ``(jvp rule,)`` or ``(fwd, bwd)``: names of functions of the module.
        node: the ``@gradc.custom_*`` decorator (for error locations).
    """

    kind: str
    function: str
    rules: tuple[str, ...]
    node: ast.expr


def scan_custom_rules(info: ModuleInfo) -> dict[str, CustomRule]:
    """The custom rules of ``info``'s module, by helper name.

    Raises:
        CompileError: a rule for a function without ``@gradc.custom_*`` (or of the other
            kind), a function declared custom without a rule or with two, or a rule that
            is not a function of the module.
    """
    src = info.source
    declared: dict[str, tuple[str, ast.expr]] = {}
    found: dict[str, tuple[str, tuple[str, ...], ast.AST]] = {}
    for stmt in src.tree.body:
        if isinstance(stmt, ast.FunctionDef):
            for deco in stmt.decorator_list:
                kind = next((k for k in ("jvp", "vjp") if info.is_gradc(deco, f"custom_{k}")), None)
                if kind is not None:
                    declared[stmt.name] = (kind, deco)
                elif _method(deco, "defjvp") is not None:
                    _found(info, found, _method(deco, "defjvp"), "jvp", (stmt.name,), deco)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            owner = _method(call.func, "defvjp")
            if owner is not None:
                if (
                    len(call.args) != 2
                    or call.keywords
                    or not all(isinstance(a, ast.Name) for a in call.args)
                ):
                    raise src.error(f"{owner}.defvjp takes two functions: (fwd, bwd)", call)
                names = tuple(a.id for a in call.args if isinstance(a, ast.Name))
                _found(info, found, owner, "vjp", names, call)
    for name, (kind, rules, node) in found.items():
        if declared.get(name, ("", None))[0] != kind:
            raise src.error(f"'{name}' is not declared @gradc.custom_{kind}", node)
        for rule in rules:
            if rule not in info.functions:
                raise src.error(f"'{rule}' is not a function of the module", node)
    for name, (kind, deco) in declared.items():
        if name not in found:
            method = "@" + name + ".defjvp" if kind == "jvp" else name + ".defvjp(fwd, bwd)"
            raise src.error(f"@gradc.custom_{kind} function '{name}' has no rule ({method})", deco)
    return {
        name: CustomRule(kind, name, found[name][1], declared[name][1])
        for name, (kind, _) in declared.items()
    }


def _method(node: ast.expr, attr: str) -> str | None:
    """``f`` of ``f.attr``, or None."""
    if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _found(
    info: ModuleInfo,
    found: dict[str, tuple[str, tuple[str, ...], ast.AST]],
    owner: str | None,
    kind: str,
    rules: tuple[str, ...],
    node: ast.AST,
) -> None:
    assert owner is not None
    if owner in found:
        raise info.source.error(f"'{owner}' has a second custom rule", node)
    found[owner] = (kind, rules, node)
