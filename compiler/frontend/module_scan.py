"""The module-level view of a source file: imports, constants, functions, exports.

The module is never imported or executed. Its top-level statements are read for:

* imports of ``math`` (``import math``, ``import math as m``, ``from math import sin``),
  of ``numpy`` (``import numpy as np``) and of ``gradc`` (``import gradc``,
  ``from gradc import export, f64``);
* imports of the user's own modules (``from helpers import f``, ``import pkg.sub as s``,
  relative imports), which are read and scanned too: see
  :mod:`~gradc.compiler.frontend.imports`;
* numeric constants (``N = 10``, ``SCALE = 2 * math.pi``), folded at compile time;
* function definitions, and which of them are exported by ``@gradc.export`` or
  ``@gradc.export("f64(f64, i64)")``.

Other top-level statements are ignored, since they never run in compiled code. A
``gradc.export`` or derivative declaration anywhere it would be ignored (``async def``, a
class, a nested function, a function body) is an error, and so is a name defined twice
among exports, derivative declarations and the functions they use.
"""

from __future__ import annotations

import ast
import math
import operator
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.annotations import (
    TypeSyntaxError,
    parse_signature,
    type_from_annotation,
)
from gradc.compiler.frontend.imports import (
    ConstantRef,
    ModuleLoader,
    UserBinding,
    resolve,
    rooted_in_user_import,
    scan_import,
)
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ops import MATH_FUNCTIONS
from gradc.compiler.ir.types import Type

#: The ``math`` module's constants.
MATH_CONSTANTS: dict[str, float] = {
    "pi": math.pi,
    "e": math.e,
    "tau": math.tau,
    "inf": math.inf,
    "nan": math.nan,
}

