"""Shared pieces of the cache tests: a small module with a callee chain, and a build runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from gradc.artifacts.manifest import Manifest
from gradc.artifacts.store import read_manifest
from gradc.cli.main import cli

#: ``f`` calls ``helper`` (which raises on y == 0) and reads the constant ``SCALE``;
#: ``g`` calls ``unrelated`` only; ``total`` has a loop (the front end names loop counters
#: after their source position). Tests edit this text and rebuild.
MODULE = """\
import gradc
from gradc import f64, i64

SCALE = 2.0


def helper(x: f64, y: f64) -> f64:
    return x / y


def unrelated(x: f64) -> f64:
    return x + 1.0


@gradc.export
def f(x: f64, y: f64) -> f64:
    return helper(x, y) * SCALE


@gradc.export
def g(x: f64) -> f64:
    return unrelated(x)


@gradc.export
def total(n: i64) -> f64:
    s = 0.0
    for k in range(n):
        s += 1.0 / (k + 1)
    return s
"""


def build(source: Path, out: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """``gradc build SOURCE -o OUT ARGS`` in this process (click's runner)."""
    return CliRunner().invoke(cli, ["build", str(source), "-o", str(out), *args], env=env)


def build_ok(source: Path, out: Path, *args: str) -> tuple[Result, Manifest]:
    """A build that must succeed; returns the result and the manifest written."""
    r = build(source, out, *args)
    assert r.exit_code == 0, r.output + (r.stderr if r.stderr_bytes else "")
    return r, read_manifest(out)


def files(art: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file of an artifact directory (the lock aside)."""
    return {
        p.relative_to(art).as_posix(): p.read_bytes()
        for p in sorted(art.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def objects(manifest: Manifest) -> dict[str, str]:
    """Export name -> sha256 of its object."""
    return {e.name: e.sha256 for e in manifest.entries}


def run_python(code: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    """Run ``python -c code ARGS`` in a fresh interpreter; the completed process.

    The child gets this environment without any ``GRADC_*`` variable (tests/conftest.py
    sets ``GRADC_PLAIN_PYTHON``), plus ``env``.
    """
    full = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
