"""Nested tuples in derivatives: forward mode differentiates through them; reverse mode
keeps one adjoint per element of a tuple, one level deep, so it refuses an active tuple
holding another tuple with a compile error naming the line (it once returned a silent 0
for the inner elements: ``t = (x, (2.0, y)); return t[0] * t[1][1]`` gave d/dy = 0)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

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
"""


def _plain(name: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(HEADER + NESTED, namespace)  # gradc.export is inert here (GRADC_PLAIN_PYTHON=1)
    return namespace[name]


@pytest.mark.parametrize("name", ["nested", "through_helper"])
def test_reverse_mode_refuses_a_nested_tuple_naming_its_line(tmp_path: Path, name: str) -> None:
    source = tmp_path / "m.py"
    source.write_text(HEADER + NESTED + f"\nd_{name} = gradc.grad({name}, wrt=('x', 'y'))\n")
    with pytest.raises(CompileError) as info:
        build_module(source, CompilerOptions())
    message = info.value.render()
    assert "a tuple nested in a tuple" in message
    assert "reverse mode" in message
    assert f"'{name}'" in message


@pytest.mark.parametrize("name", ["nested", "through_helper"])
@pytest.mark.parametrize("wrt", ["x", "y"])
def test_forward_mode_through_a_nested_tuple_matches_finite_differences(
    compile_module: Any, tmp_path_factory: pytest.TempPathFactory, name: str, wrt: str
) -> None:
    source = tmp_path_factory.mktemp("nested") / f"nested_fwd_{name}_{wrt}.py"
    source.write_text(HEADER + NESTED + f"\nt_{name} = gradc.jvp({name}, wrt={wrt!r})\n")
    lib = compile_module(source)
    x, y = 0.7, -1.3
    value, tangent = getattr(lib, f"t_{name}")(x, y, 1.0)
    f = _plain(name)
    h = 1e-6
    if wrt == "x":
        fd = (f(x + h, y) - f(x - h, y)) / (2 * h)
    else:
        fd = (f(x, y + h) - f(x, y - h)) / (2 * h)
    assert value == f(x, y)
    assert math.isclose(tangent, fd, rel_tol=1e-7, abs_tol=1e-9)
