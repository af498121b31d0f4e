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
import os
from collections.abc import Iterable
from dataclasses import field

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.constants import MATH_CONSTANTS, Number, fold_constant
from gradc.compiler.frontend.custom_rules import CustomRule, scan_custom_rules
from gradc.compiler.frontend.derivatives import (
    DERIVATIVE_KINDS,
    Derivative,
    GradRequestError,
    derivative_of,
    requested_derivative,
)
from gradc.compiler.frontend.exports import Export, export_of, is_export_decorator
from gradc.compiler.frontend.imports import UserBinding, scan_import
from gradc.compiler.frontend.module_loader import ModuleLoader
from gradc.compiler.frontend.numpy_constants import is_numpy_constant
from gradc.compiler.frontend.overloads import expand_derivative
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.frontend.vectorize import is_vectorize, vectorize_export
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ops import MATH_FUNCTIONS

#: ``Export`` and ``Derivative`` (of :mod:`.exports`, :mod:`.derivatives`) are what
#: ``ModuleInfo.exports``/``.derivatives`` hold; ``requested_derivative`` and
#: ``GradRequestError`` are what the driver uses for ``gradc build --grad``.
__all__ = [
    "Derivative",
    "Export",
    "GradRequestError",
    "ModuleInfo",
    "requested_derivative",
    "scan_module",
]


#: The names ``from gradc import ...`` may bind: ``gradc.__all__`` (the front end does not
#: import ``gradc``; tests/frontend/test_gradc_names.py keeps the two equal).
GRADC_NAMES = frozenset(
    {
        *("Active", "Activity", "ArrayTypeMarker", "Const", "DerivativePlaceholder"),
        *("CustomRuleFunction", "custom_jvp", "custom_vjp", "hessian", "checkpoint"),
        *("Duplicated", "ScalarTypeMarker", "bool_", "boolean", "export", "f32", "f64"),
        *("forward", "grad", "i32", "i64", "jvp", "load", "reverse", "runtime_stats"),
        *("value_and_grad", "vjp", "kernel", "vectorize", "broadcast_call", "jacfwd"),
        *("jacrev",),
    }
)


