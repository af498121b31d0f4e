"""Errors passes report about the user's program.

Passes import nothing of gradc but the IR, so they raise :class:`PassError` with the
location of the instruction at fault; the driver turns it into a
:class:`~gradc.compiler.diagnostics.CompileError` with the source line and a caret.
"""

from __future__ import annotations

from gradc.compiler.ir.loc import Loc


class PassError(Exception):
    """A construct a pass cannot handle, at a source location.

    Args:
        message: what and why, naming the construct (``"cannot differentiate ..."``).
        loc: the location of the instruction at fault.
    """

    def __init__(self, message: str, loc: Loc) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle whole (``Exception``'s own pickling passes only ``args`` to
        ``__init__``, which needs more): an error raised on a Dask worker reaches the
        client with every attribute."""
        return (type(self), (self.message, self.loc), self.__dict__)
