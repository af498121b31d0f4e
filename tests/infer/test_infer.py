"""Type inference from source: result types, specialisations, inserted conversions."""

from __future__ import annotations

import textwrap

import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module, symbol_for
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import F64, I1, I64, NONE, TupleType

HEADER = "import math\nimport gradc\nfrom gradc import f64, i64, f32, i32\n"


def infer(body: str) -> Module:
    src = SourceFile.parse(HEADER + textwrap.dedent(body), "m.py")
    return infer_module(scan_module(src, "m"))


def test_int_and_float_join_to_float_in_a_loop() -> None:
    m = infer(
        """
        @gradc.export
        def f(n: i64):
            x = 0
            for i in range(n):
                x = x + 0.5
            return x
        """
    )
    assert m.functions["f"].return_type == F64


def test_helpers_are_specialised_per_argument_types() -> None:
    m = infer(
        """
        def sq(v):
            return v * v

        @gradc.export
        def f(a: f64, n: i64):
            return sq(a) + sq(n)
        """
    )
    assert set(m.functions) == {"f", symbol_for("sq", (F64,)), symbol_for("sq", (I64,))}
    assert m.functions["sq.f64"].return_type == F64
    assert m.functions["sq.i64"].return_type == I64


def test_recursion_reaches_a_fixpoint() -> None:
    m = infer(
        """
        def fib(n):
            if n < 2:
                return n
            return fib(n - 1) + fib(n - 2)

        @gradc.export
        def f(n: i64):
            return fib(n)
        """
    )
    assert m.functions["fib.i64"].return_type == I64


def test_bool_arithmetic_widens_to_int_and_comparisons_are_bool() -> None:
    m = infer(
        """
        @gradc.export
        def f(a: bool, b: bool):
            return a + b, a < b, min(a, b)
        """
    )
    assert m.functions["f"].return_type == TupleType((I64, I1, I1))


def test_int_true_division_is_float_and_operands_are_cast() -> None:
    m = infer(
        """
        @gradc.export
        def f(a: i64, b: i64):
            return a / b
        """
    )
    fn = m.functions["f"]
    assert fn.return_type == F64
    (div,) = [i for i in fn.instructions() if isinstance(i, ops.Div)]
    assert div.lhs.type == F64 and div.rhs.type == F64
    assert isinstance(div.lhs, ops.Cast) and isinstance(div.rhs, ops.Cast)


def test_declared_result_widens_int_to_float() -> None:
    m = infer(
        """
        @gradc.export
        def f(a: i64) -> f64:
            return a
        """
    )
    fn = m.functions["f"]
    assert fn.return_type == F64
    (ret,) = [i for i in fn.instructions() if isinstance(i, ops.Return)]
    assert ret.value is not None and ret.value.type == F64


def test_function_without_return_returns_none() -> None:
    m = infer(
        """
        @gradc.export
        def f(a: i64):
            assert a > 0
        """
    )
    assert m.functions["f"].return_type == NONE


@pytest.mark.parametrize(
    ("body", "message", "line"),
    [
        (
            """
            @gradc.export
            def f(a: i64) -> i64:
                return a * 0.5
            """,
            "return type mismatch",
            7,
        ),
        (
            """
            @gradc.export
            def f(a: i64):
                x, y = a
                return x
            """,
            "cannot unpack or subscript a value of type i64",
            7,
        ),
        (
            """
            @gradc.export
            def f(a: f64):
                for i in range(a):
                    pass
                return a
            """,
            "range() argument must be an integer, not f64",
            7,
        ),
        (
            """
            def g(n):
                return g(n)

            @gradc.export
            def f(a: i64):
                return g(a)
            """,
            "cannot infer the return type",
            6,
        ),
        (
            """
            @gradc.export
            def f(a: i64):
                if a > 0:
                    return 1.0
            """,
            "returns a value on some paths and None on others",
            7,  # the implicit ``return None`` after the ``if``
        ),
    ],
)
def test_type_errors_name_the_line(body: str, message: str, line: int) -> None:
    with pytest.raises(CompileError) as info:
        infer(body)
    assert message in info.value.message
    assert info.value.loc.line == line