#: gradc's submodules a compiled module may import names of (``from gradc import cuda``).
GRADC_SUBMODULES = frozenset({"cuda"})


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
        numpy_constants: module-level NumPy scalars and arrays built from constants
            (``np.float32(1e-6)``, ``np.array([1.0, 2.0])``), by name: their expressions
            (compiler/frontend/numpy_constants.py).
        functions: top-level function definitions by name.
        classes: top-level class definitions by name (compiled code cannot use them).
        exports: exported functions, in source order.
        derivatives: derivative declarations, in source order.
        custom_rules: ``@gradc.custom_jvp``/``custom_vjp`` helpers and their rules.
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
    numpy_constants: dict[str, ast.expr] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    exports: list[Export] = field(default_factory=list)
    derivatives: list[Derivative] = field(default_factory=list)
    custom_rules: dict[str, CustomRule] = field(default_factory=dict)
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
            _scan_known_import_from(info, stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            derivative = derivative_of(info, stmt)
            if derivative is not None:
                _claim_name(info, top_level_names, derivative.name, stmt, functions=True)
                assert isinstance(stmt.value, ast.Call) and isinstance(stmt.value.args[0], ast.Name)
                written = stmt.value.args[0].id  # the target as declared (not its overload)
                info.derivatives.extend(expand_derivative(info, derivative, written))
            else:
                _scan_assignment(info, stmt)
        elif isinstance(stmt, ast.FunctionDef):
            vectorized = any(is_vectorize(info, d) for d in stmt.decorator_list)
            if vectorized:
                vectorized_export = vectorize_export(info, stmt)
                exports = [] if vectorized_export is None else [vectorized_export]
            else:
                exports = export_of(info, stmt)
            if exports or stmt.name in top_level_names:
                _claim_name(info, top_level_names, stmt.name, stmt, functions=False)
            info.user_imports.pop(stmt.name, None)
            if not vectorized:
                info.functions[stmt.name] = stmt
            info.exports.extend(exports)
        elif isinstance(stmt, ast.ClassDef):
            info.classes[stmt.name] = stmt
    _check_misplaced_gradc(info)
    info.custom_rules = scan_custom_rules(info)
    _check_kernel_derivatives(info)
    _check_gradc_attributes(info)
    if main:
        info.loader.finish()
    return info


def _scan_known_import_from(info: ModuleInfo, stmt: ast.ImportFrom) -> None:
    """``from math|gradc|numpy import ...``: record the names; an unknown gradc name is a
    compile error (CPython's ImportError), with the closest known name."""
    source = info.source
    for alias in stmt.names:
        local = alias.asname or alias.name
        if stmt.module == "math":
            if alias.name in MATH_FUNCTIONS:
                info.math_names[local] = alias.name
            elif alias.name in MATH_CONSTANTS:
                info.constants[local] = MATH_CONSTANTS[alias.name]
        elif stmt.module == "gradc":
            if alias.name not in GRADC_NAMES | GRADC_SUBMODULES:  # else ImportError
                raise source.error(
                    "'from gradc import *' is not supported"
                    if alias.name == "*"
                    else f"cannot import name {alias.name!r} from 'gradc'",
                    alias,
                    help=_did_you_mean(alias.name, GRADC_NAMES)
                    + f"gradc's names are {', '.join(sorted(GRADC_NAMES))}",
                )
            info.gradc_names[local] = alias.name
        elif stmt.module == "numpy":
            info.numpy_names[local] = alias.name


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
    exports = {e.function for e in info.exports}
    derivatives = {d.name for d in info.derivatives} | {d.dispatch for d in info.derivatives}
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


def _check_kernel_derivatives(info: ModuleInfo) -> None:
    """Refuse the derivative declarations of a ``@gradc.kernel`` that are not built:
    kernels have ``gradc.grad`` and ``gradc.jvp`` (without ``has_aux`` or ``width``;
    docs/ad.md "Kernels"), and a derivative kernel is not differentiated again.

    Raises:
        CompileError: at the declaration.
    """
    kernels = {e.name for e in info.exports if e.kernel}
    derived = {d.name for d in info.derivatives if d.target in kernels}
    for d in info.derivatives:
        if d.target in derived:
            raise info.source.error(
                f"'{d.target}' is a derivative kernel; it cannot be differentiated again",
                d.node,
            )
        if d.target not in kernels:
            continue
        if d.kind not in ("grad", "jvp"):
            raise info.source.error(
                f"gradc.{d.kind} of kernel '{d.target}' is not supported: kernels have "
                "gradc.grad (reverse mode) and gradc.jvp (forward mode)",
                d.node,
            )
        if d.has_aux or d.width != 1:
            what = "has_aux=True" if d.has_aux else "width="
            raise info.source.error(
                f"gradc.{d.kind} of kernel '{d.target}' takes no {what}", d.node
            )


def _check_gradc_attributes(info: ModuleInfo) -> None:
    """Refuse a call or decorator ``gradc.X`` where X is not one of gradc's names
    (:data:`GRADC_NAMES`): plain Python raises AttributeError there, and a misspelt
    ``d = gradc.gard(f)`` would otherwise declare nothing. (``gradc.__version__`` and
    gradc's submodules are attributes too, but never called.)

    Raises:
        CompileError: at the attribute, with the closest name and the known ones.
    """
    called: list[ast.expr] = []
    for node in ast.walk(info.source.tree):
        if isinstance(node, ast.Call):
            called.append(node.func)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            called.extend(node.decorator_list)
    for node in called:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in info.gradc_modules
            and node.attr not in GRADC_NAMES
        ):
            raise info.source.error(
                f"module 'gradc' has no attribute {node.attr!r}",
                node,
                help=_did_you_mean(node.attr, GRADC_NAMES)
                + f"gradc's names are {', '.join(sorted(GRADC_NAMES))}",
            )


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
                if id(deco) in allowed or not is_export_decorator(info, deco):
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
        info.numpy_constants.pop(target.id, None)
        if folded is None and value is not None and is_numpy_constant(info, value):
            info.numpy_constants[target.id] = value
            info.non_constants.pop(target.id, None)
            info.constants.pop(target.id, None)
        elif folded is None:
            info.non_constants[target.id] = stmt
            info.constants.pop(target.id, None)
        else:
            info.constants[target.id] = folded
            info.non_constants.pop(target.id, None)


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"did you mean 'grad'? "`` for the closest of ``known`` to ``name``, else ``""``."""
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f"did you mean {close[0]!r}? " if close else ""
