"""Concurrent ``gradc build`` processes writing into one directory.

Writers serialise on the artifact's file lock (filelock); readers take no lock. Eight
builders of one module into one empty directory all succeed and leave exactly one valid
manifest and no temporary files; eight builders of eight modules into one build directory
lose no artifact.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gradc
from gradc.artifacts.manifest import MANIFEST_NAME
from gradc.artifacts.store import LOCK_NAME, find_damage, read_manifest, referenced_blobs

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
N = 8


def _start_builds(args: list[list[str]], cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start one ``python -m gradc build ARGS`` per item at once; wait for all of them."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gradc", "build", *a],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in args
    ]
    done = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    return done


def _assert_clean(art: Path) -> None:
    """One valid manifest, every blob intact, nothing else (no temporaries, no strays)."""
    m = read_manifest(art)
    assert find_damage(art) == []
    files = {p.relative_to(art).as_posix() for p in art.rglob("*") if p.is_file()}
    assert files == {MANIFEST_NAME, LOCK_NAME} | referenced_blobs(m)


def test_same_module_into_one_empty_directory(tmp_path: Path) -> None:
    out = tmp_path / "shared" / "scalars.gradc"
    results = _start_builds([[str(EXAMPLES / "scalars.py"), "-o", str(out)]] * N, tmp_path)
    for r in results:
        assert r.returncode == 0, r.stderr
        assert "warning" not in r.stderr
    _assert_clean(out)
    assert read_manifest(out).names() == ["poly", "hypot_clamped"]
    assert gradc.load(out).hypot_clamped(3.0, 4.0) == 5.0


def _module(i: int) -> str:
    return textwrap.dedent(
        f"""\
        import gradc
        from gradc import f64


        @gradc.export
        def scale{i}(x: f64) -> f64:
            return x * {i + 2}.0 + {i}.5
        """
    )


def test_different_modules_into_one_build_directory(tmp_path: Path) -> None:
    for i in range(N):
        (tmp_path / f"mod{i}.py").write_text(_module(i))
    # no -o: every builder creates (or finds) ./build/ and writes build/mod<i>.gradc
    results = _start_builds([[f"mod{i}.py"] for i in range(N)], tmp_path)
    for r in results:
        assert r.returncode == 0, r.stderr
    build = tmp_path / "build"
    assert sorted(p.name for p in build.iterdir()) == sorted(
        f"mod{i}{suffix}" for i in range(N) for suffix in (".gradc", ".pyi")
    )
    for i in range(N):
        art = build / f"mod{i}.gradc"
        _assert_clean(art)
        f = getattr(gradc.load(art), f"scale{i}")
        assert f(1.25) == 1.25 * (i + 2) + i + 0.5


@pytest.mark.parametrize("rounds", [40])
def test_readers_during_rewrites_never_see_a_torn_artifact(tmp_path: Path, rounds: int) -> None:
    """Lock-free readers loading while another process rewrites the artifact (alternating
    between two builds) always get a whole artifact: one of the two, never a mix."""
    src = tmp_path / "flip.py"
    variants = [_module(1), _module(1).replace("* 3.0", "* 30.0")]
    out = tmp_path / "flip.gradc"
    src.write_text(variants[0])
    assert _start_builds([[str(src), "-o", str(out)]], tmp_path)[0].returncode == 0
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _REWRITER,
            str(src),
            str(out),
            str(rounds),
            *variants,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline() == "ready\n"  # both builds compiled: writes start now
    seen = set()
    loads = 0
    try:
        while writer.poll() is None and loads < 3000:
            loads += 1
            seen.add(gradc.load(out, fastcall=False).scale1(1.0))
    finally:
        assert writer.wait(timeout=300) == 0
    # (on this machine a reader sees both builds in ~1000 loads; timing is not asserted)
    assert loads > 0 and seen <= {1.0 * 3 + 1.5, 1.0 * 30 + 1.5}
    _assert_clean(out)


_REWRITER = """
import sys
from pathlib import Path
from gradc.artifacts.store import write_artifact
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions
src, out, rounds, *texts = sys.argv[1:]
builds = []
for t in texts:
    Path(src).write_text(t)
    builds.append(build_module(Path(src), CompilerOptions()))
print("ready", flush=True)
for _ in range(int(rounds)):
    for b in builds:
        write_artifact(out, b)
"""
