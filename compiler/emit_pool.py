"""The emit stage's work spread over worker processes (``gradc build -j N``).

Code generation (LLVM's optimiser and instruction selection) is most of a cold build, and
each export's object depends only on its own LLVM IR text and options:
:func:`gradc.compiler.codegen.emit.emit_object` is deterministic for a given text. Two
ways, both gathering results by task index, never by completion order, so that the
artifact is byte-identical to a ``-j 1`` build (tests/pipeline/test_parallel_emit.py):

- :func:`run_forked` (this process has no other thread): this process and workers
  forked from it (inheriting its state) do everything after the ``keys`` stage per job,
  lowering to LLVM IR, printing, optimisation and emission; only an index goes out and
  the workers' objects come back. Lowering is as deterministic as emission (each export
  is its own LLVM module).
- :func:`emit_all` (else): the lowered modules are printed in this process and emitted in
  spawned workers (a fresh interpreter importing gradc and LLVM each).

A pool costs a few milliseconds per worker (fork) to a few hundred (spawn), so
:func:`worth_forking` and :func:`worth_a_pool` keep small builds in process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from gradc._dataclass import dataclass
from gradc.compiler.options import CompilerOptions

#: Below this much LLVM IR text (bytes, summed over the tasks) a pool costs more than it
#: saves, per start method: emission runs at roughly 0.4 MB of text per CPU second here;
#: forking workers and gathering their objects takes ~10-30 ms, spawning them (a fresh
#: interpreter importing gradc and LLVM each) ~0.3-0.5 s.
POOL_MIN_TEXT_BYTES = {"fork": 64 * 1024, "spawn": 1024 * 1024}

#: The same threshold for :func:`run_forked`, in gradc IR text (bytes of the printed IR of
#: the functions each pending job reaches, summed): the LLVM IR lowered from it is 5-11
#: times larger (examples/scalars.py 5x, a module of 32 loop exports 11x).
FORK_MIN_IR_BYTES = 8 * 1024


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


def worth_forking(ir_bytes: int, tasks: int, jobs: int) -> bool:
    """Whether :func:`run_forked` of ``tasks`` jobs, lowering ``ir_bytes`` of gradc IR
    text, can beat doing them in process: this process may fork, and the work is large
    enough (:data:`FORK_MIN_IR_BYTES`)."""
    return jobs > 1 and tasks > 1 and start_method() == "fork" and ir_bytes >= FORK_MIN_IR_BYTES


def run_forked(
    work: Callable[[int], Any],
    sizes: Sequence[int],
    jobs: int,
    done: Callable[[int, int], None] | None = None,
    each: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """``[work(0), work(1), ...]``, run in at most ``jobs`` processes: this one and
    workers forked now (``gradc.compiler.warm_pool.WarmPool``).

    ``work`` is not pickled: the workers inherit it (and everything it refers to, the
    build's state) when they fork, which happens here; only indices go out and the
    workers' (picklable) results come back. ``sizes[i]`` estimates task ``i``'s work:
    the largest start first, so that one large export does not start last and finish
    alone. ``done(finished, total)`` is called in this process as tasks finish, after
    ``each(index, result)`` (``WarmPool.run``).

    Returns, in task order, each task's result or an :class:`EmitFailure` (an exception
    of ``work``, for the caller to raise with the task's context).

    Raises:
        ValueError: this process has another thread (forking it could deadlock).
        RuntimeError: a worker died (a crash of LLVM, a signal).
    """
    from gradc.compiler.warm_pool import WarmPool

    if start_method() != "fork":
        raise ValueError("run_forked needs a process without other threads")
    indices = list(range(len(sizes)))

    def task(shared: None, index: int) -> Any:
        return work(index)

    pool = WarmPool(min(jobs, len(sizes)), task=(task, None, indices))
    try:
        return pool.run(task, indices, sizes, done, each)
    finally:
        pool.close()


def emit_all(tasks: Sequence[EmitTask], jobs: int) -> list[Any]:
    """Emit every task in at most ``jobs`` worker processes.

    Returns, in task order, each task's :class:`~gradc.compiler.codegen.emit.EmittedObject`
    or an :class:`EmitFailure` (the caller raises it with the task's context).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

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
        import traceback

        return EmitFailure(type(exc).__name__, str(exc), traceback.format_exc())
