"""Custom rules beyond f64 scalar helpers (compiler/frontend/custom_rules.py,
passes/ad/custom.py): on exports, on helpers of array parameters and results, and
defined in an imported module. Each rule differs from the true derivative, so a
derivative equal to the rule proves the rule is used; editing only a rule changes the
keys of exactly the derivatives that use it (``gradc build --explain`` names them)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

from ..cache.helpers import build_ok

KERNELS = Path(__file__).parent / "api" / "custom_arrays.py"
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}
vectors = st.lists(st.floats(-2, 2, allow_subnormal=False), min_size=0, max_size=5)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@settings(max_examples=10, **SETTINGS)
@given(xs=vectors, c=st.floats(-2, 2), data=st.data())
def test_the_rules_are_what_the_derivatives_compute(
    lib: Any, xs: list[float], c: float, data: st.DataObject
) -> None:
    x = np.array(xs)
    gx, gc = lib.d_energy(x, c)  # custom_vjp on an export: its own gradient
    np.testing.assert_array_equal(gx, 1.0 * 3.0 * c * x)
    assert gc == 5.0
    gx, gc = lib.d_uses_energy(x, c)  # ... and of an export calling it
    np.testing.assert_array_equal(gx, 2.0 * 3.0 * c * x)
    assert gc == 10.0
    assert lib.t_cube(c, 1.5) == (c * c * c, 15.0)  # custom_jvp on an export
    dx = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=len(x), max_size=len(x))))
    value, tangent = lib.t_uses_squash(x, c, dx, 0.5)  # array parameters and result
    assert value == lib.uses_squash(x, c)
    assert tangent == pytest.approx(float(np.sum(2.0 * dx + 0.5)), abs=1e-12)
    ct = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=len(x), max_size=len(x))))
    vx, vs = lib.v_uses_spread(x, c, ct)  # custom_vjp with array cotangents
    np.testing.assert_allclose(vx, 4.0 * ct + ct, rtol=1e-15)
    assert vs == pytest.approx(0.5 * float(np.sum(ct)), abs=1e-12)


def test_a_cotangent_of_another_shape_raises(lib: Any) -> None:
    with pytest.raises(
        ValueError, match="the custom rule 'clip_bwd' returned a cotangent for 'v' whose axis 0"
    ):
        lib.d_uses_clip(np.ones(3))


def _keys(path: Path) -> dict[str, str]:
    return {e.name: e.key for e in build_module(path, CompilerOptions()).entries}


@pytest.mark.parametrize(
    ("old", "new", "users"),
    [
        ("ct * 4.0, float", "ct * 6.0, float", {"v_uses_spread"}),
        pytest.param(
            "ct * 3.0 * c * x",
            "ct * 2.0 * c * x",
            {"d_energy", "d_uses_energy"},
            marks=pytest.mark.slow,
        ),
        pytest.param("2.0 * dv + ds", "3.0 * dv + ds", {"t_uses_squash"}, marks=pytest.mark.slow),
    ],
)
def test_editing_a_rule_changes_the_keys_of_exactly_its_users(
    tmp_path: Path, old: str, new: str, users: set[str]
) -> None:
    text = KERNELS.read_text()
    assert old in text
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "m.py").write_text(text)
    (tmp_path / "b" / "m.py").write_text(text.replace(old, new))
    a, b = _keys(tmp_path / "a" / "m.py"), _keys(tmp_path / "b" / "m.py")
    assert {name for name in a if a[name] != b[name]} == users


HELPERS = """\
import math

import gradc


@gradc.custom_jvp
def soft(x):
    return math.log(1.0 + math.exp(x))


@soft.defjvp
def soft_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return soft(x), 7.0 * t


@gradc.custom_vjp
def sq(u):
    return u * u


def sq_fwd(u):
    return sq(u), u


def sq_bwd(u, ct):
    return (ct * 100.0 * u,)


sq.defvjp(sq_fwd, sq_bwd)
"""

MAIN = """\
import gradc
from gradc import f64

import rules_mod
from rules_mod import soft


@gradc.export
def f(x: f64) -> f64:
    return soft(x) * 2.0


@gradc.export
def g(x: f64) -> f64:
    return rules_mod.sq(x) + x


t_f = gradc.jvp(f)
d_g = gradc.grad(g)
"""


def test_rules_of_an_imported_module_are_used_and_keyed(
    tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    (tmp_path / "rules_mod.py").write_text(HELPERS)
    (tmp_path / "m.py").write_text(MAIN)
    lib = compile_module(tmp_path / "m.py")
    assert lib.t_f(0.3, 1.0) == (lib.f(0.3), 14.0)
    assert lib.d_g(1.5) == 100.0 * 1.5 + 1.0
    out = tmp_path / "m.gradc"
    build_ok(tmp_path / "m.py", out)
    (tmp_path / "rules_mod.py").write_text(HELPERS.replace("ct * 100.0", "ct * 90.0"))
    r, _ = build_ok(tmp_path / "m.py", out, "--explain")
    lines = r.output.splitlines()
    assert {"hit   f", "hit   g", "hit   t_f"} <= set(lines), r.output
    assert any(line.startswith("miss  d_g: ") for line in lines), r.output


def test_a_rule_on_an_f_ordered_array_is_a_compile_error(tmp_path: Path) -> None:
    from gradc.compiler.diagnostics import CompileError

    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent("""\
            import gradc
            from gradc import f64

            @gradc.custom_jvp
            @gradc.export
            def h(a: f64[::1, :]) -> f64:
                return a[0, 0]

            @h.defjvp
            def h_jvp(primals, tangents):
                return h(primals[0]), 0.0

            t = gradc.jvp(h)
            """)
    )
    with pytest.raises(CompileError, match=r"parameters must be floats or f64 arrays"):
        build_module(src, CompilerOptions())
