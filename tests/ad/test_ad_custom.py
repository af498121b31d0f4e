"""Custom derivative rules (compiler/frontend/custom_rules.py, passes/ad/custom.py):
a rule that differs from the true derivative is what the derivative returns, it may be
defined after the first use, and its code enters the keys of exactly the derivatives
that reach it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

KERNELS = Path(__file__).parent / "api" / "custom.py"


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def test_custom_vjp_rule_is_what_the_gradient_uses(lib: Any) -> None:
    x, y = 1.5, 2.0
    assert lib.uses_vjp(x, y) == (x * y) ** 2 + x
    dx, dy = lib.d_uses_vjp(x, y)
    u = x * y
    assert (dx, dy) == (100.0 * u * y + 1.0, 100.0 * u * x)  # the rule, not 2·u·y + 1


def test_custom_jvp_rule_is_what_the_jvp_uses(lib: Any) -> None:
    value, tangent = lib.t_uses_jvp(0.3, 1.0)
    assert value == lib.uses_jvp(0.3)
    assert tangent == 14.0  # 2 · 7 · ẋ


def _keys(path: Path) -> dict[str, str]:
    return {e.name: e.key for e in build_module(path, CompilerOptions()).entries}


def test_a_rule_enters_the_keys_of_exactly_the_derivatives_using_it(tmp_path: Path) -> None:
    text = KERNELS.read_text()
    before = tmp_path / "a" / "custom.py"
    after = tmp_path / "b" / "custom.py"
    before.parent.mkdir()
    after.parent.mkdir()
    before.write_text(text)
    after.write_text(text.replace("ct * 100.0 * u", "ct * 50.0 * u"))
    a, b = _keys(before), _keys(after)
    changed = {name for name in a if a[name] != b[name]}
    assert changed == {"d_uses_vjp"}


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ("", r"@gradc.custom_vjp function 'h' has no rule \(h.defvjp\(fwd, bwd\)\)"),
        ("h.defvjp(h_fwd)", r"h.defvjp takes two functions"),
        ("h.defvjp(h_fwd, nowhere)", r"'nowhere' is not a function of the module"),
        ("h.defvjp(h_fwd, h_bwd)\nh.defvjp(h_fwd, h_bwd)", r"'h' has a second custom rule"),
        ("k.defvjp(h_fwd, h_bwd)\nh.defvjp(h_fwd, h_bwd)", r"'k' is not declared"),
    ],
)
def test_rule_declaration_errors(tmp_path: Path, tail: str, message: str) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent("""\
            import gradc
            from gradc import f64

            @gradc.export
            def f(x: f64) -> f64:
                return h(x)

            @gradc.custom_vjp
            def h(x):
                return x * x

            def k(x):
                return x

            def h_fwd(x):
                return h(x), x

            def h_bwd(r, g):
                return (g * r,)

            d = gradc.grad(f)
            """)
        + tail
        + "\n"
    )
    with pytest.raises(CompileError, match=message):
        build_module(src, CompilerOptions())


def test_the_other_mode_is_a_compile_error(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent("""\
            import gradc
            from gradc import f64

            @gradc.export
            def f(x: f64) -> f64:
                return h(x)

            @gradc.custom_vjp
            def h(x):
                return x * x

            def h_fwd(x):
                return h(x), x

            def h_bwd(r, g):
                return (g * r,)

            h.defvjp(h_fwd, h_bwd)
            t = gradc.jvp(f)
            """)
    )
    with pytest.raises(CompileError, match=r"'h' has a custom_vjp rule \(reverse mode only\)"):
        build_module(src, CompilerOptions())
