"""The user's own modules: finding, reading and naming them (never importing or running them).

A module compiled by gradc may import other files of the user's program::

    from helpers import f, SCALE        # a name of a user module
    from helpers import f as g
    import helpers                      # then helpers.f(x), helpers.SCALE
    import pkg.sub as s                 # packages: directories with __init__.py
    from . import helpers               # relative imports inside a package
    from .helpers import f
    from ..util import g

Resolution (no ``sys.path``, nothing executed). A relative import counts ``level`` package
directories up from the importing file, as Python does. An absolute import ``a.b.c``
looks for ``a.py`` or ``a/__init__.py`` in, in order: the importing file's directory, the
directory above its top-level package (found by walking up ``__init__.py`` files), and
the same two for the main module; then ``b`` and ``c`` inside ``a``'s directory. Each
module file is read and scanned once (:class:`~.module_loader.ModuleLoader`, which
finds and reads the files, caches by absolute path), so an import cycle between user files
is fine: names imported with ``from m import n`` are resolved when a function uses them,
after every module has been scanned.

Every module has a *qualified name* given by the file system: its stem (or, for
``__init__.py``, its directory name) prefixed by the enclosing package directories
(``pkg/sub.py`` is ``pkg.sub``). Functions of imported modules are named in the IR by it
(``helpers.f``, ``pkg.sub.g``); the main module's functions keep their plain names.

An import that is not a user file: ``math``, ``numpy`` and ``gradc`` are handled by
:mod:`~gradc.compiler.frontend.module_scan`; another module that exists (the standard
library, an installed package) is recorded as :class:`ForeignImport` and is an error only
where compiled code uses it; a module found nowhere is a compile error at the import.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError

if TYPE_CHECKING:
    from gradc.compiler.frontend.constants import Number
    from gradc.compiler.frontend.module_scan import ModuleInfo


# -- what an imported local name is bound to ----------------------------------------


@dataclass(frozen=True, eq=False)
class ModuleImport:
    """A local name bound to a user module (``import helpers``, ``from . import util``).

    Attributes:
        module: the module.
        node: the import statement's alias (for error locations).
    """

    module: ModuleInfo
    node: ast.AST


@dataclass(frozen=True, eq=False)
class NameImport:
    """A local name bound to a name of a user module (``from helpers import f as g``).

    The name is looked up in ``module`` when used, so cycles between modules work.

    Attributes:
        module: the module imported from.
        name: the name in that module.
        node: the alias (for error locations).
    """

    module: ModuleInfo
    name: str
    node: ast.alias


@dataclass(frozen=True, eq=False)
class ForeignImport:
    """A local name bound to a module that is not a user file (``import os``).

    Attributes:
        module: the dotted module name as imported.
        node: the alias.
    """

    module: str
    node: ast.AST


UserBinding = ModuleImport | NameImport | ForeignImport


# -- what a (possibly dotted) user name denotes --------------------------------------


@dataclass(frozen=True, eq=False)
class FunctionRef:
    """A top-level function of a user module.

    Attributes:
        module: its module.
        name: its Python name there.
    """

    module: ModuleInfo
    name: str
    #: parameters passed a function (compile-time constants), by parameter name
    bound: tuple[tuple[str, FunctionConstant], ...] = ()

    @property
    def node(self) -> ast.FunctionDef:
        """The function's definition."""
        return self.module.functions[self.name]

    @property
    def symbol(self) -> str:
        """The IR name of the function: ``f`` in the main module, ``helpers.f`` elsewhere;
        with bound function parameters, ``apply$f$_twice`` (``f`` bound to ``_twice``)."""
        bound = "".join(f"${p}${c.shown}" for p, c in self.bound)
        return self.module.symbol_prefix + self.name + bound


@dataclass(frozen=True, eq=False)
class FunctionConstant:
    """A function passed as an argument to a user function: a compile-time constant its
    callee is specialised for (:mod:`.function_args`).

    Attributes:
        shown: its name as it appears in symbols: ``_twice`` (``helpers._twice`` from
            another module), ``math.sin``, ``np.sin``.
        ref: the user function, or None for a ``math``/NumPy function.
        builtin: ``"math"`` or ``"numpy"`` for a library function, else ``""``.
        name: the library function's name (``sin``), else ``""``.
    """

    shown: str
    ref: FunctionRef | None = None
    builtin: str = ""
    name: str = ""


