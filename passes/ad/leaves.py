"""The leaves of a tuple type: how the reverse sweep names the adjoint of a float inside
a (possibly nested) tuple.

An adjoint variable is a forward value and a *leaf number* (:data:`.sweep_state.AdjKey`):
the position of a non-tuple element in the depth-first order of the value's type, so
``(x, (2.0, y))`` has leaves 0 (``x``), 1 (``2.0``) and 2 (``y``). For a flat tuple the
leaf number is the element index; a scalar is leaf 0. ``t[1]`` of that tuple holds
leaves 1 and 2, which are its own leaves 0 and 1 (:func:`first_leaf` gives the offset).
"""

from __future__ import annotations

from collections.abc import Callable

from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import TupleType, Type

Path = tuple[int, ...]
"""Element indices from a tuple down to one of its leaves (``()``: the value itself)."""


def leaves(t: Type) -> list[tuple[Path, Type]]:
    """``(path, type)`` of each leaf of ``t`` in depth-first order (``[((), t)]`` for a
    non-tuple type)."""
    if not isinstance(t, TupleType):
        return [((), t)]
    out: list[tuple[Path, Type]] = []
    for i, e in enumerate(t.elements):
        out.extend(((i, *path), leaf) for path, leaf in leaves(e))
    return out


def first_leaf(t: TupleType, index: int) -> int:
    """The leaf number, in ``t``, of the first leaf of element ``index``."""
    return sum(len(leaves(e)) for e in t.elements[:index])


def element_of_leaf(t: TupleType, k: int) -> tuple[int, int]:
    """``(element index, leaf number within that element)`` of leaf ``k`` of ``t``."""
    for i, e in enumerate(t.elements):
        n = len(leaves(e))
        if k < n:
            return i, k
        k -= n
    raise IndexError(f"leaf {k} past the end of {t}")


def get_leaf(b: Builder, v: Value, path: Path) -> Value:
    """The element of tuple ``v`` at ``path`` (``tuple_get`` per level)."""
    for i in path:
        v = b.tuple_get(v, i)
    return v


def build(b: Builder, t: Type, part: Callable[[int, Type], Value]) -> Value:
    """A value of type ``t`` (a tuple, nested or not, or a single leaf) whose leaf ``k`` of
    type ``lt`` is ``part(k, lt)``."""
    counter = iter(range(len(leaves(t))))

    def make(u: Type) -> Value:
        if not isinstance(u, TupleType):
            return part(next(counter), u)
        return b.make_tuple([make(e) for e in u.elements])

    return make(t)
