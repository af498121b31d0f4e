"""``stack-promote``: escape analysis puts small non-escaping arrays on the stack; text in →
text out, then the ``lifetimes`` result (a promoted array gets no reference counting)."""

from __future__ import annotations

import pytest

from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.filecheck_util import filecheck

ARR = "array[f64,1,C]"


def run(text: str, passes: tuple[str, ...] = ("stack-promote",)) -> str:
    module = parse_module(text.replace("ARR", ARR))
    verify_module(module)
    for name in passes:
        get(name).run(module)
        verify_module(module)
    return print_module(module)


LOCAL_SUM = """
    func @f(%x: f64) -> f64 {
    ^entry:
      %z = const 0.0 : f64
      %three = const 3 : i64
      %a = newarray(%three), %z : ARR
      %i = const 1 : i64
      %p = elemaddr %a, (%i) : ptr[f64]
      store %p, %x
      %n = dim %a, 0 : i64
      %y = load %p : f64
      ret %y
    }
"""


def test_local_array_that_does_not_escape_is_promoted() -> None:
    filecheck(run(LOCAL_SUM), "CHECK: %a = newarray(%three), %z {on_stack} : array[f64,1,C]")


def test_promoted_array_gets_no_reference_counting() -> None:
    out = run(LOCAL_SUM, ("stack-promote", "lifetimes"))
    filecheck(out, "CHECK: %a = newarray{{.*}}{on_stack}\nCHECK-NOT: incref\nCHECK-NOT: decref")
    out = run(LOCAL_SUM, ("lifetimes",))  # without promotion: released after the last use
    filecheck(out, "CHECK: %a = newarray\nCHECK: decref %a")


@pytest.mark.parametrize(
    ("why", "body"),
    [
        ("returned", "ret %a"),
        ("in a tuple", "%t = tuple(%a, %x) : tuple[ARR,f64]\n  ret %x"),
        ("to a call returning an array", "%r = call @id(%a) : ARR\n  ret %x"),
        ("through a cast, returned", "%c = cast %a : array[f64,1,A]\n  ret %c"),
    ],
)
def test_escaping_array_stays_on_the_heap(why: str, body: str) -> None:
    result = "ARR" if body.startswith("ret %a") else "f64"
    if "cast" in body:
        result = "array[f64,1,A]"
    text = f"""
        func @id(%v: ARR) -> ARR {{
        ^entry:
          ret %v
        }}
        func @f(%x: f64) -> {result} {{
        ^entry:
          %z = const 0.0 : f64
          %two = const 2 : i64
          %a = newarray(%two), %z : ARR
          {body}
        }}
    """
    filecheck(run(text), "CHECK: func @f\nCHECK: %a = newarray(%two), %z : array[f64,1,C]")


def test_call_that_returns_no_array_only_borrows() -> None:
    out = run(
        """
        func @first(%v: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %v, (%i) : ptr[f64]
          %y = load %p : f64
          ret %y
        }
        func @f(%x: f64) -> f64 {
        ^entry:
          %two = const 2 : i64
          %a = newarray(%two), %x : ARR
          %r = call @first(%a) : f64
          ret %r
        }
        """
    )
    filecheck(out, "CHECK: func @f\nCHECK: %a = newarray(%two), %x {on_stack}")


def test_allocation_in_a_loop_is_not_promoted() -> None:
    out = run(
        """
        func @f(%x: f64, %n: i64) -> f64 {
        ^entry:
          %zero = const 0 : i64
          br ^loop
        ^loop:
          %i = phi [^entry: %zero], [^loop: %j] : i64
          %two = const 2 : i64
          %a = newarray(%two), %x : ARR
          %one = const 1 : i64
          %j = add %i, %one : i64
          %c = cmp lt %j, %n : i1
          condbr %c, ^loop, ^exit
        ^exit:
          ret %x
        }
        """
    )
    filecheck(out, "CHECK: %a = newarray(%two), %x : array[f64,1,C]")


@pytest.mark.parametrize(
    ("shape", "promoted"),
    [("%n", False), ("%big", False), ("%limit", True)],
)
def test_only_small_constant_shapes(shape: str, promoted: bool) -> None:
    out = run(
        f"""
        func @f(%x: f64, %n: i64) -> f64 {{
        ^entry:
          %big = const 513 : i64
          %limit = const 512 : i64
          %a = newarray({shape}), %x : ARR
          ret %x
        }}
        """
    )
    flag = " {on_stack}" if promoted else ""
    filecheck(out, f"CHECK: %a = newarray({shape}), %x{flag} : array[f64,1,C]")


def test_phi_of_two_local_arrays_is_followed() -> None:
    text = """
        func @f(%x: f64, %c: i1) -> RESULT {
        ^entry:
          %two = const 2 : i64
          %a = newarray(%two), %x : ARR
          %b = newarray(%two), %x : ARR
          condbr %c, ^l, ^r
        ^l:
          br ^j
        ^r:
          br ^j
        ^j:
          %u = phi [^l: %a], [^r: %b] : ARR
          USE
        }
    """
    kept = run(text.replace("RESULT", "f64").replace("USE", "%n = dim %u, 0 : i64\n  ret %x"))
    filecheck(kept, "CHECK: %a = newarray{{.*}}{on_stack}\nCHECK: %b = newarray{{.*}}{on_stack}")
    escaped = run(text.replace("RESULT", "ARR").replace("USE", "ret %u"))
    filecheck(
        escaped, f"CHECK: %a = newarray(%two), %x : {ARR}\nCHECK: %b = newarray(%two), %x : {ARR}"
    )
