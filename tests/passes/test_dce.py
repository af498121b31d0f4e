"""``dce``: text in, text out."""

from __future__ import annotations

import pytest

from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.filecheck_util import filecheck


def run_dce(text: str) -> str:
    module = parse_module(text)
    verify_module(module)
    get("dce").run(module)
    verify_module(module)
    return print_module(module)


def test_unused_pure_arithmetic_is_removed() -> None:
    out = run_dce(
        """
        func @f(%a: i64) -> i64 {
        ^entry:
          %0 = const 1 : i64
          %1 = add %a, %0 : i64
          %2 = mul %1, %1 : i64
          ret %a
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: ^entry:
        CHECK-NEXT: ret %a
        """,
    )


@pytest.mark.parametrize(
    ("op", "kept"),
    [
        ("%2 = floordiv %a, %0 : i64", True),  # may raise ZeroDivisionError
        ("%2 = div %x, %y : f64", True),  # may raise ZeroDivisionError
        ("%2 = math sqrt(%x) : f64", True),  # may raise ValueError
        ("%2 = math fabs(%x) : f64", False),  # never raises
        ("%2 = cast %x : i64", True),  # NaN / inf raise
        ("%2 = cast %a : f64", False),  # widening never raises
        ("%2 = call @g(%a) : i64", True),  # a call may raise
    ],
)
def test_operations_that_may_raise_are_kept(op: str, kept: bool) -> None:
    out = run_dce(
        f"""
        func @g(%v: i64) -> i64 {{
        ^entry:
          ret %v
        }}

        func @f(%a: i64, %x: f64, %y: f64) -> i64 {{
        ^entry:
          %0 = const 0 : i64
          {op}
          ret %a
        }}
        """
    )
    body = out.split("func @f")[1]
    opname = op.split("=")[1].split()[0]
    assert (f"= {opname} " in body) is kept, body


def test_dead_phi_cycle_in_a_loop_is_removed() -> None:
    out = run_dce(
        """
        func @f(%n: i64) -> i64 {
        ^entry:
          %0 = const 0 : i64
          %1 = const 1 : i64
          br ^header
        ^header:
          %i = phi [^entry: %0], [^body: %i.next] : i64
          %dead = phi [^entry: %0], [^body: %dead.next] : i64
          %c = cmp lt %i, %n : i1
          condbr %c, ^body, ^exit
        ^body:
          %i.next = add %i, %1 : i64
          %dead.next = mul %dead, %i : i64
          br ^header
        ^exit:
          ret %i
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: ^header:
        CHECK-NEXT: %i = phi
        CHECK-NOT: %dead
        CHECK: ret %i
        """,
    )
