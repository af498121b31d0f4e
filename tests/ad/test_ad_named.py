"""Hand-checked derivatives from the AD issue, one test each, on tests/ad/corpus/named.py
(the same functions also run through the corpus harness), and the compile errors of
derivatives that cannot exist: with respect to an int, or through float ``%``
(no rule yet).

Every value test checks both modes: the reverse-mode ``d_<name>`` against the expected
gradient, and the forward-mode ``t_<name>`` along each basis direction against the same
numbers (and its value against the plain function).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ad.corpus import _harness as H

NAMED = H.CORPUS_DIR / "named.py"
PLAIN = H.load_plain(NAMED)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(NAMED)


def _check(lib: Any, name: str, args: tuple[Any, ...], expected: list[Any], tol: float = 1e-12):
    """``d_name(*args) == expected`` (one entry per wrt), and ``t_name`` agrees per basis
    direction; the jvp value equals the plain function's."""
    case = next(c for c in H.discover(NAMED) if c.name == name)
    grad = getattr(lib, f"d_{name}")(*H.copy_args(args))
    assert isinstance(grad, tuple) and len(grad) == len(expected), grad
    for wname, got, want in zip(case.grad_wrt, grad, expected):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"d/d{wname}")
        if isinstance(want, np.ndarray):
            assert isinstance(got, np.ndarray) and got.shape == want.shape, f"d/d{wname}: {got!r}"
        else:
            assert isinstance(got, float), f"d/d{wname}: {got!r}"
    value = getattr(PLAIN, name)(*H.copy_args(args))
    t_f = getattr(lib, f"t_{name}")
    wrt = case.wrt_indices
    zeros = [np.zeros_like(args[i]) if isinstance(args[i], np.ndarray) else 0.0 for i in wrt]
    for k, i in enumerate(wrt):
        basis = list(zeros)
        if isinstance(args[i], np.ndarray):
            for index in np.ndindex(args[i].shape):
                basis[k] = np.zeros_like(args[i])
                basis[k][index] = 1.0
                v, t = t_f(*H.copy_args(args), *basis)
                assert math.isclose(v, value, rel_tol=1e-12, abs_tol=1e-12)
                assert math.isclose(t, float(expected[k][index]), rel_tol=tol, abs_tol=tol), (
                    f"t_{name} along d{case.grad_wrt[k]}{list(index)}: {t!r}"
                )
        else:
            basis[k] = 1.0
            v, t = t_f(*H.copy_args(args), *basis)
            assert math.isclose(v, value, rel_tol=1e-12, abs_tol=1e-12)
            assert math.isclose(t, expected[k], rel_tol=tol, abs_tol=tol), (
                f"t_{name} along d{case.grad_wrt[k]}: {t!r}"
            )


def test_product_loop_over_runtime_n(lib: Any) -> None:
    # p = x0 * x1 * x2: each partial is the product of the other two
    _check(lib, "product_loop", (np.array([2.0, 2.0, 2.0]), 3), [np.array([4.0, 4.0, 4.0])])


def test_product_loop_shorter_than_array(lib: Any) -> None:
    _check(lib, "product_loop", (np.array([2.0, 3.0, 5.0]), 2), [np.array([3.0, 2.0, 0.0])])


def test_weighted_mean_with_ones(lib: Any) -> None:
    # d/dx_i = w_i / sum(w) = 1/3; d/dw_i = (x_i - mean) / sum(w) = 0
    ones = np.ones(3)
    _check(lib, "weighted_mean", (ones, ones.copy()), [np.full(3, 1.0 / 3.0), np.zeros(3)])


def test_value_computed_before_a_loop_used_after_it(lib: Any) -> None:
    # a = x*x, acc = 5 + n*b = 11 at (x, b, n) = (1, 2, 3): d/dx = 2x*acc = 22, d/db = a*n = 3
    _check(lib, "before_after_loop", (1.0, 2.0, 3), [22.0, 3.0])


def test_before_after_loop_zero_trips(lib: Any) -> None:
    _check(lib, "before_after_loop", (1.5, 2.0, 0), [15.0, 0.0])


def test_running_max_logsumexp_is_softmax(lib: Any) -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0])
    softmax = np.exp(a) / np.sum(np.exp(a))
    _check(lib, "running_max_logsumexp", (a,), [softmax])


def test_running_max_logsumexp_with_ties(lib: Any) -> None:
    # the max is tied: the gradient is still the softmax (the max cancels out)
    a = np.array([3.0, 1.0, 3.0])
    softmax = np.exp(a) / np.sum(np.exp(a))
    _check(lib, "running_max_logsumexp", (a,), [softmax])


def test_triangular_double_loop(lib: Any) -> None:
    A = np.arange(16.0).reshape(4, 4)
    _check(lib, "upper_triangle_sum", (A,), [np.triu(np.ones((4, 4)))])


