"""The call graph (``gradc.passes.analysis.callgraph``), read from ``call`` instructions."""

from __future__ import annotations

import textwrap

from gradc.compiler.ir.parser import parse_module
from gradc.passes.analysis.callgraph import (
    call_graph,
    callees,
    reachable,
    strongly_connected_components,
)

IR = textwrap.dedent(
    """
    func @f(%x: f64) -> f64 {
    ^entry:
      %a = call @h(%x) : f64
      %b = call @g(%x) : f64
      %c = call @h(%b) : f64
      %r = add %a, %c : f64
      ret %r
    }

    func @g(%x: f64) -> f64 {
    ^entry:
      %y = call @g(%x) : f64
      ret %y
    }

    func @h(%x: f64) -> f64 {
    ^entry:
      %y = call @missing(%x) : f64
      ret %y
    }

    func @alone(%x: f64) -> f64 {
    ^entry:
      ret %x
    }
    """
)


def test_callees_are_sorted_without_repeats() -> None:
    module = parse_module(IR)
    assert callees(module, "f") == ["g", "h"]
    assert call_graph(module) == {
        "f": ("g", "h"),
        "g": ("g",),
        "h": ("missing",),
        "alone": (),
    }


def test_reachable_lists_the_root_then_its_callees_sorted_skipping_missing_ones() -> None:
    module = parse_module(IR)
    assert reachable(module, "f") == ["f", "g", "h"]
    assert reachable(module, "g") == ["g"]
    assert reachable(module, "alone") == ["alone"]


def test_components_put_callees_before_callers() -> None:
    edges = {"a": ["b"], "b": ["c", "a"], "c": ["c"], "d": ["a", "x"]}
    sccs = strongly_connected_components(["d", "c", "b", "a"], edges)
    assert sccs == [["c"], ["a", "b"], ["d"]]
    assert strongly_connected_components([], edges) == []
