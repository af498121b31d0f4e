"""``phi-decay``: pointer phis become base and offset phis; text in → text out."""

from __future__ import annotations

import pytest

from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.filecheck_util import filecheck

A = "array[f64,1,A]"
C = "array[f64,1,C]"


def decay(text: str) -> str:
    module = parse_module(text.replace("CARR", C).replace("ARR", A))
    verify_module(module)
    get("phi-decay").run(module)
    verify_module(module)
    out = print_module(module)
    assert "ptr[f64] = phi" not in out and "= phi" not in out.split("ptr[f64]")[0][-0:]
    return out


def _no_pointer_merges(out: str) -> None:
    for line in out.splitlines():
        if "= phi" in line or "= select" in line:
            assert not line.rstrip().endswith(": ptr[f64]"), line


def test_pointers_from_two_arrays_meet_at_a_join() -> None:
    out = decay(
        """
        func @f(%a: ARR, %b: ARR, %c: i1, %i: i64) -> f64 {
        ^entry:
          condbr %c, ^l, ^r
        ^l:
          %pa = elemaddr %a, (%i) : ptr[f64]
          br ^join
        ^r:
          %pb = elemaddr %b, (%i) : ptr[f64]
          br ^join
        ^join:
          %p = phi [^l: %pa], [^r: %pb] : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: ^l:
        CHECK: elemoffset %a, (%i) : i64
        CHECK: ^r:
        CHECK: elemoffset %b, (%i) : i64
        CHECK: ^join:
        CHECK-NEXT: %p.base = phi [^l: %a], [^r: %b] : array[f64,1,A]
        CHECK-NEXT: %p.offset = phi
        CHECK-NEXT: %p = addr %p.base, %p.offset : ptr[f64]
        CHECK-NEXT: load %p
        """,
    )


def test_pointer_induction_variable_becomes_an_offset_induction_variable() -> None:
    out = decay(
        """
        func @sum(%a: ARR, %n: i64) -> f64 {
        ^entry:
          %zero = const 0 : i64
          %p0 = elemaddr %a, (%zero) : ptr[f64]
          %s0 = const 0.0 : f64
          %eight = const 8 : i64
          %one = const 1 : i64
          br ^header
        ^header:
          %i = phi [^entry: %zero], [^body: %i.next] : i64
          %p = phi [^entry: %p0], [^body: %p.next] : ptr[f64]
          %s = phi [^entry: %s0], [^body: %s.next] : f64
          %c = cmp lt %i, %n : i1
          condbr %c, ^body, ^exit
        ^body:
          %x = load %p : f64
          %s.next = add %s, %x : f64
          %p.next = ptradd %p, %eight : ptr[f64]
          %i.next = add %i, %one : i64
          br ^header
        ^exit:
          ret %s
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: ^header:
        CHECK: %p.base = phi [^entry: %a], [^body: %p.base] : array[f64,1,A]
        CHECK: %p.offset = phi [^entry: {{.*}}], [^body: [[NEXT:%[0-9a-z.]+]]] : i64
        CHECK: %p = addr %p.base, %p.offset
        CHECK: ^body:
        CHECK: [[NEXT]] = add %p.offset, %eight : i64
        """,
    )


def test_nested_phis_share_one_pair_per_pointer() -> None:
    out = decay(
        """
        func @f(%a: ARR, %b: ARR, %c: i1, %d: i1, %i: i64) -> f64 {
        ^entry:
          %pa = elemaddr %a, (%i) : ptr[f64]
          %pb = elemaddr %b, (%i) : ptr[f64]
          condbr %c, ^x, ^y
        ^x:
          br ^m
        ^y:
          br ^m
        ^m:
          %q = phi [^x: %pa], [^y: %pb] : ptr[f64]
          condbr %d, ^u, ^v
        ^u:
          br ^n
        ^v:
          br ^n
        ^n:
          %r = phi [^u: %q], [^v: %pa] : ptr[f64]
          %x = load %r : f64
          ret %x
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: ^m:
        CHECK-NEXT: %q.base = phi
        CHECK: ^n:
        CHECK-NEXT: %r.base = phi [^u: %q.base], [^v: %a]
        CHECK-NEXT: %r.offset = phi [^u: %q.offset]
        CHECK-NEXT: %r = addr %r.base, %r.offset
        """,
    )


