"""``lower-arrays``: text in, text out; and the interpreter on the IR before the pass
equals the interpreter after it (the interpreter computes whole-array operations with
NumPy, so it is the pass's oracle)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


INTO = """
func @f(%a: array[f64,2,A], %b: array[f64,1,A], %s: f64) -> none {
^entry:
  %u = elementwise exp(%a) : array[f64,2,C]
  elementwise_into add %a, (%u, %b)
  ret
}
"""


def test_in_place_with_an_operand_that_may_overlap_goes_through_a_temporary() -> None:
    # %b (a parameter) may be a view of %a's memory: NumPy's rule, a temporary first
    out = lower(INTO)
    filecheck(
        out,
        """
        CHECK: newarray
        CHECK: ew.temp.loop0
        CHECK: math ieee_exp
        CHECK: ew.into.loop0
        CHECK-NOT: newarray
        CHECK: ret
        """,
    )
    for aliased in (False, True):
        a = np.arange(6.0).reshape(2, 3) / 4
        b = a[1, ::-1] if aliased else np.array([1.0, 2.0, 3.0])
        expected = np.exp(a) + b
        module = parse_module(INTO)
        get("lower-arrays").run(module)
        run_function(module, "f", [a, b, 2.0])
        np.testing.assert_array_equal(a, expected)


def test_in_place_of_its_own_target_and_fresh_arrays_writes_directly() -> None:
    text = """
    func @f(%a: array[f64,1,A], %s: f64) -> none {
    ^entry:
      %t = elementwise multiply(%a, %s) : array[f64,1,C]
      elementwise_into subtract %a, (%a, %t)
      ret
    }
    """
    out = lower(text)
    assert "newarray" not in out and out.count(" = phi ") == 1, out


def test_a_write_between_producer_and_consumer_stops_fusion() -> None:
    text = """
    func @f(%a: array[f64,1,A], %i: i64, %v: f64) -> array[f64,1,C] {
    ^entry:
      %t = elementwise negative(%a) : array[f64,1,C]
      %p = elemaddr %a, (%i) : ptr[f64]
      store %p, %v
      %r = elementwise exp(%t) : array[f64,1,C]
      ret %r
    }
    """
    out = lower(text)
    assert out.count("newarray") == 2, out
    a = np.linspace(-1.0, 1.0, 4)
    before, after = both(text, [a, 1, 5.0])
    np.testing.assert_array_equal(before, after)  # type: ignore[arg-type]
    np.testing.assert_array_equal(after, np.exp(-a))  # type: ignore[arg-type]


def test_a_producer_used_twice_is_materialised_once() -> None:
    text = """
    func @f(%a: array[f64,1,A]) -> array[f64,1,C] {
    ^entry:
      %t = elementwise exp(%a) : array[f64,1,C]
      %r = elementwise multiply(%t, %t) : array[f64,1,C]
      ret %r
    }
    """
    out = lower(text)
    assert out.count("newarray") == 2 and out.count("math ieee_exp") == 1, out


def test_integer_power_is_not_fused_so_its_error_comes_first() -> None:
    text = """
    func @f(%a: array[i64,1,A], %b: array[i64,1,A]) -> array[i64,1,C] {
    ^entry:
      %p = elementwise power(%a, %b) : array[i64,1,C]
      %r = elementwise add(%p, %a) : array[i64,1,C]
      ret %r
    }
    """
    out = lower(text)
    assert out.count("newarray") == 2, out
    a = np.array([2, 3, 4])
    assert (
        both(text, [a, np.array([1, -1, 2])])
        == ((ValueError, "Integers to negative integer powers are not allowed."),) * 2
    )
    before, after = both(text, [a, np.array([3, 0, 2])])
    np.testing.assert_array_equal(before, after)  # type: ignore[arg-type]


_SHAPE = st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple)

BROADCAST_FNS = """
func @f(%a: array[f64,3,A], %b: array[i64,2,A], %c: array[i1,1,A], %s: f64) -> array[f64,3,C] {
^entry:
  %x = elementwise true_divide(%b, %s) : array[f64,2,C]
  %y = elementwise floor_divide(%a, %x) : array[f64,3,C]
  %z = elementwise where(%c, %y, %s) : array[f64,3,C]
  %w = elementwise remainder(%z, %b) : array[f64,3,C]
  ret %w
}
"""


@settings(max_examples=40, deadline=None)
@given(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.integers(0, 3),
    st.integers(0, 2**32),
)
def test_lowered_broadcasting_equals_numpy_in_the_interpreter(
    sa: tuple[int, int, int], sb: tuple[int, int], sc: int, seed: int
) -> None:
    # fused chains over drawn shapes (mismatches included), zeros in divisors (NumPy's
    # inf/NaN/0 instead of Python's ZeroDivisionError), every operand layout
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=sa).astype(np.float64)
    a = np.asfortranarray(a) if seed % 2 else a
    b = rng.integers(-2, 3, size=sb)[::-1]
    c = rng.integers(0, 2, size=(sc,)).astype(bool)
    before, after = both(BROADCAST_FNS, [a, b, c, 0.5 if seed % 3 else 0.0])
    if isinstance(before, tuple):
        assert before == after
        assert before[0] is ValueError
    else:
        np.testing.assert_array_equal(before, after)  # type: ignore[arg-type]
