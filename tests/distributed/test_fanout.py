"""``gradc build DIR --executor``: front ends and emissions as Dask tasks
(gradc.compiler.fanout, gradc.cli.distributed), on one real LocalCluster of processes
shared by this module's tests (``scheduler``).

Oracles: the local sequential build of the same modules (the artifacts must be
byte-identical), CPython running the modules for values, and the local build's stderr
for errors.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import gradc
from gradc.cli.main import cli
from gradc.compiler.fanout import (
    ToolchainMismatchError,
    emit_task,
    plan_module,
    toolchain_identity,
)
from gradc.compiler.options import CompilerOptions

from .package import files, module_text, write_package

distributed = pytest.importorskip(
    "distributed", reason="needs dask.distributed (pip install -e '.[test]')"
)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of 2 single-threaded worker processes."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def _gradc(*args: str) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_fanned_out_cpu_variants_are_byte_identical_to_the_local_build(
    tmp_path: Path, scheduler: str
) -> None:
    pkg = write_package(tmp_path, 2)
    cpus = ("--cpu", "x86-64,x86-64-v3")
    local = _gradc("build-all", pkg, "-o", tmp_path / "L", *cpus)  # the documented alias
    assert local.exit_code == 0, local.output
    r = _gradc("build", pkg, "-o", tmp_path / "R", *cpus, "--executor", scheduler, "--timings")
    assert r.exit_code == 0, r.output
    # per module: 5 exports x 2 CPU variants, and the runtime, each its own task
    assert "wrote 2 artifacts" in r.output and "22 objects compiled" in r.output
    assert "front end" in r.output and "emit" in r.output
    assert sorted(files(tmp_path / "R")) == sorted(files(tmp_path / "L"))
    assert files(tmp_path / "R") == files(tmp_path / "L")
    assert {p.name for p in (tmp_path / "R").rglob("*.gradc")} == {"m00.gradc", "m01.gradc"}
    scope: dict[str, Any] = {}
    exec(module_text(1, 1), scope)
    lib = gradc.load(tmp_path / "R" / "sub" / "m01.gradc")
    assert lib.energy1_0(0.75, -1.25) == scope["energy1_0"](0.75, -1.25)


def test_fanned_out_cuda_kernel_is_byte_identical_to_the_local_build(
    tmp_path: Path, scheduler: str
) -> None:
    from tests.cuda.conftest import toolchain_or_skip

    toolchain_or_skip()
    source = tmp_path / "k.py"
    source.write_text(
        "import math\n\nimport gradc\nfrom gradc import cuda, f64\n\n\n@gradc.kernel\n"
        "def saxpy(a: f64, x: f64[:], y: f64[:], out: f64[:]):\n"
        "    i = cuda.grid(1)\n    if i < x.shape[0]:\n"
        "        out[i] = a * x[i] + math.sin(y[i])\n"
    )
    cuda = ("--target", "cuda", "--cuda-arch", "sm_80,sm_90")
    local = _gradc("build", source, "-o", tmp_path / "L", *cuda)
    assert local.exit_code == 0, local.output
    r = _gradc("build", source, "-o", tmp_path / "R", *cuda, "--executor", scheduler)
    assert r.exit_code == 0, r.output
    # saxpy's CPU entry in two CPU variants (it handles arrays: docs/artifacts.md "CPU
    # variants"), its PTX and cubins, the runtime
    assert "4 objects compiled" in r.output
    assert files(tmp_path / "R") == files(tmp_path / "L")


BAD = """\
import gradc
from gradc import f64


def helper(x: f64) -> f64:
    return [x, 2.0 * x]


@gradc.export
def f(x: f64) -> f64:
    return helper(x) + 1.0
