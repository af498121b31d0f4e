"""Derivative rules that must not raise, produce NaN, or raise another exception than
the function (issue #18, classes 3, 4, 7 and 10), on the exports of
``tests/ad/edges/edges.py`` at chosen points.

At each point, CPython runs the plain function first. Where it raises, the gradient
(``d_f``) and the JVP (``t_f``) exports raise the same exception type with the same
message (the primal's checks come first; derivative code never raises). Where it
returns, both derivative exports return: ``t_f``'s value is CPython's, the gradient and
the tangent agree (dot-product test) and are finite, and where the function is smooth
around the point they match central finite differences of the plain function.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "edges" / "edges.py"
PLAIN = H.load_plain(KERNELS)

SMOOTH = "smooth"  # differentiable around the point: FD, forward-vs-reverse, finite
AGREE = "agree"  # a one-sided point (FD would leave the domain): forward-vs-reverse, finite
DEFINED = "defined"  # the derivative is undefined there (NaN is right): no exception only

A = np.array

#: (export, arguments, what is checked where CPython returns)
POINTS: list[Any] = [
    ("zero_pow_unused", (8, 0.402, 1.774907), SMOOTH),  # the reproducer
    ("zero_pow_unused", (8, 0.4, 0.0), AGREE),
    ("zero_pow_unused", (8, 0.4, -1.0), SMOOTH),  # ZeroDivisionError
    ("zero_pow_used", (0.7, 1.5), SMOOTH),
    ("zero_pow_used", (-0.3, 0.2), SMOOTH),
    ("zero_pow_used", (0.5, -1.0), SMOOTH),  # ZeroDivisionError
    ("zero_pow_hypot", (A([[0.3, 0.1], [0.2, -1.2]]),), SMOOTH),
    ("zero_pow_branch", (1.5,), SMOOTH),
    ("zero_pow_branch", (0.0,), AGREE),
    ("zero_pow_branch", (-1.0,), SMOOTH),  # ZeroDivisionError
    ("math_pow_zero_base", (A([0.5, 2.0]),), SMOOTH),
    ("math_pow_zero_base", (A([0.5, -1.0]),), SMOOTH),  # ValueError
    ("pow_zero_exponent", (2.0, 0.0), SMOOTH),
    ("pow_zero_exponent", (0.0, 2.0), SMOOTH),
    ("pow_zero_exponent", (0.0, 1.0), SMOOTH),
    ("pow_zero_exponent", (0.0, 0.0), DEFINED),  # d/dy 0 ** y at 0: a jump (0 by convention)
    ("pow_inf_exponent", (0.5, 1.7), SMOOTH),
    ("pow_inf_exponent", (-0.3, -2.0), SMOOTH),
    ("atan2_infinite", (2.0, 2.0), SMOOTH),
    ("atan2_infinite", (-1.0, 0.5), SMOOTH),
    ("zero_factor_path", (0.5, -0.3), SMOOTH),
    ("zero_factor_path", (2.5, 1.2), SMOOTH),
    ("negative_base_zero_exponent", (-0.3, 0.5), SMOOTH),
    ("negative_base_zero_exponent", (-1.7, 0.2), SMOOTH),
    ("pow_cancelling_exponent", (0.7, 0.0), SMOOTH),  # fuzz seed 101852: 0 ** (t - u)
    ("pow_cancelling_exponent", (0.7, -1.5), SMOOTH),  # fuzz seed 274: a ** (a / a), a < 0
    ("pow_cancelling_exponent", (-0.4, 2.5), SMOOTH),
    ("atan2_origin", (1.7,), SMOOTH),
    ("atan2_origin", (3.0,), SMOOTH),
    ("mod_after_pow", (2.0, 3), SMOOTH),
    ("mod_after_pow", (2.0, 0), SMOOTH),  # ZeroDivisionError (integer modulo by zero)
    ("mod_after_pow", (-1.0, 0), SMOOTH),  # ValueError of math.pow, before the modulo
    ("pow_neg_inf", (-1.0,), SMOOTH),
    ("pow_neg_inf", (-2.5,), SMOOTH),
    ("pow_neg_inf", (2.0,), DEFINED),
    ("pow_neg_inf", (3.0,), DEFINED),
    ("pow_overflow", (0.0,), SMOOTH),  # OverflowError
    ("store_after_pow", (2.0, A([1.0, 2.0, 3.0])), SMOOTH),  # IndexError
    ("store_after_pow", (0.0, A([1.0, 2.0, 3.0])), SMOOTH),  # ValueError of math.log
    ("store_after_pow", (2.0, A([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])), SMOOTH),
    ("unused_nan", (1.0,), SMOOTH),  # the reproducer
    ("unused_nan", (-2.0,), SMOOTH),
    ("unused_in_loop", (1.5, 3), SMOOTH),
    ("unused_in_loop", (-0.5, 2), SMOOTH),
    # |x| + x at 0: one-sided slopes 0 and 2, no derivative (central FD's 1 is none); reverse
    # gives NaN (sqrt'(0) = inf times the active partial x = 0), forward 1, JAX NaN in both
    ("sqrt_of_square", (0.0,), DEFINED),
    ("sqrt_of_square", (0.7,), SMOOTH),
    ("sqrt_of_square", (-1.2,), SMOOTH),
    ("max_unselected", (0.0,), SMOOTH),
    ("max_unselected", (0.25,), SMOOTH),
    ("max_unselected", (4.0,), SMOOTH),
    ("max_of_inf_product", (0.5,), SMOOTH),
    ("max_of_inf_product", (2.0,), SMOOTH),
    ("times_zero", (0.0,), AGREE),
    ("times_zero", (1.0,), SMOOTH),
    ("hypot_origin", (0.0, 0.0), SMOOTH),
    ("hypot_origin", (3.0, -4.0), SMOOTH),
    ("steps", (0.3, 1.7), SMOOTH),
    ("steps", (-1.4, 0.7), SMOOTH),
    ("steps", (2.5, -0.9), SMOOTH),
    ("kinks", (0.3, 1.7), SMOOTH),
    ("kinks", (1.2, -0.4), SMOOTH),
    ("kinks", (-0.8, -1.5), SMOOTH),
    ("float_floordiv", (2.7, 1.1), SMOOTH),
    ("float_floordiv", (-1.3, 0.8), SMOOTH),
    ("float_floordiv", (0.9, -0.7), SMOOTH),
    ("fmod_edges", (7.5, 2.0), SMOOTH),
    ("fmod_edges", (-7.5, 2.0), SMOOTH),
    ("fmod_edges", (7.5, -2.0), SMOOTH),
    ("fmod_edges", (6.0, 2.0), AGREE),  # a jump: the piece holding fmod's value
    ("fmod_edges", (-1.5, math.inf), AGREE),  # fmod(x, ±inf) is x
    ("fmod_edges", (1.0, 0.0), SMOOTH),  # ValueError
    ("fmod_edges", (1.0, -0.0), SMOOTH),  # ValueError
    ("fmod_edges", (math.inf, 2.0), SMOOTH),  # ValueError
    ("np_domain", (0.5,), SMOOTH),
    ("np_domain", (-1.0,), DEFINED),  # np.sqrt, np.log, np.arcsin: nan, no exception
    ("np_domain", (0.0,), DEFINED),  # np.log(0.0) is -inf, its derivative inf
    ("np_domain", (3.0,), DEFINED),  # np.arcsin(3.0) is nan
    ("np_max_unselected", (0.0,), SMOOTH),
    ("np_max_unselected", (0.25,), SMOOTH),
    ("np_max_unselected", (4.0,), SMOOTH),
    ("np_kinks", (0.0,), AGREE),
    ("np_kinks", (0.3,), SMOOTH),
    ("np_kinks", (-1.7,), SMOOTH),
]


#: fmod_edges(x, y) = 2·fmod(x, y) + x: (x, y) -> its gradient, where the rule's
#: convention decides it (docs/ad.md): at a jump the piece holding fmod's value
#: (fmod(6, 2) = 6 - 3·2: ∂y = -2·3), and fmod(x, inf) = x (∂y = -0).
FMOD_CONVENTIONS = [
    ((6.0, 2.0), (3.0, -6.0)),
    ((-6.0, 2.0), (3.0, 6.0)),
    ((-1.5, math.inf), (3.0, 0.0)),
]


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "value", fn(*H.copy_args(args))
    except Exception as exc:
        return "raise", (type(exc), str(exc))


def _wrt(args: tuple[Any, ...]) -> list[int]:
    return [i for i, a in enumerate(args) if isinstance(a, float | np.ndarray)]


def _direction(args: tuple[Any, ...]) -> list[Any]:
    """A fixed direction with unequal components (no accidental cancellation)."""
    out: list[Any] = []
    for k, i in enumerate(_wrt(args)):
        a = args[i]
        if isinstance(a, np.ndarray):
            out.append(np.linspace(0.3, -0.9, a.size).reshape(a.shape) * (k + 1))
        else:
            out.append(0.6 - 0.35 * k)
    return out


def _finite(xs: list[Any]) -> bool:
    return all(bool(np.all(np.isfinite(np.asarray(x)))) for x in xs)


def _id(k: int, point: Any) -> str:
    name = point.values[0] if hasattr(point, "values") else point[0]
    return f"{name}-{k}"


@pytest.mark.parametrize(
    ("name", "args", "kind"), POINTS, ids=[_id(k, p) for k, p in enumerate(POINTS)]
)
def test_derivative_at_edge(lib: Any, name: str, args: tuple[Any, ...], kind: str) -> None:
    plain = getattr(PLAIN, name)
    v = _direction(args)
    expected = _outcome(plain, args)
    assert _outcome(getattr(lib, name), args) == expected, "the compiled primal differs"
    grad = _outcome(getattr(lib, f"d_{name}"), args)
    jvp = _outcome(getattr(lib, f"t_{name}"), (*args, *v))
    if expected[0] == "raise":
        assert grad == expected, f"d_{name}{args!r}: {grad!r}, CPython: {expected!r}"
        assert jvp == expected, f"t_{name}{args!r}: {jvp!r}, CPython: {expected!r}"
        return
    assert grad[0] == "value", f"d_{name}{args!r} raised {grad[1]!r}; CPython returns"
    assert jvp[0] == "value", f"t_{name}{args!r} raised {jvp[1]!r}; CPython returns"
    value, tangent = jvp[1]
    fvalue = float(expected[1])
    assert value == fvalue or (math.isnan(value) and math.isnan(fvalue))
    gradient = list(grad[1]) if isinstance(grad[1], tuple) else [grad[1]]  # one wrt: bare
    if kind == DEFINED:
        return
    assert _finite([*gradient, tangent]), f"{name}{args!r}: grad {gradient!r}, jvp {tangent}"
    assert H.dot_close(gradient, v, tangent, fvalue), (
        f"{name}{args!r}: <grad, v> = {H.dot(gradient, v)!r}, jvp = {tangent!r}"
    )
    if kind == SMOOTH:
        fd = H.fd_gradient(plain, list(args), _wrt(args))
        names = [f"arg{i}" for i in _wrt(args)]
        H.assert_grad_matches_fd(f"d_{name}{args!r}", gradient, fd, names, fvalue)


@pytest.mark.parametrize(("args", "expected"), FMOD_CONVENTIONS)
def test_fmod_derivative_at_its_jumps(
    lib: Any, args: tuple[float, float], expected: tuple[float, float]
) -> None:
    assert lib.d_fmod_edges(*args) == expected
    assert lib.t_fmod_edges(*args, 1.0, 0.0)[1] == expected[0]
    assert lib.t_fmod_edges(*args, 0.0, 1.0)[1] == expected[1]


def test_fmod_nan_propagates_without_exception(lib: Any) -> None:
    # fmod(nan, 0) is NaN in CPython (no ValueError: an operand is NaN); so are the
    # derivatives' values, and they do not raise either
    assert math.isnan(lib.fmod_edges(math.nan, 0.0))
    assert math.isnan(lib.t_fmod_edges(math.nan, 0.0, 1.0, 1.0)[0])
    lib.d_fmod_edges(math.nan, 0.0)
