"""``gradc bench``: honest baselines, cold compiles, JSON, plot, arguments, no stray writes."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import textwrap
import types
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

from gradc.artifacts.manifest import Entry, EntrySignature
from gradc.artifacts.store import read_manifest
from gradc.cli.bench_args import (
    arguments_for,
    default_args,
    module_defaults,
    parse_args_option,
    parse_shapes,
)
from gradc.cli.bench_baselines import import_plain, load_peers
from gradc.cli.bench_measure import measure_calls
from gradc.cli.bench_report import format_seconds, plot
from gradc.cli.bench_stats import Row, per_call, short_error, stats
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


    @gradc.export
    def pick(u: f64[:], v: f64[:]) -> f64:
        return u[len(v) - 1] * v[0]


    d_poly = gradc.grad(poly, wrt=("x",))

    __gradc_bench__ = {"shape": "u=3 v=2"}
    """
)

QUICK = ["--repeat", "1", "--budget", "0.002", "--samples", "2", "--json"]
ROW_KEYS = {
    "kind", "what", "gradc", "baseline", "baseline_what", "note", "stdev", "baseline_plain",
    "export", "peers", "derivative_of", "per_primal", "ratio",
}  # fmt: skip


def _tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    """One bench of a fresh module with HOME and the caches pointing at empty folders."""
    folder = tmp_path_factory.mktemp("mod")
    module = folder / "benchmod.py"
    module.write_text(SOURCE)
    home, cache, xdg = (tmp_path_factory.mktemp(n) for n in ("home", "cache", "xdg"))
    png = tmp_path_factory.mktemp("plot") / "bench.png"
    before = _tree(folder)
    env = {"HOME": str(home), "GRADC_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(xdg)}
    args = ["bench", str(module), "-a", "poly=(0.5, 200)", "--dim", "8"]
    r = CliRunner(env=env).invoke(cli, [*args, *QUICK, "--plot", str(png)])
    assert r.exit_code == 0, r.output
    return {
        "report": json.loads(r.output),
        "module": module,
        "written": {
            "module folder": sorted(set(_tree(folder)) - set(before)),
            "HOME": _tree(home),
            "GRADC_CACHE_DIR": _tree(cache),
            "XDG_CACHE_HOME": _tree(xdg),
        },
        "png": png,
    }


def test_json_schema(run: dict) -> None:  # type: ignore[type-arg]
    report = run["report"]
    assert report["module"] == "benchmod"
    assert report["artifact"] is None  # built only in a temporary directory
    assert set(report["peers"]) == {"numba", "jax"}
    rows = report["rows"]
    assert all(set(r) == ROW_KEYS for r in rows)
    kinds = [r["kind"] for r in rows]
    assert kinds[:2] == ["compile", "warm"]
    assert "call" in kinds
    assert kinds.count("run") == 5
    for r in rows:
        if r["gradc"] is not None and r["baseline"] is not None:
            assert r["ratio"] == pytest.approx(r["gradc"] / r["baseline"])
    runs = {r["export"]: r for r in rows if r["kind"] == "run"}
    assert runs["poly"]["what"] == "poly(0.5, 200)"
    assert runs["scaled"]["what"] == "scaled(float64[8], 0.5)"
    assert runs["pick"]["what"] == "pick(float64[3], float64[2])"
    for name in ("add", "poly", "scaled", "pick"):
        assert runs[name]["note"].startswith("same result"), runs[name]  # then peers' notes
        assert "RESULTS DIFFER" not in runs[name]["note"], runs[name]
        assert runs[name]["gradc"] > 0 and runs[name]["baseline"] > 0
    call = next(r for r in rows if r["kind"] == "call")
    assert call["what"].startswith("call add(0.5, 0.5)")


def test_baselines_are_plain_python(run: dict) -> None:  # type: ignore[type-arg]
    """The CPython figures were taken on plain Python functions (gradc inert), in this
    process and in the warm-start child: never runtime mode."""
    rows = run["report"]["rows"]
    warm = rows[1]
    assert warm["baseline"] > 0 and warm["baseline_plain"] is True, warm
    for r in rows:
        if r["kind"] in ("call", "run") and r["baseline"] is not None:
            assert r["baseline_plain"] is True, r
            assert "(plain Python)" in r["baseline_what"]


def test_derivative_row(run: dict) -> None:  # type: ignore[type-arg]
    d = next(r for r in run["report"]["rows"] if r["export"] == "d_poly")
    poly = next(r for r in run["report"]["rows"] if r["export"] == "poly")
    assert d["derivative_of"] == "poly"
    assert d["baseline"] is None and "no Python version" in d["baseline_what"]
    assert d["per_primal"] == pytest.approx(d["gradc"] / poly["gradc"])


def test_compile_is_cold(run: dict) -> None:  # type: ignore[type-arg]
    compile_row = run["report"]["rows"][0]
    assert "empty directory" in compile_row["what"]
    assert compile_row["gradc"] > 0 and compile_row["baseline"] > 0


def test_nothing_written_outside_temp(run: dict) -> None:  # type: ignore[type-arg]
    assert run["written"] == {
        "module folder": [],
        "HOME": [],
        "GRADC_CACHE_DIR": [],
        "XDG_CACHE_HOME": [],
    }


def test_plot_is_png(run: dict) -> None:  # type: ignore[type-arg]
    data = run["png"].read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_import_plain_is_inert(run: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    monkeypatch.delenv("GRADC_PLAIN_PYTHON", raising=False)
    module = import_plain(run["module"])
    assert isinstance(module.poly, types.FunctionType)
    assert "GRADC_PLAIN_PYTHON" not in os.environ  # restored
    assert module.poly(0.5, 3) == pytest.approx(1 + 0.5 / 2 + 0.25 / 3)
    # the marker can fail: imported the ordinary way, the export is runtime mode's proxy
    spec = importlib.util.spec_from_file_location("benchmod_rt", run["module"])
    assert spec is not None and spec.loader is not None
    runtime = importlib.util.module_from_spec(spec)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    spec.loader.exec_module(runtime)
    assert not isinstance(runtime.poly, types.FunctionType)


def test_peers_skipped_and_used(run: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # type: ignore[type-arg]
    monkeypatch.setitem(sys.modules, "numba", None)  # import raises ImportError
    monkeypatch.setitem(sys.modules, "jax", None)
    assert load_peers() == ({}, {"numba": "not installed", "jax": "not installed"})
    # a stand-in numba whose njit returns the function: the peer path runs and agrees
    fake = types.ModuleType("numba")
    fake.njit = lambda fn: fn  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "numba", fake)
    out = tmp_path / "b.gradc"
    assert CliRunner().invoke(cli, ["build", str(run["module"]), "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(
        cli, ["bench", str(out), "--source", str(run["module"]), "-e", "poly", *QUICK]
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["peers"] == {"numba": "measured", "jax": "not installed"}
    poly = next(x for x in report["rows"] if x["export"] == "poly")
    assert poly["peers"]["numba"] > 0 and poly["note"] == "same result"
    table = CliRunner().invoke(
        cli, ["bench", str(out), "--source", str(run["module"]), "-e", "add", "--repeat", "1",
              "--budget", "0.002", "--samples", "2"],
    )  # fmt: skip
    assert table.exit_code == 0, table.output
    assert "jax: skipped (not installed)" in table.output
    assert "numba" in table.output and "CPython baseline" in table.output


def test_failing_row_is_one_line(run: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    """Inconsistent sizes: the row says why in one line, the bench goes on."""
    out = tmp_path / "f.gradc"
    assert CliRunner().invoke(cli, ["build", str(run["module"]), "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(
        cli,
        ["bench", str(out), "--source", str(run["module"]), "-e", "pick", "--shape", "u=2 v=3000",
         *QUICK],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    pick = next(x for x in json.loads(r.output)["rows"] if x["export"] == "pick")
    assert pick["gradc"] is None
    assert pick["note"].startswith("gradc raised IndexError")
    assert "--shape" in pick["note"] and "\n" not in pick["note"] and len(pick["note"]) < 220


def test_option_errors(run: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    module = str(run["module"])
    r = CliRunner().invoke(cli, ["bench", module, "--no-compile"])
    assert r.exit_code != 0 and "--no-compile needs -o" in r.output
    r = CliRunner().invoke(cli, ["bench", module, "-a", "nonsense"])
    assert r.exit_code != 0 and "expected NAME=LITERAL" in r.output
    r = CliRunner().invoke(cli, ["bench", module, "-a", "poly=__import__('os')"])
    assert r.exit_code != 0 and "not a Python literal" in r.output
    r = CliRunner().invoke(cli, ["bench", module, "--shape", "means=25y10"])
    assert r.exit_code != 0 and "sizes are integers separated by 'x'" in r.output
    out = tmp_path / "o.gradc"
    assert CliRunner().invoke(cli, ["build", module, "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(cli, ["bench", str(out), "--shape", "nope=3", *QUICK])
    assert r.exit_code != 0 and "no parameter named nope" in r.output
    bad = tmp_path / "bad.py"
    bad.write_text("import gradc\n@gradc.export\ndef f(x: f64) -> f64:\n    return x +\n")
    r = CliRunner().invoke(cli, ["bench", str(bad), "--repeat", "1"])
    assert r.exit_code == 1
    assert "building" in r.output and "failed" in r.output


def test_parse_shapes() -> None:
    assert parse_shapes(["alphas=25 means=25x10", "x=3X4"]) == {
        "alphas": (25,),
        "means": (25, 10),
        "x": (3, 4),
    }
    for bad, message in (
        ("alphas", "expected NAME=N or NAME=NxM"),
        ("=3", "expected NAME=N or NAME=NxM"),
        ("a=3x", "sizes are integers"),
        ("a=-3", "negative size"),
    ):
        with pytest.raises(click.BadParameter, match=message):
            parse_shapes([bad])


def test_parse_args_option() -> None:
    got = parse_args_option(["f=(1.0, 2)", "g=[1, 2, 3]", "h = 5"])
    assert got == {"f": (1.0, 2), "g": [1, 2, 3], "h": 5}
    with pytest.raises(click.BadParameter, match="not a Python literal") as info:
        parse_args_option(["f=np.ones(3)"])
    assert " object at 0x" not in str(info.value) and "--shape" in str(info.value)


def _entry(*types_: str, names: tuple[str, ...] = ()) -> Entry:
    params = tuple((names[i] if names else f"p{i}", t) for i, t in enumerate(types_))
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


def test_arguments_for() -> None:
    e = _entry("f64[:]", "f64[:, :]", "f64", "f64[:]", names=("alphas", "means", "g", "d_alphas"))
    alphas, means, g, d_alphas = arguments_for(e, {"alphas": (5,), "means": (5, 2)}, {"g": 2.0}, 8)
    assert alphas.shape == (5,) and means.shape == (5, 2) and g == 2.0
    assert d_alphas.shape == (5,)  # a tangent takes its primal's shape
    (x,) = arguments_for(_entry("f32[:, :]"), {}, {"p0": [[1, 2], [3, 4]]}, 8)
    assert x.dtype == np.float32 and x.shape == (2, 2)
    assert arguments_for(_entry("f64", "i64"), {}, {"f": (1.5, 3)}, 8) == (1.5, 3)
    with pytest.raises(ValueError, match="2 values expected"):
        arguments_for(_entry("f64", "i64"), {}, {"f": 1.5}, 8)
    with pytest.raises(ValueError, match="--shape gives 1 axes"):
        arguments_for(_entry("f64[:, :]"), {"p0": (3,)}, {}, 8)


def test_plot_without_matplotlib(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(click.ClickException, match=r"gradc\[plot\]"):
        plot([Row("run", "f", 1e-6, 2e-6, "b", export="f")], tmp_path / "p.png", "t")
    assert not (tmp_path / "p.png").exists()
    r = CliRunner().invoke(cli, ["bench", str(tmp_path), "--plot", str(tmp_path / "p.png")])
    assert r.exit_code != 0 and "gradc[plot]" in r.output  # refused before measuring


def test_helpers() -> None:
    assert format_seconds(None) == "—"
    assert format_seconds(2.5) == "2.5 s"
    assert format_seconds(0.0123) == "12.3 ms"
    assert format_seconds(4.2e-6) == "4.2 µs"
    assert format_seconds(6.1e-8) == "61 ns"
    assert Row("run", "x", 1.0, 4.0, "b").ratio == 0.25
    assert Row("run", "x", None, 4.0, "b").ratio is None
    assert 0 < per_call(abs, (-1,), 0.001) < 1e-5
    s = stats([1.0, 2.0, 3.0], "x")
    assert s.median == 2.0 and s.stdev == pytest.approx(1.0)
    err = short_error(ValueError("first line " + "x" * 500 + "\nsecond"))
    assert err.startswith("ValueError: first line") and len(err) < 140 and "second" not in err


def test_module_defaults(tmp_path: Path) -> None:
    """A module's ``__gradc_bench__`` gives shapes and values (options override them)."""
    mod = types.ModuleType("m")
    assert module_defaults(mod) == ({}, {})
    mod.__gradc_bench__ = {"shape": "a=3 b=2x4", "args": {"n": 5}}  # type: ignore[attr-defined]
    assert module_defaults(mod) == ({"a": (3,), "b": (2, 4)}, {"n": 5})
    for bad in ({"shapes": "a=3"}, {"shape": 3}, {"shape": "a=3y4"}, "a=3"):
        mod.__gradc_bench__ = bad  # type: ignore[attr-defined]
        with pytest.raises(click.ClickException, match=r"m\.__gradc_bench__"):
            module_defaults(mod)


def test_gmm_declared_arguments_are_consistent() -> None:
    """examples/gmm.py's bench arguments run its objective in plain Python (the default
    one-size-per-axis arrays index out of bounds there)."""
    gmm = import_plain(Path(__file__).parents[2] / "examples" / "gmm.py")
    shapes, values = module_defaults(gmm)
    names = ("alphas", "means", "icf", "x", "gamma", "m")
    kinds = ("f64[:]", "f64[:, :]", "f64[:, :]", "f64[:, :]", "f64", "i64")
    args = arguments_for(_entry(*kinds, names=names), shapes, values, 64)
    assert np.isfinite(gmm.gmm_objective(*args))
    with pytest.raises(IndexError):
        gmm.gmm_objective(*arguments_for(_entry(*kinds, names=names), {}, {}, 8))


FAILING = textwrap.dedent(
    """
    import gradc
    from gradc import f64


    @gradc.export
    def q(a: f64, b: f64) -> f64:
        return a / b


    @gradc.export
    def add(a: f64, b: f64) -> f64:
        return a + b


    @gradc.export(["f64(f64, f64)", "i64(i64, i64)"])
    def mul(a, b):
        return a * b
    """
)


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A module whose ``q`` raises ZeroDivisionError for ``b=0.0`` (beside ``add`` and the
    two signatures of ``mul``), and its artifact."""
    folder = tmp_path_factory.mktemp("failing")
    module = folder / "zd.py"
    module.write_text(FAILING)
    out = folder / "zd.gradc"
    r = CliRunner().invoke(cli, ["build", str(module), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return module, out


def _bench(failing: tuple[Path, Path], *options: str) -> tuple[int, str, str]:
    module, out = failing
    r = CliRunner().invoke(cli, ["bench", str(out), "--source", str(module), *options, *QUICK])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


def test_raising_baseline_is_a_note(failing: tuple[Path, Path]) -> None:
    """Issue 14: plain Python raising in the call row was a raw traceback. Now each side's
    exception is a note, the other rows are measured, and the exit status is 0."""
    code, stdout, _ = _bench(failing, "-a", "b=0.0", "--call", "q", "-e", "q", "-e", "add")
    assert code == 0, stdout
    rows = json.loads(stdout)["rows"]
    both = (
        "gradc raised ZeroDivisionError: float division by zero; "
        "CPython raised ZeroDivisionError: float division by zero"
    )
    call = next(r for r in rows if r["kind"] == "call")
    runs = {r["export"]: r for r in rows if r["kind"] == "run"}
    assert call["note"] == both and call["gradc"] is None and call["baseline"] is None
    assert runs["q"]["note"] == both and runs["q"]["baseline"] is None
    assert runs["add"]["note"] == "same result" and runs["add"]["gradc"] > 0


def test_nothing_measured_exits_1(failing: tuple[Path, Path]) -> None:
    code, stdout, stderr = _bench(failing, "-a", "b=0.0", "--call", "q", "-e", "q")
    assert code == 1
    assert "nothing was measured" in stderr
    rows = json.loads(stdout)["rows"]  # the report is still printed
    assert [r["kind"] for r in rows] == ["warm", "call", "run"]
    assert all(r["gradc"] is None and r["baseline"] is None for r in rows)


def test_each_side_measured_without_the_other(failing: tuple[Path, Path]) -> None:
    """The baseline raising leaves gradc's figures; gradc raising leaves the baseline's."""
    import gradc

    _, out = failing
    lib = gradc.load(out)
    manifest = read_manifest(out)

    def raising(a: float, b: float) -> float:
        raise ValueError("plain side")

    def returning(a: float, b: float) -> float:
        return 0.0

    for fn, gradc_ok in ((raising, True), (returning, False)):
        module = types.ModuleType("zd")
        module.q = fn  # type: ignore[attr-defined]
        args = (1.0, 2.0 if gradc_ok else 0.0)
        rows = measure_calls(lib, manifest, module, ("q",), lambda e, a=args: a, "q", 0.001, {})
        calls = 1 + lib.is_fast("q") if gradc_ok else 1  # fast and ctypes paths, or failed
        assert [r.kind for r in rows] == ["call"] * calls + ["run"]
        for r in rows:
            if gradc_ok:
                assert r.gradc is not None and r.gradc > 0 and r.baseline is None, r
                assert r.note == "CPython raised ValueError: plain side", r
            else:
                assert r.gradc is None and r.baseline is not None and r.baseline > 0, r
                assert r.note == "gradc raised ZeroDivisionError: float division by zero", r


def test_signatures_map_to_the_python_function(failing: tuple[Path, Path]) -> None:
    """Issue 14: ``mul.f64.f64``'s baselines (warm start included) are the function
    ``mul`` that its manifest entry names in ``dispatch``."""
    code, stdout, _ = _bench(failing, "--call", "mul.f64.f64", "-e", "mul.i64.i64")
    assert code == 0, stdout
    rows = json.loads(stdout)["rows"]
    warm = rows[0]
    assert warm["kind"] == "warm" and "mul.f64.f64" in warm["what"]
    assert warm["baseline"] > 0 and warm["baseline_plain"] is True, warm
    assert warm["baseline_what"].startswith("import zd + first call")
    for r in rows[1:]:
        assert r["baseline"] > 0 and r["baseline_what"] == "mul (plain Python)", r
    assert rows[-1]["note"] == "same result"
