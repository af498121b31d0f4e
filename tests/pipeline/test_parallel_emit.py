"""``gradc build -j N``: code generation in worker processes gives the same artifact,
byte for byte, as ``-j 1`` (``gradc.compiler.emit_pool``)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import gradc
import gradc.compiler.emit_pool as emit_pool
from gradc.cli.main import cli
from gradc.compiler.driver import build_artifact
from gradc.compiler.emit_pool import EmitFailure, EmitTask, emit_all, worth_a_pool
from gradc.compiler.options import CompilerOptions

SOURCE = """\
import math
import numpy as np
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
def scaled(x: f64[:], a: f64) -> f64[:]:
    return a * np.tanh(x) + 1.0


@gradc.export
def count(n: i64) -> i64:
    c = 0
    for i in range(n):
        if i % 3 == 0:
            c += i
    return c


d_poly = gradc.grad(poly, wrt=("x", "a"))
d_total = gradc.grad(total, wrt=("x", "a"))
"""


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


def _fork_despite_test_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the forked path run under pytest-xdist, whose workers carry execnet's I/O thread
    (a `gradc build` process has none): the forked workers only compile and exit, and never
    touch execnet's state."""
    if hasattr(os, "fork"):
        monkeypatch.setattr(emit_pool, "start_method", lambda: "fork")


@pytest.mark.parametrize("way", ["forked", "emit_all"])
def test_a_pool_build_equals_the_in_process_build_byte_for_byte(
    way: str, module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial, pooled = tmp_path / "j1", tmp_path / "j2"
    build_artifact(module, serial, CompilerOptions(jobs=1))
    calls: list[int] = []
    if way == "forked":  # workers forked after the keys stage lower and emit each job
        real_forked = emit_pool.run_forked

        def counted_forked(work: object, sizes: list[int], jobs: int, *rest: object) -> object:
            calls.append(len(sizes))
            return real_forked(work, sizes, jobs, *rest)  # type: ignore[arg-type]

        monkeypatch.setattr(emit_pool, "FORK_MIN_IR_BYTES", 0)
        monkeypatch.setattr(emit_pool, "run_forked", counted_forked)
        _fork_despite_test_threads(monkeypatch)
    else:  # lowered here, emitted by workers from the LLVM IR text
        real = emit_pool.emit_all

        def counted(tasks: list[EmitTask], jobs: int) -> list[object]:
            calls.append(len(tasks))
            return real(tasks, jobs)

        monkeypatch.setattr(emit_pool, "FORK_MIN_IR_BYTES", 1 << 60)
        monkeypatch.setattr(
            emit_pool, "POOL_MIN_TEXT_BYTES", {"fork": 0, "spawn": 0}
        )  # every build pays here
        monkeypatch.setattr(emit_pool, "emit_all", counted)
    build_artifact(module, pooled, CompilerOptions(jobs=2))
    assert calls, "the -j 2 build did not use the pool"
    assert calls[0] >= (6 if way == "forked" else 7)  # six exports (their wrappers, runtime)
    assert _files(pooled) == _files(serial)
    lib = gradc.load(pooled)
    x = np.linspace(-1.0, 2.0, 7)
    assert lib.poly(0.7, 2.0) == 2.0 * 0.7 * 0.7 + math.sin(0.7) - 1.5
    assert lib.total(x, 0.5) == sum(math.exp(-0.5 * v * v) for v in x)
    np.testing.assert_array_equal(lib.scaled(x, 3.0), [3.0 * math.tanh(v) + 1.0 for v in x])
    assert lib.count(10) == sum(i for i in range(10) if i % 3 == 0)


def test_the_cli_builds_the_same_artifact_for_every_jobs_count(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emit_pool, "POOL_MIN_TEXT_BYTES", {"fork": 0, "spawn": 0})
    runner = CliRunner()
    outs = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"cli{jobs}"
        result = runner.invoke(cli, ["build", str(module), "-o", str(out), "-j", jobs])
        assert result.exit_code == 0, result.output
        outs.append(_files(out))
    assert outs[0] == outs[1] == outs[2]


def test_jobs_below_one_are_refused(module: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(module), "-j", "0"])
    assert result.exit_code == 2
    assert "-j" in result.output or "--jobs" in result.output
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        CompilerOptions(jobs=0)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_worker_failure_comes_back_as_a_failure_of_its_task(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emit_pool, "start_method", lambda: method)
    good = EmitTask("define i64 @f(i64 %x) {\n  ret i64 %x\n}\n", CompilerOptions(), "good")
    bad = EmitTask("this is not LLVM IR", CompilerOptions(), "bad")
    results = emit_all([good, bad, good], jobs=2)
    assert not isinstance(results[0], EmitFailure) and results[0].object_code
    assert results[0].object_code == results[2].object_code
    assert isinstance(results[1], EmitFailure)
    assert results[1].kind == "RuntimeError" and "parsing error" in results[1].message


@pytest.mark.parametrize(
    ("sizes", "jobs", "expected"),
    [
        ([10**6, 10**6], 1, False),  # -j 1
        ([10**6], 4, False),  # one task
        ([100, 100, 100], 4, False),  # too little text to pay for workers
        ([40_000, 40_000], 2, True),
    ],
)
def test_small_builds_stay_in_process(
    sizes: list[int], jobs: int, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(emit_pool, "start_method", lambda: "fork")
    tasks = [EmitTask("x" * n, CompilerOptions(), "t") for n in sizes]
    assert worth_a_pool(tasks, jobs) is expected


def test_a_lowering_error_in_a_forked_worker_is_raised_as_in_process(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradc.compiler import backend
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.ir.loc import Loc

    real = backend._lower_export

    def refusing(module_: object, name: str, *args: object) -> object:
        if name == "count":
            raise CompileError("count cannot be lowered here", Loc.unknown())
        return real(module_, name, *args)  # type: ignore[arg-type]

    forked: list[int] = []
    real_forked = emit_pool.run_forked

    def counted(work: object, sizes: list[int], jobs: int, *rest: object) -> object:
        forked.append(jobs)
        return real_forked(work, sizes, jobs, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(backend, "_lower_export", refusing)
    monkeypatch.setattr(emit_pool, "FORK_MIN_IR_BYTES", 0)
    monkeypatch.setattr(emit_pool, "run_forked", counted)
    _fork_despite_test_threads(monkeypatch)
    messages = []
    for jobs in (1, 2):
        with pytest.raises(CompileError) as info:
            build_artifact(module, tmp_path / f"j{jobs}", CompilerOptions(jobs=jobs))
        messages.append(info.value.message)
        assert not (tmp_path / f"j{jobs}").exists()
    assert messages == ["count cannot be lowered here"] * 2
    assert forked == [2]  # the -j 2 build lowered in forked workers
