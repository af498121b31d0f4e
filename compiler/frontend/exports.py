"""Read ``@gradc.export`` decorators: which module functions are exported, with what types.

``@gradc.export`` takes the parameter types from the annotations (and the result type, if
annotated); ``@gradc.export("f64(f64, i64)")`` from a signature string;
``@gradc.export(["f64(f64)", "f32(f32)"])`` makes one export per signature, and
``fastmath=``/``boundscheck=`` override the build's options for the function
(:mod:`.export_options`). An exported function takes plain positional parameters, the
last ones possibly with constant default values, and has no other decorator.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.frontend.annotations import (
    TypeSyntaxError,
    parse_signature,
    type_from_annotation,
)
from gradc.compiler.frontend.constants import Number, default_values
from gradc.compiler.frontend.derivatives import DERIVATIVE_KINDS
from gradc.compiler.frontend.export_options import export_arguments, overload_name
from gradc.compiler.frontend.kernels import kernel_param_types
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.ir.types import I1, NONE, ScalarType, Type, python_name

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
        defaults: (parameter name, value) of the trailing parameters with a default
            value (:func:`~.constants.default_values`), converted to the parameter's type.
        kernel: marked ``@gradc.kernel`` (a CUDA kernel: ``param_types`` are its own
            parameters' types, its result is None; :mod:`.kernels`).
        options: (``CompilerOptions`` field, value) the decorator overrides for this
            export (``fastmath=True``), in ``EXPORT_OPTIONS`` order.
        dispatch: for one of several signatures (``@gradc.export(["f64(f64)",
            "f32(f32)"])``): the Python name the loader dispatches on, while ``name`` is
            the specialisation's (``f.f64``, :func:`~.export_options.overload_name`);
            None for an export with one signature.
    """

    name: str
    node: ast.FunctionDef
    param_types: list[Type]
    result_type: Type | None
    defaults: tuple[tuple[str, Number], ...] = ()
    kernel: bool = False
    options: tuple[tuple[str, bool], ...] = ()
    dispatch: str | None = None

    @property
    def function(self) -> str:
        """The Python name of the exported function (``name`` unless ``dispatch``)."""
        return self.node.name


def is_export_decorator(info: ModuleInfo, deco: ast.expr) -> bool:
    """``@gradc.export``, ``@gradc.export("signature")`` or ``@gradc.kernel`` (through
    any alias)."""
    if isinstance(deco, ast.Call):
        deco = deco.func
    return info.is_gradc(deco, "export") or info.is_gradc(deco, "kernel")


