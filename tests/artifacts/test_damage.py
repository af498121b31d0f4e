"""Damaged artifacts: a truncated manifest, a flipped byte in a blob, a missing blob.

Each is found by the per-blob sha256 (or the manifest's own decoding) before anything is
linked: ``gradc.load`` raises an ArtifactError naming the file, and ``gradc build`` into
the damaged directory warns, naming the file, and rewrites what is damaged.
"""

from __future__ import annotations

import math
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.errors import ArtifactError, ArtifactWarning
from gradc.artifacts.manifest import MANIFEST_NAME, Manifest
from gradc.artifacts.store import find_damage, read_manifest, write_artifact
from gradc.cli.main import cli

from .fakes import PRODUCER, fake_build

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _poly(x: float, n: int) -> float:
    """examples/scalars.py's ``poly`` run by CPython (the oracle)."""
    return sum(math.sin(x * k) / (k + 1) for k in range(n))


def _flip(path: Path, at: float = 0.5) -> None:
    """Flip every bit of one byte of ``path`` (same length: only the sha256 can tell)."""
    data = bytearray(path.read_bytes())
    i = int(len(data) * at)
    data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _blob(m: Manifest, which: str) -> str:
    """Relative path of the entry object, wrapper object or runtime object of ``m``."""
    e = m.entry("poly")
    if which == "object":
        return e.object
    if which == "wrapper":
        assert e.wrapper is not None
        return e.wrapper.object
    assert m.runtime is not None
    return m.runtime.object


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("damage") / "scalars.gradc"
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _damaged(built: Path, tmp_path: Path, kind: str, which: str) -> tuple[Path, Path]:
    """A copy of ``built`` with one file damaged; returns (artifact, damaged file)."""
    art = tmp_path / "scalars.gradc"
    shutil.copytree(built, art)
    if which == "manifest":
        target = art / MANIFEST_NAME
    else:
        target = art / _blob(read_manifest(art), which)
    {"truncate": _truncate, "flip": _flip, "missing": Path.unlink}[kind](target)
    return art, target


DAMAGES = [
    ("truncate", "manifest"),
    ("flip", "manifest"),
    ("flip", "object"),
    ("truncate", "object"),
    ("missing", "object"),
    ("flip", "wrapper"),
    ("missing", "wrapper"),
    ("flip", "runtime"),
    ("missing", "runtime"),
]


@pytest.mark.parametrize(("kind", "which"), DAMAGES)
def test_load_refuses_damage_naming_the_file(
    built: Path, tmp_path: Path, kind: str, which: str
) -> None:
    art, target = _damaged(built, tmp_path, kind, which)
    problems = find_damage(art)
    assert len(problems) == 1 and target.name in problems[0], problems
    if which == "runtime" and _runtime_linked():
        # The runtime object is read only by the first artifact loaded in a process; this
        # process already has one, so the damaged copy is never read (nor linked).
        pytest.skip("runtime already linked in this process (checked in a fresh process)")
    with pytest.raises(ArtifactError, match=rf"{target.name}\b.*(missing|corrupt|truncated)"):
        gradc.load(art)


def _runtime_linked() -> bool:
    from gradc.artifacts.loader import linking

    return linking.linked_runtime() is not None


@pytest.mark.parametrize("which", ["runtime", "object"])
def test_fresh_process_refuses_damage(built: Path, tmp_path: Path, which: str) -> None:
    import subprocess
    import sys

    art, target = _damaged(built, tmp_path, "flip", which)
    code = (
        "import sys, gradc\n"
        "from gradc.artifacts.errors import ArtifactError\n"
        "try:\n    gradc.load(sys.argv[1])\n"
        "except ArtifactError as exc:\n    print('refused:', exc)\n"
        "else:\n    print('loaded')\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(art)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused:") and target.name in r.stdout, r.stdout


@pytest.mark.parametrize(("kind", "which"), DAMAGES)
def test_build_warns_and_rebuilds(built: Path, tmp_path: Path, kind: str, which: str) -> None:
    art, target = _damaged(built, tmp_path, kind, which)
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(art)])
    assert r.exit_code == 0, r.output
    assert "gradc: warning:" in r.stderr and target.name in r.stderr, r.stderr
    assert find_damage(art) == []
    assert {p.name for p in art.rglob("*")} == {p.name for p in built.rglob("*")}
    lib = gradc.load(art)
    assert lib.poly(0.7, 9) == pytest.approx(_poly(0.7, 9), rel=1e-12)


def test_intact_rebuild_does_not_warn(built: Path, tmp_path: Path) -> None:
    art = tmp_path / "scalars.gradc"
    shutil.copytree(built, art)
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(art)])
    assert r.exit_code == 0, r.output
    assert "warning" not in r.stderr


@pytest.mark.parametrize(
    "damage",
    [
        lambda out, m: _flip(out / m.entry("f").object),
        lambda out, m: (out / m.entry("g").texts["ir"]).unlink(),
        lambda out, m: _truncate(out / MANIFEST_NAME),
    ],
    ids=["flipped-object", "missing-text", "truncated-manifest"],
)
def test_write_artifact_warns_by_default(
    tmp_path: Path, damage: Callable[[Path, Manifest], None]
) -> None:
    out = tmp_path / "m.gradc"
    m = write_artifact(out, fake_build("f", "g"), producer=PRODUCER)
    damage(out, m)
    with pytest.warns(ArtifactWarning, match=r"damaged artifact .*m\.gradc: .*rebuilding it"):
        write_artifact(out, fake_build("f", "g"), producer=PRODUCER)
    assert find_damage(out) == []
    seen: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        damage(out, m)
        write_artifact(out, fake_build("f", "g"), producer=PRODUCER, on_damage=seen.append)
    assert len(seen) == 1 and find_damage(out) == []


def test_no_artifact_is_not_damage(tmp_path: Path) -> None:
    assert find_damage(tmp_path / "nothing.gradc") == []
    (tmp_path / "empty.gradc").mkdir()
    assert find_damage(tmp_path / "empty.gradc") == []
