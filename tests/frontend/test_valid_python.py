"""Valid Python that gradc once rejected (issue #18, class 9): tests/codegen/corpus/valid_python.py
compiled and compared with CPython, every exception by type *and* message (the general
differential test compares messages of ZeroDivisionError only).

Also the compile-side half of the fixes: out-of-range int literals are still clear
errors, reads that really may precede an assignment are still reported, and the IR keeps
``int / int`` apart from ``float(n) / float(m)``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.codegen.test_differential import (
    CORPUS_DIR,
    Export,
    args_strategy,
    assert_same,
    corner_inputs,
    discover,
    load_plain,
)

MODULE = CORPUS_DIR / "valid_python.py"
EXPORTS = discover(MODULE)


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "value", fn(*args)
    except Exception as exc:  # any exception is compared
        return "raise", (type(exc), str(exc))


def _check(export: Export, plain: Callable[..., Any], compiled: Any, args: tuple[Any, ...]):
    want = _outcome(plain, args)
    got = _outcome(compiled, args)
    where = f"{export.id}{args!r}"
    if want[0] == "raise" or got[0] == "raise":
        assert got == want, f"{where}: CPython {want}, gradc {got}"
    else:
        assert_same(export, want[1], got[1], where)


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.id)
def test_same_values_and_exceptions(export: Export, compile_module: Callable[[Path], Any]) -> None:
    plain = getattr(load_plain(MODULE), export.name)
    compiled = getattr(compile_module(MODULE), export.name)
    for args in corner_inputs(export):
        _check(export, plain, compiled, args)

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(args=args_strategy(export))
    def drawn(args: tuple[Any, ...]) -> None:
        _check(export, plain, compiled, args)

    drawn()


def _build(tmp_path: Path, body: str) -> Any:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    path = tmp_path / "m.py"
    path.write_text("import gradc\n\n\n" + textwrap.dedent(body))
    return build_module(path, CompilerOptions())


@pytest.mark.parametrize(
    ("expr", "shown"),
    [
        ("9223372036854775808", "9223372036854775808"),
        ("-9223372036854775809", "-9223372036854775809"),
        ("-(-9223372036854775808)", "9223372036854775808"),
        ("+9223372036854775808", "9223372036854775808"),
        ("- -9223372036854775808", "9223372036854775808"),
    ],
)
def test_out_of_range_int_literals_are_clear_errors(tmp_path: Path, expr: str, shown: str) -> None:
    from gradc.compiler.diagnostics import CompileError

    with pytest.raises(CompileError) as info:
        _build(tmp_path, f"@gradc.export('i64(i64)')\ndef f(n):\n    return n + {expr}\n")
    assert f"integer constant {shown} does not fit in 64 bits" in info.value.message
    assert info.value.loc.line == 6


def test_local_shadowing_a_module_constant_is_not_folded(
    tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    # ``-K`` reads the local K, not the module constant of the same name
    path = tmp_path / "shadow.py"
    path.write_text(
        "import gradc\n\nK = 9223372036854775807\n\n\n"
        "@gradc.export('i64(i64)')\ndef f(n):\n    K = n\n    return -K + -(+K)\n"
    )
    assert compile_module(path).f(5) == -10


@pytest.mark.parametrize(
    "body",
    [
        # a path that really reaches the read without the assignment
        """
        @gradc.export('f64(f64, bool)')
        def f(x, c):
            if c:
                return x
            elif x > 0.0:
                y = x
            return y
        """,
        # ``while 0:`` never runs its body
        """
        @gradc.export('f64(f64)')
        def f(x):
            while 0:
                y = x
            return y
        """,
        # a loop body that may run zero times
        """
        @gradc.export('f64(f64, i64)')
        def f(x, n):
            while n > 0:
                y = x
                break
            return y
        """,
    ],
)
def test_reachable_reads_before_assignment_are_still_errors(tmp_path: Path, body: str) -> None:
    from gradc.compiler.diagnostics import CompileError

    with pytest.raises(CompileError, match="may be used before assignment"):
        _build(tmp_path, body)


DERIVATIVE_DIVISIONS = """\
import gradc


@gradc.export('f64(f64, i64, i64)')
def ints(x, n, m):
    return x * (n / m)


@gradc.export('f64(f64, i64, i64)')
def floats(x, n, m):
    return x * (float(n) / float(m))


@gradc.export('f64(f64, i64, i64)')
def floor(x, n, m):
    return x * (n // m) + x * (n % m)


d_ints = gradc.grad(ints, wrt='x')
t_ints = gradc.jvp(ints, wrt='x')
d_floats = gradc.grad(floats, wrt='x')
t_floats = gradc.jvp(floats, wrt='x')
d_floor = gradc.grad(floor, wrt='x')
t_floor = gradc.jvp(floor, wrt='x')
"""


@pytest.mark.parametrize("name", ["ints", "floats", "floor"])
def test_derivative_exports_raise_the_primals_division_message(
    tmp_path: Path, compile_module: Callable[[Path], Any], name: str
) -> None:
    path = tmp_path / "derivative_divisions.py"
    path.write_text(DERIVATIVE_DIVISIONS)
    plain: dict[str, Any] = {}
    exec(compile(DERIVATIVE_DIVISIONS, str(path), "exec"), plain)
    lib = compile_module(path)
    want = _outcome(plain[name], (1.5, 3, 0))
    assert want[0] == "raise"
    assert _outcome(getattr(lib, name), (1.5, 3, 0)) == want
    assert _outcome(getattr(lib, f"d_{name}"), (1.5, 3, 0)) == want
    assert _outcome(getattr(lib, f"t_{name}"), (1.5, 3, 0, 1.0)) == want
