"""``gradc build``'s progress bar: on a terminal, for builds longer than a second.

The driver calls a :class:`BuildProgress` with each stage's name as it starts and, in the
emit stage, with ``"emit k/n"`` as objects are done (``build_artifact(progress=...)``).
Nothing is drawn until the build has run for :data:`DELAY` seconds, so a quick build
prints only its summary line; nothing at all when stderr is not a terminal (a pipe, a
file, CI logs). The bar is redrawn only at those calls, never by a thread of its own:
``gradc build -j N`` forks its workers only from a process without other threads
(``gradc.compiler.emit_pool.start_method``), and a refresh thread would make it spawn
them instead (a fresh interpreter per worker). The bar is erased when the build ends.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

#: Seconds a build runs before its progress bar appears.
DELAY = 1.0

_COUNT = re.compile(r"(\d+)/(\d+)$")


class BuildProgress:
    """A callable for ``build_artifact(progress=...)`` and a context manager that erases
    the bar at the end.

    Args:
        label: what is being built (the module's file name), shown before the stage.
        enabled: draw anything at all (default: stderr is a terminal).
        clock: seconds, monotonic (tests pass their own).
    """

    def __init__(
        self,
        label: str,
        *,
        enabled: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._clock = clock
        self._start = clock()
        self._bar: Any = None  # rich.progress.Progress, once shown
        self._task: Any = None

    @property
    def shown(self) -> bool:
        """The bar has been drawn (the build has run for :data:`DELAY` seconds)."""
        return self._bar is not None

    def __call__(self, what: str) -> None:
        """The build is now doing ``what`` (a stage name, or ``"emit 3/32"``)."""
        if not self.enabled:
            return
        if self._bar is None:
            if self._clock() - self._start < DELAY:
                return
            self._show()
        count = _COUNT.search(what)
        fields: dict[str, Any] = {"description": f"gradc: building {self.label}: {what}"}
        if count is not None:
            fields.update(completed=int(count.group(1)), total=int(count.group(2)))
        self._bar.update(self._task, **fields)
        self._bar.refresh()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            auto_refresh=False,  # no refresh thread: see the module docstring
            transient=True,
        )
        self._task = self._bar.add_task(f"gradc: building {self.label}", total=None)
        self._bar.start()

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
