"""User-facing compile errors, pointing at the user's source with a caret.

Every error the compiler reports about a user's program is a :class:`CompileError`
carrying a :class:`~gradc.compiler.ir.loc.Loc`; its ``str()`` reads like a Python
traceback line::

    examples/bad.py:3:12: error: a list literal is not supported in compiled code
        return [a, b]
               ^^^^^^
    help: for an array use np.empty(n) (or np.zeros(n)), then assign its elements

The carets span the whole construct on its first line (``end_col``), a single ``^`` when
only a position is known; ``note:`` lines follow (for an error inside a helper, how an
export reached it), then a ``help:`` line when there is a standard alternative.
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
        help: what to write instead (one sentence, rendered as a ``help:`` line), or ``""``.
        end_col: the column (0-based, exclusive) where the construct ends on ``loc``'s
            line, or None for a single caret.
    """

    def __init__(
        self,
        message: str,
        loc: Loc,
        source_line: str | None = None,
        *,
        help: str = "",
        end_col: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.source_line = source_line
        self.help = help
        self.end_col = end_col
        #: lines after the carets, e.g. the call chain from an export to a helper
        #: (``in inner(a: f64), called from outer at m.py:10``)
        self.notes: list[str] = []
        #: further errors of the same build, rendered after this one
        self.others: list[CompileError] = []

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle whole (``Exception``'s own pickling passes only ``args`` to
        ``__init__``, which needs more): an error raised on a Dask worker reaches the
        client with every attribute."""
        return (type(self), (self.message, self.loc), self.__dict__)

    def render(self) -> str:
        """The full diagnostic: ``file:line:col: error: message``, the line, carets under
        the construct and the ``help:`` line if any."""
        text = _with_caret(
            f"{self.loc}: error: {self.message}", self.loc, self.source_line, self.end_col
        )
        lines = [text, *(f"note: {n}" for n in self.notes)]
        if self.help:
            lines.append(f"help: {self.help}")
        if self.others:
            lines.extend(["", *(f"{e.render()}\n" for e in self.others)])
            lines.append(f"{1 + len(self.others)} errors")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class InternalCompilerError(Exception):
    """A bug in gradc itself, raised with the user function and line being compiled.

    The driver's stage runner (``gradc.compiler.pipeline``) turns any unexpected
    exception of a stage into one, naming the stage, the user's function and its line::

        m.py:6:12: internal compiler error in stage 'passes' (pass 'lifetimes') while
        compiling function 'f': KeyError: 'x'
            return x * y
                   ^

    Args:
        message: what went wrong (for a wrapped exception: ``"KeyError: 'x'"``).
        stage: the build stage that crashed (``"passes"``), ``""`` when raised directly.
        step: what the stage was doing, e.g. ``"pass 'lifetimes'"`` or ``"export 'f'"``.
        function: the Python name of the user function being compiled, ``""`` if unknown.
        loc: the line being compiled (an instruction's, else the function's ``def``).
        source_line: the text of that line, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        stage: str = "",
        step: str = "",
        function: str = "",
        loc: Loc | None = None,
        source_line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.stage = stage
        self.step = step
        self.function = function
        self.loc = loc if loc is not None else Loc.unknown()
        self.source_line = source_line

    def render(self) -> str:
        """The diagnostic: location, stage, step, function and cause, then the line and a
        caret (as :meth:`CompileError.render`); just the message when raised directly."""
        if not self.stage:
            return self.message
        head = f"internal compiler error in stage {self.stage!r}"
        if self.step:
            head += f" ({self.step})"
        if self.function:
            head += f" while compiling function {self.function!r}"
        head += f": {self.message}"
        if self.loc.line <= 0:
            return head
        return _with_caret(f"{self.loc}: {head}", self.loc, self.source_line)

    def __str__(self) -> str:
        return self.render()


def _with_caret(head: str, loc: Loc, source_line: str | None, end_col: int | None = None) -> str:
    """``head``, then ``source_line`` (stripped) and carets under ``loc``'s column, up to
    ``end_col`` (at least one, at most to the end of the line)."""
    if source_line is None or loc.line <= 0:
        return head
    text = source_line.rstrip("\n").rstrip()
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    col = max(loc.col, indent)
    caret_col = _display_width(text[indent:col]) + max(col - len(text), 0)
    end = col + 1 if end_col is None else max(min(end_col, len(text)), col + 1)
    width = max(_display_width(text[col:end]), 1)
    return f"{head}\n    {stripped}\n    {' ' * caret_col}{'^' * width}"


def _display_width(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for each wide East Asian character
    (CJK, fullwidth forms), none for combining marks, one for the others. Columns in
    ``Loc`` count code points (``SourceFile.loc``); carets are placed by this width."""
    import unicodedata

    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


class CudaBuildError(Exception):
    """The CUDA build of a kernel failed (``gradc build --target cuda``): a symbol the GPU
    lacks, ``ptxas`` refused the PTX (its message), or the toolchain is missing. The
    message names the kernel (``compiler/codegen/ptx.py``)."""
