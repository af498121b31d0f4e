"""Read ``@gradc.export`` decorators: which module functions are exported, with what types.

``@gradc.export`` takes the parameter types from the annotations (and the result type, if
annotated); ``@gradc.export("f64(f64, i64)")`` from a signature string. An exported
function takes plain positional parameters and has no other decorator.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradc.compiler.frontend.annotations import (
    TypeSyntaxError,
    parse_signature,
    type_from_annotation,
)
from gradc.compiler.frontend.derivatives import DERIVATIVE_KINDS
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.ir.types import Type

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo


@dataclass
class Export:
    """A function marked ``@gradc.export``.

    Attributes:
        name: its Python name.
        node: its definition.
        param_types: one type per parameter.
        result_type: the declared result type, or None to infer it.
    """

    name: str
    node: ast.FunctionDef
    param_types: list[Type]
    result_type: Type | None


def is_export_decorator(info: ModuleInfo, deco: ast.expr) -> bool:
    """``@gradc.export`` or ``@gradc.export("signature")`` (through any alias)."""
    if isinstance(deco, ast.Call):
        deco = deco.func
    return info.is_gradc(deco, "export")


def _gradc_name(info: ModuleInfo, node: ast.expr) -> str | None:
    """``"grad"`` for ``gradc.grad`` or ``gradc.grad(...)`` (through any alias), else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in info.gradc_modules else None
    return info.gradc_names.get(node.id) if isinstance(node, ast.Name) else None


def export_of(info: ModuleInfo, fn: ast.FunctionDef) -> Export | None:
    """The export that ``fn``'s ``@gradc.export`` decorator declares, or None without one.

    Raises:
        CompileError: another ``gradc`` name used as a decorator, an export with other
            decorators, a malformed signature string, parameters that are not plain
            positional ones, or a missing or unsupported type annotation.
    """
    src = info.source
    for deco in fn.decorator_list:
        name = _gradc_name(info, deco)
        if name is not None and name != "export":
            raise src.error(
                f"@gradc.{name} is not a decorator; gradc.export is the only one "
                + (
                    f"(declare derivatives as 'd_{fn.name} = gradc.{name}({fn.name}, ...)' "
                    "after the function)"
                    if name in DERIVATIVE_KINDS
                    else ""
                ),
                deco,
            )
    if len(fn.decorator_list) > 1 and any(is_export_decorator(info, d) for d in fn.decorator_list):
        other = next(d for d in fn.decorator_list if not is_export_decorator(info, d))
        raise src.error(
            f"exported function '{fn.name}' cannot have other decorators: compiled code "
            "would not apply them",
            other,
        )
    for deco in fn.decorator_list:
        signature: str | None = None
        if info.is_gradc(deco, "export"):
            pass
        elif isinstance(deco, ast.Call) and info.is_gradc(deco.func, "export"):
            if (
                len(deco.args) != 1
                or deco.keywords
                or not isinstance(deco.args[0], ast.Constant)
                or not isinstance(deco.args[0].value, str)
            ):
                raise src.error(
                    'gradc.export takes one signature string, e.g. @gradc.export("f64(f64, i64)")',
                    deco,
                )
            signature = deco.args[0].value
        else:
            continue
        return _make_export(info, fn, signature, deco)
    return None


def _make_export(
    info: ModuleInfo, fn: ast.FunctionDef, signature: str | None, deco: ast.expr
) -> Export:
    src = info.source
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        raise src.error(
            f"exported function '{fn.name}' must take plain positional parameters "
            "(no defaults, *args, **kwargs or keyword-only parameters)",
            fn,
        )
    params = args.args
    if signature is not None:
        try:
            result, types = parse_signature(signature)
        except TypeSyntaxError as exc:
            raise src.error(str(exc), deco) from None
        if len(types) != len(params):
            raise src.error(
                f"signature string {signature!r} has {len(types)} parameter types but "
                f"'{fn.name}' takes {len(params)} parameters",
                deco,
            )
        return Export(fn.name, fn, types, result)
    types = []
    for p in params:
        if p.annotation is None:
            raise src.error(
                f"missing type for parameter '{p.arg}' of exported function '{fn.name}'",
                p,
            )
        types.append(_annotation(src, p.annotation))
    result_type = _annotation(src, fn.returns) if fn.returns is not None else None
    return Export(fn.name, fn, types, result_type)


def _annotation(src: SourceFile, node: ast.expr) -> Type:
    try:
        return type_from_annotation(node)
    except TypeSyntaxError as exc:
        raise src.error(str(exc), node) from None
