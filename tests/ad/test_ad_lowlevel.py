"""The low-level, Enzyme-style derivative exports ``gradc.reverse``/``gradc.forward``
(passes/ad/lowlevel.py): caller-supplied shadows accumulate, Active adjoints are returned,
Const parameters are untouched; checked against central finite differences of the plain
Python functions and against the high-level ``gradc.grad`` of the same function."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions
from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "lowlevel" / "kernels.py"
PLAIN = H.load_plain(KERNELS)

floats = st.floats(-2.0, 2.0, allow_nan=False)


def vectors(n: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(floats, min_size=n, max_size=n).map(np.array)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@settings(max_examples=25, deadline=None)
@given(x=vectors(4), c=floats)
def test_reverse_accumulates_into_the_shadow_and_returns_active_adjoints(
    lib: Any, x: np.ndarray, c: float
) -> None:
    value = PLAIN.energy(x.copy(), c, 4)
    fd_x, fd_c = H.fd_gradient(PLAIN.energy, [x, c, 4], [0, 1])
    start = np.linspace(-1.0, 1.0, 4)
    d_x = start.copy()
    got_value, d_c = lib.r_energy(x, d_x, c, 4)
    assert got_value == pytest.approx(value, rel=1e-12, abs=1e-12)
    H.assert_grad_matches_fd("r_energy", [d_x - start, d_c], [fd_x, fd_c], ["x", "c"], value)
    # the same numbers as the allocating high-level gradient
    g_x, g_c = lib.g_energy(x, c, 4)
    np.testing.assert_allclose(d_x - start, g_x, rtol=1e-13, atol=1e-13)
    assert d_c == pytest.approx(g_c, rel=1e-13, abs=1e-13)
    # a second call adds the gradient again
    lib.r_energy(x, d_x, c, 4)
    np.testing.assert_allclose(d_x - start, 2 * g_x, rtol=1e-12, atol=1e-12)


def test_positional_annotations_and_const_scalars(lib: Any) -> None:
    x = np.array([0.5, -1.0, 2.0])
    d_x = np.zeros(3)
    result = lib.r_energy_positional(x, d_x, 1.5, 3)
    assert isinstance(result, tuple) and len(result) == 1  # value only: c is Const
    assert result[0] == pytest.approx(PLAIN.energy(x, 1.5, 3))
    np.testing.assert_allclose(d_x, lib.g_energy(x, 1.5, 3)[0], rtol=1e-13)
    assert list(x) == [0.5, -1.0, 2.0]


@settings(max_examples=25, deadline=None)
@given(x=vectors(4), c=floats, dx=vectors(4), dc=floats)
def test_forward_is_the_directional_derivative(
    lib: Any, x: np.ndarray, c: float, dx: np.ndarray, dc: float
) -> None:
    value = PLAIN.energy(x.copy(), c, 4)
    got_value, tangent = lib.f_energy(x, dx, c, dc, 4)
    assert got_value == pytest.approx(value, rel=1e-12, abs=1e-12)
    fd = H.fd_directional(PLAIN.energy, [x, c, 4], [0, 1], [dx, dc])
    assert H.fd_close(tangent, fd, value)
    # dot-product test against reverse mode
    d_x = np.zeros(4)
    _, d_c = lib.r_energy(x, d_x, c, 4)
    assert tangent == pytest.approx(float(d_x @ dx) + d_c * dc, rel=1e-9, abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(a=vectors(6).map(lambda v: v.reshape(2, 3)), u=vectors(2), v=vectors(3))
def test_two_dimensional_shadows(lib: Any, a: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    d_a = np.zeros((2, 3))
    d_v = np.zeros(3)
    (value,) = lib.r_bilinear(a, d_a, u, v, d_v)
    assert value == pytest.approx(u @ a @ v, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(d_a, np.outer(u, v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d_v, u @ a, rtol=1e-12, atol=1e-12)
    # a Fortran-ordered shadow of an any-layout parameter works the same
    d_a_f = np.zeros((2, 3), order="F")
    lib.r_bilinear(a, d_a_f, u, v, np.zeros(3))
    np.testing.assert_allclose(d_a_f, d_a, rtol=0, atol=0)
    ta = np.ones((2, 3))
    tu = np.array([1.0, -1.0])
    _, tangent = lib.f_bilinear(a, ta, u, tu, v)
    assert tangent == pytest.approx(u @ ta @ v + tu @ a @ v, rel=1e-12, abs=1e-12)


def test_const_array_written_with_active_values_gets_a_scratch_shadow(lib: Any) -> None:
    x = np.array([1.0, -2.0, 0.5])
    out = np.zeros(3)
    d_x = np.zeros(3)
    value, d_c = lib.r_scale(x, d_x, out, 2.0)
    assert value == pytest.approx(PLAIN.scale_into(x, np.zeros(3), 2.0))
    fd_x, fd_c = H.fd_gradient(PLAIN.scale_into, [x, np.zeros(3), 2.0], [0, 2])
    H.assert_grad_matches_fd("r_scale", [d_x, d_c], [fd_x, fd_c], ["x", "c"], value)
    np.testing.assert_allclose(out, 2.0 * x)
    # the allocating gradient of the same function (a Const array written with active
    # values used to crash the reverse-mode builder)
    g_x, g_c = lib.g_scale(x, np.zeros(3), 2.0)
    np.testing.assert_allclose(g_x, d_x, rtol=1e-13)
    assert g_c == pytest.approx(d_c, rel=1e-13)


def test_overwritten_duplicated_array_matches_the_high_level_gradient(lib: Any) -> None:
    x = np.array([0.3, -1.2, 2.0])
    g_x, g_c = lib.g_overwrite(x.copy(), 0.7)
    d_x = np.zeros(3)
    _, d_c = lib.r_overwrite(x.copy(), d_x, 0.7)
    np.testing.assert_allclose(d_x, g_x, rtol=1e-13, atol=1e-13)
    assert d_c == pytest.approx(g_c, rel=1e-13)
    fd_x, fd_c = H.fd_gradient(PLAIN.overwrite, [x, 0.7], [0, 1])
    value = PLAIN.overwrite(x.copy(), 0.7)
    H.assert_grad_matches_fd("r_overwrite", [d_x, d_c], [fd_x, fd_c], ["x", "c"], value)


@pytest.mark.parametrize("c", [0.8, -0.6])
def test_array_phi_of_a_duplicated_and_a_const_parameter(lib: Any, c: float) -> None:
    """``src = a if c > 0 else b``, read and written: the Const ``b`` gets a scratch
    shadow, so the adjoints that reach ``b`` through ``src`` do not land in ``d_a``."""
    a = np.array([0.3, -1.2, 2.0])
    b = np.array([1.5, 0.4, -0.7])
    d_a = np.zeros(3)
    value, d_c = lib.r_pick(a.copy(), d_a, b.copy(), c)
    assert value == pytest.approx(PLAIN.pick(a.copy(), b.copy(), c), rel=1e-13)
    fd_a, fd_c = H.fd_gradient(PLAIN.pick, [a, b, c], [0, 2])
    H.assert_grad_matches_fd("r_pick", [d_a, d_c], [fd_a, fd_c], ["a", "c"], value)
    g_a, g_c = lib.g_pick(a.copy(), b.copy(), c)
    np.testing.assert_allclose(g_a, d_a, rtol=1e-13, atol=1e-13)
    assert g_c == pytest.approx(d_c, rel=1e-13, abs=1e-13)
    # both Duplicated: each gets the adjoints of the elements ``src`` read from it
    d_a, d_b = np.zeros(3), np.zeros(3)
    lib.r_pick_both(a.copy(), d_a, b.copy(), d_b, c)
    (fd_b,) = H.fd_gradient(PLAIN.pick, [a, b, c], [1])
    H.assert_grad_matches_fd("r_pick_both", [d_a, d_b], [fd_a, fd_b], ["a", "b"], value)


def test_shadow_of_the_wrong_shape_is_a_value_error(lib: Any) -> None:
    with pytest.raises(ValueError, match="shadow 'd_x' must have the shape of 'x'"):
        lib.r_energy(np.ones(3), np.zeros(2), 1.0, 3)
    with pytest.raises(ValueError, match=r"tangent 'd_a' must have the shape of 'a'.*axis 1"):
        lib.f_bilinear(np.ones((2, 3)), np.ones((2, 2)), np.ones(2), np.ones(2), np.ones(3))


def test_read_only_shadow_is_refused(lib: Any) -> None:
    d_x = np.zeros(3)
    d_x.flags.writeable = False
    with pytest.raises((TypeError, ValueError), match="d_x"):
        lib.r_energy(np.ones(3), d_x, 1.0, 3)


BAD = [
    ("r = gradc.reverse(f, x=gradc.Active)", "gradc.Active applies to float scalars"),
    ("r = gradc.reverse(f, c=gradc.Duplicated)", "gradc.Duplicated in reverse mode needs an"),
    ("r = gradc.forward(f, c=gradc.Active)", "gradc.Active is a reverse-mode annotation"),
    ("r = gradc.reverse(f, y=gradc.Active)", "'f' has no parameter 'y'"),
    ("r = gradc.reverse(f, x=gradc.Const)", "marks no parameter Duplicated or Active"),
    ("r = gradc.reverse(f, x=3)", "annotates parameters with gradc.Duplicated"),
    ("r = gradc.reverse(f, gradc.Duplicated, x=gradc.Duplicated)", "annotated twice"),
    ("r = gradc.reverse(f, n=gradc.Active)", "only float scalars and float arrays"),
]


@pytest.mark.parametrize(("decl", "message"), BAD)
def test_bad_annotations_are_compile_errors(tmp_path: Path, decl: str, message: str) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        textwrap.dedent(
            """\
            import gradc
            from gradc import f64, i64


            @gradc.export
            def f(x: f64[:], c: f64, n: i64) -> f64:
                return x[0] * c
            """
        )
        + "\n\n"
        + decl
        + "\n"
    )
    with pytest.raises(CompileError) as info:
        build_module(source, CompilerOptions())
    text = info.value.render()
    assert message in text
    assert "m.py:10:" in text
    assert not (tmp_path / "build").exists()


def test_allocating_gradients_use_c_contiguous_shadows() -> None:
    """``gradc.grad`` allocates its shadows C-contiguous, so its reverse function takes
    them typed C (no stride arithmetic); ``gradc.reverse`` takes the caller's shadows in
    the parameter's own layout."""
    from gradc.compiler.driver import build_module as build
    from gradc.compiler.ir.parser import parse_module
    from gradc.compiler.ir.types import ArrayType

    output = build(KERNELS, CompilerOptions())
    layouts = {}
    for entry in output.entries:
        if entry.name in ("g_energy", "r_energy"):
            module = parse_module(entry.ir_text)
            (rev,) = [f for name, f in module.functions.items() if name.startswith("energy.rev")]
            (shadow,) = [p for p in rev.params if isinstance(p.type, ArrayType)]
            layouts[entry.name] = shadow.type.layout  # type: ignore[union-attr]
    assert layouts == {"g_energy": "C", "r_energy": "A"}
