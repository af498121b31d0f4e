"""Issue 6, test 1: cache keys across files.

A callee in another file changes -> the caller's key (read from the manifest written by
``gradc build``) changes and the rebuilt export computes the new result (CPython importing
the edited files is the oracle). An unrelated function of that file changes -> the
caller's key is unchanged: only functions the export reaches are lowered into its IR.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

import gradc
from gradc.artifacts.store import read_manifest
from gradc.cli.main import cli

MAIN = """\
import gradc
from gradc import f64
import helpers


@gradc.export
def run(x: f64) -> f64:
    return helpers.f(x) + 1


@gradc.export
def alone(x: f64) -> f64:
    return x * 2
"""

HELPERS = """\
def f(x):
    return x * SCALE_F


def unrelated(y):
    return y - SCALE_U


SCALE_F = 3.0
SCALE_U = 5.0
"""


def _build(src: Path, out: Path) -> dict[str, str]:
    result = CliRunner().invoke(cli, ["build", str(src / "main.py"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return {e.name: e.key for e in read_manifest(out).entries}


def _cpython_run(src: Path, x: float) -> float:
    before = set(sys.modules)
    sys.path.insert(0, str(src))
    importlib.invalidate_caches()
    try:
        return float(importlib.import_module("main").run(x))
    finally:
        sys.path.remove(str(src))
        for name in set(sys.modules) - before:
            del sys.modules[name]


def test_callee_in_another_file_is_in_the_key_and_unrelated_code_is_not(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.py").write_text(MAIN)
    helpers = src / "helpers.py"
    helpers.write_text(HELPERS)

    keys0 = _build(src, tmp_path / "a0")
    assert gradc.load(tmp_path / "a0").run(2.0) == _cpython_run(src, 2.0) == 7.0

    # the callee changes (same lines): the caller's key changes, the result is new
    helpers.write_text(HELPERS.replace("return x * SCALE_F", "return x * SCALE_F - x"))
    keys1 = _build(src, tmp_path / "a1")
    assert keys1["run"] != keys0["run"]
    assert keys1["alone"] == keys0["alone"]
    assert gradc.load(tmp_path / "a1").run(2.0) == _cpython_run(src, 2.0) == 5.0

    # a constant the callee reads changes: folded into its IR, so the key changes
    helpers.write_text(HELPERS.replace("SCALE_F = 3.0", "SCALE_F = 4.0"))
    keys2 = _build(src, tmp_path / "a2")
    assert keys2["run"] not in (keys0["run"], keys1["run"])

    # an unrelated function and an unrelated constant of that file change: same key
    helpers.write_text(
        textwrap.dedent(HELPERS)
        .replace("SCALE_F = 3.0", "SCALE_F = 4.0")
        .replace("return y - SCALE_U", "return y * y + SCALE_U")
        .replace("SCALE_U = 5.0", "SCALE_U = 6.0")
    )
    keys3 = _build(src, tmp_path / "a3")
    assert keys3 == keys2
