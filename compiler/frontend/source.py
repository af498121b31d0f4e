"""A user's source file: its text, its ``ast``, and locations of nodes in it."""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from dataclasses import field
from pathlib import Path

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.constructs import unsupported
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
            # CPython's message says what is wrong ("expected ':'"), or is just "invalid syntax"
            message = (
                exc.msg if exc.msg.startswith("invalid syntax") else f"invalid syntax: {exc.msg}"
            )
            end = (exc.end_offset or 0) - 1 if exc.end_lineno == exc.lineno else None
            raise CompileError(
                message, Loc(path, line, col), src, end_col=end if end and end > col else None
            ) from None
        return cls(path, text, tree)

    def loc(self, node: ast.AST) -> Loc:
        """The location of ``node`` (line 1-based, column 0-based in code points: ``ast``
        counts UTF-8 bytes, which differ after a non-ASCII character on the line)."""
        line = getattr(node, "lineno", 0)
        return Loc(self.path, line, self._chars(line, getattr(node, "col_offset", 0)))

    def _chars(self, lineno: int, offset: int) -> int:
        """The code-point column of UTF-8 byte ``offset`` on line ``lineno``."""
        text = self.line(lineno)
        if text is None or text.isascii():
            return offset
        return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))

    def line(self, lineno: int) -> str | None:
        """The text of line ``lineno`` (1-based), or None."""
        lines = self._lines
        return lines[lineno - 1] if 0 < lineno <= len(lines) else None

    @functools.cached_property
    def _lines(self) -> list[str]:
        """``text``'s lines, split once: every node's location reads its line."""
        return self.text.splitlines()

    def error(self, message: str, node: ast.AST | Loc, *, help: str = "") -> CompileError:
        """A :class:`CompileError` at ``node`` with the source line filled in, its carets
        under the whole of ``node`` (to the end of the line when it spans lines), and the
        ``help`` line if given."""
        if isinstance(node, Loc):
            return CompileError(message, node, self.line(node.line), help=help)
        loc = self.loc(node)
        line = self.line(loc.line)
        end: int | None = None
        if getattr(node, "end_lineno", None) == loc.line:
            end_offset = getattr(node, "end_col_offset", None)
            end = None if end_offset is None else self._chars(loc.line, end_offset)
        elif getattr(node, "end_lineno", None) is not None and line is not None:
            end = _code_end(line)  # a construct over several lines: its first line
        return CompileError(message, loc, line, help=help, end_col=end)

    def unsupported(self, node: ast.AST, *, as_target: bool = False) -> CompileError:
        """The error for a construct gradc does not compile, in words with a ``help:``
        line (``gradc.compiler.frontend.constructs.unsupported``)."""
        message, help = unsupported(node, as_target=as_target)
        return self.error(message, node, help=help)


def _code_end(line: str) -> int:
    """The column after the last token of ``line`` that is not a comment (``try:  # x``
    -> 4); the stripped line's length when it does not tokenize on its own."""
    end = 0
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if tok.type not in skip and tok.type != tokenize.ENDMARKER:
                end = tok.end[1]
    except (tokenize.TokenError, SyntaxError):
        return len(line.rstrip())
    return end + len(line) - len(line.lstrip())
