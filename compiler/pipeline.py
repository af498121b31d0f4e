"""Stages: the build as an ordered list of named functions over one state object.

The driver (``gradc.compiler.driver``) lists its stages once::

    STAGES = (Stage("parse", parse), Stage("infer", infer), ..., Stage("emit", emit, ...))
    run_stages(STAGES, state)

:func:`run_stages` runs each stage whose ``needed`` predicate holds, adds its wall time
to ``state.timings[name]`` (what ``gradc build --timings`` prints; a stage that had
nothing to do has no row), and turns an unexpected exception into an
:class:`~gradc.compiler.diagnostics.InternalCompilerError` naming the stage, what it was
doing (``state.step``), the user's function and the source line being compiled. A
``CompileError`` (the user's program) and the exceptions a stage lists in ``reports``
pass through unchanged.

The function and line come from the crash itself: the innermost IR instruction with a
source line and the innermost IR function found among the local variables (and their
attributes) of the frames the exception passed through, else
``state.focus``, the function the stage said it was working on.
"""

from __future__ import annotations

import linecache
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from types import ModuleType, TracebackType
from typing import Generic, TypeVar

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError, InternalCompilerError
from gradc.compiler.ir.core import Function, Instruction
from gradc.compiler.ir.loc import Loc


@dataclass(kw_only=True)
class StageState:
    """What every stage state offers the runner: timings and the crash context.

    Attributes:
        timings: stage name -> seconds, in the order the stages first ran.
        step: what the running stage is doing now (``"pass 'dce'"``), for diagnostics;
            cleared before each stage.
        focus: the IR function the running stage is working on, when it knows it;
            cleared before each stage.
        progress: called with each stage's name as it starts, and by stages with what
            they are doing (``"emit 3/32"``); ``gradc build``'s progress bar.
    """

    timings: dict[str, float] = field(default_factory=dict)
    step: str = ""
    focus: Function | None = None
    progress: Callable[[str], None] | None = None

    def source_line(self, loc: Loc) -> str | None:
        """The text of ``loc``'s line (read from its file), None if unknown."""
        return linecache.getline(loc.file, loc.line) or None


S = TypeVar("S", bound=StageState)


def _always(state: StageState) -> bool:
    return True


@dataclass(frozen=True)
class Stage(Generic[S]):
    """One step of the build.

    Attributes:
        name: the stage's name, its row in ``--timings`` and its name in diagnostics.
        run: the stage itself; it reads and updates the state.
        needed: False skips the stage (no time recorded): it has nothing to do.
        reports: exceptions besides ``CompileError`` that the stage raises on purpose
            (documented errors of the caller's inputs), passed through unchanged.
    """

    name: str
    run: Callable[[S], None]
    needed: Callable[[S], bool] = _always
    reports: tuple[type[Exception], ...] = ()


def run_stages(stages: Sequence[Stage[S]], state: S) -> None:
    """Run ``stages`` in order on ``state`` (see the module docstring).

    Raises:
        CompileError: from any stage, unchanged.
        InternalCompilerError: any other exception of a stage (the original is its
            ``__cause__``), except those the stage ``reports``.
    """
    for stage in stages:
        if not stage.needed(state):
            continue
        state.step, state.focus = "", None
        if state.progress is not None:
            state.progress(stage.name)
        expected: tuple[type[Exception], ...] = (CompileError, *stage.reports)
        start = time.perf_counter()
        try:
            stage.run(state)
        except expected:
            raise
        except Exception as exc:
            raise internal_error(stage.name, state, exc) from exc
        finally:
            elapsed = time.perf_counter() - start
            state.timings[stage.name] = state.timings.get(stage.name, 0.0) + elapsed


def internal_error(stage: str, state: StageState, exc: Exception) -> InternalCompilerError:
    """The diagnostic for ``exc``, raised by stage ``stage`` while working on ``state``."""
    function, loc = crash_site(exc.__traceback__, state.focus)
    if isinstance(exc, InternalCompilerError):
        message = exc.message
    else:
        message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return InternalCompilerError(
        message,
        stage=stage,
        step=state.step,
        function=(function.source_name or function.name) if function is not None else "",
        loc=loc,
        source_line=state.source_line(loc) if loc.line > 0 else None,
    )


def crash_site(
    tb: TracebackType | None, focus: Function | None = None
) -> tuple[Function | None, Loc]:
    """The user function and source line a crash happened in.

    The innermost instruction with a known line among the frames' variables gives the
    line, and its function the function; without one, the innermost function found
    (else ``focus``) gives both (its ``def`` line).
    """
    inst: Instruction | None = None
    function: Function | None = None
    for value in _frame_values(tb):
        if inst is None and isinstance(value, Instruction) and value.loc.line > 0:
            inst = value
        elif function is None and isinstance(value, Function):
            function = value
        if inst is not None and function is not None:
            break
    if inst is not None:
        return inst.function or function or focus, inst.loc
    function = function or focus
    return function, function.loc if function is not None else Loc.unknown()


def _frame_values(tb: TracebackType | None) -> Iterator[object]:
    """The local variables of the frames ``tb`` passed through, innermost frame first,
    each frame's variables followed by their attributes (``self.function``, ``spec.fn``)."""
    import traceback  # an error path: not imported by every build

    frames = [frame for frame, _ in traceback.walk_tb(tb)]
    for frame in reversed(frames):
        values = list(frame.f_locals.values())
        yield from values
        for value in values:
            attributes = getattr(value, "__dict__", None)
            if isinstance(attributes, dict) and not isinstance(value, type | ModuleType):
                yield from attributes.values()
