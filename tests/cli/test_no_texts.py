"""``gradc build --no-texts``: an artifact for shipping, without the IR/LLVM/assembly texts
of ``gradc inspect``; the same objects, intact, loadable."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import gradc
from gradc.artifacts.store import find_damage, read_manifest
from gradc.cli.main import cli
from gradc.setuptools import gradc_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_no_texts_leaves_out_only_the_texts(tmp_path: Path) -> None:
    runner = CliRunner()
    full, bare = tmp_path / "full.gradc", tmp_path / "bare.gradc"
    for out, extra in ((full, []), (bare, ["--no-texts"])):
        r = runner.invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), *extra])
        assert r.exit_code == 0, r.output
    with_texts, without = read_manifest(full), read_manifest(bare)
    assert all(e.texts for e in with_texts.entries)
    assert all(e.texts == {} for e in without.entries)
    assert [e.sha256 for e in without.entries] == [e.sha256 for e in with_texts.entries]
    assert not (bare / "texts").exists() and find_damage(bare) == []
    assert gradc.load(bare).poly(0.3, 10) == gradc.load(full).poly(0.3, 10)
    shown = runner.invoke(cli, ["inspect", str(bare), "--ir", "poly"])
    assert shown.exit_code == 1 and "stores no ir text for 'poly'" in shown.output


def test_setuptools_leaves_texts_out_unless_asked(tmp_path: Path) -> None:
    table = '[tool.gradc]\nmodules = ["m.py"]\nbuild-args = ["-O3"]\n'
    (tmp_path / "pyproject.toml").write_text(table)
    assert gradc_config(tmp_path) == (["m.py"], ["--no-texts", "-O3"])
    (tmp_path / "pyproject.toml").write_text(table + "with-texts = true\n")
    assert gradc_config(tmp_path) == (["m.py"], ["-O3"])
