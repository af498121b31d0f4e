"""A user's source file: its text, its ``ast``, and locations of nodes in it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.ir.loc import Loc


@dataclass
class SourceFile:
    """The text of one module and its syntax tree.

    Attributes:
        path: the path as given (kept relative when given relative, so that locations and
            artifacts do not depend on the working directory).
        text: the source text.
        tree: the parsed module.
    """

    path: str
    text: str
    tree: ast.Module = field(repr=False)

    @classmethod
    def read(cls, path: Path | str) -> SourceFile:
        """Read and parse a file.

        Raises:
            OSError: the file cannot be read.
            CompileError: the file is not valid Python (at the SyntaxError's position).
        """
        text = Path(path).read_text(encoding="utf-8")
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, path: str) -> SourceFile:
        """Parse ``text`` as the module at ``path``.

        Raises:
            CompileError: the text is not valid Python.
        """
        try:
            tree = ast.parse(text, filename=path)
        except SyntaxError as exc:
            line = exc.lineno or 0
            col = max((exc.offset or 1) - 1, 0)
            lines = text.splitlines()
            src = lines[line - 1] if 0 < line <= len(lines) else None
            raise CompileError(f"invalid syntax: {exc.msg}", Loc(path, line, col), src) from None
        return cls(path, text, tree)

    def loc(self, node: ast.AST) -> Loc:
        """The location of ``node`` (line 1-based, column 0-based)."""
        return Loc(self.path, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def line(self, lineno: int) -> str | None:
        """The text of line ``lineno`` (1-based), or None."""
        lines = self.text.splitlines()
        return lines[lineno - 1] if 0 < lineno <= len(lines) else None

    def error(self, message: str, node: ast.AST | Loc) -> CompileError:
        """A :class:`CompileError` at ``node`` with the source line filled in."""
        loc = node if isinstance(node, Loc) else self.loc(node)
        return CompileError(message, loc, self.line(loc.line))
