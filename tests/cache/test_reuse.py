"""Object reuse on rebuild, ``build --explain``, ``inspect --key``, GRADC_NO_COMPILE."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import gradc
import gradc.compiler.backend as backend
import gradc.compiler.driver as driver
from gradc.artifacts.keys import sha256_key
from gradc.artifacts.store import read_manifest
from gradc.cli.main import cli

from .helpers import MODULE, build, build_ok, files


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """``m.py`` (MODULE) built once into ``m.gradc``."""
    src = tmp_path / "m.py"
    src.write_text(MODULE)
    out = tmp_path / "m.gradc"
    build_ok(src, out)
    return src, out


def _stat(art: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(art).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino)
        for p in art.rglob("*")
    }


def _no_lowering(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an export was lowered although its key was cached")

    monkeypatch.setattr(backend, "_lower_export", refuse)
    monkeypatch.setattr(backend, "_runtime_text", refuse)


def test_unchanged_rebuild_reuses_everything_and_writes_nothing(
    built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    src, out = built
    before_files, before_stat = files(out), _stat(out)
    _no_lowering(monkeypatch)
    r, _ = build_ok(src, out)
    assert "3 reused" in r.output
    assert r.output.startswith(f"{out} is up to date: 3 exports"), r.output
    assert files(out) == before_files
    assert _stat(out) == before_stat  # not even rewritten with the same bytes


def test_changing_one_function_rebuilds_only_its_callers(
    built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    src, out = built
    before = read_manifest(out)
    src.write_text(MODULE.replace("return x + 1.0", "return x + 4.0"))
    lowered: list[str] = []
    real = backend._lower_export

    def spy(module, name, *args):  # type: ignore[no-untyped-def]
        lowered.append(name)
        return real(module, name, *args)

    monkeypatch.setattr(backend, "_lower_export", spy)
    _, after = build_ok(src, out)
    assert lowered == ["g"]
    assert after.entry("f").sha256 == before.entry("f").sha256
    assert gradc.load(out).g(1.0) == 5.0


def test_damaged_blob_is_not_reused(built: tuple[Path, Path]) -> None:
    src, out = built
    before = read_manifest(out)
    obj = out / before.entry("f").object
    data = bytearray(obj.read_bytes())
    data[len(data) // 2] ^= 0xFF
    obj.write_bytes(bytes(data))
    r = build(src, out, "--explain")
    assert r.exit_code == 0, r.output
    assert "warning: cannot reuse 'f'" in r.stderr and "corrupt" in r.stderr
    assert "miss  f: the stored object is missing or damaged" in r.output
    assert "hit   g" in r.output
    assert obj.read_bytes() != bytes(data)  # rebuilt, rewritten intact
    assert gradc.load(out).f(3.0, 2.0) == 3.0


def test_explain_names_the_changed_function_option_and_entries(
    built: tuple[Path, Path],
) -> None:
    src, out = built
    src.write_text(MODULE.replace("return x + 1.0", "return x + 4.0"))
    r, _ = build_ok(src, out, "--explain")
    lines = r.output.splitlines()
    assert "hit   f" in lines
    assert any(line.startswith("miss  g: source of ") and "unrelated" in line for line in lines), (
        r.output
    )
    r, _ = build_ok(src, out, "--explain", "-O3")
    assert "miss  f: options.opt_level 2 -> 3" in r.output.splitlines()
    text = src.read_text().replace("@gradc.export\ndef g", "def g")
    src.write_text(text + "\n\n@gradc.export\ndef h(x: f64) -> f64:\n    return x * x\n")
    r, _ = build_ok(src, out, "--explain", "-O3")
    lines = r.output.splitlines()
    assert (
        "hit   f" in lines and "miss  h: new entry" in lines and "gone  g: removed entry" in lines
    )


def test_inspect_key_lists_components_that_make_the_key(built: tuple[Path, Path]) -> None:
    _, out = built
    r = CliRunner().invoke(cli, ["inspect", str(out), "--key", "f", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    values = {k: c["value"] for k, c in data["components"].items()}
    assert sha256_key(values) == data["key"] == read_manifest(out).entry("f").key
    assert {"ir", "options.opt_level", "options.fastmath", "options.boundscheck"} <= set(values)
    assert {"target.triple", "target.cpu", "versions.llvm", "versions.gradc"} <= set(values)
    assert all(c["sha256"] == sha256_key(c["value"]) for c in data["components"].values())
    assert values["ir"] == data["dependencies"]["f"]
    r = CliRunner().invoke(cli, ["inspect", str(out), "--key", "f"])
    assert r.exit_code == 0, r.output
    assert data["key"] in r.output
    assert f"options.opt_level    {sha256_key(2)}  2" in r.output
    r = CliRunner().invoke(cli, ["inspect", str(out), "--key", "nope"])
    assert r.exit_code == 1 and "no export 'nope'" in r.stderr


def test_no_compile_refuses_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(MODULE)
    out = tmp_path / "m.gradc"
    r = build(src, out, env={"GRADC_NO_COMPILE": "1"})
    assert r.exit_code == 1
    assert "forbidden (GRADC_NO_COMPILE=1)" in r.stderr
    assert not out.exists()
    with pytest.raises(driver.CompileForbiddenError, match="forbidden"):
        driver.build_module(src, driver.CompilerOptions(), allow_compile=False)


def test_failing_build_three_times_same_diagnostic_nothing_written(
    built: tuple[Path, Path],
) -> None:
    src, out = built
    before_files, before_stat = files(out), _stat(out)
    src.write_text(MODULE.replace("return x + 1.0", "return x[0] + 1.0"))  # x is a float
    fresh = src.parent / "fresh.gradc"
    messages = []
    for target in (out, out, fresh):
        r = build(src, target)
        assert r.exit_code == 1
        messages.append(r.stderr)
    assert messages[0] == messages[1] == messages[2]
    line = MODULE.splitlines().index("    return x + 1.0") + 1
    assert f"m.py:{line}:" in messages[0] and "error" in messages[0], messages[0]
    assert files(out) == before_files and _stat(out) == before_stat
    assert not fresh.exists()
