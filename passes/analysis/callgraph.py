"""The call graph of a module, read from its ``call`` instructions.

::

    func @f(...) { %1 = call @g(...); %2 = call @h(...); %3 = call @g(...) }
    func @g(...) { %1 = call @g(...) }
    func @h(...) { ... }

    call_graph(module)      == {"f": ("g", "h"), "g": ("g",), "h": ()}
    reachable(module, "f")  == ["f", "g", "h"]
    strongly_connected_components(["f", "g", "h"], call_graph(module))
                            == [["g"], ["h"], ["f"]]      # callees before callers

The driver keys each export by the functions it reaches (``gradc.compiler.keys``) and
numbers their raise sites in this order (``gradc.compiler.codegen.sites``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from gradc.compiler.ir.core import Module
from gradc.compiler.ir.ops import Call


def callees(module: Module, name: str) -> list[str]:
    """Names of the functions ``name`` calls directly, sorted, without repeats.

    Raises:
        KeyError: ``module`` has no function ``name``.
    """
    return sorted(
        {inst.callee for inst in module.functions[name].instructions() if isinstance(inst, Call)}
    )


def call_graph(module: Module) -> dict[str, tuple[str, ...]]:
    """Function name -> the names it calls directly (sorted), for every function of
    ``module`` in its order. A callee may be missing from ``module`` (lowering reports it)."""
    return {name: tuple(callees(module, name)) for name in module.functions}


def reachable(module: Module, root: str) -> list[str]:
    """``root`` and every function it calls transitively: ``root`` first, then sorted.

    A callee missing from ``module`` is skipped here (lowering reports it).
    """
    seen = {root}
    work = [root]
    while work:
        for callee in callees(module, work.pop()):
            if callee not in seen and callee in module.functions:
                seen.add(callee)
                work.append(callee)
    return [root, *sorted(seen - {root})]


def strongly_connected_components(
    nodes: Iterable[str], edges: Mapping[str, Sequence[str]]
) -> list[list[str]]:
    """Strongly connected components of the graph on ``nodes`` (edges to other names are
    ignored), callees before callers, each sorted (Tarjan, iterative; nodes visited in
    sorted order, so the result is deterministic).

    Args:
        nodes: the function names.
        edges: name -> names it calls (``call_graph``); a node without an entry calls none.
    """
    names = set(nodes)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(names):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        child: str | None = root
        while True:
            if child is not None and child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(c for c in edges.get(child, ()) if c in names))))
            if not work:
                break
            n, it = work[-1]
            child = next(it, None)
            if child is not None:
                if child in on_stack:
                    low[n] = min(low[n], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[n])
            if low[n] == index[n]:
                out.append(_pop_component(stack, on_stack, n))
    return out


def _pop_component(stack: list[str], on_stack: set[str], root: str) -> list[str]:
    """Pop the component whose root is ``root`` off Tarjan's stack, sorted."""
    scc = []
    while True:
        m = stack.pop()
        on_stack.discard(m)
        scc.append(m)
        if m == root:
            return sorted(scc)
