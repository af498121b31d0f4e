"""Tokens of the textual IR, one line at a time (for :mod:`gradc.compiler.ir.parser`)."""

from __future__ import annotations

import re
from typing import NamedTuple


class IRParseError(Exception):
    """A syntax or name error in IR text.

    The message reads ``line L:C: <what was expected>, found <token>`` followed by the
    offending source line and a caret under column C.

    Attributes:
        message: what went wrong (without the position).
        line: 1-based line number.
        col: 0-based column of the offending token.
        source_line: the text of that line.
    """

    def __init__(self, message: str, line: int, col: int, source_line: str) -> None:
        self.message = message
        self.line = line
        self.col = col
        self.source_line = source_line
        super().__init__(f"line {line}:{col + 1}: {message}\n  {source_line}\n  {' ' * col}^")

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle whole (``Exception``'s own pickling passes only ``args`` to
        ``__init__``, which needs more): an error raised on a Dask worker reaches the
        client with every attribute."""
        return (type(self), (self.message, self.line, self.col, self.source_line), self.__dict__)


# ---------------------------------------------------------------------------------
# tokens

_TOKEN = re.compile(
    r"""
     (?P<ws>\s+)
    |(?P<comment>//.*)
    |(?P<string>"(?:[^"\\]|\\.)*")
    |(?P<badstring>"[^\n]*)
    |(?P<value>%[\w.]+)
    |(?P<label>\^[\w.]+)
    |(?P<symbol>@(?:"(?:[^"\\]|\\.)*"|[\w.$]+))
    |(?P<arrow>->)
    |(?P<number>[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf\b|nan\b))
    |(?P<word>[^\W\d]\w*)
    |(?P<punct>[()\[\]{},:=?])
    """,
    re.VERBOSE,
)


class Tok(NamedTuple):
    """One token: its kind (value label symbol string number word punct arrow), its text
    and its 0-based column."""

    kind: str  # value label symbol string number word punct arrow
    text: str
    col: int

    @property
    def end(self) -> int:
        """The column just after the token."""
        return self.col + len(self.text)


def describe(tok: Tok | None) -> str:
    """A token as error messages show it (``'%x'``, or ``end of line``)."""
    return "end of line" if tok is None else repr(tok.text)


class Line:
    """The tokens of one source line, with a cursor.

    Raises:
        IRParseError: (at construction) a character no token starts with, or an
            unterminated string.
    """

    def __init__(self, lineno: int, text: str) -> None:
        self.lineno = lineno
        self.text = text
        self.toks: list[Tok] = []
        self.pos = 0
        i = 0
        while i < len(text):
            m = _TOKEN.match(text, i)
            if m is None:
                raise self.error_at(i, f"unexpected character {text[i]!r}")
            kind = m.lastgroup
            assert kind is not None
            if kind == "badstring":
                raise self.error_at(i, "unterminated string")
            if kind not in ("ws", "comment"):
                self.toks.append(Tok(kind, m.group(), i))
            i = m.end()

    def error_at(self, col: int, message: str) -> IRParseError:
        """An error at column ``col`` of this line."""
        return IRParseError(message, self.lineno, col, self.text)

    def error(self, message: str, tok: Tok | None = None) -> IRParseError:
        """An error at ``tok`` (default: the current token, or the end of the line)."""
        if tok is None:
            tok = self.peek()
        col = tok.col if tok is not None else len(self.text.rstrip())
        return self.error_at(col, message)

    def expected(self, what: str) -> IRParseError:
        """``expected <what>, found <the current token>``."""
        return self.error(f"expected {what}, found {describe(self.peek())}")

    def peek(self, k: int = 0) -> Tok | None:
        """The token ``k`` places after the cursor, or None past the end."""
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else None

    def at(self, kind: str, text: str | None = None, k: int = 0) -> bool:
        """Is the token ``k`` places on of kind ``kind`` (and ``text``, if given)?"""
        tok = self.peek(k)
        return tok is not None and tok.kind == kind and (text is None or tok.text == text)

    def accept(self, kind: str, text: str | None = None) -> Tok | None:
        """Consume and return the current token if it matches, else None."""
        if self.at(kind, text):
            tok = self.toks[self.pos]
            self.pos += 1
            return tok
        return None

    def expect(self, kind: str, text: str | None = None, what: str | None = None) -> Tok:
        """Consume the current token, which must match.

        Raises:
            IRParseError: it does not (``expected <what>, found ...``).
        """
        tok = self.accept(kind, text)
        if tok is None:
            raise self.expected(what or repr(text))
        return tok

    def punct(self, text: str, what: str | None = None) -> Tok:
        """Consume the punctuation ``text`` (:meth:`expect`)."""
        return self.expect("punct", text, what or repr(text))

    def expect_end(self) -> None:
        """Raise IRParseError unless every token was consumed."""
        if self.peek() is not None:
            raise self.expected("end of line")

    def at_end(self) -> bool:
        """Were all tokens consumed?"""
        return self.pos >= len(self.toks)
