"""The rich console the CLI prints tables with."""

from __future__ import annotations

from typing import Any


def wide_console(console_class: Any) -> Any:
    """A rich console (``console_class``: ``rich.console.Console``); not squeezed to 80
    columns when the output is not a terminal."""
    console = console_class()
    if not console.is_terminal:
        console = console_class(width=200)
    return console
