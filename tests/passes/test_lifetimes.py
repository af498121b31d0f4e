"""``lifetimes``: reference counting inserted and pruned, text in → text out."""

from __future__ import annotations

from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.filecheck_util import filecheck

ARR = "array[f64,1,C]"


def run_lifetimes(text: str) -> str:
    module = parse_module(text.replace("ARR", ARR))
    verify_module(module)
    get("lifetimes").run(module)
    verify_module(module)
    return print_module(module)


def test_temporary_is_released_after_its_last_use_and_the_result_is_moved_out() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64) -> ARR {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          %b = newarray(%n), %z : ARR
          %i = const 0 : i64
          %p = elemaddr %b, (%i) : ptr[f64]
          %x = load %p : f64
          %q = elemaddr %a, (%i) : ptr[f64]
          %s = store %q, %x : none
          ret %a
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: %x = load %p
        CHECK-NEXT: decref %b
        CHECK-NOT: incref
        CHECK-NOT: decref %a
        CHECK: ret %a
        """,
    )


def test_derived_pointer_keeps_its_base_alive() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64) -> f64 {
        ^entry:
          %z = const 1.0 : f64
          %a = newarray(%n), %z : ARR
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: %p = elemaddr %a
        CHECK-NEXT: %x = load %p
        CHECK-NEXT: decref %a
        CHECK-NEXT: ret %x
        """,
    )


