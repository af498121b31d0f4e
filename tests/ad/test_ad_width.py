"""Forward mode with a vector width (passes/ad/vector_forward.py): ``gradc.jvp(...,
width=k)`` equals k separate JVP calls bit for bit (the same arithmetic per lane) and
central differences; ``gradc.jacfwd(..., width=k)`` equals the width-1 Jacobian bit for
bit, also where k does not divide the number of columns; tangents of the wrong shape
raise ``ValueError``. Kernels: tests/ad/api/width.py (slow: its build takes ~20 s; the
default run checks a width in tests/ad/test_ad_jacobians.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.test_ad_jacobians import arrays, floats, leaves

KERNELS = Path(__file__).parent / "api" / "width.py"
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@pytest.mark.slow
@settings(max_examples=10, **SETTINGS)
@given(n=st.integers(1, 5), data=st.data())
def test_lanes_equal_separate_jvps_exactly(lib: Any, n: int, data: st.DataObject) -> None:
    m = data.draw(st.integers(1, n))  # field needs m <= n
    x, c = data.draw(floats), data.draw(floats)
    dx, dc = data.draw(arrays((8,))), data.draw(arrays((8,)))
    steps = data.draw(st.integers(0, 30))
    value, t8 = lib.t8_loop(x, c, steps, dx, dc)
    assert t8.shape == (8,) and t8.flags.c_contiguous
    for lane in range(8):
        assert lib.t_loop(x, c, steps, dx[lane], dc[lane]) == (value, t8[lane])
    xs, a = data.draw(arrays((n,))), data.draw(arrays((m, n)))
    dxs, da, dcs = data.draw(arrays((8, n))), data.draw(arrays((8, m, n))), data.draw(arrays((8,)))
    value, t8 = lib.t8_field(xs, a, c, dxs, da, dcs)
    assert t8.shape == (8, m)
    for lane in range(8):
        v1, t1 = lib.t_field(xs, a, c, dxs[lane], da[lane], dcs[lane])
        np.testing.assert_array_equal(v1, value)
        np.testing.assert_array_equal(t1, t8[lane])
    (s, e), (ts, te) = lib.t3_pair(xs, c, dxs[:3], dcs[:3])
    assert ts.shape == (3,) and te.shape == (3, n)
    assert s == lib.pair(xs, c)[0]
    np.testing.assert_array_equal(e, lib.pair(xs, c)[1])
    for lane in range(3):
        assert lib.t_pair(xs, c, dxs[lane], dcs[lane])[1][0] == ts[lane]
        np.testing.assert_array_equal(lib.t_pair(xs, c, dxs[lane], dcs[lane])[1][1], te[lane])


@pytest.mark.slow
def test_lanes_equal_finite_differences(lib: Any) -> None:
    rng = np.random.default_rng(7)
    x, c, n = 0.4, 1.3, 50
    dx, dc = rng.normal(size=8), rng.normal(size=8)
    _, t8 = lib.t8_loop(x, c, n, dx, dc)
    for lane in range(8):
        h = 1e-6
        fd = (
            lib.loop(x + h * dx[lane], c + h * dc[lane], n)
            - lib.loop(x - h * dx[lane], c - h * dc[lane], n)
        ) / (2 * h)
        assert t8[lane] == pytest.approx(fd, rel=1e-6, abs=1e-8)


@pytest.mark.slow
@settings(max_examples=8, **SETTINGS)
@given(n=st.integers(1, 6), data=st.data())
def test_batched_jacfwd_equals_the_unbatched_one(lib: Any, n: int, data: st.DataObject) -> None:
    m = data.draw(st.integers(1, n))  # field needs m <= n
    x, a, c = data.draw(arrays((n,))), data.draw(arrays((m, n))), data.draw(floats)
    for got, want in zip(
        leaves(lib.jf4_field(x, a, c)), leaves(lib.jf_field(x, a, c)), strict=True
    ):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(leaves(lib.jf3_pair(x, c)), leaves(lib.jf_pair(x, c)), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_lanes_of_a_gradient_and_of_a_custom_rule(lib: Any) -> None:
    """Forward over reverse with a width (lanes of Hessian-vector products), and a
    ``custom_jvp`` helper (its rule once per lane), each lane equal to a width-1 JVP."""
    rng = np.random.default_rng(3)
    dx, dc = rng.normal(size=4), rng.normal(size=4)
    value, (tx, tc) = lib.hvp4(0.3, 1.2, 20, dx, dc)
    for lane in range(4):
        assert lib.hvp(0.3, 1.2, 20, dx[lane], dc[lane]) == (value, (tx[lane], tc[lane]))
    _, t3 = lib.t3_soft(0.4, np.array([1.0, 2.0, 3.0]))
    assert list(t3) == [lib.t_soft(0.4, d)[1] for d in (1.0, 2.0, 3.0)]


@pytest.mark.slow
def test_tangents_of_the_wrong_shape_raise(lib: Any) -> None:
    x, a = np.ones(3), np.ones((2, 3))
    with pytest.raises(
        ValueError,
        match=r"tangent 'd_x' must have shape \(width,\) \+ shape of 'x': its axis 0 must be 8 \(the width\)",
    ):
        lib.t8_loop(0.1, 0.2, 3, np.ones(7), np.ones(8))
    with pytest.raises(ValueError, match=r"'d_a' .* its axis 2 must be that of 'a' axis 1"):
        lib.t8_field(x, a, 1.0, np.ones((8, 3)), np.ones((8, 2, 4)), np.ones(8))


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ("gradc.jvp(w, width=4)", "with a width of 'w', which may write its array argument 'a'"),
        ("gradc.jvp(q, width=2)", r"returning tuple\[f64,i64\]: its result must be an f64"),
        ("gradc.jvp(q, width=1.5)", "width takes an int constant"),
        ("gradc.grad(q, width=2)", "unexpected keyword 'width'"),
    ],
)
def test_what_has_no_vector_jvp_is_a_compile_error(
    tmp_path: Path, declaration: str, message: str
) -> None:
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent(f"""\
            import gradc
            from gradc import f64, i64

            @gradc.export
            def w(x: f64, a: f64[:]) -> f64:
                a[0] = x
                return x * a[0]

            @gradc.export
            def q(x: f64) -> tuple[f64, i64]:
                return x * x, 1

            d = {declaration}
            """)
    )
    with pytest.raises(CompileError, match=message) as info:
        build_module(src, CompilerOptions())
    assert "m.py:13:" in str(info.value)
