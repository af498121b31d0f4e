"""Module constants built with bitwise operators are folded as CPython computes them
(the differential corpus tests/codegen/corpus/bitwise.py uses ``MASK = (1 << 40) - 1``
and ``LOW = ~MASK``); a shift too large to fold is refused quickly, not computed."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gradc.compiler.diagnostics import CompileError


def _write(tmp_path: Path, constant: str) -> Path:
    path = tmp_path / "m.py"
    path.write_text(
        "import gradc\n\n"
        + constant
        + "\n\n\n"
        + textwrap.dedent("""
        @gradc.export('i64(i64)')
        def f(n):
            return n & K
        """)
    )
    return path


def _build(tmp_path: Path, constant: str) -> None:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    build_module(_write(tmp_path, constant), CompilerOptions())


def test_a_folded_constant_out_of_range_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match="integer constant 18446744073709551616 does not fit"):
        _build(tmp_path, "K = 1 << 64")


def test_a_huge_shift_is_not_folded(tmp_path: Path) -> None:
    # CPython would build a billion-bit int; the folder refuses counts over 64
    with pytest.raises(CompileError, match=r"module variable 'K' .* is not a numeric constant"):
        _build(tmp_path, "K = 1 << 10**9")


@pytest.mark.parametrize("expr", ["~True", "(1 << 62) >> 70 | 6 ^ 3 & 1", "~(1 << 40) ^ 5"])
def test_bitwise_constants_fold_as_cpython(
    tmp_path: Path, compile_module: Callable[[Path], Any], expr: str
) -> None:
    f = compile_module(_write(tmp_path, f"K = {expr}")).f
    for n in (-(2**63), -1, 0, 12345, 2**63 - 1):
        assert f(n) == n & eval(expr), n