@dataclass(frozen=True, eq=False)
class ConstantRef:
    """A folded numeric module constant."""

    value: Number


@dataclass(frozen=True, eq=False)
class NonConstantRef:
    """A module variable that is not a numeric constant.

    Attributes:
        module: its module.
        name: its name.
        stmt: the assignment.
    """

    module: ModuleInfo
    name: str
    stmt: ast.stmt


@dataclass(frozen=True, eq=False)
class ModuleRef:
    """A user module used as a value (``helpers`` in ``helpers.f``)."""

    module: ModuleInfo


@dataclass(frozen=True, eq=False)
class ForeignRef:
    """A module that is not a user file (``os`` in ``os.getcwd``)."""

    module: str


Resolved = FunctionRef | ConstantRef | NonConstantRef | ModuleRef | ForeignRef


def member(module: ModuleInfo, name: str) -> Resolved | None:
    """What ``module.name`` denotes, following re-exports, or None when it has no such name.

    Raises:
        CompileError: ``name`` comes through a circular chain of ``from ... import``, or
            through a ``from m import n`` whose ``n`` is missing (at that import).
    """
    return _member(module, name, set())


def _member(module: ModuleInfo, name: str, seen: set[tuple[int, str]]) -> Resolved | None:
    if name in module.functions:
        return FunctionRef(module, name)
    if name in module.constants:
        return ConstantRef(module.constants[name])
    if name in module.non_constants:
        return NonConstantRef(module, name, module.non_constants[name])
    binding = module.user_imports.get(name)
    if isinstance(binding, ModuleImport):
        return ModuleRef(binding.module)
    if isinstance(binding, ForeignImport):
        return ForeignRef(binding.module)
    if isinstance(binding, NameImport):
        key = (id(module), name)
        if key in seen:
            raise module.source.error(
                f"cannot import name '{name}': circular 'from ... import' chain", binding.node
            )
        seen.add(key)
        found = _member(binding.module, binding.name, seen)
        if found is None:
            raise missing_name_error(module, binding)
        return found
    sub = module.loader.by_qualname.get(f"{module.qualname}.{name}") if module.loader else None
    if sub is not None and module.is_package:
        return ModuleRef(sub)
    return None


def _hint(module: ModuleInfo, name: str) -> str:
    """Why ``name`` is not importable from ``module`` although the module binds it."""
    if (
        name in module.math_modules
        or name in module.math_names
        or name in module.numpy_modules
        or name in module.numpy_names
        or name in module.gradc_modules
        or name in module.gradc_names
    ):
        return "; it is math's, numpy's or gradc's there: import it from that module directly"
    return ""


def missing_name_error(importer: ModuleInfo, binding: NameImport) -> CompileError:
    """The error for ``from m import n`` in ``importer`` when ``m`` defines no ``n`` (with a
    hint at a close name), at the import."""
    target = binding.module
    return importer.source.error(
        f"cannot import name '{binding.name}' from '{target.qualname}' ({target.source.path})"
        + _hint(target, binding.name),
        binding.node,
    )