def test_select_of_pointers() -> None:
    out = decay(
        """
        func @f(%a: ARR, %b: ARR, %c: i1, %i: i64) -> f64 {
        ^entry:
          %pa = elemaddr %a, (%i) : ptr[f64]
          %pb = elemaddr %b, (%i) : ptr[f64]
          %p = select %c, %pa, %pb : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: %p.base = select %c, %a, %b : array[f64,1,A]
        CHECK-NEXT: %p.offset = select %c
        CHECK-NEXT: %p = addr %p.base, %p.offset
        """,
    )


def test_poison_incoming_pointer() -> None:
    out = decay(
        """
        func @f(%a: ARR, %c: i1, %i: i64) -> f64 {
        ^entry:
          condbr %c, ^l, ^r
        ^l:
          %pa = elemaddr %a, (%i) : ptr[f64]
          br ^join
        ^r:
          %u = poison : ptr[f64]
          br ^join
        ^join:
          %p = phi [^l: %pa], [^r: %u] : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: ^r:
        CHECK: poison : array[f64,1,A]
        CHECK: poison : i64
        CHECK: ^join:
        CHECK-NEXT: %p.base = phi
        """,
    )


def test_pointers_into_arrays_of_different_layouts_join_to_any_layout() -> None:
    out = decay(
        """
        func @f(%a: CARR, %b: ARR, %c: i1, %i: i64) -> f64 {
        ^entry:
          %pa = elemaddr %a, (%i) : ptr[f64]
          %pb = elemaddr %b, (%i) : ptr[f64]
          %p = select %c, %pa, %pb : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: [[RELABEL:%[0-9]+]] = cast %a : array[f64,1,A]
        CHECK: %p.base = select %c, [[RELABEL]], %b : array[f64,1,A]
        """,
    )


def test_pointer_derived_from_an_argument_array_keeps_the_argument_as_base() -> None:
    out = decay(
        """
        func @f(%a: ARR, %n: i64) -> f64 {
        ^entry:
          %zero = const 0 : i64
          %p0 = elemaddr %a, (%zero) : ptr[f64]
          %eight = const 8 : i64
          %p1 = ptradd %p0, %eight : ptr[f64]
          %c = cmp gt %n, %zero : i1
          %p = select %c, %p1, %p0 : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    )
    filecheck(
        out,
        """
        CHECK: [[OFF0:%[0-9a-z.]+]] = elemoffset %a, (%zero)
        CHECK: add [[OFF0]], %eight
        CHECK: %p.base = select %c, %a, %a
        """,
    )


def test_functions_without_pointer_merges_are_unchanged() -> None:
    text = """
        func @f(%a: ARR, %i: i64) -> f64 {
        ^entry:
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """.replace("ARR", A)
    module = parse_module(text)
    before = print_module(module)
    get("phi-decay").run(module)
    assert print_module(module) == before


def test_loop_carried_pointer_through_two_phis() -> None:
    out = decay(
        """
        func @f(%a: ARR, %b: ARR, %n: i64) -> f64 {
        ^entry:
          %zero = const 0 : i64
          %one = const 1 : i64
          %pa = elemaddr %a, (%zero) : ptr[f64]
          %pb = elemaddr %b, (%zero) : ptr[f64]
          br ^header
        ^header:
          %i = phi [^entry: %zero], [^body: %i.next] : i64
          %p = phi [^entry: %pa], [^body: %q] : ptr[f64]
          %q = phi [^entry: %pb], [^body: %p] : ptr[f64]
          %c = cmp lt %i, %n : i1
          condbr %c, ^body, ^exit
        ^body:
          %i.next = add %i, %one : i64
          br ^header
        ^exit:
          %x = load %p : f64
          ret %x
        }
        """
    )
    _no_pointer_merges(out)
    filecheck(
        out,
        """
        CHECK: %p.base = phi [^entry: %a], [^body: %q.base]
        CHECK: %q.base = phi [^entry: %b], [^body: %p.base]
        """,
    )


def test_untraceable_pointer_is_a_diagnostic_with_the_source_line() -> None:
    module = parse_module(
        """
        func @f(%a: ARR, %p0: ptr[f64], %c: i1, %i: i64) -> f64 {
        ^entry:
          %pa = elemaddr %a, (%i) : ptr[f64]
          %p = select %c, %pa, %p0 : ptr[f64]  loc("user.py":7:8)
          %x = load %p : f64
          ret %x
        }
        """.replace("ARR", A)
    )
    with pytest.raises(PassError) as info:
        get("phi-decay").run(module)
    assert "parameter 'p0'" in info.value.message
    assert "cannot find the array" in info.value.message
    assert (info.value.loc.file, info.value.loc.line) == ("user.py", 7)
