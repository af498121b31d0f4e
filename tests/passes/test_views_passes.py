"""The passes and analyses that must know a view names its base's memory
(compiler/ir/ops/views.py), text in → text out:

- ``lifetimes``: a view owns a reference of its own (codegen takes it), so the base may
  be released right after the view is made, and the view where it dies;
- ``stack-promote``: an array whose view escapes stays on the heap; one whose views are
  only read is promoted;
- pointer analyses: the roots of a view (of a view) are its base's; a store through a
  view of a parameter writes that parameter (``written_params``, which the loader uses
  to refuse read-only arguments);
- activity: a view of an active array is active, and storing an active value through a
  view makes the base active.
"""

from __future__ import annotations

from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.ad import activity
from gradc.passes.analysis.mutation import written_params
from gradc.passes.analysis.pointers import array_roots
from gradc.passes.registry import get
from tests.filecheck_util import filecheck

LOCAL_VIEW = """
func @f(%n: i64) -> f64 {
^entry:
  %z = const 1.0 : f64
  %a = newarray(%n), %z : array[f64,1,C]
  %one = const 1 : i64
  %v = view %a, (%one), [s100] : array[f64,1,C]
  %i = const 0 : i64
  %p = elemaddr %v, (%i) : ptr[f64]
  %x = load %p : f64
  ret %x
}
"""


def _run(text: str, name: str) -> str:
    module = parse_module(text)
    verify_module(module)
    get(name).run(module)
    verify_module(module)
    return print_module(module)


def test_lifetimes_release_the_base_after_the_view_and_the_view_after_its_use() -> None:
    filecheck(
        _run(LOCAL_VIEW, "lifetimes"),
        """
        CHECK: %v = view %a
        CHECK-NEXT: decref %a
        CHECK: %x = load %p
        CHECK-NEXT: decref %v
        CHECK: ret %x
        """,
    )


def test_an_array_whose_views_are_only_read_goes_on_the_stack() -> None:
    module = parse_module(
        LOCAL_VIEW.replace("newarray(%n)", "newarray(%three)").replace(
            "%z = const 1.0 : f64", "%z = const 1.0 : f64\n  %three = const 3 : i64"
        )
    )
    get("stack-promote").run(module)
    verify_module(module)
    filecheck(print_module(module), "CHECK: newarray(%three), %z {on_stack}")


def test_an_array_whose_view_escapes_stays_on_the_heap() -> None:
    text = """
    func @f() -> array[f64,1,A] {
    ^entry:
      %z = const 1.0 : f64
      %three = const 3 : i64
      %a = newarray(%three), %z : array[f64,1,C]
      %st = const 2 : i64
      %v = view %a, (%st), [s001] : array[f64,1,A]
      %t = transpose %v, [0] : array[f64,1,A]
      ret %t
    }
    """
    filecheck(_run(text, "stack-promote"), "CHECK-NOT: on_stack")


STORE_THROUGH_VIEWS = """
func @f(%a: array[f64,2,A], %b: array[f64,2,C], %x: f64) -> none {
^entry:
  %i = const 1 : i64
  %r = view %a, (%i), [int, s000] : array[f64,1,A]
  %t = transpose %b, [1, 0] : array[f64,2,F]
  %c = view %t, (%i), [int, s000] : array[f64,1,A]
  %k = const 0 : i64
  %p = elemaddr %r, (%k) : ptr[f64]
  store %p, %x
  %q = elemaddr %c, (%k) : ptr[f64]
  %y = load %q : f64
  ret
}
"""


def test_roots_of_views_are_their_bases_and_stores_through_them_write_parameters() -> None:
    module = parse_module(STORE_THROUGH_VIEWS)
    verify_module(module)
    fn = module.functions["f"]
    by_name = {inst.name: inst for inst in fn.instructions()}
    a, b, _ = fn.params
    assert array_roots(by_name["r"]) == {a}
    assert array_roots(by_name["c"]) == {b}
    assert written_params(module)["f"] == {0}  # b is only read


def test_views_share_activity_with_their_bases() -> None:
    module = parse_module(STORE_THROUGH_VIEWS)
    fn = module.functions["f"]
    by_name = {inst.name: inst for inst in fn.instructions()}
    # only x is active: storing it through the view of a makes a (and the view) active
    act = activity.analyze(fn, frozenset({2}))
    assert by_name["r"] in act and fn.params[0] in act
    assert fn.params[1] not in act and by_name["c"] not in act
    # b active: its transpose and the column view of it are active
    act = activity.analyze(fn, frozenset({1}))
    assert by_name["t"] in act and by_name["c"] in act and by_name["y"] in act
