"""Finding and reading the user's module files: the loader that reads each one once.

A module's file is ``name.py`` or, a package first, ``name/__init__.py``. An absolute
import ``a.b.c`` looks for ``a`` in the importing file's directory, the directory above its
top-level package, and the same two for the main module; a relative import counts
package directories up from the importing file (the rules are in :mod:`.imports`). Every
module's qualified name comes from the file system: its stem prefixed by the enclosing
package directories.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.imports import NameImport, member, missing_name_error
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.ir.loc import Loc

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo

#: ``scan(source, qualified_name, loader) -> ModuleInfo``: reads one module's top level.
ScanFunction = Callable[[SourceFile, str, "ModuleLoader"], "ModuleInfo"]


def _module_file(directory: Path, name: str) -> Path | None:
    """``directory/name/__init__.py`` or ``directory/name.py``, whichever exists (package first)."""
    package = directory / name / "__init__.py"
    if package.is_file():
        return package
    module = directory / f"{name}.py"
    if module.is_file():
        return module
    return None


def qualified_name(path: Path) -> str:
    """The dotted module name of the file at absolute ``path``, from enclosing packages."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    if path.name == "__init__.py":
        parts.append(directory.name)
        directory = directory.parent
    while (directory / "__init__.py").is_file():
        parts.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(parts))


def package_root(path: Path) -> Path:
    """The directory that holds the top-level package of ``path`` (its own dir if none)."""
    directory = path.parent
    while (directory / "__init__.py").is_file():
        directory = directory.parent
    return directory


