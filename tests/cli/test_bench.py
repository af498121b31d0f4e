"""``gradc bench``: rows, baselines and ratios, through click's CliRunner."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

from gradc.artifacts.manifest import Entry, EntrySignature
from gradc.cli.bench import Row, default_args, format_seconds, parse_args_option, per_call
from gradc.cli.main import cli

SOURCE = textwrap.dedent(
    """
    import numpy as np

    import gradc
    from gradc import f64, i64


    @gradc.export
    def add(a: f64, b: f64) -> f64:
        return a + b


    @gradc.export
    def poly(x: f64, n: i64) -> f64:
        s = 0.0
        p = 1.0
        for i in range(n):
            s += p / (i + 1)
            p *= x
        return s


    @gradc.export
    def scaled(a: f64[:], c: f64) -> f64[:]:
        out = np.empty(len(a))
        for i in range(len(a)):
            out[i] = a[i] * c
        return out
    """
)

QUICK = ["--repeat", "1", "--budget", "0.002", "--json"]


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bench") / "benchmod.py"
    path.write_text(SOURCE)
    return path


def _rows(args: list[str]) -> list[dict]:  # type: ignore[type-arg]
    r = CliRunner().invoke(cli, ["bench", *args, *QUICK])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)  # type: ignore[no-any-return]


def test_bench_module(module: Path, tmp_path: Path) -> None:
    out = tmp_path / "benchmod.gradc"
    rows = _rows([str(module), "-o", str(out), "-a", "poly=(0.5, 200)", "--dim", "8"])
    kinds = [r["kind"] for r in rows]
    assert kinds[:2] == ["compile", "load"]
    assert "call" in kinds
    assert kinds.count("run") == 3
    assert (out / "manifest.msgpack").is_file()
    for r in rows:
        assert r["gradc"] > 0, r
        assert r["baseline"] > 0, r
        assert r["ratio"] == pytest.approx(r["gradc"] / r["baseline"])
    runs = {r["what"].split("(")[0]: r for r in rows if r["kind"] == "run"}
    assert runs["poly"]["what"] == "poly(0.5, 200)"
    assert runs["scaled"]["what"] == "scaled(float64[8], 0.5)"
    assert all(r["note"] == "same result" for r in runs.values())
    call = next(r for r in rows if r["kind"] == "call")
    assert call["what"].startswith("call add(0.5, 0.5)")
    assert call["baseline_what"] == "benchmod.add"


def test_bench_artifact_without_source(module: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.gradc"
    assert CliRunner().invoke(cli, ["build", str(module), "-o", str(out)]).exit_code == 0
    rows = _rows([str(out), "-e", "poly", "--call", "poly"])
    assert rows[0]["kind"] == "load"
    assert all(r["baseline"] is None and r["ratio"] is None for r in rows)
    assert [r["what"] for r in rows if r["kind"] == "run"] == ["poly(0.5, 32)"]
    with_source = _rows([str(out), "--source", str(module), "-e", "add"])
    assert all(r["baseline"] for r in with_source)


def test_bench_table(module: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.gradc"
    assert CliRunner().invoke(cli, ["build", str(module), "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(
        cli, ["bench", str(out), "--source", str(module), "--repeat", "1", "--budget", "0.002"]
    )
    assert r.exit_code == 0, r.output
    for text in ("gradc bench: benchmod", "CPython baseline", "gradc ÷ CPython", "same result"):
        assert text in r.output


def test_bench_errors(module: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["bench", str(module), "--no-compile"])
    assert r.exit_code != 0
    assert "--no-compile needs -o" in r.output
    r = CliRunner().invoke(cli, ["bench", str(module), "-a", "nonsense"])
    assert r.exit_code != 0
    assert "expected NAME=EXPR" in r.output
    bad = tmp_path / "bad.py"
    bad.write_text("import gradc\n@gradc.export\ndef f(x: f64) -> f64:\n    return x +\n")
    r = CliRunner().invoke(cli, ["bench", str(bad), "--repeat", "1"])
    assert r.exit_code == 1
    assert "building" in r.output and "failed" in r.output


def _entry(*types: str) -> Entry:
    params = tuple((f"p{i}", t) for i, t in enumerate(types))
    return Entry("f", EntrySignature(params, "f64"), 1, "gradc_f_0", "objects/x.o", "x", "k")


def test_default_args() -> None:
    a, b, c, d, e, f = default_args(
        _entry("f64", "i32", "bool", "f64[:, ::1]", "i64[::1, :]", "bool[:]"), 4
    )
    assert (a, b, c) == (0.5, 2, True)
    assert d.shape == (4, 4) and d.dtype == np.float64 and d.flags.c_contiguous
    assert d.min() >= 0.5 and d.max() < 1.5
    assert e.dtype == np.int64 and e.flags.f_contiguous and not e.flags.c_contiguous
    assert f.tolist() == [True, False, True, False]


def test_parse_args_option() -> None:
    got = parse_args_option(["f=(1.0, 2)", "g=np.ones(3)", "h = 5"])
    assert got["f"] == (1.0, 2)
    assert got["g"][0].shape == (3,)
    assert got["h"] == (5,)
    with pytest.raises(click.BadParameter, match=r"not defined"):
        parse_args_option(["f=nope"])


def test_helpers() -> None:
    assert format_seconds(None) == "—"
    assert format_seconds(2.5) == "2.5 s"
    assert format_seconds(0.0123) == "12.3 ms"
    assert format_seconds(4.2e-6) == "4.2 µs"
    assert format_seconds(6.1e-8) == "61 ns"
    assert Row("run", "x", 1.0, 4.0, "b").ratio == 0.25
    assert Row("run", "x", None, 4.0, "b").ratio is None
    assert 0 < per_call(abs, (-1,), 0.001) < 1e-5
