"""Loop building blocks of the linear algebra and construction rules: counted loops
with loop-carried values (:func:`counted_loop`), loop nests over run-time extents
(:func:`loop_nest`), element reads and writes (:func:`load`, :func:`store`).

The rules of passes/arrays/linalg.py need what a plain loop nest over an output does not
give: code between loop levels (a row's factor hoisted out of the inner loop) and
scalars carried around a loop (a dot product's running sum), so they build their
loops with these helpers. Every loop is a *counted* loop in the sense of docs/ad.md
(one entry, one latch, ``i`` counting up by one to a bound defined outside), so
reverse mode rebuilds its trip count instead of taping it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Block, Value
from gradc.compiler.ir.types import I64, NONE, ArrayType, PointerType, ScalarType


@dataclass
class Loop:
    """A counted loop being built: its ``index``, the header phis of its carried
    values (``values``: their value in this iteration, and after the loop), and the
    values for the next iteration (``next``, which the body sets)."""

    index: Value
    values: list[Value]
    next: list[Value] = field(default_factory=list)


@contextmanager
def counted_loop(
    b: Builder, start: Value, stop: Value, carried: Sequence[Value] = (), label: str = "la"
) -> Iterator[Loop]:
    """``for index in range(start, stop)`` with loop-carried ``carried`` values.

    The body is built inside the ``with`` (the builder at its start); it sets
    ``loop.next`` to the carried values of the next iteration (unchanged if it does
    not). After the ``with`` the builder is after the loop, and ``loop.values`` are the
    carried values' final values.
    """
    pre = b.block
    assert pre is not None
    one = b.const(1, I64)  # outside the loop: AD's planner then sees an induction variable
    header, body = b.new_block(f"{label}.header"), b.new_block(f"{label}.body")
    b.jump(header)
    b.position_at_end(header)
    index = b.phi(I64)
    index.incoming = [(pre, start)]
    phis = []
    for v in carried:
        phi = b.phi(v.type)
        phi.incoming = [(pre, v)]
        phis.append(phi)
    done = b.new_block(f"{label}.exit")
    b.branch(b.cmp("lt", index, stop), body, done)
    b.position_at_end(body)
    loop = Loop(index, list(phis), list(phis))
    yield loop
    latch: Block | None = b.block
    assert latch is not None
    following = b.add(index, one)
    b.jump(header)
    index.incoming.append((latch, following))
    for phi, value in zip(phis, loop.next, strict=True):
        phi.incoming.append((latch, value))
    b.position_at_end(done)


def pointer(b: Builder, array: Value, indices: Sequence[Value]) -> Value:
    """``elemaddr array, indices {in_range}`` (the form AD differentiates through): the
    rules index only within the sizes they loop over."""
    t = array.type
    assert isinstance(t, ArrayType)
    return b.insert(
        ops.ElementAddr(array, tuple(indices), in_range=True, type=PointerType(t.dtype))
    )


def load(b: Builder, array: Value, indices: Sequence[Value], to: ScalarType | None = None) -> Value:
    """``array[indices]``, converted to ``to`` when given."""
    t = array.type
    assert isinstance(t, ArrayType)
    value = b.insert(ops.Load(pointer(b, array, indices), type=t.dtype))
    return value if to is None else b.cast(value, to)


def store(b: Builder, array: Value, indices: Sequence[Value], value: Value) -> None:
    """``array[indices] = value`` (converted to the array's dtype)."""
    t = array.type
    assert isinstance(t, ArrayType)
    b.insert(ops.Store(pointer(b, array, indices), b.cast(value, t.dtype), type=NONE))


def dim(b: Builder, array: Value, axis: int) -> Value:
    """``array.shape[axis]``."""
    return b.insert(ops.ArrayDim(array, axis, type=I64))


def new_array(b: Builder, t: ArrayType, shape: Sequence[Value], fill: Value | None) -> Value:
    """A new C-contiguous array of type ``t`` (``fill``: every element, or None)."""
    return b.insert(ops.NewArray(tuple(shape), fill, type=t))


@contextmanager
def loop_nest(b: Builder, extents: Sequence[Value], label: str = "la") -> Iterator[list[Value]]:
    """Counted loops over ``range(extent)`` for each of ``extents`` (outermost first);
    the body, built inside the ``with``, gets the indices."""
    if not extents:
        yield []
        return
    zero = b.const(0, I64)
    with (
        counted_loop(b, zero, extents[0], label=label) as loop,
        loop_nest(b, extents[1:], label) as inner,
    ):
        yield [loop.index, *inner]


def product(b: Builder, values: Sequence[Value]) -> Value:
    """The product of ``i64`` values (1 for none)."""
    result = b.const(1, I64) if not values else values[0]
    for v in values[1:]:
        result = b.mul(result, v)
    return result
