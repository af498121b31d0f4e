"""Where arrays and derived pointers come from: the walks the GC and AD passes share.

* :func:`pointer_bases`: the arrays a derived pointer points into (its *bases*), through
  ``elemaddr``/``addr``/``ptradd`` and phis/selects of pointers — what must stay alive
  while the pointer is live (DESIGN.md §2);
* :func:`array_sources`: every array or pointer value an array or pointer may be the same
  memory as, through element addresses, phis, selects and layout casts — what a store
  through it may modify (mutation and activity analyses);
* :func:`array_roots`: the memory behind those: the sources that are not views of
  another value (parameters, allocations, call results; not views) — what a store through ``v``
  may write (the mutation analysis and AD's memory facts).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import PointerType, ScalarType

#: Operations whose array result is a view of their ``array`` operand (ops/views.py).
_VIEWS = ops.SliceView | ops.Transpose | ops.Reshape


def pointer_bases(v: Value) -> list[Value]:
    """The arrays derived pointer ``v`` may point into, in discovery order."""
    bases: list[Value] = []
    seen: set[Value] = set()
    work = [v]
    while work:
        p = work.pop()
        if p in seen:
            continue
        seen.add(p)
        if isinstance(p, ops.ElementAddr | ops.Addr):
            bases.append(p.array)
        elif isinstance(p, ops.PointerAdd):
            work.append(p.pointer)
        elif isinstance(p, ops.Phi | ops.Select):
            work.extend(x for x in p.operands() if isinstance(x.type, PointerType))
    return bases


def array_sources(v: Value) -> list[Value]:
    """``v`` and every array or pointer value it may share memory with (transitively)."""
    out: list[Value] = []
    seen: set[Value] = set()
    work = [v]
    while work:
        x = work.pop()
        if x in seen:
            continue
        seen.add(x)
        out.append(x)
        if isinstance(x, ops.ElementAddr | ops.Addr):
            work.append(x.array)
        elif isinstance(x, ops.PointerAdd):
            work.append(x.pointer)
        elif isinstance(x, ops.Select) and not isinstance(x.type, ScalarType):
            work.extend([x.if_true, x.if_false])
        elif isinstance(x, ops.Phi | ops.Cast) and not isinstance(x.type, ScalarType):
            work.extend(x.operands())
        elif isinstance(x, _VIEWS):  # a view names its base's memory
            work.append(x.array)
    return out


def array_roots(v: Value) -> set[Value]:
    """The values array or pointer ``v`` may share memory with that are not views of
    something else: :func:`array_sources` less element addresses, pointer offsets and
    phis, selects and casts of arrays or pointers. Parameters among them are
    :class:`~gradc.compiler.ir.core.Argument` values."""
    return {
        x
        for x in array_sources(v)
        if not isinstance(x, ops.ElementAddr | ops.Addr | ops.PointerAdd | _VIEWS)
        and not (
            isinstance(x, ops.Select | ops.Phi | ops.Cast) and not isinstance(x.type, ScalarType)
        )
    }
