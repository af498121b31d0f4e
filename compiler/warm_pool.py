"""Worker processes forked at the start of a build, warm before its ``emit`` stage.

``gradc build -j N`` of a large module spends most of its time in lowering and emission,
which run in worker processes per job (``gradc.compiler.emit_pool``). Workers forked
once the front end is done inherit its module but then import the code generator and
start LLVM each, at the start of their first task, on the build's critical path. A
:class:`WarmPool` is forked as the build starts instead (:func:`warm_pool_for`): its
workers do those imports (:func:`warm_up`) while this process parses, infers and runs
the IR passes, on the other cores; the front end's module then goes to each of them
once, pickled (:meth:`WarmPool.share`), and each task sends only an index's small item.

Results are gathered by task index, never by completion order, so that the artifact is
byte-identical to a ``-j 1`` build (tests/pipeline/test_parallel_emit.py). Plain pipes,
one per worker, in lock step (a task out, its result back): no thread in this process,
no queue feeder; workers are reaped when the pool closes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gradc.compiler.emit_pool import EmitFailure, start_method
from gradc.compiler.options import CompilerOptions

#: Below this many bytes of source a module is not worth warm workers: its front end is
#: too short to hide their start, and the build may stay in process altogether
#: (``emit_pool.FORK_MIN_IR_BYTES``). A module of 32 loop exports has ~7 KB.
WARM_MIN_SOURCE_BYTES = 2 * 1024

#: ``fn(shared, item)`` of a task: a module-level function (pickled by name).
TaskFunction = Callable[[Any, Any], Any]


def warm_up() -> None:
    """What a worker does before its first task: import the code generator and start
    LLVM's native target (what the first job would otherwise pay for)."""
    from gradc.compiler.codegen import emit, lower, pywrapper, relocatable  # noqa: F401

    emit.target_info(CompilerOptions())


def warm_pool_for(
    jobs: int, source_path: Path, source_text: bytes | None, cached: int
) -> WarmPool | None:
    """A started :class:`WarmPool` of ``jobs`` workers for a build of ``source_path``
    (its bytes ``source_text`` when it has no file) with ``cached`` entries in its cache,
    or None when the build should not have one: ``jobs`` is 1, this process may not fork
    (``emit_pool.start_method``), the cache holds entries (a rebuild, which may compile
    little or nothing: workers forked later serve it), or the module is small
    (:data:`WARM_MIN_SOURCE_BYTES`)."""
    if jobs < 2 or cached or start_method() != "fork":
        return None
    try:
        size = len(source_text) if source_text is not None else os.stat(source_path).st_size
    except OSError:
        return None  # the parse stage reports it
    return WarmPool(jobs, warm_up) if size >= WARM_MIN_SOURCE_BYTES else None


class WarmPool:
    """``jobs`` worker processes, forked now, each running ``warm`` first.

    Use: :meth:`share` once (the data every task needs), :meth:`run` once, then
    :meth:`close` (also on failure or an interrupt; it reaps the workers).
    """

    def __init__(self, jobs: int, warm: Callable[[], None]) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._connections: list[Any] = []
        self._workers: list[Any] = []
        self._finished = False  # run() returned: the workers were told to exit
        for _ in range(jobs):
            ours, theirs = context.Pipe()
            worker = context.Process(target=_serve, args=(theirs, warm), daemon=True)
            worker.start()
            theirs.close()
            self._connections.append(ours)
            self._workers.append(worker)

    def share(self, shared: Any) -> None:
        """Send ``shared`` (pickled once) to every worker: the first argument of each task.

        Raises:
            pickle.PicklingError, RecursionError: ``shared`` does not pickle (the caller
                then closes the pool and runs the tasks another way); nothing was sent.
        """
        import pickle

        data = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)
        for connection in self._connections:
            connection.send_bytes(data)

    def run(
        self,
        fn: TaskFunction,
        items: Sequence[Any],
        sizes: Sequence[int],
        done: Callable[[int, int], None] | None = None,
    ) -> list[Any]:
        """``[fn(shared, items[0]), fn(shared, items[1]), ...]`` in the workers.

        ``sizes[i]`` estimates task ``i``'s work: the largest start first, so that one
        large export does not start last and finish alone. ``done(finished, total)`` is
        called here as tasks finish. Returns, in task order, each task's result or an
        :class:`~gradc.compiler.emit_pool.EmitFailure` (an exception of ``fn``).

        Raises:
            RuntimeError: a worker died (a crash of LLVM, a signal).
        """
        from multiprocessing.connection import wait

        order = sorted(range(len(items)), key=lambda i: -sizes[i])
        results: list[Any] = [None] * len(items)
        busy: dict[Any, int] = {}  # connection -> the task its worker is running

        def feed(connection: Any) -> None:
            if order:
                busy[connection] = order.pop(0)
                connection.send((fn, items[busy[connection]]))
            else:  # no more work: the worker may exit while this process goes on
                connection.send(None)

        for connection in self._connections:
            feed(connection)
        finished = 0
        while busy:
            for ready in wait(list(busy)):
                results[busy.pop(ready)] = self._receive(ready)
                finished += 1
                if done is not None:
                    done(finished, len(items))
                feed(ready)
        self._finished = True
        return results

    def _receive(self, connection: Any) -> Any:
        try:
            return connection.recv()
        except EOFError:
            worker = self._workers[self._connections.index(connection)]
            worker.join(1.0)
            raise RuntimeError(f"a -j worker process died (exit code {worker.exitcode})") from None

    def close(self) -> None:
        """End the workers and reap them: at once (terminated) unless :meth:`run` returned
        (a build that stopped early, on an error or Ctrl-C, or never needed them)."""
        for connection in self._connections:
            # not EOF alone: workers forked later hold this end of an earlier one's pipe
            with contextlib.suppress(OSError):
                connection.send(None)
            connection.close()
        for worker in self._workers:
            if not self._finished:
                worker.terminate()
            worker.join()


def _serve(connection: Any, warm: Callable[[], None]) -> None:
    """A worker: ``warm()``, the shared data, then tasks until told to stop (Ctrl-C is
    the build process's to handle: it ends the workers)."""
    import pickle
    import signal
    import traceback

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):  # a task that needs what failed raises it again
        warm()
    try:
        shared = pickle.loads(connection.recv_bytes())
        while (task := connection.recv()) is not None:
            fn, item = task
            try:
                result = fn(shared, item)
            except Exception as exc:  # carried back: the parent raises it with context
                result = EmitFailure(type(exc).__name__, str(exc), traceback.format_exc())
            connection.send(result)
    except EOFError:
        return
