"""``gradc build`` and ``gradc inspect`` of a function exported with several signatures:
every signature is listed, with the name the loader dispatches on; ``--grad f`` of such a
function gives one derivative per float signature (tests/loader/test_signatures.py has the
values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradc.cli.main import cli

MODULE = """\
import gradc


@gradc.export(["f64(f64)", "f32(f32)", "i64(i64)"], boundscheck=False)
def sq(x):
    return x * x
"""


def test_inspect_lists_every_signature_and_the_dispatch(tmp_path: Path) -> None:
    (tmp_path / "sq.py").write_text(MODULE)
    out = tmp_path / "sq.gradc"
    runner = CliRunner()
    built = runner.invoke(cli, ["build", str(tmp_path / "sq.py"), "-o", str(out), "--grad", "sq"])
    assert built.exit_code == 0, built.output
    shown = runner.invoke(cli, ["inspect", str(out)])
    assert shown.exit_code == 0, shown.output
    for name, sig in [
        ("sq.f64", "(x: f64) -> f64"),
        ("sq.f32", "(x: f32) -> f32"),
        ("sq.i64", "(x: i64) -> i64"),
    ]:
        assert any(name in line and sig in line for line in shown.output.splitlines()), shown.output
    assert "sq: 3 signatures, one call dispatching among sq.f64, sq.f32, sq.i64" in shown.output
    assert "d_sq: 2 signatures, one call dispatching among d_sq.f64, d_sq.f32" in shown.output
    data = json.loads(runner.invoke(cli, ["inspect", str(out), "--json"]).output)
    assert [e.get("dispatch") for e in data["entries"]] == ["sq", "sq", "sq", "d_sq", "d_sq"]
    assert data["format_version"] == [1, 7]
    key = runner.invoke(cli, ["inspect", str(out), "--key", "sq.f32"]).output
    assert (
        "options.boundscheck" in key
        and "False" in key.split("options.boundscheck")[1].splitlines()[0]
    )


@pytest.mark.slow
def test_bench_runs_each_signature_against_the_plain_function(tmp_path: Path) -> None:
    (tmp_path / "sq.py").write_text(MODULE)
    result = CliRunner().invoke(
        cli, ["bench", str(tmp_path / "sq.py"), "-e", "sq.i64", "-e", "sq.f64", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.output)["rows"] if r["kind"] == "run"]
    assert [r["export"] for r in rows] == ["sq.i64", "sq.f64"]
    for r in rows:
        assert r["baseline_what"] == "sq (plain Python)" and r["note"] == "same result"