class ModuleLoader:
    """Reads each user module once and remembers every file read.

    Args:
        scan: reads one module's top level; called with the loader itself, so the modules
            a module imports are loaded (recursively) while it is scanned.

    Attributes:
        modules: absolute path -> module, in the order read (the main module first).
        by_qualname: qualified name -> module.
    """

    def __init__(self, scan: ScanFunction) -> None:
        self._scan = scan
        self.modules: dict[Path, ModuleInfo] = {}
        self.by_qualname: dict[str, ModuleInfo] = {}
        self._main: ModuleInfo | None = None
        self._name_imports: list[tuple[ModuleInfo, NameImport]] = []

    @property
    def files(self) -> tuple[str, ...]:
        """Absolute paths of every source file read, the main module's first."""
        return tuple(str(p) for p in self.modules)

    def register(self, info: ModuleInfo) -> None:
        """Record a module before its body is scanned (so that cycles find it)."""
        path = Path(os.path.abspath(info.source.path))
        if self._main is None:
            self._main = info
            info.qualname = qualified_name(path)
            info.symbol_prefix = ""
        else:
            info.symbol_prefix = info.qualname + "."
        self.modules.setdefault(path, info)
        self.by_qualname.setdefault(info.qualname, info)

    def note_name_import(self, importer: ModuleInfo, binding: NameImport) -> None:
        """Remember ``from m import n`` in ``importer``, to be checked by :meth:`finish`."""
        self._name_imports.append((importer, binding))

    def finish(self) -> None:
        """Check that every ``from m import n`` of every module read names something.

        Called once all modules are scanned (names may be defined after a cyclic import).

        Raises:
            CompileError: at the first import of a missing name, in the importing file.
        """
        for importer, binding in self._name_imports:
            if member(binding.module, binding.name) is None:
                raise missing_name_error(importer, binding)

    def source_for(self, path: str) -> SourceFile | None:
        """The source file whose (display) path is ``path``, if it was read."""
        for info in self.modules.values():
            if info.source.path == path:
                return info.source
        return None

    def error(self, message: str, loc: Loc) -> CompileError:
        """A :class:`CompileError` at ``loc`` with the line of whichever file it is in."""
        source = self.source_for(loc.file)
        if source is None:
            return CompileError(message, loc)
        return source.error(message, loc)

    # -- imports ------------------------------------------------------------------

    def import_absolute(
        self, importer: ModuleInfo, dotted: str, node: ast.AST
    ) -> list[ModuleInfo] | None:
        """Load ``a``, ``a.b``, ``a.b.c`` for ``import a.b.c``; None if ``a`` is no user file.

        Raises:
            CompileError: at ``node``: ``a`` is a user file but ``a.b`` (or ``a.b.c``)
                does not exist; or a file read does not parse.
        """
        first = dotted.split(".")[0]
        for directory in self._search_dirs(importer):
            if _module_file(directory, first) is not None:
                return self._load_chain(importer, directory, dotted.split("."), "", node)
        return None

    def import_relative(
        self, importer: ModuleInfo, dotted: str | None, level: int, node: ast.AST
    ) -> list[ModuleInfo]:
        """Load the modules of ``from <level dots><dotted> import ...``: the package the dots
        name, then each module along ``dotted`` (names are imported from the last one).

        Raises:
            CompileError: at ``node``: the importer is not in a package, the import goes
                above the top-level package, or a module does not exist.
        """
        path = Path(os.path.abspath(importer.source.path))
        package = importer.qualname.split(".")
        if not importer.is_package:
            package = package[:-1]
        if not package:
            raise importer.source.error(
                "attempted relative import with no known parent package", node
            )
        if level > len(package):
            raise importer.source.error("attempted relative import beyond top-level package", node)
        directory = path.parent
        for _ in range(level - 1):
            directory = directory.parent
        base_name = ".".join(package[: len(package) - level + 1])
        chain = [self._load(importer, directory / "__init__.py")]
        if dotted:
            chain += self._load_chain(importer, directory, dotted.split("."), base_name, node)
        return chain

    def submodule(self, importer: ModuleInfo, package: ModuleInfo, name: str) -> ModuleInfo | None:
        """Load ``package.name`` if ``package`` is a package with such a file, else None."""
        if not package.is_package:
            return None
        directory = Path(os.path.abspath(package.source.path)).parent
        path = _module_file(directory, name)
        return self._load(importer, path) if path is not None else None

    def _search_dirs(self, importer: ModuleInfo) -> list[Path]:
        dirs: list[Path] = []
        for info in (importer, self._main):
            if info is None:
                continue
            path = Path(os.path.abspath(info.source.path))
            for d in (path.parent, package_root(path)):
                if d not in dirs:
                    dirs.append(d)
        return dirs

    def _load_chain(
        self, importer: ModuleInfo, directory: Path, parts: list[str], prefix: str, node: ast.AST
    ) -> list[ModuleInfo]:
        """Load ``parts[0]`` from ``directory``, then ``parts[1]`` inside it, and so on.

        ``prefix`` is the dotted name of the package ``directory`` is ('' for a search
        directory); it is used in messages only.
        """
        chain: list[ModuleInfo] = []
        name = prefix
        for part in parts:
            full = f"{name}.{part}" if name else part
            if chain and not chain[-1].is_package:
                raise importer.source.error(
                    f"no module named '{full}' ('{name}' is not a package)", node
                )
            path = _module_file(directory, part)
            if path is None:
                where = self._display_path(importer, directory)
                raise importer.source.error(
                    f"no module named '{full}' (no {part}.py or {part}/__init__.py in {where})",
                    node,
                )
            chain.append(self._load(importer, path))
            directory, name = path.parent, full
        return chain

    def _load(self, importer: ModuleInfo, path: Path) -> ModuleInfo:
        path = Path(os.path.abspath(path))
        info = self.modules.get(path)
        if info is not None:
            return info
        display = self._display_path(importer, path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CompileError(f"cannot read {display}: {exc}", Loc(display, 0, 0)) from None
        return self._scan(SourceFile.parse(text, display), qualified_name(path), self)

    @staticmethod
    def _display_path(importer: ModuleInfo, path: Path) -> str:
        """``path`` as seen from the importer's path as given: relative stays relative."""
        given = importer.source.path
        base = Path(os.path.abspath(given)).parent
        return os.path.normpath(os.path.join(os.path.dirname(given), os.path.relpath(path, base)))
