"""Third derivatives (passes/ad/higher.py, columns.py, rules/derivative_code.py) of
tests/ad/api/third.py against central differences of the compiled second derivatives:
``gradc.hessian`` of a gradient (forward columns of the gradient's forward columns),
``gradc.jvp`` of a Hessian-vector product (forward over forward over reverse),
``gradc.grad`` of ``grad`` of ``grad``, ``gradc.jacfwd`` of a Hessian (an array, and a
tuple of tuples)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

KERNELS = Path(__file__).parent / "api" / "third.py"
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}
H = 1e-5


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def _hessian(lib: Any, a: float, x: np.ndarray) -> np.ndarray:
    """``h_f`` as one ``(n + 1, n + 1)`` matrix over ``(a, x)``."""
    (haa, hax), (hxa, hxx) = lib.h_f(a, x)
    return np.block([[np.array([[haa]]), hax[None, :]], [hxa[:, None], hxx]])


def _fd_third(lib: Any, a: float, x: np.ndarray) -> np.ndarray:
    """``T[p, q, r] = ∂H[q, r]/∂z_p`` by central differences of the compiled Hessian."""
    n = len(x)
    t = np.zeros((n + 1, n + 1, n + 1))
    for p in range(n + 1):
        shift = np.zeros(n + 1)
        shift[p] = H
        up = _hessian(lib, a + shift[0], x + shift[1:])
        down = _hessian(lib, a - shift[0], x - shift[1:])
        t[p] = (up - down) / (2 * H)
    return t


@pytest.mark.slow
@settings(max_examples=5, **SETTINGS)
@given(
    a=st.floats(-1.0, 1.0),
    xs=st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=4),
    data=st.data(),
)
def test_third_derivatives_equal_differences_of_the_hessian(
    lib: Any, a: float, xs: list[float], data: st.DataObject
) -> None:
    x = np.array(xs)
    n = len(x)
    t = _fd_third(lib, a, x)
    tol = {"rtol": 1e-6, "atol": 1e-6 * max(1.0, float(np.abs(t).max()))}
    (haa, hax), (hxa, hxx) = lib.h_g_a(a, x)  # ∂²(∂f/∂a): T[0]
    got = np.block([[np.array([[haa]]), hax[None, :]], [hxa[:, None], hxx]])
    np.testing.assert_allclose(got, t[0], **tol)
    assert lib.ggg_a(a, x) == pytest.approx(t[0, 0, 0], rel=1e-6, abs=tol["atol"])
    by_a, by_x = lib.jh_x(a, x)  # ∂H_xx/∂a: (n, n); ∂H_xx/∂x: (n, n) + (n,)
    np.testing.assert_allclose(by_a, t[0, 1:, 1:], **tol)
    np.testing.assert_allclose(np.moveaxis(by_x, 2, 0), t[1:, 1:, 1:], **tol)
    (d_aa, d_ax), (d_xa, d_xx) = lib.jh_f(a, x)  # jacfwd of a nested tuple result
    np.testing.assert_allclose(d_aa, t[1:, 0, 0], **tol)
    np.testing.assert_allclose(d_ax, t[1:, 0, 1:].T, **tol)
    np.testing.assert_allclose(d_xa, t[1:, 1:, 0].T, **tol)
    np.testing.assert_allclose(d_xx, by_x, rtol=1e-12, atol=1e-12)
    u = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=n + 1, max_size=n + 1)))
    v = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=n + 1, max_size=n + 1)))
    _, (_, (d3a, d3x)) = lib.t3(a, x, v[0], v[1:], u[0], u[1:])
    want = np.einsum("pqr,p,r->q", t, u, v)  # ∂/∂u of H·v
    np.testing.assert_allclose(np.concatenate([[d3a], d3x]), want, **tol)
