"""Dominator trees and frontiers on hand-drawn CFGs, and against a naive fixpoint."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function
from gradc.compiler.ir.dominance import DominatorTree
from gradc.compiler.ir.parser import parse_function
from gradc.compiler.ir.types import I1


def cfg(body: str) -> tuple[Function, dict[str, Block], DominatorTree]:
    """A function whose blocks hold only terminators (``condbr %c, ...`` / ``br`` / ``ret``)."""
    text = "func @f(%c: i1) -> none {\n" + textwrap.dedent(body).strip("\n") + "\n}\n"
    fn = parse_function(text)
    return fn, {b.label: b for b in fn.blocks}, DominatorTree(fn)


def idoms(dt: DominatorTree, blocks: dict[str, Block]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name, b in blocks.items():
        parent = dt.idom(b)
        out[name] = parent.label if parent is not None else None
    return out


def labels(bs: list[Block]) -> list[str]:
    return [b.label for b in bs]


DIAMOND = """
    ^entry:
      condbr %c, ^a, ^b
    ^a:
      br ^join
    ^b:
      br ^join
    ^join:
      ret
"""


def test_diamond() -> None:
    _, b, dt = cfg(DIAMOND)
    assert idoms(dt, b) == {"entry": None, "a": "entry", "b": "entry", "join": "entry"}
    assert dt.dominates(b["entry"], b["join"])
    assert not dt.dominates(b["a"], b["join"])
    assert dt.dominates(b["a"], b["a"]) and not dt.strictly_dominates(b["a"], b["a"])
    assert labels(dt.children(b["entry"])) == ["b", "a", "join"]  # reverse postorder
    assert labels(dt.frontier(b["a"])) == ["join"]
    assert labels(dt.frontier(b["b"])) == ["join"]
    assert dt.frontier(b["entry"]) == []
    assert dt.frontier(b["join"]) == []
    assert dt.reverse_postorder[0] is b["entry"] and dt.reverse_postorder[-1] is b["join"]


def test_loop() -> None:
    _, b, dt = cfg("""
        ^entry:
          br ^header
        ^header:
          condbr %c, ^body, ^exit
        ^body:
          br ^header
        ^exit:
          ret
    """)
    assert idoms(dt, b) == {"entry": None, "header": "entry", "body": "header", "exit": "header"}
    assert dt.dominates(b["header"], b["body"])
    assert not dt.dominates(b["body"], b["header"])
    assert labels(dt.frontier(b["body"])) == ["header"]
    assert labels(dt.frontier(b["header"])) == ["header"]
    assert dt.frontier(b["exit"]) == []


def test_nested_loop() -> None:
    _, b, dt = cfg("""
        ^entry:
          br ^outer
        ^outer:
          condbr %c, ^inner, ^exit
        ^inner:
          condbr %c, ^inner_body, ^latch
        ^inner_body:
          br ^inner
        ^latch:
          br ^outer
        ^exit:
          ret
    """)
    assert idoms(dt, b) == {
        "entry": None,
        "outer": "entry",
        "inner": "outer",
        "inner_body": "inner",
        "latch": "inner",
        "exit": "outer",
    }
    assert dt.dominates(b["outer"], b["inner_body"])
    assert not dt.dominates(b["inner_body"], b["latch"])
    assert labels(dt.frontier(b["inner_body"])) == ["inner"]
    assert labels(dt.frontier(b["latch"])) == ["outer"]
    assert set(labels(dt.frontier(b["inner"]))) == {"outer", "inner"}
    assert dt.preorder()[0].label == "entry"


def test_unreachable_blocks() -> None:
    _, b, dt = cfg("""
        ^entry:
          br ^exit
        ^dead:
          br ^dead2
        ^dead2:
          condbr %c, ^dead, ^exit
        ^exit:
          ret
    """)
    assert not dt.is_reachable(b["dead"]) and not dt.is_reachable(b["dead2"])
    assert dt.is_reachable(b["exit"])
    assert dt.idom(b["dead"]) is None and dt.idom(b["dead2"]) is None
    # the edge from unreachable code does not make ^exit a join point
    assert dt.idom(b["exit"]) is b["entry"]
    assert dt.dominates(b["dead"], b["dead"])
    assert not dt.dominates(b["entry"], b["dead"])
    assert not dt.dominates(b["dead"], b["dead2"])
    assert dt.frontier(b["dead"]) == [] and dt.children(b["dead"]) == []
    assert labels(dt.reverse_postorder) == ["entry", "exit"]


def test_self_loop_and_duplicate_edges() -> None:
    _, b, dt = cfg("""
        ^entry:
          condbr %c, ^a, ^a
        ^a:
          condbr %c, ^a, ^exit
        ^exit:
          ret
    """)
    assert idoms(dt, b) == {"entry": None, "a": "entry", "exit": "a"}
    assert labels(dt.frontier(b["a"])) == ["a"]


def test_irreducible() -> None:
    # entry branches into both blocks of a two-block cycle: neither dominates the other
    _, b, dt = cfg("""
        ^entry:
          condbr %c, ^x, ^y
        ^x:
          condbr %c, ^y, ^exit
        ^y:
          br ^x
        ^exit:
          ret
    """)
    assert idoms(dt, b) == {"entry": None, "x": "entry", "y": "entry", "exit": "x"}
    assert labels(dt.frontier(b["x"])) == ["y"]
    assert labels(dt.frontier(b["y"])) == ["x"]


# ---------------------------------------------------------------------------------
# against the textbook fixpoint Dom(n) = {n} ∪ ⋂ Dom(p) over predecessors p


def _random_function(n: int, edges: list[list[int]]) -> Function:
    fn = Function("f")
    cond = Argument(type=I1, name="c", index=0)
    fn.params.append(cond)
    blocks = [fn.add_block(f"b{i}") for i in range(n)]
    for i, block in enumerate(blocks):
        succ = [blocks[j % n] for j in edges[i]]
        # no edges into the entry block (as the verifier requires)
        succ = [s for s in succ if s is not blocks[0]]
        if not succ:
            block.append(ops.Return(None))
        elif len(succ) == 1:
            block.append(ops.Jump(succ[0]))
        else:
            block.append(ops.Branch(cond, succ[0], succ[1]))
    return fn


def _naive_dominators(fn: Function) -> dict[Block, set[Block]]:
    reachable: set[Block] = set()
    stack = [fn.entry]
    while stack:
        b = stack.pop()
        if b not in reachable:
            reachable.add(b)
            stack.extend(b.successors())
    preds = fn.predecessors()
    dom = {b: set(reachable) for b in reachable}
    dom[fn.entry] = {fn.entry}
    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            if b not in reachable or b is fn.entry:
                continue
            ps = [dom[p] for p in preds[b] if p in reachable]
            new = set.intersection(*ps) | {b}
            if new != dom[b]:
                dom[b] = new
                changed = True
    return dom


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1, max_value=12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.lists(st.integers(min_value=0, max_value=11), max_size=2),
                min_size=n,
                max_size=n,
            ),
        )
    )
)
def test_matches_naive_fixpoint(case: tuple[int, list[list[int]]]) -> None:
    n, edges = case
    fn = _random_function(n, edges)
    dt = DominatorTree(fn)
    dom = _naive_dominators(fn)
    for b in fn.blocks:
        assert dt.is_reachable(b) == (b in dom)
    for b, ds in dom.items():
        for a in fn.blocks:
            assert dt.dominates(a, b) == (a in ds), (a.label, b.label)
        strict = ds - {b}
        if strict:
            # the immediate dominator is the strict dominator dominated by all the others
            idom = next(d for d in strict if all(e in dom[d] for e in strict))
            assert dt.idom(b) is idom
        else:
            assert dt.idom(b) is None
    # frontier definition: DF(a) = {f | a dominates a pred of f, not strictly f}
    preds = fn.predecessors()
    for a in dom:
        expected = {
            f
            for f in dom
            if any(p in dom and a in dom[p] for p in preds[f]) and not (a in dom[f] and a is not f)
        }
        assert set(dt.frontier(a)) == expected
