"""Builds are byte-reproducible (DESIGN.md §5): the same source built twice gives the same
artifact directory, byte for byte — every file, the manifest and every blob.

Each build runs ``python -m gradc build NAME.py -o out.gradc`` in a separate subprocess,
with its own copy of the source in its own temporary directory (so a different working
directory and a different absolute path), given the same relative path, and with a
different ``PYTHONHASHSEED`` (0 and 12345): set/dict iteration orders and ``hash()`` of
strings differ between the two processes. The two builds run concurrently.

When the bytes differ, the assertion message says where: files present on one side only,
and for the manifest the first fields that differ per entry (a differing
``key_components["ir"]`` changes the key, the symbol and so every blob of that entry).

The artifact must also hold no path of the build: neither build directory nor the home
directory occurs in any file.

The same file given by another path (``/abs/dir/m.py`` instead of ``m.py`` from ``dir``)
builds the same artifact: the cache key hashes the IR's lines and columns, not its paths
(``test_path_spelling_does_not_change_artifact``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CORPUS_ARRAYS = REPO / "tests" / "codegen" / "corpus_arrays"

HASH_SEEDS = ("0", "12345")

#: A small array module for the default run: allocation in helpers, several dtypes,
#: tuples, math calls, raising paths, helpers shared by exports (the reachable-callee set).
ARRAY_SOURCE = """\
import math

import numpy as np

import gradc
from gradc import boolean, f32, f64, i32, i64


def _scaled(a, s):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = a[i] * s
    return out


def _norm(a):
    t = 0.0
    for v in a:
        t += v * v
    return math.sqrt(t)


@gradc.export
def rp_normalize(a: f64[:]) -> f64[:]:
    n = _norm(a)
    if n == 0.0:
        return a.copy()
    return _scaled(a, 1.0 / n)


@gradc.export
def rp_stats(a: f64[:]) -> tuple[f64, f64, i64]:
    lo = a[0]
    hi = a[0]
    k = 0
    for i in range(len(a)):
        if a[i] < lo:
            lo = a[i]
            k = i
        hi = max(hi, a[i])
    return lo, hi, k


@gradc.export
def rp_matmul(A: f64[:, :], B: f64[:, :]) -> f64[:, :]:
    C = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            s = 0.0
            for p in range(A.shape[1]):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


@gradc.export
def rp_mask(a: i32[:], t: i32) -> boolean[:]:
    m = np.zeros(len(a), dtype=np.bool_)
    for i in range(len(a)):
        m[i] = a[i] > t
    return m


@gradc.export
def rp_f32(a: f32[:], b: f32[:]) -> f32[:]:
    out = np.empty(len(a), dtype=np.float32)
    for i in range(len(a)):
        out[i] = a[i] * b[i] + a[i] / b[i]
    return out


@gradc.export
def rp_chain(a: f64[:], steps: i64) -> f64:
    cur = a.copy()
    for _ in range(steps):
        cur = _scaled(cur, 0.5)
    return _norm(cur) + _norm(a)
