"""``lower-arrays``: text in, text out; and the interpreter on the IR before the pass
equals the interpreter after it (the interpreter computes whole-array operations with
NumPy, so it is the pass's oracle)."""

from __future__ import annotations

import numpy as np
import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.arrays.table import ARRAY_LOWERING
from gradc.passes.registry import get
from tests.filecheck_util import filecheck


def lower(text: str) -> str:
    module = parse_module(text)
    verify_module(module)
    get("lower-arrays").run(module)
    verify_module(module)
    return print_module(module)


def both(text: str, args: list[object]) -> tuple[object, object]:
    """The interpreter's result of ``@f`` before and after the pass (or the exception)."""
    results = []
    for lowered in (False, True):
        module = parse_module(text)
        if lowered:
            get("lower-arrays").run(module)
            verify_module(module)
        try:
            copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            results.append(run_function(module, "f", copies))
        except Exception as exc:
            results.append((type(exc), str(exc)))
    return results[0], results[1]


def test_every_operation_lowered_to_loops_has_a_rule() -> None:
    import gradc.passes.arrays.lower  # noqa: F401 (registrations)

    lowered = [c for c in ops.OPERATIONS.values() if c.LOWERED_TO_LOOPS]
    assert ops.Elementwise in lowered
    assert ARRAY_LOWERING.missing(lowered) == []


CHAIN = """
func @f(%x: array[f64,1,A], %a: f64, %b: f64) -> array[f64,1,C] {
^entry:
  %xx = elementwise multiply(%x, %x) : array[f64,1,C]
  %n = elementwise negative(%xx) : array[f64,1,C]
  %e = elementwise exp(%n) : array[f64,1,C]
  %be = elementwise multiply(%e, %b) : array[f64,1,C]
  %ax = elementwise multiply(%x, %a) : array[f64,1,C]
  %y = elementwise add(%ax, %be) : array[f64,1,C]
  ret %y
}
"""


def test_a_chain_of_one_use_producers_is_one_loop_with_one_allocation() -> None:
    out = lower(CHAIN)
    filecheck(
        out,
        """
        CHECK: ^entry:
        CHECK: %[[N:.*]] = dim %x, 0 : i64
        CHECK-NEXT: %[[Y:.*]] = newarray(%[[N]]) : array[f64,1,C]
        CHECK-NOT: newarray
        CHECK-NOT: raisef
        CHECK: math ieee_exp
        CHECK: store
        CHECK-NOT: newarray
        CHECK: ret %[[Y]]
        """,
    )
    assert out.count("newarray") == 1 and out.count("phi") == 1


def test_the_chain_computes_what_numpy_computes() -> None:
    x = np.linspace(-2.0, 2.0, 9)
    before, after = both(CHAIN, [x, 2.0, 3.0])
    np.testing.assert_array_equal(before, after)  # type: ignore[arg-type]
    np.testing.assert_allclose(after, 2.0 * x + 3.0 * np.exp(-x * x), rtol=1e-15)  # type: ignore[arg-type]


BROADCAST = """
func @f(%a: array[f64,2,A], %b: array[i64,1,A]) -> array[f64,2,C] {
^entry:
  %s = elementwise add(%a, %b) : array[f64,2,C]
  ret %s
}
"""


def test_broadcasting_checks_sizes_with_numpys_message() -> None:
    out = lower(BROADCAST)
    filecheck(
        out,
        """
        CHECK: raisef ValueError "operands could not be broadcast together with shapes ({0},{1}) ({2},) "(%[[A0:.*]], %[[A1:.*]], %[[B0:.*]])
        CHECK: newarray
        CHECK: cast {{.*}} : f64
        """,
    )
    a = np.ones((2, 3))
    assert (
        both(BROADCAST, [a, np.arange(4)])
        == ((ValueError, "operands could not be broadcast together with shapes (2,3) (4,) "),) * 2
    )
    before, after = both(BROADCAST, [np.ones((2, 1)), np.arange(4)])
    np.testing.assert_array_equal(after, np.ones((2, 1)) + np.arange(4))  # type: ignore[arg-type]
    np.testing.assert_array_equal(before, after)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ([(3,), (4,)], "operands could not be broadcast together with shapes (3,) (4,) "),
        ([(3,), None, (2,)], "operands could not be broadcast together with shapes (3,) () (2,) "),
        # more sizes than an error record carries: the two that differ, and the axis
        ([(2, 3), (2, 4)], "operands could not be broadcast together (sizes 3 and 4 at axis -1)"),
        (
            [(5, 2, 3), (4, 3)],
            "operands could not be broadcast together (sizes 2 and 4 at axis -2)",
        ),
    ],
)
def test_broadcast_messages_are_numpys_when_the_sizes_fit(
    shapes: list[tuple[int, ...] | None], message: str
) -> None:
    from gradc.compiler.ir.broadcasting import broadcast_shape

    with pytest.raises(ValueError) as exc:
        broadcast_shape(shapes)
    assert str(exc.value) == message