"""


def test_a_compile_error_on_a_worker_prints_as_a_local_build_prints_it(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths in the diagnostic, as a user types them
    Path("bad.py").write_text(BAD)
    local = _gradc("build", "bad.py")
    remote = _gradc("build", "bad.py", "--executor", scheduler)
    assert local.exit_code == remote.exit_code == 1
    assert "bad.py:6:12: error:" in local.stderr and "^" in local.stderr
    assert "note: in helper" in local.stderr  # the call chain survives the trip
    assert remote.stderr == local.stderr
    assert not Path("build").exists()


def test_a_worker_with_another_toolchain_refuses(tmp_path: Path, scheduler: str) -> None:
    pkg = write_package(tmp_path, 1)

    def patch(llvm: str | None) -> None:  # runs on each worker (pickled by value)
        import gradc.artifacts.toolchain as toolchain

        if llvm is None:
            toolchain.host_producer = toolchain.__dict__["_real_host_producer"]
            return
        real = toolchain.__dict__.setdefault("_real_host_producer", toolchain.host_producer)
        toolchain.host_producer = lambda: dataclasses.replace(real(), llvm=llvm)

    with distributed.Client(scheduler) as client:
        client.run(patch, "0.0.0-other")
        try:
            r = _gradc("build", pkg, "-o", tmp_path / "out", "--executor", scheduler)
        finally:
            client.run(patch, None)
    assert r.exit_code == 1, r.output
    assert "refusing to compile the front end of" in r.stderr
    assert "llvm: worker '0.0.0-other'" in r.stderr
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Any:
    source = tmp_path_factory.mktemp("plan") / "m.py"
    source.write_text(module_text(3, 1))
    return plan_module(source, CompilerOptions(), toolchain_identity())


def test_an_emit_task_whose_key_names_another_llvm_is_refused(plan: Any) -> None:
    task = plan.tasks[0]
    assert task.kind == "cpu"
    other = dataclasses.replace(task, components={**task.components, "versions.llvm": "1.0"})
    with pytest.raises(
        ToolchainMismatchError, match=r"llvm \(key\): worker '[\d.]+', expected '1.0'"
    ):
        emit_task(other)


def test_an_emit_task_whose_ir_is_not_what_its_key_hashes_is_refused(plan: Any) -> None:
    task = next(t for t in plan.tasks if t.export.startswith("energy"))
    assert "const 3.05 : f64" in task.ir_text
    edited = dataclasses.replace(task, ir_text=task.ir_text.replace("3.05", "3.06", 1))
    with pytest.raises(ToolchainMismatchError, match="not to its key's ir component"):
        emit_task(edited)
    assert emit_task(task).codes[0][:4] == b"\x7fELF"


def test_unknown_executor_is_a_usage_error(tmp_path: Path) -> None:
    pkg = write_package(tmp_path, 1)
    r = _gradc("build", pkg, "--executor", "nowhere")
    assert r.exit_code == 2 and "local:N" in r.output


@pytest.mark.slow
def test_forty_modules_on_local_2_are_byte_identical_to_a_sequential_build(
    tmp_path: Path,
) -> None:
    pkg = write_package(tmp_path, 40)
    seq = _gradc("build", pkg, "-o", tmp_path / "seq")
    assert seq.exit_code == 0, seq.output
    dist = _gradc("build", pkg, "-o", tmp_path / "dist", "--executor", "local:2")
    assert dist.exit_code == 0, dist.output
    assert "wrote 40 artifacts" in dist.output
    assert files(tmp_path / "dist") == files(tmp_path / "seq")
    assert len(list((tmp_path / "dist").rglob("*.gradc"))) == 40
    shutil.rmtree(tmp_path / "seq")


GOOD = """
import gradc
from gradc import f64


@gradc.export
def f(x: f64) -> f64:
    return 2.0 * x
"""

UNDEFINED = GOOD.replace("2.0 * x", "2.0 * y")


@pytest.mark.parametrize("fanned_out", [False, True], ids=["sequential", "executor"])
def test_every_module_that_compiles_is_built_and_every_error_reported(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch, fanned_out: bool
) -> None:
    """Two modules with compile errors around one that compiles: the good one is built,
    each error is printed exactly as building that module alone prints it, the exit
    status is 1, and no worker logs a "Compute Failed" traceback for them."""
    monkeypatch.chdir(tmp_path)
    pkg = Path("pkg")
    pkg.mkdir()
    (pkg / "a_bad.py").write_text(BAD)
    (pkg / "b_good.py").write_text(GOOD)
    (pkg / "c_bad.py").write_text(UNDEFINED)
    alone = [
        _gradc("build", pkg / name, "-o", f"alone/{name}") for name in ("a_bad.py", "c_bad.py")
    ]
    assert [a.exit_code for a in alone] == [1, 1] and all(": error:" in a.stderr for a in alone)
    executor = ("--executor", scheduler) if fanned_out else ()
    with distributed.Client(scheduler) as client:
        failed_before = str(client.get_worker_logs()).count("Compute Failed")
        r = _gradc("build", pkg, "-o", "out", *executor)
        failed_after = str(client.get_worker_logs()).count("Compute Failed")
    assert r.exit_code == 1, r.output
    assert r.stderr == alone[0].stderr + alone[1].stderr
    assert failed_after == failed_before
    assert sorted(p.name for p in Path("out").rglob("*.gradc")) == ["b_good.gradc"]
    assert gradc.load(Path("out") / "b_good.gradc").f(1.25) == 2.5
