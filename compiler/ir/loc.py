"""Source locations carried by every IR instruction."""

from __future__ import annotations

from gradc._dataclass import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A position in a user's source file.

    Attributes:
        file: path as given on the command line (relative paths stay relative, so that
            builds do not depend on the working directory's absolute path).
        line: 1-based line number; 0 when unknown.
        col: 0-based column (as Python's ``ast`` reports it).
    """

    file: str
    line: int
    col: int

    @staticmethod
    def unknown() -> Loc:
        """The location of compiler-made code with no source position."""
        return UNKNOWN_LOC

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}" if self.line > 0 else self.file


UNKNOWN_LOC = Loc("<unknown>", 0, 0)
