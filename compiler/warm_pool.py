"""Worker processes for ``gradc build -j N``, forked at the start of a build.

``gradc build -j N`` of a large module spends most of its time in lowering and emission,
one task per export and CPU variant (``backend.lower_and_emit``). ``-j N`` runs them in N
processes: the build process itself and N - 1 workers (a :class:`WarmPool`), so that
``-j 2`` on two cores is two processes, and this process's results need no pickling.
The workers are forked as the build starts (:func:`warm_pool_for`) and import the code
generator (:func:`warm_up`) while this process parses, infers and runs the IR passes;
the front end's module then goes to each of them once, pickled (:meth:`WarmPool.share`),
with the list of task items. A pool forked later, once the front end is done
(``emit_pool.run_forked``: a module that does not pickle, a rebuild), lets its workers
inherit both instead.

Tasks are handed out through a pipe of task indices that every process takes from, the
largest first. Results are gathered by task index, never by completion order, so that
the artifact is byte-identical to a ``-j 1`` build (tests/pipeline/test_parallel_emit.py,
tests/pipeline/test_warm_pool.py). Plain pipes, no thread in this process, no queue
feeder; workers are reaped when the pool closes.
"""

from __future__ import annotations

import contextlib
import os
import struct
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
    """``jobs`` processes on one list of tasks: this one and ``jobs - 1`` workers forked
    now, each running ``warm`` first (for ``-j 2``: this process and one worker, so that
    two processes share the two cores and half the results need no pickling).

    Use: :meth:`share` once (the data every task needs), :meth:`run` once, then
    :meth:`close` (also on failure or an interrupt; it reaps the workers). With ``task``,
    ``(fn, shared, items)`` known now, the workers inherit them instead (nothing is
    pickled but the results): :meth:`share` is not called, and :meth:`run` is given the
    same ``fn`` and ``items``.

    Tasks are handed out through one pipe of task indices, largest task first, that
    every process reads a record at a time (as make's jobserver hands out tokens): a
    process that finishes a task takes the next, so none idles while another has two
    left. This process collects the workers' results between its own tasks.
    """

    def __init__(
        self,
        jobs: int,
        warm: Callable[[], None] | None = None,
        task: tuple[TaskFunction, Any, Sequence[Any]] | None = None,
    ) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._task = task
        self._shared: Any = None if task is None else task[1]
        self._tokens = os.pipe()  # task indices, then one stop record per process
        self._connections: list[Any] = []
        self._workers: list[Any] = []
        self._finished = False  # run() returned: every worker got its stop record
        for _ in range(jobs - 1):
            ours, theirs = context.Pipe()
            args = (theirs, self._tokens, warm, task)
            worker = context.Process(target=_serve, args=args, daemon=True)
            worker.start()
            theirs.close()
            self._connections.append(ours)
            self._workers.append(worker)

    def share(self, shared: Any) -> None:
        """Send ``shared`` (pickled once) to every worker: the first argument of each task
        (this process's tasks get ``shared`` itself).

        Raises:
            pickle.PicklingError, RecursionError: ``shared`` does not pickle (the caller
                then closes the pool and runs the tasks another way); nothing was sent.
        """
        import pickle

        data = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)
        for connection in self._connections:
            connection.send_bytes(data)
        self._shared = shared

    def run(
        self,
        fn: TaskFunction,
        items: Sequence[Any],
        sizes: Sequence[int],
        done: Callable[[int, int], None] | None = None,
        each: Callable[[int, Any], None] | None = None,
    ) -> list[Any]:
        """``[fn(shared, items[0]), fn(shared, items[1]), ...]`` in this process and the
        workers (``fn`` is pickled by name, unless the workers inherited it).

        ``sizes[i]`` estimates task ``i``'s work: the largest start first, so that one
        large export does not start last and finish alone. ``done(finished, total)`` is
        called here as tasks finish, after ``each(index, result)`` (work on a result that
        this process does while the workers go on: ``backend`` writes its blobs).
        Returns, in task order, each task's result or an
        :class:`~gradc.compiler.emit_pool.EmitFailure` (an exception of ``fn``).

        Raises:
            RuntimeError: a worker died (a crash of LLVM, a signal).
            ValueError: the pool was made with another ``task`` than ``fn`` and ``items``.
        """
        if self._task is None:
            for connection in self._connections:
                connection.send((fn, items))
        elif self._task[0] is not fn or self._task[2] is not items:
            raise ValueError("a pool made for a task runs only that task")
        order = sorted(range(len(items)), key=lambda i: -sizes[i])
        _hand_out(self._tokens[1], order, len(self._workers) + 1)
        results: list[Any] = [None] * len(items)
        progress = _Progress(len(items), done, each)
        open_connections = list(self._connections)
        while (index := _take(self._tokens[0])) >= 0:
            results[index] = _attempt(fn, self._shared, items[index])
            progress.step(index, results[index])
            self._collect(open_connections, results, progress, 0.0)
        while progress.finished < len(items):
            if not open_connections:
                raise RuntimeError("a -j worker process stopped before its tasks were done")
            self._collect(open_connections, results, progress, None)
        self._finished = True
        return results

    def _collect(
        self, connections: list[Any], results: list[Any], progress: _Progress, timeout: float | None
    ) -> None:
        """Take in every result the workers of ``connections`` sent, waiting up to
        ``timeout`` seconds (None: until one comes) for the first; a worker that said it
        is done leaves ``connections``.

        Raises:
            RuntimeError: a worker died (its pipe closed before it said it was done).
        """
        from multiprocessing.connection import wait

        ready: Any
        for ready in wait(connections, timeout):
            while True:
                try:
                    message = ready.recv()
                except EOFError:
                    worker = self._workers[self._connections.index(ready)]
                    worker.join(1.0)
                    raise RuntimeError(
                        f"a -j worker process died (exit code {worker.exitcode})"
                    ) from None
                if message is None:  # its stop record: nothing more comes from it
                    connections.remove(ready)
                    break
                index, result = message
                results[index] = result
                progress.step(index, result)
                if not ready.poll():
                    break

    def close(self) -> None:
        """End the workers and reap them: at once (terminated) unless :meth:`run` returned
        (a build that stopped early, on an error or Ctrl-C, or never needed them)."""
        for worker in self._workers if not self._finished else ():
            worker.terminate()
        for connection in self._connections:
            connection.close()
        for fd in self._tokens:
            with contextlib.suppress(OSError):
                os.close(fd)
        for worker in self._workers:
            worker.join()