def _gradc_name(info: ModuleInfo, node: ast.expr) -> str | None:
    """``"grad"`` for ``gradc.grad`` or ``gradc.grad(...)`` (through any alias), else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in info.gradc_modules else None
    return info.gradc_names.get(node.id) if isinstance(node, ast.Name) else None


#: Decorators an export may carry beside ``@gradc.export``: its custom derivative rule.
CUSTOM_DECORATORS = ("custom_jvp", "custom_vjp")


def export_of(info: ModuleInfo, fn: ast.FunctionDef) -> list[Export]:
    """The exports that ``fn``'s ``@gradc.export`` decorator declares (one per signature),
    none without one.

    Raises:
        CompileError: another ``gradc`` name used as a decorator, an export with other
            decorators, a malformed signature string, parameters that are not plain
            positional ones, or a missing or unsupported type annotation.
    """
    src = info.source
    for deco in fn.decorator_list:
        name = _gradc_name(info, deco)
        if name is not None and name not in (
            *("export", "kernel", "custom_jvp", "custom_vjp", "checkpoint"),
        ):
            raise src.error(
                f"@gradc.{name} is not a decorator; gradc.export and gradc.kernel are the "
                "only ones "
                + (
                    f"(declare derivatives as 'd_{fn.name} = gradc.{name}({fn.name}, ...)' "
                    "after the function)"
                    if name in DERIVATIVE_KINDS
                    else ""
                ),
                deco,
            )
    # a custom rule (@gradc.custom_jvp/custom_vjp) may decorate an export: only AD reads it
    others = [
        d
        for d in fn.decorator_list
        if not is_export_decorator(info, d) and _gradc_name(info, d) not in CUSTOM_DECORATORS
    ]
    if others and any(is_export_decorator(info, d) for d in fn.decorator_list):
        other = others[0]
        raise src.error(
            f"exported function '{fn.name}' cannot have other decorators: compiled code "
            "would not apply them",
            other,
        )
    for deco in fn.decorator_list:
        if info.is_gradc(deco, "kernel"):
            return [Export(fn.name, fn, kernel_param_types(info, fn), NONE, kernel=True)]
        if info.is_gradc(deco, "export"):
            return [_make_export(info, fn, None, deco)]
        if isinstance(deco, ast.Call) and info.is_gradc(deco.func, "export"):
            return _exports_of_call(info, fn, deco)
    return []


def _exports_of_call(info: ModuleInfo, fn: ast.FunctionDef, deco: ast.Call) -> list[Export]:
    """The exports of ``@gradc.export(...)``: one, or one per signature of a list.

    Raises:
        CompileError: what :func:`~.export_options.export_arguments` raises, or a
            signature listed twice (the same parameter types).
    """
    arguments = export_arguments(info.source, deco)
    options = arguments.options
    if not arguments.several:
        signature = arguments.signatures[0] if arguments.signatures else None
        export = _make_export(info, fn, signature, deco)
        export.options = options
        return [export]
    listed = deco.args[0]
    assert isinstance(listed, ast.List | ast.Tuple)
    exports: list[Export] = []
    for item, signature in zip(listed.elts, arguments.signatures, strict=True):
        export = _make_export(info, fn, signature, item)
        export.name = overload_name(fn.name, export.param_types)
        export.options, export.dispatch = options, fn.name
        same = next((e for e in exports if e.param_types == export.param_types), None)
        if same is not None:
            raise info.source.error(
                f"signature {signature!r} takes the same parameter types as an earlier one "
                f"of '{fn.name}'; each signature needs its own parameter types",
                item,
            )
        exports.append(export)
    return exports


def _make_export(
    info: ModuleInfo, fn: ast.FunctionDef, signature: str | None, deco: ast.expr
) -> Export:
    src = info.source
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise src.error(
            f"exported function '{fn.name}' must take plain positional parameters "
            "(no *args, **kwargs or keyword-only parameters)",
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
        return Export(fn.name, fn, types, result, _defaults(info, fn, types))
    types = []
    for p in params:
        if p.annotation is None:
            raise src.error(
                f"missing type for parameter '{p.arg}' of exported function '{fn.name}'",
                p,
            )
        types.append(_annotation(src, p.annotation))
    result_type = _annotation(src, fn.returns) if fn.returns is not None else None
    return Export(fn.name, fn, types, result_type, _defaults(info, fn, types))


def _defaults(
    info: ModuleInfo, fn: ast.FunctionDef, types: list[Type]
) -> tuple[tuple[str, Number], ...]:
    """The export's default values, each converted to its parameter's type as the loader
    passes it: a bool for ``bool``, an int for ``i64``/``i32`` (not a bool, not a float),
    a float for ``f64``/``f32`` (an int default becomes a float, as the loader converts an
    int argument).

    Raises:
        CompileError: a default that is not a constant, or not of the parameter's type.
    """
    values = default_values(info, fn)
    params = fn.args.args[len(fn.args.args) - len(values) :]
    out: list[tuple[str, Number]] = []
    for param, t, value, node in zip(
        params, types[len(types) - len(values) :], values, fn.args.defaults, strict=True
    ):
        if t == I1 and isinstance(value, bool):
            out.append((param.arg, value))
        elif isinstance(t, ScalarType) and not t.is_float and t != I1 and type(value) is int:
            if not -(2 ** (t.bits - 1)) <= value < 2 ** (t.bits - 1):
                raise info.source.error(f"default value {value} does not fit in {t}", node)
            out.append((param.arg, value))
        elif isinstance(t, ScalarType) and t.is_float and type(value) in (int, float):
            out.append((param.arg, float(value)))
        else:
            raise info.source.error(
                f"the default value {value!r} of parameter '{param.arg}' of exported "
                f"function '{fn.name}' is not of its type {python_name(t)}",
                node,
            )
    return tuple(out)


def _annotation(src: SourceFile, node: ast.expr) -> Type:
    try:
        return type_from_annotation(node)
    except TypeSyntaxError as exc:
        raise src.error(str(exc), node) from None