def rooted_in_user_import(info: ModuleInfo, node: ast.expr) -> bool:
    """True when ``node`` is ``name`` or ``name.a.b`` with ``name`` a user-import binding."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in info.user_imports


def resolve(info: ModuleInfo, node: ast.expr) -> Resolved:
    """What ``node`` (``g``, ``helpers.f``, ``pkg.sub.SCALE``) denotes in module ``info``.

    Only for nodes where :func:`rooted_in_user_import` holds.

    Raises:
        CompileError: at ``node``, when a module has no such attribute, or an attribute of
            something that is not a module is taken.
    """
    if isinstance(node, ast.Name):
        found = member(info, node.id)
        assert found is not None, "resolve() needs a user-import binding"
        return found
    assert isinstance(node, ast.Attribute)
    base = resolve(info, node.value)
    if isinstance(base, ForeignRef):
        return ForeignRef(f"{base.module}.{node.attr}")
    if not isinstance(base, ModuleRef):
        raise info.source.error(
            f"unsupported attribute '.{node.attr}' of '{ast.unparse(node.value)}'", node
        )
    found = member(base.module, node.attr)
    if found is None:
        raise info.source.error(
            f"module '{base.module.qualname}' ({base.module.source.path}) has no attribute "
            f"'{node.attr}'" + _hint(base.module, node.attr),
            node,
        )
    return found


def foreign_error(
    info: ModuleInfo, ref: ForeignRef, node: ast.AST, *, called: bool = False
) -> CompileError:
    """The error for compiled code that uses (``called``: calls) ``ref``, a name of a
    module that is not a user file: ``os.getpid (standard library) cannot be called from
    compiled code``, or ``(module 'scipy' is not a file of this program)`` otherwise."""
    root = ref.module.partition(".")[0]
    if root in sys.stdlib_module_names:
        origin = "standard library"
    else:
        origin = f"module '{root}' is not a file of this program"
    return info.source.error(
        f"{ref.module} ({origin}) cannot be {'called' if called else 'used'} from compiled "
        "code: compiled code can use only math, numpy, gradc and the program's own files",
        node,
    )


# -- scanning import statements -----------------------------------------------------


def scan_import(info: ModuleInfo, stmt: ast.Import | ast.ImportFrom) -> None:
    """Bind the names of a top-level import of anything but ``math``/``numpy``/``gradc``.

    User modules are read (recursively, through ``info.loader``) before this returns.

    Raises:
        CompileError: at the import: a module found nowhere, a missing submodule, a bad
            relative import, or ``from <user module> import *``.
    """
    loader = info.loader
    assert loader is not None
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            chain = loader.import_absolute(info, alias.name, alias)
            if chain is None:
                _foreign(info, alias.name, alias)
                local = alias.asname or alias.name.split(".")[0]
                _bind(info, local, ForeignImport(alias.name, alias))
            elif alias.asname:
                _bind(info, alias.asname, ModuleImport(chain[-1], alias))
            else:
                _bind(info, alias.name.split(".")[0], ModuleImport(chain[0], alias))
        return
    if stmt.level:
        chain = loader.import_relative(info, stmt.module, stmt.level, stmt)
    else:
        assert stmt.module is not None
        found = loader.import_absolute(info, stmt.module, stmt)
        if found is None:
            _foreign(info, stmt.module, stmt)
            for alias in stmt.names:
                if alias.name != "*":
                    foreign = ForeignImport(f"{stmt.module}.{alias.name}", alias)
                    _bind(info, alias.asname or alias.name, foreign)
            return
        chain = found
    module = chain[-1]
    for alias in stmt.names:
        if alias.name == "*":
            raise info.source.error(
                f"'from {module.qualname} import *' is not supported: import names explicitly",
                alias,
            )
        local = alias.asname or alias.name
        sub = None if _defines(module, alias.name) else loader.submodule(info, module, alias.name)
        if sub is not None:
            _bind(info, local, ModuleImport(sub, alias))
        else:
            binding = NameImport(module, alias.name, alias)
            _bind(info, local, binding)
            loader.note_name_import(info, binding)


def _defines(module: ModuleInfo, name: str) -> bool:
    return (
        name in module.functions
        or name in module.constants
        or name in module.non_constants
        or name in module.user_imports
    )


def _bind(info: ModuleInfo, local: str, binding: UserBinding) -> None:
    """Bind ``local`` at module level; a later binding of a name replaces an earlier one."""
    info.functions.pop(local, None)
    info.constants.pop(local, None)
    info.non_constants.pop(local, None)
    info.user_imports[local] = binding


def _foreign(info: ModuleInfo, dotted: str, node: ast.AST) -> None:
    """Accept an import of a module that is not a user file if it exists elsewhere."""
    if not module_exists_elsewhere(dotted):
        raise info.source.error(
            f"no module named '{dotted}': no user file {dotted.split('.')[0]}.py (or "
            "package) next to the importing file or its package, and no installed module",
            node,
        )


def module_exists_elsewhere(dotted: str) -> bool:
    """True when the top-level module of ``dotted`` is in the standard library or installed.

    Uses ``importlib.util.find_spec`` on the top-level name only, which searches the path
    without importing anything.
    """
    top = dotted.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False
