"""Derivative declarations called inside compiled code (compiler/driver.py types the
exports that call them after AD): a Newton solver export calling ``df`` converges to
SciPy's ``newton`` root on ten functions; a gradient-descent export calling a gradient;
an export calling a Hessian-vector product; misuse is a compile error at the call."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

scipy_optimize = pytest.importorskip("scipy.optimize")

KERNELS = Path(__file__).parent / "api" / "in_code.py"
#: (k, x0, c) for each function of ``in_code.f``: a start in the root's basin
PROBLEMS = [
    (0, 1.0, 2.0),
    (1, 0.5, 1.0),
    (2, 0.5, 1.5),
    (3, 2.0, 1.5),
    (4, 1.0, 2.0),
    (5, 1.5, 2.0),
    (6, 0.5, 1.0),
    (7, 0.5, 2.0),
    (8, 1.0, 3.0),
    (9, 1.0, 2.0),
]


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@pytest.mark.parametrize(("k", "x0", "c"), PROBLEMS)
def test_newton_export_calling_df_finds_scipys_root(lib: Any, k: int, x0: float, c: float) -> None:
    root = lib.newton(k, x0, c, 1e-13, 100)
    expected = scipy_optimize.newton(
        lambda x: lib.f(k, x, c), x0, fprime=lambda x: lib.df(k, x, c), tol=1e-13, maxiter=100
    )
    assert root == pytest.approx(expected, rel=1e-12, abs=1e-14)
    assert abs(lib.f(k, root, c)) < 1e-9


@pytest.mark.parametrize(
    ("k", "c", "expected"),
    [(0, 2.0, 2.0 ** (-2.0 / 3.0) / 3.0), (8, 3.0, 1.0 / math.sqrt(10.0))],
)
def test_gradient_through_a_solver_calling_df(lib: Any, k: int, c: float, expected: float) -> None:
    """d root / d c through the iterations (forward-over-reverse columns: the solver
    runs df's reverse sweep): cbrt(c)' and asinh(c)'."""
    assert lib.droot(k, 1.0, c, 1e-14, 100) == pytest.approx(expected, rel=1e-12)


def test_gradient_descent_export_calling_a_gradient(lib: Any) -> None:
    w0, t = np.array([0.0, 2.0, -1.0]), np.array([0.5, 1.0, 1.5])
    w = w0.copy()
    for _ in range(20):
        w = w - 0.1 * lib.dloss(w, t)
    np.testing.assert_allclose(lib.descend(w0, t, 0.1, 20), w, rtol=1e-14)
    np.testing.assert_array_equal(w0, [0.0, 2.0, -1.0])


def test_export_calling_a_hessian_vector_product(lib: Any) -> None:
    w, t, v = np.array([0.0, 2.0]), np.array([0.5, 1.0]), np.array([1.0, -2.0])
    g, hv = lib.hvp(w, t, v)
    assert lib.newton_step(w, t, v) == pytest.approx(g @ hv, rel=1e-14)
    np.testing.assert_allclose(hv, np.cosh(w - t) * v, rtol=1e-14)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("df(x)", r"'df' takes 2 arguments \(x, c\), got 1"),
        ("df(1, c)", r"argument 'x' of 'df' must be f64, not i64"),
        ("df(x=x, c=c)", r"keyword arguments are not supported"),
        ("df(*(x, c))", r"unsupported|not supported"),
    ],
)
def test_misuse_is_a_compile_error_at_the_call(tmp_path: Path, call: str, message: str) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent(f"""\
            import gradc
            from gradc import f64

            @gradc.export
            def f(x: f64, c: f64) -> f64:
                return x * x - c

            df = gradc.grad(f)

            @gradc.export
            def g(x: f64, c: f64) -> f64:
                return {call}
            """)
    )
    with pytest.raises(CompileError, match=message) as info:
        build_module(src, CompilerOptions())
    assert "m.py:12:" in str(info.value)
