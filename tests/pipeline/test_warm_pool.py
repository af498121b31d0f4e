"""``gradc build -j N`` with workers forked as the build starts (``gradc.compiler.warm_pool``):
the same artifact, byte for byte, as ``-j 1``; errors raised as in process; no worker left."""

from __future__ import annotations

import math
import multiprocessing
import os
from pathlib import Path

import pytest

import gradc
import gradc.compiler.warm_pool as warm_pool
from gradc.compiler import backend
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_artifact
from gradc.compiler.emit_pool import EmitFailure
from gradc.compiler.options import CompilerOptions

SOURCE = """\
import math
import gradc
from gradc import f64, i64


@gradc.export
def poly(x: f64, a: f64) -> f64:
    return a * x * x + math.sin(x) - 1.5


@gradc.export
def total(x: f64[:], a: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(-a * x[i] * x[i])
    return s


@gradc.export
def count(n: i64) -> i64:
    c = 0
    for i in range(n):
        if i % 3 == 0:
            c += i
    return c


d_poly = gradc.grad(poly, wrt=("x", "a"))
"""


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module, with every -j 2 build of it given a warm pool (pytest-xdist's workers
    carry execnet's I/O thread, which a `gradc build` process has not: the forked workers
    only compile and exit, and never touch execnet's state)."""
    if not hasattr(os, "fork"):
        pytest.skip("warm pools fork")
    monkeypatch.setattr(warm_pool, "WARM_MIN_SOURCE_BYTES", 0)
    monkeypatch.setattr(warm_pool, "start_method", lambda: "fork")
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


def _count_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    real = warm_pool.WarmPool.run

    def counted(self: warm_pool.WarmPool, fn: object, items: list[object], *a: object) -> object:
        runs.append(len(items))
        return real(self, fn, items, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(warm_pool.WarmPool, "run", counted)
    return runs


def test_a_warm_pool_build_equals_the_in_process_build_byte_for_byte(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradc.artifacts.staging import BlobStage

    runs = _count_runs(monkeypatch)
    taken: list[str | None] = []
    real_take = BlobStage.take

    def take(stage: BlobStage, rel: str) -> str | None:
        taken.append(real_take(stage, rel))
        return taken[-1]

    monkeypatch.setattr(BlobStage, "take", take)
    build_artifact(module, tmp_path / "j1", CompilerOptions(jobs=1))
    assert runs == [] and taken == []
    build_artifact(module, tmp_path / "j2", CompilerOptions(jobs=2))
    assert runs and runs[0] >= 4  # four exports (and the runtime, unless cached)
    assert not multiprocessing.active_children()  # the workers were reaped
    # the blobs were written while the build compiled (staged), and renamed into place
    assert sum(t is not None for t in taken) >= 8  # four objects, their wrappers, texts
    assert _files(tmp_path / "j2") == _files(tmp_path / "j1")
    assert not [p for p in (tmp_path / "j2").rglob(".tmp-*")]
    lib = gradc.load(tmp_path / "j2")
    assert lib.poly(0.7, 2.0) == 2.0 * 0.7 * 0.7 + math.sin(0.7) - 1.5
    assert lib.count(10) == sum(i for i in range(10) if i % 3 == 0)


def test_a_module_that_does_not_pickle_is_lowered_in_workers_forked_later(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: warm_pool.WarmPool, shared: object) -> None:
        raise RecursionError("maximum recursion depth exceeded while pickling an object")

    import gradc.compiler.emit_pool as emit_pool

    forked: list[int] = []
    real = emit_pool.run_forked

    def counted(work: object, sizes: list[int], jobs: int, *rest: object) -> object:
        forked.append(len(sizes))
        return real(work, sizes, jobs, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(warm_pool.WarmPool, "share", refuse)
    monkeypatch.setattr(emit_pool, "run_forked", counted)
    monkeypatch.setattr(emit_pool, "start_method", lambda: "fork")
    build_artifact(module, tmp_path / "j1", CompilerOptions(jobs=1))
    build_artifact(module, tmp_path / "j2", CompilerOptions(jobs=2))
    assert forked and forked[0] >= 4
    assert not multiprocessing.active_children()
    assert _files(tmp_path / "j2") == _files(tmp_path / "j1")


def test_errors_in_warm_workers_are_raised_as_in_process(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradc.compiler.ir.loc import Loc

    real = backend._lower_export

    def refusing(module_: object, name: str, *args: object) -> object:
        if name == "count":
            raise CompileError("count cannot be lowered here", Loc.unknown())
        return real(module_, name, *args)  # type: ignore[arg-type]

    runs = _count_runs(monkeypatch)
    monkeypatch.setattr(backend, "_lower_export", refusing)  # the workers fork after this
    messages = []
    for jobs in (1, 2):
        with pytest.raises(CompileError) as info:
            build_artifact(module, tmp_path / f"j{jobs}", CompilerOptions(jobs=jobs))
        messages.append(info.value.message)
        assert not (tmp_path / f"j{jobs}").exists()
    assert messages == ["count cannot be lowered here"] * 2
    assert len(runs) == 1  # the -j 2 build lowered in its warm workers
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("where", ["lowering", "emission"])
def test_crashes_in_tasks_are_reported_as_in_process(
    where: str, module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An internal error of a task (a bug in lowering, LLVM failing on a module) names the
    same stage, step, function, line and message with -j 2 as with -j 1."""
    from gradc.compiler.codegen import emit
    from gradc.compiler.diagnostics import InternalCompilerError

    real_lower, real_emit = backend._lower_export, emit.emit_object

    def lower(module_: object, name: str, *args: object) -> object:
        if name == "count":
            raise KeyError("a lowering bug")
        return real_lower(module_, name, *args)  # type: ignore[arg-type]

    def emit_object(llvm_module: object, options: object) -> object:
        if "gradc_count_" in str(llvm_module):
            raise RuntimeError("LLVM ERROR: a code generator bug")
        return real_emit(llvm_module, options)  # type: ignore[arg-type]

    runs = _count_runs(monkeypatch)
    if where == "lowering":
        monkeypatch.setattr(backend, "_lower_export", lower)  # the workers fork after this
    else:
        monkeypatch.setattr(emit, "emit_object", emit_object)
    reported = []
    for jobs in (1, 2):
        with pytest.raises(InternalCompilerError) as info:
            build_artifact(module, tmp_path / f"j{jobs}", CompilerOptions(jobs=jobs))
        e = info.value
        reported.append((e.message, e.stage, e.step, e.function, e.loc, e.source_line))
        assert not (tmp_path / f"j{jobs}").exists()
    assert reported[0] == reported[1]
    assert reported[0][1] == ("lower" if where == "lowering" else "emit")
    assert reported[0][3] == "count" and "bug" in reported[0][0]
    assert len(runs) == 1  # the -j 2 build ran its tasks in its pool
    assert not multiprocessing.active_children()


def test_a_front_end_error_ends_the_warm_workers(module: Path, tmp_path: Path) -> None:
    module.write_text(SOURCE + "\n@gradc.export\ndef bad(x: f64) -> f64:\n    return y\n")
    with pytest.raises(CompileError, match="'y'"):
        build_artifact(module, tmp_path / "out", CompilerOptions(jobs=2))
    assert not multiprocessing.active_children()


def _add(shared: int, item: int) -> int:
    if item < 0:
        raise ValueError(f"negative item {item}")
    return shared + item


def _die_in_a_worker(parent: int, item: object) -> object:
    """A worker's task ends its process; this process's waits for the workers to end
    (so that a worker surely takes a task, whatever the machine's load)."""
    if os.getpid() != parent:
        os._exit(3)
    for worker in multiprocessing.active_children():
        worker.join(60)
    return item


def _nothing() -> None:
    pass


def test_results_come_back_in_task_order_with_failures_in_place() -> None:
    pool = warm_pool.WarmPool(2, _nothing)
    try:
        pool.share(100)
        done: list[tuple[int, int]] = []
        results = pool.run(
            _add, [1, -2, 3, 4, 5], [5, 4, 3, 2, 1], lambda d, t: done.append((d, t))
        )
    finally:
        pool.close()
    assert results[0] == 101 and results[2:] == [103, 104, 105]
    assert isinstance(results[1], EmitFailure) and results[1].kind == "ValueError"
    assert "negative item -2" in results[1].message
    assert done == [(k, 5) for k in range(1, 6)]
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_fails_the_run() -> None:
    pool = warm_pool.WarmPool(2, _nothing)
    try:
        pool.share(os.getpid())
        with pytest.raises(RuntimeError, match=r"worker process died .*exit code 3"):
            pool.run(_die_in_a_worker, [1, 2, 3, 4], [1, 1, 1, 1])
    finally:
        pool.close()
    assert not multiprocessing.active_children()


def _whose(parent: int, item: Path) -> int:
    """This process's id; a worker's task leaves ``item`` (a file) behind, and the build
    process's waits for one (so that both surely run a task, whatever the load)."""
    import time

    if os.getpid() != parent:
        item.touch()
    else:
        for _ in range(6000):
            if any(item.parent.iterdir()):
                break
            time.sleep(0.01)
    return os.getpid()


def test_the_build_process_is_one_of_the_jobs(tmp_path: Path) -> None:
    pool = warm_pool.WarmPool(2, _nothing)
    try:
        assert len(multiprocessing.active_children()) == 1  # -j 2: this process and one
        pool.share(os.getpid())
        items = [tmp_path / f"{k}" for k in range(4)]
        pids = pool.run(_whose, items, [1, 1, 1, 1])
    finally:
        pool.close()
    assert os.getpid() in pids and len(set(pids)) == 2
    assert not multiprocessing.active_children()
