"""Loading from a read-only artifact directory, with HOME and the cache directories
unwritable: the artifact loads and runs, and nothing is written anywhere we can see.

The loading process is a subprocess. As root, file modes do not stop writes, so there the
directories are made read-only by read-only bind mounts in a private mount namespace
(``unshare -rm``); for other users ``chmod`` is enough. In both cases the trees are also
compared, file by file (names, sizes, modes, mtimes, bytes), before and after.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradc.cli.main import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

_CHILD = r"""
import json, math, os, sys
from pathlib import Path
art = Path(sys.argv[1])
probes = {}
for d in (art, art.parent, Path(os.environ["HOME"]), Path(os.environ["XDG_CACHE_HOME"])):
    try:
        (d / "probe").write_bytes(b"x")
    except OSError as exc:
        probes[str(d)] = exc.strerror
    else:
        probes[str(d)] = "writable"
import gradc
lib = gradc.load(art)
print(json.dumps({
    "probes": probes,
    "poly": lib.poly(0.7, 9),
    "hypot": lib.hypot_clamped(3.0, 4.0),
    "fast": lib.is_fast("poly"),
    "compiler_imported": any(m.startswith("gradc.compiler") for m in sys.modules),
}))
"""


def _snapshot(*roots: Path) -> dict[str, tuple[object, ...]]:
    """Every path under ``roots``: kind, size, mode, mtime (ns) and sha256 of files."""
    snap: dict[str, tuple[object, ...]] = {}
    for root in roots:
        for p in [root, *sorted(root.rglob("*"))]:
            st = p.lstat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else ""
            snap[str(p)] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mode, st.st_mtime_ns, digest)
    return snap


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    r = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return r.returncode == 0


def test_read_only_artifact_and_home_load_run_and_write_nothing(tmp_path: Path) -> None:
    ro = tmp_path / "ro"  # the working directory of the loading process, holding the artifact
    art = ro / "scalars.gradc"
    home = tmp_path / "home"
    cache = home / ".cache"
    cache.mkdir(parents=True)
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(art)])
    assert r.exit_code == 0, r.output
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(cache),
        "GRADC_CACHE_DIR": str(cache / "gradc"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    child = [sys.executable, "-c", _CHILD, str(art)]
    if os.geteuid() == 0:
        if not _unshare_works():
            pytest.skip("running as root without unshare: cannot make a directory read-only")
        mounts = " && ".join(
            f"mount --bind {d} {d} && mount -o remount,ro,bind {d}" for d in (ro, home)
        )
        command = ["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$@"', "sh", *child]
    else:
        for d in (art, *art.rglob("*"), ro, home, cache):
            if d.is_dir():
                d.chmod(0o555)
        command = child
    before = _snapshot(ro, home)
    try:
        r2 = subprocess.run(command, cwd=ro, env=env, capture_output=True, text=True, timeout=120)
    finally:
        for d in (ro, *ro.rglob("*"), home, cache):
            if d.is_dir():
                d.chmod(0o755)
    assert r2.returncode == 0, r2.stderr
    out = json.loads(r2.stdout)
    assert "writable" not in out["probes"].values(), out["probes"]  # the setup is effective
    assert out["poly"] == pytest.approx(sum(math.sin(0.7 * k) / (k + 1) for k in range(9)))
    assert out["hypot"] == 5.0
    assert out["fast"] is True
    assert out["compiler_imported"] is False
    assert _snapshot(ro, home) == before


def test_damaged_read_only_artifact_is_a_clear_error(tmp_path: Path) -> None:
    """Damage where nothing may be rebuilt: ArtifactError naming the file, no crash."""
    ro = tmp_path / "ro"
    art = ro / "scalars.gradc"
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(art)])
    assert r.exit_code == 0, r.output
    obj = next(p for p in sorted((art / "objects").iterdir()) if p.stat().st_size > 200)
    data = bytearray(obj.read_bytes())
    data[len(data) // 2] ^= 0x01
    obj.write_bytes(bytes(data))
    code = (
        "import sys, gradc\nfrom gradc.artifacts.errors import ArtifactError\n"
        "try:\n    gradc.load(sys.argv[1])\nexcept ArtifactError as e:\n    print('refused', e)\n"
    )
    child = [sys.executable, "-c", code, str(art)]
    if os.geteuid() == 0:
        if not _unshare_works():
            pytest.skip("running as root without unshare: cannot make a directory read-only")
        command = [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f'mount --bind {ro} {ro} && mount -o remount,ro,bind {ro} && exec "$@"',
            "sh",
            *child,
        ]
    else:
        ro.chmod(0o555)
        command = child
    before = _snapshot(ro)
    try:
        r2 = subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        ro.chmod(0o755)
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout.startswith("refused") and obj.name in r2.stdout, r2.stdout
    assert "corrupt" in r2.stdout
    assert _snapshot(ro) == before