_FOLD_BINOPS: dict[type[ast.operator], Callable[[object, object], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}

Number = int | float | bool


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


#: ``gradc`` functions that declare a derivative export: ``d_f = gradc.grad(f, wrt=...)``.
#: ``reverse``/``forward`` are the low-level, Enzyme-style forms (docs/ad.md): one activity
#: annotation per parameter instead of ``wrt``.
DERIVATIVE_KINDS = ("grad", "value_and_grad", "jvp", "vjp", "reverse", "forward")

#: Activity annotations of ``gradc.reverse``/``gradc.forward``, by their gradc name.
ACTIVITIES = {"Duplicated": "duplicated", "Active": "active", "Const": "const"}


@dataclass
class Derivative:
    """A module-level derivative declaration, e.g. ``d_f = gradc.grad(f, wrt=("x",))``.

    Attributes:
        name: the exported name (the assigned variable).
        kind: one of :data:`DERIVATIVE_KINDS`.
        target: the differentiated function's name (an export of the module).
        wrt: indices of the parameters differentiated with respect to, in the order given.
        wrt_sequence: ``wrt`` was a tuple or list (results are then tuples, as in JAX's
            ``argnums``), rather than one name or position.
        node: the declaration (for error locations).
        activity: for ``reverse``/``forward`` only: the annotation of each ``wrt``
            parameter, ``"duplicated"`` or ``"active"`` (the others are ``Const``).
    """

    name: str
    kind: str
    target: str
    wrt: list[int]
    wrt_sequence: bool
    node: ast.expr | ast.stmt
    activity: tuple[str, ...] = ()


@dataclass(eq=False)
class ModuleInfo:
    """What the front end knows about a module before lowering any function.

    Attributes:
        source: the file.
        name: the module name (file stem for the main module, the qualified name for an
            imported one).
        math_modules: local names bound to the ``math`` module.
        math_names: local names bound to ``math`` functions (``from math import sin``).
        gradc_modules: local names bound to ``gradc``.
        gradc_names: local name -> name in ``gradc`` (``from gradc import export``).
        numpy_modules: local names bound to ``numpy`` (``import numpy as np``).
        numpy_names: local name -> name in ``numpy`` (``from numpy import zeros``).
        constants: folded numeric module constants.
        non_constants: module-level names assigned something that is not a constant,
            with the assignment (for a clear error when a function reads one).
        functions: top-level function definitions by name.
        classes: top-level class definitions by name (compiled code cannot use them).
        exports: exported functions, in source order.
        derivatives: derivative declarations, in source order.
        user_imports: local name -> what a user-module import bound it to.
        qualname: the dotted module name given by enclosing packages (``pkg.sub``).
        symbol_prefix: prefix of this module's function names in the IR: ``""`` for the
            main module, ``"<qualname>."`` for an imported one.
        loader: the loader that read this module and the modules it imports.
    """

    source: SourceFile
    name: str
    math_modules: set[str] = field(default_factory=set)
    math_names: dict[str, str] = field(default_factory=dict)
    gradc_modules: set[str] = field(default_factory=set)
    gradc_names: dict[str, str] = field(default_factory=dict)
    numpy_modules: set[str] = field(default_factory=set)
    numpy_names: dict[str, str] = field(default_factory=dict)
    constants: dict[str, Number] = field(default_factory=dict)
    non_constants: dict[str, ast.stmt] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    exports: list[Export] = field(default_factory=list)
    derivatives: list[Derivative] = field(default_factory=list)
    user_imports: dict[str, UserBinding] = field(default_factory=dict)
    qualname: str = ""
    symbol_prefix: str = ""
    loader: ModuleLoader | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.qualname:
            self.qualname = self.name

    @property
    def is_package(self) -> bool:
        """True for a package's ``__init__.py``."""
        return os.path.basename(self.source.path) == "__init__.py"

    @property
    def files(self) -> tuple[str, ...]:
        """Absolute paths of every source file read for this module: its own first, then
        each user module it imports, directly or not (for the cache's freshness check)."""
        if self.loader is None:
            return (os.path.abspath(self.source.path),)
        return self.loader.files

    def error(self, message: str, loc: Loc) -> CompileError:
        """A :class:`CompileError` at ``loc``, which may lie in an imported module's file."""
        if self.loader is None:
            return self.source.error(message, loc)
        return self.loader.error(message, loc)

    def math_attr(self, node: ast.expr) -> str | None:
        """``"sin"`` for ``math.sin`` (or an alias of it), else None."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.math_modules
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in self.math_names:
            return self.math_names[node.id]
        return None

    def numpy_attr(self, node: ast.expr) -> str | None:
        """``"zeros"`` for ``np.zeros`` (or ``from numpy import zeros``), else None."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.numpy_modules
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in self.numpy_names:
            return self.numpy_names[node.id]
        return None

    def is_gradc(self, node: ast.expr, name: str) -> bool:
        """True when ``node`` names ``gradc.<name>`` (directly or via an import alias)."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id in self.gradc_modules and node.attr == name
        return isinstance(node, ast.Name) and self.gradc_names.get(node.id) == name


def scan_module(source: SourceFile, name: str, loader: ModuleLoader | None = None) -> ModuleInfo:
    """Read the top level of ``source``, and of every user module it imports.

    Args:
        source: the module.
        name: its name (the file stem for the main module).
        loader: the loader reading a whole program; None for the main module (a new
            loader is made, and every ``from m import n`` is checked when all is read).

    Raises:
        CompileError: a malformed ``@gradc.export`` (bad signature string, missing
            parameter types), an unsupported function form (``async def``, defaults,
            other decorators), a misplaced ``gradc.export`` or ``gradc.grad(...)``, an
            empty ``wrt``, a name defined twice (export, derivative, function), or a bad
            import (missing module or name), in the file where it is.
    """
    main = loader is None
    info = ModuleInfo(source, name, qualname=name)
    info.loader = loader if loader is not None else ModuleLoader(scan_module)
    info.loader.register(info)
    top_level_names: dict[str, ast.AST] = {}  # export, function or derivative -> its node
    for stmt in source.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name
                if alias.name == "math":
                    info.math_modules.add(local)
                elif alias.name == "gradc":
                    info.gradc_modules.add(local)
                elif alias.name == "numpy":
                    info.numpy_modules.add(local)
            _scan_user_import(info, stmt)
        elif isinstance(stmt, ast.ImportFrom) and (
            stmt.level or stmt.module not in ("math", "gradc", "numpy")
        ):
            scan_import(info, stmt)
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                local = alias.asname or alias.name
                if stmt.module == "math":
                    if alias.name in MATH_FUNCTIONS:
                        info.math_names[local] = alias.name
                    elif alias.name in MATH_CONSTANTS:
                        info.constants[local] = MATH_CONSTANTS[alias.name]
                elif stmt.module == "gradc":
                    info.gradc_names[local] = alias.name
                elif stmt.module == "numpy":
                    info.numpy_names[local] = alias.name
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            derivative = _derivative_of(info, stmt)
            if derivative is not None:
                _claim_name(info, top_level_names, derivative.name, stmt, functions=True)
                info.derivatives.append(derivative)
            else:
                _scan_assignment(info, stmt)
        elif isinstance(stmt, ast.FunctionDef):
            export = _export_of(info, stmt)
            if export is not None or stmt.name in top_level_names:
                _claim_name(info, top_level_names, stmt.name, stmt, functions=False)
            info.user_imports.pop(stmt.name, None)
            info.functions[stmt.name] = stmt
            if export is not None:
                info.exports.append(export)
        elif isinstance(stmt, ast.ClassDef):
            info.classes[stmt.name] = stmt
    _check_misplaced_gradc(info)
    if main:
        info.loader.finish()
    return info


def _claim_name(
    info: ModuleInfo, taken: dict[str, ast.AST], name: str, stmt: ast.stmt, *, functions: bool
) -> None:
    """Record that top-level ``stmt`` (an export, a derivative declaration, or a function
    redefining one of them) defines ``name``.

    Raises:
        CompileError: at ``stmt``, when ``name`` already names an export or a derivative
            declaration, or (with ``functions``, for a derivative declaration) any
            function of the module.
    """
    exports = {e.name for e in info.exports}
    derivatives = {d.name for d in info.derivatives}
    previous = taken.get(name)
    if previous is None and functions and name in info.functions:
        previous = info.functions[name]
    if previous is not None:
        if name in exports:
            what = "an exported function"
        elif name in derivatives:
            what = "a derivative declaration"
        else:
            what = "a function"
        line = getattr(previous, "lineno", "?")
        raise info.source.error(
            f"'{name}' is already defined at line {line}, as {what}; exports, derivative "
            "declarations and the functions they use need distinct names",
            stmt,
        )
    taken[name] = stmt


def _check_misplaced_gradc(info: ModuleInfo) -> None:
    """Refuse ``gradc.export`` and derivative declarations where they would be ignored.

    Only a ``@gradc.export`` decorator on a module-level ``def`` and a module-level
    ``name = gradc.grad(...)`` (or another derivative kind) are read; the same forms on an
    ``async def``, a class, a nested function, inside a function body or a block (``if``,
    ``with``, ...) would silently export nothing.

    Raises:
        CompileError: at the misplaced decorator or call, naming the construct.
    """
    src = info.source
    allowed: set[int] = set()
    for stmt in src.tree.body:
        if isinstance(stmt, ast.FunctionDef):
            allowed.update(id(d) for d in stmt.decorator_list)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            allowed.add(id(stmt.value))
    for node in ast.walk(src.tree):
        if isinstance(node, ast.AsyncFunctionDef | ast.ClassDef | ast.FunctionDef):
            for deco in node.decorator_list:
                if id(deco) in allowed or not _is_export_decorator(info, deco):
                    continue
                if isinstance(node, ast.AsyncFunctionDef):
                    what = f"'async def {node.name}'"
                elif isinstance(node, ast.ClassDef):
                    what = f"class '{node.name}'"
                else:
                    what = f"nested function '{node.name}'"
                raise src.error(
                    f"@gradc.export cannot be applied to {what}: only module-level "
                    "'def' functions are exported",
                    deco,
                )
        elif isinstance(node, ast.Call) and id(node) not in allowed:
            kind = next((k for k in DERIVATIVE_KINDS if info.is_gradc(node.func, k)), None)
            if kind is not None:
                raise src.error(
                    f"gradc.{kind}(...) is ignored here: derivatives are declared at module "
                    f"level, as 'name = gradc.{kind}(f, ...)'",
                    node,
                )


def _is_export_decorator(info: ModuleInfo, deco: ast.expr) -> bool:
    """``@gradc.export`` or ``@gradc.export("signature")`` (through any alias)."""
    if isinstance(deco, ast.Call):
        deco = deco.func
    return info.is_gradc(deco, "export")


def _scan_user_import(info: ModuleInfo, stmt: ast.Import) -> None:
    """The aliases of ``import a, b.c as d`` that are not math, numpy or gradc."""
    others = [a for a in stmt.names if a.name not in ("math", "gradc", "numpy")]
    if others:
        scan_import(info, ast.Import(names=others, lineno=stmt.lineno, col_offset=stmt.col_offset))


def _scan_assignment(info: ModuleInfo, stmt: ast.Assign | ast.AnnAssign) -> None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    value = stmt.value
    for target in targets:
        if not isinstance(target, ast.Name):
            continue
        info.user_imports.pop(target.id, None)
        folded = fold_constant(info, value) if value is not None else None
        if folded is None:
            info.non_constants[target.id] = stmt
            info.constants.pop(target.id, None)
        else:
            info.constants[target.id] = folded
            info.non_constants.pop(target.id, None)


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
    if isinstance(node, ast.UnaryOp):
        operand = _fold(info, node.operand)
        if isinstance(node.op, ast.USub):
            return -operand  # type: ignore[operator]
        if isinstance(node.op, ast.UAdd):
            return +operand  # type: ignore[operator]
        if isinstance(node.op, ast.Not):
            return not operand
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD_BINOPS:
        return _FOLD_BINOPS[type(node.op)](_fold(info, node.left), _fold(info, node.right))
    if isinstance(node, ast.Call) and not node.keywords:
        fn = info.math_attr(node.func)
        if fn in MATH_FUNCTIONS:
            return getattr(math, fn)(*(_fold(info, a) for a in node.args))
    raise TypeError("not a constant")


def _gradc_name(info: ModuleInfo, node: ast.expr) -> str | None:
    """``"grad"`` for ``gradc.grad`` or ``gradc.grad(...)`` (through any alias), else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in info.gradc_modules else None
    return info.gradc_names.get(node.id) if isinstance(node, ast.Name) else None


def _export_of(info: ModuleInfo, fn: ast.FunctionDef) -> Export | None:
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
    if len(fn.decorator_list) > 1 and any(_is_export_decorator(info, d) for d in fn.decorator_list):
        other = next(d for d in fn.decorator_list if not _is_export_decorator(info, d))
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


def _derivative_of(info: ModuleInfo, stmt: ast.Assign | ast.AnnAssign) -> Derivative | None:
    """``name = gradc.grad(f, wrt=...)`` (and the other kinds), or None."""
    value = stmt.value
    if not isinstance(value, ast.Call):
        return None
    kind = next((k for k in DERIVATIVE_KINDS if info.is_gradc(value.func, k)), None)
    if kind is None:
        return None
    src = info.source
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        raise src.error(f"assign gradc.{kind}(...) to one name", stmt)
    if not value.args or not isinstance(value.args[0], ast.Name):
        raise src.error(f"gradc.{kind} takes the function to differentiate first", value)
    target = value.args[0].id
    export = next((e for e in info.exports if e.name == target), None)
    if export is None:
        raise src.error(
            f"gradc.{kind} needs an exported function defined above it; "
            f"'{target}' is not one (add @gradc.export with parameter types)",
            value.args[0],
        )
    if kind in ("reverse", "forward"):
        return _activity_declaration(info, targets[0].id, kind, export, value)
    wrt_node: ast.expr | None = None
    for kw in value.keywords:
        if kw.arg != "wrt":
            raise src.error(f"gradc.{kind}() got an unexpected keyword '{kw.arg}'", kw.value)
        wrt_node = kw.value
    if len(value.args) == 2 and wrt_node is None:
        wrt_node = value.args[1]
    elif len(value.args) > 2 or (len(value.args) == 2 and wrt_node is not None):
        raise src.error(f"gradc.{kind}(f, wrt=...) takes one function and one wrt", value)
    params = [a.arg for a in export.node.args.args]
    if wrt_node is None:  # JAX's default: the first parameter
        return Derivative(targets[0].id, kind, target, [0], False, value)
    sequence = isinstance(wrt_node, ast.Tuple | ast.List)
    items = wrt_node.elts if isinstance(wrt_node, ast.Tuple | ast.List) else [wrt_node]
    wrt: list[int] = []
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            if item.value not in params:
                raise src.error(f"'{target}' has no parameter '{item.value}'", item)
            index = params.index(item.value)
        elif isinstance(item, ast.Constant) and type(item.value) is int:
            index = item.value
            if not 0 <= index < len(params):
                raise src.error(f"'{target}' has no parameter at position {index}", item)
        else:
            raise src.error("wrt takes parameter names or positions (constants)", item)
        if index in wrt:
            raise src.error(f"parameter '{params[index]}' is listed twice in wrt", item)
        wrt.append(index)
    if not wrt:
        raise src.error(
            f"gradc.{kind}: wrt selects no parameter of '{target}'; name at least one "
            "(or leave wrt out for the first)",
            wrt_node,
        )
    return Derivative(targets[0].id, kind, target, wrt, sequence, value)


def _activity_declaration(
    info: ModuleInfo, name: str, kind: str, export: Export, call: ast.Call
) -> Derivative:
    """``gradc.reverse(f, x=gradc.Duplicated, c=gradc.Active)`` or the positional form
    ``gradc.reverse(f, gradc.Duplicated, gradc.Const, gradc.Active)`` (one annotation per
    parameter, Enzyme's order); unannotated parameters are ``Const``.
    """
    src = info.source
    params = [a.arg for a in export.node.args.args]
    annotated: dict[int, tuple[str, ast.expr]] = {}
    positional = call.args[1:]
    if len(positional) > len(params):
        raise src.error(
            f"gradc.{kind}: '{export.name}' has {len(params)} parameters, "
            f"got {len(positional)} annotations",
            call,
        )
    items: list[tuple[int, ast.expr]] = list(enumerate(positional))
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params:
            raise src.error(f"'{export.name}' has no parameter '{kw.arg}'", kw.value)
        index = params.index(kw.arg)
        if index < len(positional):
            raise src.error(f"parameter '{kw.arg}' is annotated twice", kw.value)
        items.append((index, kw.value))
    for index, node in items:
        activity = next((a for g, a in ACTIVITIES.items() if info.is_gradc(node, g)), None)
        if activity is None:
            raise src.error(
                f"gradc.{kind} annotates parameters with gradc.Duplicated, gradc.Active or "
                "gradc.Const",
                node,
            )
        annotated[index] = (activity, node)
    wrt: list[int] = []
    activity_of: list[str] = []
    for index in sorted(annotated):
        activity, node = annotated[index]
        if activity == "const":
            continue
        if kind == "forward" and activity == "active":
            raise src.error(
                "gradc.Active is a reverse-mode annotation; in gradc.forward a float "
                "parameter with a tangent is gradc.Duplicated",
                node,
            )
        wrt.append(index)
        activity_of.append(activity)
    if not wrt:
        raise src.error(
            f"gradc.{kind}({export.name}, ...) marks no parameter Duplicated or Active", call
        )
    return Derivative(name, kind, export.name, wrt, True, call, tuple(activity_of))


class GradRequestError(ValueError):
    """A ``gradc build --grad`` request that does not fit the module (message says why)."""


def requested_derivative(info: ModuleInfo, spec: str) -> Derivative:
    """The derivative export a ``gradc build --grad SPEC`` option asks for.

    ``SPEC`` is ``f`` or ``f:x,y`` (parameter names or positions): the same as declaring
    ``d_f = gradc.grad(f, wrt=("x", "y"))`` in the module (without a list, ``wrt`` is the
    first parameter, as for ``gradc.grad(f)``). The export is named ``d_f``.

    Raises:
        GradRequestError: ``f`` is not an export of the module, a name in the list is not one
            of its parameters or is repeated, or ``d_f`` already names a function, an
            export or a derivative of the module (the message says which).
    """
    target, _, wrt_text = spec.partition(":")
    target = target.strip()
    export = next((e for e in info.exports if e.name == target), None)
    if export is None:
        exports = ", ".join(e.name for e in info.exports) or "none"
        raise GradRequestError(f"'{target}' is not an export of {info.name} (exports: {exports})")
    name = f"d_{target}"
    taken = {e.name for e in info.exports} | {d.name for d in info.derivatives}
    if name in taken or name in info.functions:
        raise GradRequestError(
            f"'{name}' already exists in {info.name}; declare the derivative there"
        )
    params = [a.arg for a in export.node.args.args]
    if not wrt_text.strip():
        return Derivative(name, "grad", target, [0], False, export.node)
    wrt: list[int] = []
    for item in (w.strip() for w in wrt_text.split(",")):
        if item.isdigit() and int(item) < len(params):
            index = int(item)
        elif item in params:
            index = params.index(item)
        else:
            known = ", ".join(params)
            raise GradRequestError(f"'{target}' has no parameter '{item}' (parameters: {known})")
        if index in wrt:
            raise GradRequestError(f"parameter '{params[index]}' is listed twice")
        wrt.append(index)
    return Derivative(name, "grad", target, wrt, len(wrt) > 1, export.node)
