"""``gradc build --grad F[:X,Y]``: derivative exports requested on the command line, the
same as ``d_F = gradc.grad(F, wrt=...)`` declared in the module."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import gradc
from gradc.cli.main import cli
from tests.ad.corpus import _harness as H

SOURCE = textwrap.dedent(
    """\
    import math

    import gradc
    from gradc import f64, i64


    @gradc.export
    def energy(x: f64[:], c: f64, n: i64) -> f64:
        s = 0.0
        for i in range(n):
            s += c * x[i] * x[i] + math.sin(x[i])
        return s


    @gradc.export
    def pair(a: f64, b: f64) -> f64:
        return a * math.exp(b)


    d_pair_declared = gradc.grad(pair, wrt=("a", "b"))
    """
)


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


def test_grad_requests_add_derivative_exports(module: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    r = CliRunner().invoke(
        cli, ["build", str(module), "-o", str(out), "--grad", "energy:x,c", "--grad", "pair:1"]
    )
    assert r.exit_code == 0, r.output
    lib = gradc.load(out)
    plain = H.load_plain(module)
    x = np.array([0.5, -1.0, 2.0])
    g_x, g_c = lib.d_energy(x, 1.5, 3)
    fd_x, fd_c = H.fd_gradient(plain.energy, [x, 1.5, 3], [0, 1])
    value = plain.energy(x, 1.5, 3)
    for got, want in zip([*g_x, g_c], [*fd_x, fd_c]):
        assert H.fd_close(float(got), float(want), value)
    # one position -> one value (not a tuple), as gradc.grad(pair, wrt=1)
    d_b = lib.d_pair(2.0, 0.5)
    assert isinstance(d_b, float)
    assert d_b == pytest.approx(lib.d_pair_declared(2.0, 0.5)[1], rel=1e-15)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nothing", "'nothing' is not an export of m (exports: energy, pair)"),
        ("energy:q", "'energy' has no parameter 'q' (parameters: x, c, n)"),
        ("energy:x,0", "parameter 'x' is listed twice"),
        ("energy:n", "only float scalars and float arrays have derivatives"),
        ("pair_declared", "not an export"),
    ],
)
def test_bad_grad_requests_write_nothing(
    module: Path, tmp_path: Path, spec: str, message: str
) -> None:
    out = tmp_path / "bad.gradc"
    r = CliRunner().invoke(cli, ["build", str(module), "-o", str(out), "--grad", spec])
    assert r.exit_code == 1
    assert message in r.stderr
    assert "Traceback" not in r.output
    assert not out.exists()


def test_grad_name_taken(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE + "\n\nd_energy = gradc.grad(energy)\n")
    r = CliRunner().invoke(cli, ["build", str(path), "-o", str(tmp_path / "o"), "--grad", "energy"])
    assert r.exit_code == 1
    assert "'d_energy' already exists in m" in r.stderr


def test_internal_error_is_reported_without_a_traceback(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gradc.compiler.driver as driver

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("LLVM IR parsing error")

    monkeypatch.setattr(driver, "build_module", broken)
    out = tmp_path / "m.gradc"
    r = CliRunner().invoke(cli, ["build", str(module), "-o", str(out)])
    assert r.exit_code == 70
    assert "internal compiler error" in r.stderr and "LLVM IR parsing error" in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()
