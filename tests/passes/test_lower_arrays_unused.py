"""``lower-arrays`` on an unused whole-array operation: only its shape checks remain (no
allocation, no loop), unless it may raise inside its loops (integer power), which is
lowered as before so that its error stays. Found by the array fuzzer: an unused
``x * np.log1p(y)`` made the gradient NaN where ``y < -1`` (its zero adjoint times the
NaN partial; tests/fuzzing/corpus_arrays/nan_grad_1314.py)."""

from __future__ import annotations

import numpy as np

from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.filecheck_util import filecheck

UNUSED = """
func @f(%x: array[f64,1,A], %y: array[f64,1,A]) -> f64 {
^entry:
  %l = elementwise log1p(%y) : array[f64,1,C]
  %t = elementwise multiply(%x, %l) : array[f64,1,C]
  %r = const 1.0 : f64
  ret %r
}
"""

UNUSED_POWER = """
func @f(%a: array[i64,1,A], %b: array[i64,1,A]) -> f64 {
^entry:
  %p = elementwise power(%a, %b) : array[i64,1,C]
  %r = const 1.0 : f64
  ret %r
}
"""


def _lowered(text: str) -> str:
    module = parse_module(text)
    get("lower-arrays").run(module)
    verify_module(module)
    return print_module(module)


def _run(text: str, args: list[object], lowered: bool) -> object:
    module = parse_module(text)
    if lowered:
        get("lower-arrays").run(module)
    try:
        return run_function(module, "f", args)
    except ValueError as exc:
        return str(exc)


def test_an_unused_elementwise_chain_only_checks_its_shapes() -> None:
    out = _lowered(UNUSED)
    filecheck(
        out,
        """
        CHECK: raisef ValueError "operands could not be broadcast together with shapes ({0},) ({1},) "
        CHECK-NOT: newarray
        CHECK-NOT: ieee_log1p
        CHECK: ret
        """,
    )
    for y in (np.array([0.5, -2.0]), np.array([0.5, -2.0, 1.0])):
        args = [np.array([1.0, 2.0]), y]
        assert _run(UNUSED, args, False) == _run(UNUSED, args, True)
    assert _run(UNUSED, args, True) == (
        "operands could not be broadcast together with shapes (2,) (3,) "
    )


def test_an_unused_operation_that_may_raise_is_still_computed() -> None:
    out = _lowered(UNUSED_POWER)
    assert out.count("newarray") == 1, out
    args = [np.array([2, 3]), np.array([1, -1])]
    assert _run(UNUSED_POWER, args, True) == "Integers to negative integer powers are not allowed."
    assert _run(UNUSED_POWER, args, False) == _run(UNUSED_POWER, args, True)
