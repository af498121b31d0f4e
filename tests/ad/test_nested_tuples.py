"""Nested tuples in derivatives: both modes differentiate through a tuple holding another
tuple. The reverse sweep keeps one adjoint per float *leaf* of a tuple, numbered in
depth-first order (passes/ad/leaves.py); it once kept them one level deep and dropped
the inner ones (``t = (x, (2.0, y)); return t[0] * t[1][1]`` gave d/dy = 0), then
refused them. Checked against central finite differences of CPython and forward vs
reverse mode, through locals, helper results, helper arguments and loop-carried tuples."""

from __future__ import annotations

import math
from typing import Any

import pytest

HEADER = "import math\n\nimport gradc\nfrom gradc import f64\n\n\n"

NESTED = """\
@gradc.export
def nested(x: f64, y: f64) -> f64:
    t = (x, (2.0, y))
    return t[0] * t[1][1]


def g(x: f64, y: f64) -> tuple[f64, tuple[f64, f64]]:
    return x * y, (math.sin(x), y)


@gradc.export
def through_helper(x: f64, y: f64) -> f64:
    a, (b, c) = g(x, y)
    return a + b * c


def h(t: tuple[f64, tuple[int, f64]]) -> f64:
    return t[0] * t[1][1] + t[1][0]


@gradc.export
def into_helper(x: f64, y: f64) -> f64:
    return h((x * x, (3, math.exp(y))))


@gradc.export
def loop_carried(x: f64, y: f64) -> f64:
    t = (x, (y, 1.0))
    for i in range(3):
        t = (t[1][0] * t[0], (t[0] + y, t[1][1] * x))
    inner = t[1]
    return t[0] + inner[0] * inner[1]
"""

NAMES = ["nested", "through_helper", "into_helper", "loop_carried"]
POINT = (0.7, -1.3)


def _plain(name: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(HEADER + NESTED, namespace)  # gradc.export is inert here (GRADC_PLAIN_PYTHON=1)
    return namespace[name]


def _fd(name: str, k: int) -> float:
    f, h = _plain(name), 1e-6
    up, down = list(POINT), list(POINT)
    up[k] += h
    down[k] -= h
    return (f(*up) - f(*down)) / (2 * h)


@pytest.fixture(scope="module")
def lib(compile_module: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    source = tmp_path_factory.mktemp("nested") / "nested_tuples.py"
    decls = "".join(
        f"\nd_{n} = gradc.grad({n}, wrt=('x', 'y'))\nt_{n} = gradc.jvp({n}, wrt=('x', 'y'))\n"
        for n in NAMES
    )
    source.write_text(HEADER + NESTED + decls)
    return compile_module(source)


@pytest.mark.parametrize("name", NAMES)
def test_reverse_and_forward_through_nested_tuples_match_finite_differences(
    lib: Any, name: str
) -> None:
    grad = getattr(lib, f"d_{name}")(*POINT)
    fd = [_fd(name, k) for k in range(2)]
    value, tangent_x = getattr(lib, f"t_{name}")(*POINT, 1.0, 0.0)
    _, tangent_y = getattr(lib, f"t_{name}")(*POINT, 0.0, 1.0)
    assert value == _plain(name)(*POINT)
    for k, (g_k, t_k) in enumerate(zip(grad, (tangent_x, tangent_y), strict=True)):
        assert math.isclose(g_k, fd[k], rel_tol=1e-7, abs_tol=1e-9), (k, g_k, fd[k])
        assert math.isclose(g_k, t_k, rel_tol=1e-12, abs_tol=1e-15), (k, g_k, t_k)