class _Progress:
    """Counts finished tasks, hands each result to ``each(index, result)`` and reports
    the count to ``done(finished, total)``."""

    def __init__(
        self,
        total: int,
        done: Callable[[int, int], None] | None,
        each: Callable[[int, Any], None] | None = None,
    ) -> None:
        self.total, self.done, self.each, self.finished = total, done, each, 0

    def step(self, index: int, result: Any) -> None:
        self.finished += 1
        if self.each is not None:
            self.each(index, result)
        if self.done is not None:
            self.done(self.finished, self.total)


#: A record of the task pipe: a task index, or -1 (stop).
_RECORD = struct.Struct("=i")


def _hand_out(fd: int, order: Sequence[int], processes: int) -> None:
    """Write the task indices ``order``, then a stop record for each of ``processes``, to
    the pipe ``fd`` in one write (the pipe made large enough first: then no reader sees
    a record in part, and readers never wait on the writer)."""
    import fcntl

    data = b"".join(_RECORD.pack(i) for i in (*order, *[-1] * processes))
    if len(data) > _PIPE_BYTES:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, len(data))
    written = os.write(fd, data)
    if written != len(data):
        raise RuntimeError(f"the -j task pipe took {written} of {len(data)} bytes")


#: A pipe's capacity on Linux unless enlarged (16,384 tasks' records).
_PIPE_BYTES = 65536


def _take(fd: int) -> int:
    """The next record of the task pipe ``fd``: a task index, or -1 (a stop record, or the
    pipe closed)."""
    data = os.read(fd, _RECORD.size)
    if not data:  # the build process closed it (a worker's end of the pool): stop
        return -1
    if len(data) != _RECORD.size:  # written whole before anyone reads: cannot happen
        raise RuntimeError(f"the -j task pipe gave {len(data)} bytes")
    return int(_RECORD.unpack(data)[0])


def _attempt(fn: TaskFunction, shared: Any, item: Any) -> Any:
    """``fn(shared, item)``, or its exception as an
    :class:`~gradc.compiler.emit_pool.EmitFailure`."""
    try:
        return fn(shared, item)
    except Exception as exc:  # carried back: the build raises it with the task's context
        import traceback

        return EmitFailure(type(exc).__name__, str(exc), traceback.format_exc())


def _serve(
    connection: Any,
    tokens: tuple[int, int],
    warm: Callable[[], None] | None,
    task: tuple[TaskFunction, Any, Sequence[Any]] | None,
) -> None:
    """A worker: ``warm()``, the shared data and the task (unless inherited: ``task``),
    then the tasks whose indices it takes from the pipe ``tokens``, each result sent
    back with its index, until its stop record (Ctrl-C is the build process's to
    handle: it ends the workers)."""
    import pickle
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.close(tokens[1])
    if warm is not None:
        with contextlib.suppress(Exception):  # a task that needs what failed raises it again
            warm()
    try:
        if task is None:
            shared = pickle.loads(connection.recv_bytes())
            fn, items = connection.recv()
        else:
            fn, shared, items = task
        while (index := _take(tokens[0])) >= 0:
            connection.send((index, _attempt(fn, shared, items[index])))
        connection.send(None)
    except (EOFError, BrokenPipeError):  # the build ended first: close() reaps this process
        return
