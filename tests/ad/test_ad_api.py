"""The high-level derivative exports (passes/ad/api.py, reverse_exports.py):
``gradc.jvp`` checks the shapes of its tangent arrays, ``gradc.vjp`` of a function
returning a tuple takes one cotangent per float element, and declarations that cannot be
honoured are compile errors in the user's types, at the declaration's line."""

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
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.options import CompilerOptions
from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "api" / "kernels.py"
PLAIN = H.load_plain(KERNELS)

floats = st.floats(-2.0, 2.0, allow_nan=False)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def test_jvp_tangents_of_the_right_shape_give_the_directional_derivative(lib: Any) -> None:
    x, w, c = np.array([0.5, -1.0]), np.arange(6.0).reshape(2, 3), 1.5
    dx, dw, dc = np.array([1.0, 0.25]), np.ones((2, 3)) * 0.5, -0.75
    value, tangent = lib.t_weighted(x, w, c, dx, dw, dc)
    fd = H.fd_directional(PLAIN.weighted, [x, w, c], [0, 1, 2], [dx, dw, dc])
    assert value == pytest.approx(PLAIN.weighted(x, w, c), rel=1e-13)
    assert H.fd_close(tangent, fd, value)


@pytest.mark.parametrize(
    ("dx", "dw", "name", "axis"),
    [
        (np.ones(1), np.ones((2, 3)), "d_x", 0),  # too short
        (np.ones(3), np.ones((2, 3)), "d_x", 0),  # too long
        (np.ones(2), np.ones((2, 4)), "d_w", 1),
        (np.ones(2), np.ones((1, 3)), "d_w", 0),
    ],
)
def test_jvp_tangent_of_another_shape_is_a_value_error(
    lib: Any, dx: np.ndarray, dw: np.ndarray, name: str, axis: int
) -> None:
    x, w = np.ones(2), np.ones((2, 3))
    param = name[2:]
    with pytest.raises(ValueError, match=rf"tangent '{name}' must have the shape of '{param}'"):
        lib.t_weighted(x, w, 1.0, dx, dw, 0.5)
    with pytest.raises(ValueError, match=rf"differ in axis {axis}"):
        lib.t_weighted(x, w, 1.0, dx, dw, 0.5)


@settings(max_examples=20, deadline=None)
@given(
    x=floats,
    a=st.lists(floats, min_size=1, max_size=4).map(np.array),
    n=st.integers(-3, 3),
    ct0=floats,
    ct2=floats,
)
def test_vjp_of_a_tuple_takes_one_cotangent_per_float_element(
    lib: Any, x: float, a: np.ndarray, n: int, ct0: float, ct2: float
) -> None:
    def scalarised(x: float, a: np.ndarray, n: int) -> float:
        r0, _, r2 = PLAIN.pair(x, a, n)
        return ct0 * r0 + ct2 * r2

    g_x, g_a = lib.v_pair(x, a, n, ct0, ct2)
    value = scalarised(x, a, n)
    fd_x, fd_a = H.fd_gradient(scalarised, [x, a, n], [0, 1])
    H.assert_grad_matches_fd("v_pair", [g_x, g_a], [fd_x, fd_a], ["x", "a"], value)


def test_vjp_of_a_tuple_names_its_cotangents(lib: Any) -> None:
    with pytest.raises(TypeError):
        lib.v_pair(1.0, np.ones(2), 1, 1.0)  # ct_2 is missing
    output = build_module(KERNELS, CompilerOptions())
    (entry,) = [e for e in output.entries if e.name == "v_pair"]
    module = parse_module(entry.ir_text)
    names = [p.name for p in module.functions["v_pair"].params]
    assert names == ["x", "a", "n", "ct_0", "ct_2"]


def test_forward_mode_through_a_helper_returning_an_inactive_array(lib: Any) -> None:
    a = np.array([0.5, -1.0, 2.0])
    value, tangent = lib.t_ramp_dot(a, np.array([1.0, 0.0, -1.0]))
    fd = H.fd_directional(PLAIN.ramp_dot, [a], [0], [np.array([1.0, 0.0, -1.0])])
    assert H.fd_close(tangent, fd, value)
    (g,) = lib.d_ramp_dot(a)
    np.testing.assert_allclose(g, 2.0 * np.array([1.0, 2.0, 3.0]) * a, rtol=1e-13)


