"""An artifact is self-contained: built in one process, it loads and runs correctly in
another whose memory layout cannot match the build's.

The artifacts (a module of this file with scalar and array exports, and
examples/scalars.py) are built by ``python -m gradc build`` in a subprocess
(``PYTHONHASHSEED=0``). Each check then starts a *fresh* Python process that loads them
and calls every export on a fixed list of cases, comparing each result with CPython
running the same source (the plain module: ``@gradc.export`` is inert) — bit for bit for
floats and arrays, type and message for exceptions. The comparison runs in the child; it
prints a JSON report (mismatches, a digest of all compiled results, the runtime's live
block count after the results are dropped, whether compiler code was imported).

Children:

- ``fresh``: numpy imported first, then the artifact loaded from where it was built, cwd
  the build directory, ``PYTHONHASHSEED=0``;
- ``perturbed``: before anything else it maps and touches 320 MiB, makes ~20,000 Python
  and a few hundred malloc allocations of assorted sizes (some freed again), imports a
  dozen unrelated stdlib modules, then loads the artifacts in the other order from a
  *copy* in another directory with numpy not yet imported (the loader imports it), with
  cwd an unrelated directory, ``PYTHONHASHSEED=12345`` and ``MALLOC_PERTURB_`` set (glibc
  then fills fresh and freed malloc memory with a pattern, so a read of uninitialised or
  freed runtime memory changes results).

Both must agree with CPython and with each other (same digest), free every runtime block
(``runtime_stats()["live"] == 0``) and never import ``gradc.compiler``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

MODULE_SOURCE = '''\
"""Exports for tests/loader/test_process_isolation.py (plain Python is the oracle)."""

import math

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def iso_poly(x: f64, n: i64) -> f64:
    s = 0.0
    for k in range(n):
        s += math.sin(x * k) / (k + 1)
    return s


@gradc.export
def iso_floordiv(a: i64, b: i64) -> i64:
    return a // b


@gradc.export
def iso_divmod(a: f64, b: f64) -> tuple[f64, f64]:
    return a // b, a % b


@gradc.export
def iso_dot(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@gradc.export
def iso_get(a: f64[:], i: i64) -> f64:
    return a[i]


def _smooth(a):
    out = np.empty(len(a))
    for i in range(len(a)):
        lo = a[i - 1] if i > 0 else a[i]
        hi = a[i + 1] if i + 1 < len(a) else a[i]
        out[i] = (lo + 2.0 * a[i] + hi) / 4.0
    return out


@gradc.export
def iso_smooth(a: f64[:], steps: i64) -> f64[:]:
    cur = a.copy()
    for _ in range(steps):
        cur = _smooth(cur)
    return cur


@gradc.export
def iso_matmul(A: f64[:, :], B: f64[:, :]) -> f64[:, :]:
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


@gradc.export
def iso_counts(a: i64[:], bins: i64) -> i64[:]:
    out = np.zeros(bins, dtype=np.int64)
    for v in a:
        out[v % bins] += 1
    return out


@gradc.export
def iso_scale_inplace(a: f64[:, :], s: f64) -> None:
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] *= s
'''

#: The child: ``python -c CHILD MODE ISO_ARTIFACT ISO_SOURCE SCALARS_ARTIFACT SCALARS_SOURCE``.
CHILD = r"""
import sys

mode = sys.argv[1]
iso_art, iso_src, sc_art, sc_src = sys.argv[2:6]
keep = []
if mode == "perturbed":
    import ctypes
    import mmap
    import random

    rnd = random.Random(99)
    big = mmap.mmap(-1, 320 << 20)
    for off in range(0, len(big), 4096):
        big[off] = 1
    keep.append(big)
    objs = [bytearray(rnd.randrange(1, 5000)) for _ in range(20000)]
    keep.append(objs[::2])
    del objs
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(rnd.choice((24, 40, 56, 100, 4000, 70000, 300000))) for _ in range(400)]
    for p in blocks[1::3]:
        libc.free(p)
    import asyncio, decimal, email.mime.text, fractions, json, sqlite3, statistics  # noqa
    import unittest.mock, xml.etree.ElementTree, zipfile, tarfile, csv  # noqa
    import gradc

    assert "numpy" not in sys.modules
    lib_sc = gradc.load(sc_art)
    lib = gradc.load(iso_art)
    import numpy as np
