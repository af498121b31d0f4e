"""A build reports the first compile error of every export (up to ``MAX_ERRORS``), not
only the first of the module; ``gradc build`` prints them all, writes nothing, exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gradc.cli.main import cli
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.infer.all_errors import MAX_ERRORS
from gradc.compiler.options import CompilerOptions

MODULE = """\
import gradc
from gradc import f64, i64


def inner(a, i):
    return [a, i]


@gradc.export
def one(x: f64, n: i64) -> f64:
    return inner(x, n)


@gradc.export
def fine(x: f64) -> f64:
    return x


@gradc.export
def two(x: f64) -> f64:
    try:
        return x
    except ValueError:
        return 1.0


@gradc.export
def same_place(x: f64) -> f64:
    return inner(x, 1)


@gradc.export
def three(x: f64) -> f64:
    return x[0]
"""


def _error(path: Path) -> CompileError:
    with pytest.raises(CompileError) as info:
        build_module(path, CompilerOptions())
    return info.value


def test_each_exports_first_error_once(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(MODULE)
    err = _error(path)
    places = sorted((e.loc.line, e.message) for e in [err, *err.others])
    assert places == [
        (6, "a list literal is not supported in compiled code"),
        (21, "a try statement is not supported in compiled code"),
        (34, "cannot unpack or subscript a value of type f64"),
    ]
    text = str(err)
    assert text.endswith("\n3 errors") and text.count(": error: ") == 3
    assert "note: in inner(a: f64, i: i64), called from one at" in text

    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["build", str(path), "-o", str(out)])
    assert r.exit_code == 1 and r.output.count(": error: ") == 3 and not out.exists()


def test_at_most_max_errors(tmp_path: Path) -> None:
    body = "".join(
        f"\n\n@gradc.export\ndef f{i}(x: f64) -> f64:\n    return x[{i}]\n"
        for i in range(MAX_ERRORS + 3)
    )
    path = tmp_path / "m.py"
    path.write_text("import gradc\nfrom gradc import f64\n" + body)
    err = _error(path)
    assert len(err.others) == MAX_ERRORS - 1
    assert str(err).endswith(f"\n{MAX_ERRORS} errors")


def test_one_error_renders_alone(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(MODULE.split("@gradc.export\ndef fine")[0])
    err = _error(path)
    assert err.others == [] and "errors" not in str(err)