def test_unused_allocation_is_released_at_once() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64) -> i64 {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          ret %n
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: %a = newarray
        CHECK-NEXT: decref %a
        """,
    )


def test_arguments_are_borrowed_and_returning_one_takes_a_reference() -> None:
    out = run_lifetimes(
        """
        func @f(%a: ARR) -> ARR {
        ^entry:
          ret %a
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: incref %a
        CHECK-NEXT: ret %a
        CHECK-NOT: decref
        """,
    )


def test_array_reassigned_in_a_loop_releases_the_previous_one() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64) -> ARR {
        ^entry:
          %z = const 0.0 : f64
          %one = const 1 : i64
          %y0 = newarray(%n), %z : ARR
          br ^header
        ^header:
          %i = phi [^entry: %one], [^body: %i.next] : i64
          %y = phi [^entry: %y0], [^body: %y.next] : ARR
          %c = cmp lt %i, %n : i1
          condbr %c, ^body, ^exit
        ^body:
          %y.next = newarray(%n), %z : ARR
          %i.next = add %i, %one : i64
          br ^header
        ^exit:
          ret %y
        }
        """
    )
    # the old %y dies in the body (released there); the new array moves into the phi
    filecheck(
        out,
        """
        CHECK: ^header:
        CHECK: condbr %c, ^body, ^exit
        CHECK: ^body:
        CHECK-NEXT: decref %y
        CHECK-NEXT: %y.next = newarray
        CHECK-NOT: incref
        CHECK: ^exit:
        CHECK-NOT: decref
        CHECK: ret %y
        """,
    )


def test_value_dying_on_one_edge_is_released_on_a_split_edge() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64, %c: i1) -> f64 {
        ^entry:
          %z = const 2.0 : f64
          %a = newarray(%n), %z : ARR
          condbr %c, ^use, ^skip
        ^use:
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          br ^join
        ^skip:
          br ^join
        ^join:
          %r = phi [^use: %x], [^skip: %z] : f64
          ret %r
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: ^use:
        CHECK: %x = load %p
        CHECK-NEXT: decref %a
        CHECK: ^skip:
        CHECK-NEXT: decref %a
        """,
    )


def test_swapping_two_arrays_in_a_loop_needs_no_reference_counting() -> None:
    out = run_lifetimes(
        """
        func @f(%n: i64) -> tuple[ARR,ARR] {
        ^entry:
          %z = const 0.0 : f64
          %one = const 1 : i64
          %a0 = newarray(%n), %z : ARR
          %b0 = newarray(%n), %z : ARR
          br ^header
        ^header:
          %i = phi [^entry: %one], [^body: %i.next] : i64
          %a = phi [^entry: %a0], [^body: %b] : ARR
          %b = phi [^entry: %b0], [^body: %a] : ARR
          %c = cmp lt %i, %n : i1
          condbr %c, ^body, ^exit
        ^body:
          %i.next = add %i, %one : i64
          br ^header
        ^exit:
          %t = tuple(%a, %b) : tuple[ARR,ARR]
          ret %t
        }
        """
    )
    assert "incref" not in out and "decref" not in out, out


def test_unpacked_tuple_elements_take_their_own_references() -> None:
    out = run_lifetimes(
        """
        func @g(%n: i64) -> tuple[ARR,ARR] {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          %b = newarray(%n), %z : ARR
          %t = tuple(%a, %b) : tuple[ARR,ARR]
          ret %t
        }

        func @f(%n: i64) -> ARR {
        ^entry:
          %t = call @g(%n) : tuple[ARR,ARR]
          %a = extract %t, 0 : ARR
          %b = extract %t, 1 : ARR
          ret %b
        }
        """
    )
    body = out[out.index("func @f") :]
    filecheck(
        body,
        """
        CHECK: %a = extract %t, 0
        CHECK-NEXT: incref %a
        CHECK-NEXT: decref %a
        CHECK-NEXT: %b = extract %t, 1
        CHECK-NEXT: incref %b
        CHECK-NEXT: decref %t
        CHECK-NEXT: ret %b
        """,
    )
    # the callee hands both arrays to the tuple and the tuple to the caller: no rc ops
    callee = out[out.index("func @g") : out.index("func @f")]
    assert "incref" not in callee and "decref" not in callee, callee


def test_functions_without_arrays_are_untouched() -> None:
    text = """
        func @f(%a: i64) -> i64 {
        ^entry:
          ret %a
        }
        """
    assert run_lifetimes(text) == print_module(parse_module(text))


def test_operations_that_may_raise_record_the_arrays_to_release() -> None:
    module = parse_module(
        """
        func @f(%n: i64, %i: i64) -> f64 {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          %b = newarray(%n), %z : ARR
          %p = elemaddr %b, (%i) : ptr[f64]
          %x = load %p : f64
          %q = elemaddr %a, (%i) : ptr[f64]
          %y = load %q : f64
          %s = add %x, %y : f64
          ret %s
        }
        """.replace("ARR", ARR)
    )
    get("lifetimes").run(module)
    fn = module.functions["f"]
    unwind = [
        (inst.OPNAME, [v.name for v in inst.unwind]) for inst in fn.instructions() if inst.MAY_RAISE
    ]
    assert unwind == [
        ("newarray", []),  # nothing is held yet
        ("newarray", ["a"]),  # failing to allocate %b must release %a
        ("elemaddr", ["a", "b"]),  # a bounds error on %b releases both
        ("elemaddr", ["a"]),  # %b was already released
    ]


def test_a_tape_made_in_a_function_without_arrays_is_freed_on_its_error_exits() -> None:
    # the derivative wrapper of a function of scalars: no reference counts to insert, but
    # a raising forward (or reverse) sweep must free the tape and the array references on
    # it (before the fix the pass returned early and the unwind sets stayed empty)
    module = parse_module(
        """
        func @fwd(%x: f64, %t: tape) -> f64 {
        ^entry:
          ret %x
        }
        func @rev(%t: tape, %s: f64) -> f64 {
        ^entry:
          ret %s
        }
        func @d(%x: f64) -> f64 {
        ^entry:
          %tape = tapenew : tape
          %v = call @fwd(%x, %tape) : f64
          %g = call @rev(%tape, %v) : f64
          tapefree %tape
          ret %g
        }
        """
    )
    before = print_module(module)
    get("lifetimes").run(module)
    after = print_module(module)
    assert "incref" not in after and "decref" not in after  # no reference counting added
    # the same text but for the unwind sets
    assert after.replace(" unwind(%tape)", "") == before
    fn = module.functions["d"]
    unwind = [
        (inst.OPNAME, [v.name for v in inst.unwind]) for inst in fn.instructions() if inst.MAY_RAISE
    ]
    assert unwind == [("tapenew", []), ("call", ["tape"]), ("call", ["tape"])]


def test_a_value_consumed_twice_keeps_a_reference_for_the_second_consumer() -> None:
    # %c takes a reference and is released before %a is consumed again by the tuple:
    # only the tuple's incref may cancel with %a's final release (a use-after-free if
    # the cast's did)
    out = run_lifetimes(
        """
        func @g(%v: array[f64,1,A]) -> none {
        ^entry:
          ret
        }

        func @f(%n: i64) -> tuple[ARR,f64] {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          %c = cast %a : array[f64,1,A]
          call @g(%c)
          %t = tuple(%a, %z) : tuple[ARR,f64]
          ret %t
        }
        """
    )
    body = out[out.index("func @f") :]
    filecheck(
        body,
        """
        CHECK: incref %a
        CHECK-NEXT: %c = cast %a
        CHECK: decref %c
        CHECK-NOT: incref %a
        CHECK: %t = tuple(%a, %z)
        """,
    )


def test_a_use_through_a_derived_pointer_blocks_the_move() -> None:
    # %p points into %a and is loaded after %a went into the tuple: %a's reference must
    # stay until the load, so the tuple's incref may not cancel with %a's release
    out = run_lifetimes(
        """
        func @f(%n: i64, %i: i64) -> f64 {
        ^entry:
          %z = const 0.0 : f64
          %a = newarray(%n), %z : ARR
          %p = elemaddr %a, (%i) : ptr[f64]
          %t = tuple(%a) : tuple[ARR]
          %x = load %p : f64
          ret %x
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: incref %a
        CHECK-NEXT: %t = tuple(%a)
        CHECK: %x = load %p
        CHECK-NEXT: decref %a
        """,
    )
