"""JAX's names in derivative declarations (compiler/frontend/derivatives.py,
passes/ad/aux.py): ``argnums=`` is ``wrt`` by position; ``has_aux=True`` returns the
auxiliary result beside the gradient, as JAX does; bad combinations are compile errors
at the declaration."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

KERNELS = Path(__file__).parent / "api" / "jax_names.py"


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def test_argnums_is_wrt_by_position(lib: Any) -> None:
    w = np.array([1.0, -2.0, 0.5])
    dx, dw = lib.by_argnums(3.0, w, 2)
    ex, ew = lib.by_wrt(3.0, w, 2)
    assert dx == ex == pytest.approx(w @ w)
    np.testing.assert_array_equal(dw, ew)
    np.testing.assert_allclose(ew, 6.0 * w)
    np.testing.assert_array_equal(lib.one_argnum(3.0, w, 2), ew)
    assert lib.no_aux(3.0, w, 2) == dx


def test_has_aux_returns_the_auxiliary_result_beside_the_gradient(lib: Any) -> None:
    w = np.array([1.0, 2.0])
    (dx, dw), aux = lib.aux_grad(3.0, w, 4)
    value, n = lib.f(3.0, w, 4)
    assert (dx, aux) == (lib.by_argnums(3.0, w, 4)[0], n)
    np.testing.assert_array_equal(dw, lib.by_argnums(3.0, w, 4)[1])
    (v, aux2), dw2 = lib.aux_value_and_grad(3.0, w, 4)
    assert (v, aux2) == (value, n)
    np.testing.assert_array_equal(dw2, dw)
    dx3, out = lib.array_aux(3.0, w)
    assert dx3 == pytest.approx(2.0 * 3.0 * w[0])
    np.testing.assert_array_equal(out, lib.g(3.0, w)[1])


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ('gradc.grad(h, wrt="x", argnums=0)', "takes wrt= or argnums= \\(its alias\\), not both"),
        ('gradc.grad(h, argnums="x")', "argnums takes parameter positions"),
        ("gradc.grad(h, argnums=(0, 5))", "'h' has no parameter at position 5"),
        ("gradc.jvp(h, has_aux=True)", "has_aux=True goes with gradc.grad and"),
        ("gradc.grad(h, has_aux=1)", "has_aux takes True or False"),
        ("gradc.grad(h, has_aux=True)", "has_aux=True needs 'h' to return a pair"),
        ("gradc.grad(p, has_aux=True)", "which may write its array argument 'a'"),
    ],
)
def test_bad_combinations_are_compile_errors(
    tmp_path: Path, declaration: str, message: str
) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent(f"""\
            import gradc
            from gradc import f64

            @gradc.export
            def h(x: f64, y: f64) -> f64:
                return x * y

            @gradc.export
            def p(x: f64, a: f64[:]) -> tuple[f64, f64]:
                a[0] = x
                return x * a[0], x

            d = {declaration}
            """)
    )
    with pytest.raises(CompileError, match=message) as info:
        build_module(src, CompilerOptions())
    assert "m.py:13:" in str(info.value)