else:
    import numpy as np
    import gradc

    lib = gradc.load(iso_art)
    lib_sc = gradc.load(sc_art)

import gc
import hashlib
import importlib.util
import json
import math


def plain(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


py = plain(iso_src, "iso_plain")
py_sc = plain(sc_src, "scalars_plain")


def enc(v):
    if isinstance(v, np.ndarray):
        return ["array", v.dtype.str, list(v.shape), np.ascontiguousarray(v).tobytes().hex()]
    if isinstance(v, tuple):
        return ["tuple", [enc(x) for x in v]]
    if isinstance(v, bool) or v is None:
        return [type(v).__name__, v]
    if isinstance(v, float):
        return ["float", v.hex()]
    if isinstance(v, int):
        return ["int", v]
    return ["other", type(v).__name__, repr(v)]


def outcome(fn, args):
    try:
        return ["ok", enc(fn(*args))]
    except (ValueError, ZeroDivisionError, OverflowError, IndexError) as exc:
        return ["raise", type(exc).__name__, str(exc)]


rng = np.random.default_rng(20240531)


def arr(*shape, order="C"):
    a = rng.uniform(-10, 10, size=shape)
    return np.asfortranarray(a) if order == "F" else np.ascontiguousarray(a)


cases = []  # (name, compiled fn, plain fn, args builder)
for x in (-3.7, -0.5, 0.0, 0.3, 1.1, 2500.0, float("inf"), float("nan")):
    for n in (0, 1, 7, 50):
        cases.append(("iso_poly", lib.iso_poly, py.iso_poly, (lambda x=x, n=n: (x, n))))
        cases.append(("poly", lib_sc.poly, py_sc.poly, (lambda x=x, n=n: (x, n))))
for a, b in ((3.0, 4.0), (-30.0, 40.0), (1e200, 1e200), (float("nan"), 1.0), (0.0, -0.0)):
    cases.append(("hypot_clamped", lib_sc.hypot_clamped, py_sc.hypot_clamped, (lambda a=a, b=b: (a, b))))
for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5), (5, 0), (2**62, -3), (-(2**63), 7)):
    cases.append(("iso_floordiv", lib.iso_floordiv, py.iso_floordiv, (lambda a=a, b=b: (a, b))))
