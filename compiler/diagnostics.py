"""User-facing compile errors, pointing at the user's source with a caret.

Every error the compiler reports about a user's program is a :class:`CompileError`
carrying a :class:`~gradc.compiler.ir.loc.Loc`; its ``str()`` reads like a Python
traceback line::

    examples/bad.py:3:12: error: unsupported operator '@' (MatMult)
        return a @ b
               ^
"""

from __future__ import annotations

from gradc.compiler.ir.loc import Loc


class CompileError(Exception):
    """An error in the user's program, or a construct gradc does not support.

    Args:
        message: what is wrong, naming the construct (``"unsupported statement 'with'"``).
        loc: where; ``Loc.unknown()`` only when no source position exists.
        source_line: the text of the offending line, if known; filled in by the front end
            from the module's source when omitted.
    """

    def __init__(self, message: str, loc: Loc, source_line: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.source_line = source_line

    def render(self) -> str:
        """The full diagnostic: ``file:line:col: error: message``, the line and a caret."""
        head = f"{self.loc}: error: {self.message}"
        if self.source_line is None or self.loc.line <= 0:
            return head
        text = self.source_line.rstrip("\n")
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        caret_col = max(self.loc.col - indent, 0)
        return f"{head}\n    {stripped}\n    {' ' * caret_col}^"

    def __str__(self) -> str:
        return self.render()


class InternalCompilerError(Exception):
    """A bug in gradc itself, raised with the user function and line being compiled."""
