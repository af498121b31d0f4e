"""``gradc build m.py`` writes ``m.pyi`` beside the artifact: the compiled API for type
checkers (``gradc.artifacts.stubs``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradc.cli.main import cli

SOURCE = """\
import numpy as np
import gradc
from gradc import f32, f64, i64


@gradc.export
def scalars(x: f64, n: i64, flag: bool = True) -> f64:
    return x * n if flag else x


@gradc.export
def image(a: f32[:, ::1], s: f32) -> f32[:, ::1]:
    return a * s


@gradc.export
def pair(x: f64[:]) -> tuple[f64, i64]:
    return x[0], x.shape[0]


@gradc.export("void(f64[:])")
def zero(x):
    x[:] = 0.0


@gradc.export(["f64(f64)", "f32(f32)", "i64(i64)"])
def twice(v):
    return v + v


@gradc.export(["f64(f64)", "f32(f32)"])
def half(v):
    return v * 0.5


@gradc.export(["f64[:](f64[:])", "f32[:](f32[:])"])
def neg(a):
    return -a


d_scalars = gradc.grad(scalars, wrt="x")
"""


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stubs")
    module = root / "m.py"
    module.write_text(SOURCE)
    result = CliRunner().invoke(cli, ["build", str(module), "-j", "1"])
    assert result.exit_code == 0, result.output
    return root / "build" / "m.pyi"


def _defs(path: Path) -> dict[str, list[str]]:
    """Each function's stubs as ``(params) -> result`` texts (several for overloads)."""
    out: dict[str, list[str]] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            args = ", ".join(ast.unparse(a) for a in node.args.args)
            out.setdefault(node.name, []).append(f"({args}) -> {ast.unparse(node.returns)}")
    return out


def test_the_stub_gives_each_export_its_python_types(stub: Path) -> None:
    defs = _defs(stub)
    assert defs["scalars"] == ["(x: float, n: int, flag: bool) -> float"]
    assert "flag: bool = ..." in stub.read_text()  # the default is shown, not its value
    assert defs["d_scalars"] == ["(x: float, n: int, flag: bool) -> float"]
    assert defs["image"] == ["(a: NDArray[np.float32], s: float) -> NDArray[np.float32]"]
    assert defs["pair"] == ["(x: NDArray[np.float64]) -> tuple[float, int]"]
    assert defs["zero"] == ["(x: NDArray[np.float64]) -> None"]
    # one @overload per distinct Python signature (f32 and f64 are both float), the
    # narrowest first (an int also fits `float`, an NDArray[float32] NDArray[float64])
    assert defs["twice"] == ["(v: int) -> int", "(v: float) -> float"]
    assert defs["half"] == ["(v: float) -> float"]
    assert defs["neg"] == [
        "(a: NDArray[np.float32]) -> NDArray[np.float32]",
        "(a: NDArray[np.float64]) -> NDArray[np.float64]",
    ]
    assert stub.read_text().count("@overload") == 4
    assert "twice.f64" not in stub.read_text()  # specialisations: lib["twice.f64"] only


def test_a_rebuild_that_changes_nothing_leaves_the_stub_alone(stub: Path) -> None:
    before = stub.stat().st_mtime_ns
    result = CliRunner().invoke(cli, ["build", str(stub.parent.parent / "m.py"), "-j", "1"])
    assert result.exit_code == 0 and "up to date" in result.output
    assert stub.stat().st_mtime_ns == before


@pytest.mark.slow
def test_mypy_checks_calls_against_the_stub(stub: Path) -> None:
    client = stub.parent / "client.py"
    client.write_text(
        "import numpy as np\nimport m\n\n"
        "a: float = m.scalars(1.0, 2)\n"
        "b = m.image(np.ones((2, 2), np.float32), 2.0)\n"
        "c: int = m.twice(3)\n"
        "d: np.ndarray[tuple[int, ...], np.dtype[np.float32]] = m.neg(np.ones(2, np.float32))\n"
        "m.scalars('x', 2)  # wrong: a str\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", str(client)],
        cwd=stub.parent,
        capture_output=True,
        text=True,
        env={"MYPYPATH": str(stub.parent), "PATH": ""},
    )
    assert run.returncode == 1, run.stdout
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "client.py:8:" in errors[0] and '"str"' in errors[0], run.stdout


def test_building_a_folder_writes_each_modules_stub(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, body in (("a", "x * 2.0"), ("b", "x + 1.0")):
        (pkg / f"{name}.py").write_text(
            f"import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
            f"def {name}(x: f64) -> f64:\n    return {body}\n"
        )
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(pkg), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    stubs = {p.name: _defs(p) for p in out.rglob("*.pyi")}
    assert stubs == {
        "a.pyi": {"a": ["(x: float) -> float"]},
        "b.pyi": {"b": ["(x: float) -> float"]},
    }