@pytest.mark.parametrize(("x", "halvings"), [(1.0, 4), (-3.0, 5), (0.05, 0), (0.15, 1)])
def test_while_halving_until_small(lib: Any, x: float, halvings: int) -> None:
    # a = x / 2**k with k the number of halvings until |a| <= 0.1: da/dx = 2**-k
    assert PLAIN.halve_until_small(x) == x / 2**halvings
    _check(lib, "halve_until_small", (x,), [0.5**halvings])


def test_array_element_overwritten_after_read(lib: Any) -> None:
    # b[i] is read, then overwritten with b[i] * x[i], twice: b = x**3, grad = 3 x**2
    x = np.array([1.0, 2.0, 3.0])
    _check(lib, "overwrite_in_loop", (x,), [3.0 * x**2])


# ------------------------------------------------------------------------- compile errors


def _build(tmp_path: Path, source: str) -> Any:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return build_module(path, CompilerOptions())


def _line_of(source: str, needle: str) -> int:
    lines = textwrap.dedent(source).lstrip().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


INT_PARAM = """
    import gradc
    from gradc import f64, i64


    @gradc.export
    def f(x: f64, n: i64) -> f64:
        return x * n


    {decl}
"""


@pytest.mark.parametrize(
    "decl",
    [
        'd_f = gradc.grad(f, wrt=("x", "n"))',
        "d_f = gradc.grad(f, wrt=1)",
        'd_f = gradc.value_and_grad(f, wrt="n")',
        'd_f = gradc.jvp(f, wrt=("n",))',
        'd_f = gradc.vjp(f, wrt=("n", "x"))',
    ],
)
def test_wrt_an_int_parameter_is_a_compile_error(tmp_path: Path, decl: str) -> None:
    from gradc.compiler.diagnostics import CompileError

    source = INT_PARAM.format(decl=decl)
    with pytest.raises(CompileError) as info:
        _build(tmp_path, source)
    err = info.value
    assert "'n'" in err.message, err.render()
    assert "i64" in err.message, err.render()
    assert err.loc.line == _line_of(source, "d_f = "), err.render()


NO_RULE = """
    import math

    import gradc
    from gradc import f64


    @gradc.export
    def g(x: f64) -> f64:
        y = x * 2.0
        return math.lgamma(y) + y


    d_g = gradc.grad(g, wrt="x")
    {decl}
"""


# float % differentiates now (tests/fuzzing/corpus/compile_error_float_mod.py); the second
# derivative of math.lgamma needs digamma's derivative, which has no rule
@pytest.mark.parametrize(
    "decl", ['h_g = gradc.jvp(d_g, wrt="x")', 'h_g = gradc.grad(d_g, wrt=("x",))']
)
def test_a_construct_without_a_rule_is_named(tmp_path: Path, decl: str) -> None:
    from gradc.compiler.diagnostics import CompileError

    source = NO_RULE.format(decl=decl)
    with pytest.raises(CompileError) as info:
        _build(tmp_path, source)
    err = info.value
    assert "cannot differentiate" in err.message, err.render()
    assert "math.digamma" in err.message, err.render()
    assert err.loc.line == _line_of(source, "math.lgamma(y) + y"), err.render()
    assert "math.lgamma(y) + y" in err.render()


NO_RULE_IN_HELPER = """
    import math

    import gradc
    from gradc import f64


    def _helper(t):
        return math.lgamma(t) * t


    @gradc.export
    def g(x: f64) -> f64:
        return _helper(x + 3.0)


    d_g = gradc.grad(g, wrt="x")
    h_g = gradc.jvp(d_g, wrt="x")
"""


def test_no_rule_in_a_helper_names_the_helper_line(tmp_path: Path) -> None:
    from gradc.compiler.diagnostics import CompileError

    with pytest.raises(CompileError) as info:
        _build(tmp_path, NO_RULE_IN_HELPER)
    err = info.value
    assert "cannot differentiate" in err.message, err.render()
    assert err.loc.line == _line_of(NO_RULE_IN_HELPER, "math.lgamma(t) * t"), err.render()


GAMMA_OF_CONSTANTS = """
    import math

    import gradc
    from gradc import f64, i64


    @gradc.export
    def h(x: f64, n: i64) -> f64:
        # lgamma of a value that carries no derivative needs no rule
        return math.lgamma(n + 0.5) * x * x


    d_h = gradc.grad(h, wrt="x")
    t_h = gradc.jvp(h, wrt="x")
"""


def test_gamma_of_inactive_values_is_fine(tmp_path: Path) -> None:
    import gradc
    from gradc.artifacts.store import write_artifact

    write_artifact(tmp_path / "h.gradc", _build(tmp_path, GAMMA_OF_CONSTANTS))
    lib = gradc.load(tmp_path / "h.gradc")
    assert math.isclose(lib.d_h(1.5, 3), math.lgamma(3.5) * 3.0, rel_tol=1e-14)
    assert math.isclose(lib.t_h(1.5, 3, 1.0)[1], math.lgamma(3.5) * 3.0, rel_tol=1e-14)