for a, b in ((7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (1.0, 0.0), (-0.0, 3.0), (1e308, 1e-308),
             (float("inf"), 2.0), (3.0, float("inf")), (float("nan"), 1.0)):
    cases.append(("iso_divmod", lib.iso_divmod, py.iso_divmod, (lambda a=a, b=b: (a, b))))
for n in (0, 1, 2, 17, 100):
    a, b = arr(n), arr(2 * n)[::2]
    cases.append(("iso_dot", lib.iso_dot, py.iso_dot, (lambda a=a, b=b: (a, b))))
    for i in (-n - 2, -n, -1, 0, n - 1, n, n + 3):
        cases.append(("iso_get", lib.iso_get, py.iso_get, (lambda a=a, i=i: (a, i))))
    for steps in (0, 1, 4):
        src = arr(n) if n % 2 else arr(3 * n)[::-3]
        cases.append(("iso_smooth", lib.iso_smooth, py.iso_smooth, (lambda s=src, k=steps: (s, k))))
for m, k, n in ((0, 0, 0), (1, 1, 1), (3, 0, 2), (2, 5, 3), (7, 4, 6), (16, 16, 16)):
    A, B = arr(m, k), arr(k, n, order="F")
    cases.append(("iso_matmul", lib.iso_matmul, py.iso_matmul, (lambda A=A, B=B: (A, B))))
# (bins == 0 with elements: NumPy's int64 % 0 is 0 with a warning, not Python's error.)
for n, bins in ((0, 1), (10, 3), (100, 7), (1000, 1), (0, 0)):
    ints = rng.integers(-50, 50, size=n)
    cases.append(("iso_counts", lib.iso_counts, py.iso_counts, (lambda v=ints, b=bins: (v, b))))
for m, n in ((0, 3), (2, 2), (5, 9)):
    base = arr(m, n)
    for order in ("C", "F"):
        mat = np.asfortranarray(base) if order == "F" else base

        def scale(fn, mat=mat):
            def run(a, s):
                a = a.copy(order="K")
                return fn(a, s), a

            return run

        cases.append(("iso_scale_inplace", scale(lib.iso_scale_inplace), scale(py.iso_scale_inplace),
                      (lambda mat=mat: (mat, -1.5))))

mismatches = []
digest = hashlib.sha256()
for rep in range(3):
    for name, fn, oracle, make in cases:
        got = outcome(fn, make())
        want = outcome(oracle, make())
        if got != want and len(mismatches) < 20:
            mismatches.append({"case": name, "args": repr(make())[:200], "got": got, "want": want})
        if rep == 0:
            digest.update(json.dumps(got).encode())
    kept = [lib.iso_smooth(arr(50), 2) for _ in range(100)]
    del kept

gc.collect()
print(json.dumps({
    "cases": len(cases),
    "mismatches": mismatches,
    "digest": digest.hexdigest(),
    "live": gradc.runtime_stats()["live"],
    "compiler_imported": sorted(m for m in sys.modules if m.startswith("gradc.compiler")),
    "hashseed": __import__("os").environ.get("PYTHONHASHSEED"),
}))
"""


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MALLOC_PERTURB_", None)
    env.update(extra)
    return env


def _gradc_build(source: Path, out: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gradc", "build", source.name, "-o", str(out)],
        cwd=source.parent,
        env=_env(PYTHONHASHSEED="0"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Sources and artifacts, built in a subprocess of their own."""
    root = tmp_path_factory.mktemp("isolation")
    iso_src = root / "iso_mod.py"
    iso_src.write_text(MODULE_SOURCE)
    sc_src = root / "scalars.py"
    shutil.copyfile(REPO / "examples" / "scalars.py", sc_src)
    _gradc_build(iso_src, root / "iso_mod.gradc")
    _gradc_build(sc_src, root / "scalars.gradc")
    return {
        "root": root,
        "iso_src": iso_src,
        "iso_art": root / "iso_mod.gradc",
        "sc_src": sc_src,
        "sc_art": root / "scalars.gradc",
    }


def _run_child(mode: str, cwd: Path, paths: dict[str, Path], **env: str) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            mode,
            str(paths["iso_art"]),
            str(paths["iso_src"]),
            str(paths["sc_art"]),
            str(paths["sc_src"]),
        ],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"child ({mode}) exit {proc.returncode}:\n{proc.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def _check_report(report: dict[str, Any]) -> None:
    assert report["cases"] > 100
    assert report["mismatches"] == [], json.dumps(report["mismatches"], indent=1)
    assert report["live"] == 0, "runtime blocks not freed"
    assert report["compiler_imported"] == [], "loading imported compiler code"


@pytest.fixture(scope="module")
def fresh(built: dict[str, Path]) -> dict[str, Any]:
    return _run_child("fresh", built["root"], built, PYTHONHASHSEED="0")


def test_fresh_process_matches_cpython(fresh: dict[str, Any]) -> None:
    _check_report(fresh)
    assert fresh["hashseed"] == "0"


def test_perturbed_process_matches_cpython(
    built: dict[str, Path], fresh: dict[str, Any], tmp_path: Path
) -> None:
    """Other memory layout, import order, hash seed, artifact location and cwd."""
    moved = {
        "iso_art": tmp_path / "elsewhere" / "a.gradc",
        "sc_art": tmp_path / "elsewhere" / "b.gradc",
        "iso_src": built["iso_src"],
        "sc_src": built["sc_src"],
    }
    shutil.copytree(built["iso_art"], moved["iso_art"])
    shutil.copytree(built["sc_art"], moved["sc_art"])
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    report = _run_child("perturbed", cwd, moved, PYTHONHASHSEED="12345", MALLOC_PERTURB_="165")
    _check_report(report)
    assert report["hashseed"] == "12345"
    assert report["digest"] == fresh["digest"], "compiled results differ between processes"