"""


# ---------------------------------------------------------------------------- helpers


def _env(hashseed: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = hashseed
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _start_build(source: Path, workdir: Path, rel: str, hashseed: str) -> subprocess.Popen[str]:
    """Copy ``source`` to ``workdir/rel`` and start ``gradc build rel`` with cwd ``workdir``."""
    dest = workdir / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
    return subprocess.Popen(
        [sys.executable, "-m", "gradc", "build", rel, "-o", "out.gradc"],
        cwd=workdir,
        env=_env(hashseed),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish(proc: subprocess.Popen[str], timeout: float = 300) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out


def _files(art: Path) -> dict[str, bytes]:
    """Every regular file under ``art`` (relative posix path -> bytes)."""
    return {
        p.relative_to(art).as_posix(): p.read_bytes() for p in sorted(art.rglob("*")) if p.is_file()
    }


def _decode(data: bytes) -> Any:
    import msgpack

    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def _explain(a: dict[str, bytes], b: dict[str, bytes]) -> str:
    """A readable account of how artifact file maps ``a`` and ``b`` differ."""
    lines = []
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    if only_a:
        lines.append(f"only in build 1: {only_a[:8]}{' ...' if len(only_a) > 8 else ''}")
    if only_b:
        lines.append(f"only in build 2: {only_b[:8]}{' ...' if len(only_b) > 8 else ''}")
    for rel in sorted(set(a) & set(b)):
        if a[rel] != b[rel] and rel != "manifest.msgpack":
            lines.append(f"{rel}: same name, different bytes")
    ma, mb = a.get("manifest.msgpack"), b.get("manifest.msgpack")
    if ma is not None and mb is not None and ma != mb:
        da, db = _decode(ma), _decode(mb)
        for field in sorted(set(da) | set(db)):
            if field != "entries" and da.get(field) != db.get(field):
                lines.append(f"manifest[{field!r}]: {da.get(field)!r} != {db.get(field)!r}")
        ea = {e["name"]: e for e in da.get("entries", [])}
        eb = {e["name"]: e for e in db.get("entries", [])}
        if list(ea) != list(eb):
            lines.append(f"entry names/order: {list(ea)} != {list(eb)}")
        shown = 0
        for name in ea:
            if name not in eb or ea[name] == eb[name]:
                continue
            diffs = []
            for field in sorted(set(ea[name]) | set(eb[name])):
                va, vb = ea[name].get(field), eb[name].get(field)
                if va == vb:
                    continue
                if isinstance(va, dict) and isinstance(vb, dict):
                    sub = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
                    diffs.append(f"{field}{sub}")
                else:
                    diffs.append(field)
            lines.append(f"entry {name}: differs in {', '.join(diffs)}")
            shown += 1
            if shown == 5:
                lines.append("...")
                break
    return "\n".join(lines) or "(no difference)"


def _build_twice(source: Path, tmp_path: Path, rel: str | None = None) -> tuple[Path, Path]:
    """Build ``source`` in two subprocesses (two directories, two hash seeds); return the
    two artifact directories. Skips when the source does not build (see the callers)."""
    rel = rel or source.name
    dirs = [tmp_path / "one", tmp_path / "two"]
    procs = [_start_build(source, d, rel, seed) for d, seed in zip(dirs, HASH_SEEDS)]
    results = [_finish(p) for p in procs]
    for (rc, out), seed in zip(results, HASH_SEEDS):
        if rc != 0:
            raise _BuildFailed(f"PYTHONHASHSEED={seed}: exit {rc}\n{out[-3000:]}")
    return dirs[0] / "out.gradc", dirs[1] / "out.gradc"


class _BuildFailed(Exception):
    pass


def _assert_identical(one: Path, two: Path) -> None:
    a, b = _files(one), _files(two)
    assert "manifest.msgpack" in a, sorted(a)
    assert a == b, "artifacts differ:\n" + _explain(a, b)


def _assert_no_paths(art: Path, *paths: Path) -> None:
    needles = {str(p).encode() for p in paths if str(p) not in ("", "/")}
    for rel, data in _files(art).items():
        for needle in needles:
            assert needle not in data, f"{rel} contains the path {needle.decode()!r}"


def _check(source: Path, tmp_path: Path, *, must_build: bool) -> None:
    try:
        one, two = _build_twice(source, tmp_path)
    except _BuildFailed as exc:
        if must_build:
            raise AssertionError(f"{source.name} does not build: {exc}") from None
        last = str(exc).strip().splitlines()[-1]
        pytest.skip(f"{source.name} does not build (yet): {last}")
    _assert_identical(one, two)
    _assert_no_paths(one, tmp_path, Path.home(), REPO)


# ---------------------------------------------------------------------------- tests


def test_scalars_example_reproducible(tmp_path: Path) -> None:
    _check(EXAMPLES / "scalars.py", tmp_path, must_build=True)


def test_array_module_reproducible(tmp_path: Path) -> None:
    """A small array module (allocation, the runtime object, helpers, several dtypes)."""
    source = tmp_path / "src" / "rp_arrays.py"
    source.parent.mkdir()
    source.write_text(ARRAY_SOURCE)
    _check(source, tmp_path, must_build=True)


def test_array_corpus_is_where_the_slow_tests_look() -> None:
    """The slow tests below glob this folder: a moved corpus must not leave them empty."""
    assert len(list(CORPUS_ARRAYS.glob("*.py"))) > 5, CORPUS_ARRAYS


@pytest.mark.slow
def test_array_corpus_reproducible(tmp_path: Path) -> None:
    """A corpus module with arrays: reductions over every dtype."""
    _check(CORPUS_ARRAYS / "reductions.py", tmp_path, must_build=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    [
        *(
            pytest.param(p, id=f"corpus_arrays/{p.stem}")
            for p in sorted(CORPUS_ARRAYS.glob("*.py"))
            if p.stem != "reductions"
        ),
        pytest.param(EXAMPLES / "gmm.py", id="examples/gmm"),
    ],
)
def test_more_modules_reproducible(source: Path, tmp_path: Path) -> None:
    """Every other array corpus module and the GMM example (AD, tape); skipped while a
    module does not build."""
    _check(source, tmp_path, must_build=False)


def test_artifact_copy_is_still_identical(tmp_path: Path) -> None:
    """Rebuilding into a directory that already holds the identical artifact changes no
    byte (the store writes nothing that differs between identical builds)."""
    one, two = _build_twice(EXAMPLES / "scalars.py", tmp_path)
    before = _files(one)
    rc, out = _finish(_start_build(EXAMPLES / "scalars.py", tmp_path / "one", "scalars.py", "7"))
    assert rc == 0, out
    assert _files(one) == before == _files(two)


def test_path_spelling_does_not_change_artifact(tmp_path: Path) -> None:
    """The same file built as ``scalars.py`` (cwd = its directory) and as its absolute path
    (cwd = /) — DESIGN.md §5: no absolute path goes into an artifact, and the key covers
    exactly what changes the generated code."""
    source = EXAMPLES / "scalars.py"
    one = tmp_path / "one"
    rc, out = _finish(_start_build(source, one, "scalars.py", "0"))
    assert rc == 0, out
    two = tmp_path / "two"
    two.mkdir()
    shutil.copyfile(source, two / "scalars.py")
    proc = subprocess.run(
        [sys.executable, "-m", "gradc", "build", str(two / "scalars.py"), "-o", str(two / "out")],
        cwd="/",
        env=_env("0"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    a, b = _files(one / "out.gradc"), _files(two / "out")
    assert a == b, "artifacts differ:\n" + _explain(a, b)
