"""``gradc build-all``: many modules, one task each, on a Dask cluster (gradc.cli.distributed).

Oracles: a sequential build of the same modules (the artifacts must be byte-identical)
and CPython running each module's source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import gradc
from gradc.cli.distributed import ModuleTask, ToolchainMismatchError, run_task, toolchain
from gradc.cli.main import cli
from gradc.compiler.options import CompilerOptions

MODULE = """\
import gradc
from gradc import f64


@gradc.export
def shifted(x: f64) -> f64:
    return x * x - {k}.0 * x + 1.0 / (x + {k}.5)
"""


def _package(root: Path, n: int) -> Path:
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for k in range(n):
        folder = pkg / "sub" if k % 2 else pkg
        (folder / f"m{k}.py").write_text(MODULE.format(k=k))
    (pkg / "__init__.py").write_text("")  # no gradc in it: not a module to build
    return pkg


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def test_a_worker_with_another_toolchain_refuses(tmp_path: Path, monkeypatch: Any) -> None:
    pkg = _package(tmp_path, 1)
    import gradc.compiler.driver as driver

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled although the toolchain differs")

    monkeypatch.setattr(driver, "build_module", refuse)
    other = {**toolchain(), "llvm": "0.0.0"}
    task = ModuleTask(pkg / "m0.py", tmp_path / "m0.gradc", CompilerOptions(), other)
    with pytest.raises(ToolchainMismatchError, match="refusing to compile"):
        run_task(task)


def test_unknown_executor_is_a_usage_error(tmp_path: Path) -> None:
    pkg = _package(tmp_path, 1)
    r = CliRunner().invoke(cli, ["build-all", str(pkg), "--executor", "nowhere"])
    assert r.exit_code == 2 and "local:N" in r.output


@pytest.mark.slow
def test_local_cluster_build_is_byte_identical_to_sequential(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="needs dask.distributed (pip install -e '.[test]')")
    pkg = _package(tmp_path, 4)
    outs = {}
    for executor in ("sequential", "local:2"):
        out = tmp_path / executor.replace(":", "-")
        r = CliRunner().invoke(
            cli, ["build-all", str(pkg), "-o", str(out), "--executor", executor, "--timings"]
        )
        assert r.exit_code == 0, r.output
        assert "wrote 4 artifacts" in r.output
        outs[executor] = _files(out)
    assert outs["sequential"] == outs["local:2"]
    out = tmp_path / "local-2"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.gradc")) == [
        "m0.gradc",
        "m2.gradc",
        "sub/m1.gradc",
        "sub/m3.gradc",
    ]
    for k in range(4):
        art = out / ("sub" if k % 2 else "") / f"m{k}.gradc"
        scope: dict[str, Any] = {}
        exec(MODULE.format(k=k), scope)
        assert gradc.load(art).shifted(0.75) == scope["shifted"](0.75)
