"""``gradc build --tape-budget BYTES``: a key component of derivatives only, and a
long loop's gradient the same with any budget (docs/ad.md "Long loops")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.store import read_manifest
from gradc.cli.main import cli

SOURCE = """\
import math
import gradc
from gradc import f64, i64


@gradc.export
def run(x: f64, n: i64) -> f64:
    for _ in range(n):
        x = x + 0.1 * math.sin(x)
    return x


d_run = gradc.grad(run)
"""


@pytest.mark.slow  # two builds
def test_tape_budget_keys_derivatives_only_and_keeps_the_gradient(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    outs = {}
    for budget in ("0", "1"):
        out = tmp_path / f"b{budget}.gradc"
        r = CliRunner().invoke(cli, ["build", str(src), "-o", str(out), "--tape-budget", budget])
        assert r.exit_code == 0, r.output
        outs[budget] = out
    m0, m1 = (read_manifest(outs[b]) for b in ("0", "1"))
    assert m0.entry("run").key == m1.entry("run").key
    assert m0.entry("d_run").key != m1.entry("d_run").key
    whole, seg = (gradc.load(outs[b]).d_run for b in ("0", "1"))
    for n in (0, 1, 5, 1000):
        assert seg(0.7, n) == pytest.approx(whole(0.7, n), rel=1e-13)


def test_negative_tape_budget_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    r = CliRunner().invoke(cli, ["build", str(src), "--tape-budget", "-1"])
    assert r.exit_code == 2
    assert "--tape-budget" in r.output
