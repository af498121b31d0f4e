"""The emit stage's work spread over worker processes (``gradc build -j N``).

Code generation (LLVM's optimiser and instruction selection) is most of a cold build, and
each export's object depends only on its own LLVM IR text and options:
:func:`gradc.compiler.codegen.emit.emit_object` is deterministic for a given text. So the
lowered modules are printed in this process, emitted in ``N`` worker processes, and the
objects gathered by task index, never by completion order: the artifact is byte-identical
to a ``-j 1`` build (tests/pipeline/test_parallel_emit.py).

Workers are forked when this process has no other thread (cheap: gradc and LLVM are
already loaded), else spawned. A pool costs a few milliseconds per worker (fork) to a few
hundred (spawn), so :func:`worth_a_pool` keeps small builds in process.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import traceback
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from gradc.compiler.options import CompilerOptions

#: Below this much LLVM IR text (bytes, summed over the tasks) a pool costs more than it
#: saves, per start method: emission runs at roughly 0.4 MB of text per CPU second here;
#: forking workers and gathering their objects takes ~10-30 ms, spawning them (a fresh
#: interpreter importing gradc and LLVM each) ~0.3-0.5 s.
POOL_MIN_TEXT_BYTES = {"fork": 64 * 1024, "spawn": 1024 * 1024}


@dataclass(frozen=True)
class EmitTask:
    """One object to emit: LLVM IR ``text`` with its ``options``.

    Attributes:
        text: the lowered module's LLVM IR text.
        options: the variant's compiler options (opt level, CPU, fast-math).
        label: what it is, for errors (``"export 'f'"``, ``"runtime"``).
    """

    text: str
    options: CompilerOptions
    label: str


@dataclass(frozen=True)
class EmitFailure:
    """A worker's exception, carried back as text (gradc's exceptions hold source spans
    that need not pickle): ``kind`` is the exception's class name."""

    kind: str
    message: str
    trace: str


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    """``"fork"`` when this process has no other thread (workers inherit gradc and LLVM
    already loaded), else ``"spawn"`` (forking a threaded process can deadlock)."""
    return "fork" if threading.active_count() == 1 and hasattr(os, "fork") else "spawn"


def worth_a_pool(tasks: Sequence[EmitTask], jobs: int) -> bool:
    """Whether emitting ``tasks`` in ``jobs`` workers can beat doing it in process."""
    text = sum(len(t.text) for t in tasks)
    return jobs > 1 and len(tasks) > 1 and text >= POOL_MIN_TEXT_BYTES[start_method()]


def emit_all(tasks: Sequence[EmitTask], jobs: int) -> list[Any]:
    """Emit every task in at most ``jobs`` worker processes.

    Returns, in task order, each task's :class:`~gradc.compiler.codegen.emit.EmittedObject`
    or an :class:`EmitFailure` (the caller raises it with the task's context).
    """
    context = multiprocessing.get_context(start_method())
    # longest first, so that one large export does not start last and finish alone
    order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i].text))
    results: list[Any] = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context) as pool:
        futures = {i: pool.submit(_emit_one, tasks[i]) for i in order}
        for i, future in futures.items():
            results[i] = future.result()
    return results


def _emit_one(task: EmitTask) -> Any:
    """Worker side: :func:`emit_object` of one task, an exception as :class:`EmitFailure`."""
    from gradc.compiler.codegen.emit import emit_object

    try:
        return emit_object(task.text, task.options)
    except Exception as exc:  # carried back: the parent raises it with the task's context
        return EmitFailure(type(exc).__name__, str(exc), traceback.format_exc())