def _build(tmp_path: Path, body: str) -> CompileError:
    source = tmp_path / "m.py"
    source.write_text("import gradc\nfrom gradc import f64, i64\n\n\n" + textwrap.dedent(body))
    with pytest.raises(CompileError) as info:
        build_module(source, CompilerOptions())
    return info.value


@pytest.mark.parametrize(
    ("returns", "value", "user_type"),
    [
        ("bool", "return x > 0.0", "bool"),
        ("None", "pass", "None"),
        ("f64[:]", "return a", "f64[:]"),
    ],
)
def test_grad_of_a_non_float_names_the_user_type(
    tmp_path: Path, returns: str, value: str, user_type: str
) -> None:
    err = _build(
        tmp_path,
        f"""\
        @gradc.export
        def g(x: f64, a: f64[:]) -> {returns}:
            a[0] = x
            {value}


        d_g = gradc.grad(g, wrt="x")
        """,
    )
    assert f"to return a float, not {user_type} (use gradc.vjp" in err.message, err.render()
    assert err.loc.line == 11, err.render()  # the declaration


def test_reverse_through_a_helper_returning_its_argument_is_a_compile_error(
    tmp_path: Path,
) -> None:
    err = _build(
        tmp_path,
        """\
        def bump(a: f64[:], x: f64) -> f64[:]:
            a[0] = a[0] + x
            return a


        @gradc.export
        def g(a: f64[:], x: f64) -> f64:
            b = bump(a, x)
            return b[0] * a[1]


        d_g = gradc.grad(g, wrt=("a", "x"))
        """,
    )
    assert "cannot differentiate a returned array that may be a parameter" in err.message
    assert err.loc.line == 7, err.render()  # return a


@settings(max_examples=20, deadline=None)
@given(
    x=st.lists(floats, min_size=1, max_size=4).map(np.array),
    c=floats,
    seed=st.integers(0, 2**32 - 1),
)
def test_vjp_of_an_array_result_takes_an_array_cotangent(
    lib: Any, x: np.ndarray, c: float, seed: int
) -> None:
    ct = np.random.default_rng(seed).uniform(-1.0, 1.0, len(x) + 1)
    kept = ct.copy()

    def scalarised(x: np.ndarray, c: float) -> float:
        return float(PLAIN.spread(x, c) @ ct)

    g_x, g_c = lib.v_spread(x, c, ct)
    np.testing.assert_array_equal(ct, kept)  # the cotangent is only read
    fd_x, fd_c = H.fd_gradient(scalarised, [x, c], [0, 1])
    H.assert_grad_matches_fd("v_spread", [g_x, g_c], [fd_x, fd_c], ["x", "c"], scalarised(x, c))


def test_vjp_of_a_2d_array_result_with_a_fortran_cotangent(lib: Any) -> None:
    a = np.arange(6.0).reshape(2, 3) / 5.0
    ct = np.asfortranarray(np.arange(6.0).reshape(3, 2) - 2.0)

    def scalarised(a: np.ndarray, c: float) -> float:
        return float(np.sum(PLAIN.transpose_mix(a, c) * ct))

    g_a, g_c = lib.v_transpose_mix(a, 0.7, ct)
    fd_a, fd_c = H.fd_gradient(scalarised, [a, 0.7], [0, 1])
    H.assert_grad_matches_fd("v_transpose_mix", [g_a, g_c], [fd_a, fd_c], ["a", "c"], 1.0)


def test_vjp_cotangent_of_the_wrong_shape_raises_and_leaks_nothing(lib: Any) -> None:
    import gradc

    before = gradc.runtime_stats()["live"]
    for _ in range(20):
        with pytest.raises(ValueError, match="cotangent must have the shape of the result"):
            lib.v_spread(np.ones(3), 1.0, np.ones(3))
    assert gradc.runtime_stats()["live"] == before
