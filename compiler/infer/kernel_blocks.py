"""The block step of a kernel's grid loop when its threads meet at barriers.

For a kernel with a phase function (``compiler/infer/kernel_phases.py``) the grid loop
(``compiler/infer/kernels.py``) allocates, once per launch, the context arrays (one
element per thread of a block) and each shared array, then runs every block in phases::

    resume = 0
    loop:                                   # one phase: every thread to its next barrier
      reached = -1
      for tid.z, tid.y, tid.x:              # x fastest
        r = call @k.phases(resume, slot, ctx..., shared..., tid.x, ..., own...)
        RuntimeError unless reached in (-1, r)   # all threads at the same barrier
        reached = r
      resume = reached
      until resume == 0

so a thread runs on past a barrier only when every thread of its block has arrived
there, as on the GPU. A shuffled-order build (``CompilerOptions.shuffle_threads``, for
tests) visits the blocks, and the threads of each phase, in a fixed scrambled order
(:func:`points`). Threads that reach different barriers, or return while others
wait at one, raise RuntimeError (:data:`DIVERGED`; CUDA leaves it undefined). A block
has at most 1024 threads (:data:`TOO_MANY_THREADS`, CUDA's limit), which bounds the
context arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from gradc.compiler.infer.kernel_phases import Phased
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import I1, I64, NONE, ArrayType, PointerType

__all__ = ["DIVERGED", "TOO_MANY_THREADS", "block_arrays", "counted_loop", "run_phases"]

#: The RuntimeError of threads of a block that do not meet at the same barrier.
DIVERGED = (
    "the threads of a block did not all reach the same cuda.syncthreads() (or some "
    "returned while others waited at it)"
)

#: The ValueError of a block of more than 1024 threads (or 1024 x 1024 x 64).
TOO_MANY_THREADS = "a block has at most 1024 threads (1024 x 1024 x 64)"


@contextmanager
def counted_loop(b: Builder, n: Value, zero: Value, one: Value, label: str) -> Iterator[Value]:
    """``for i in range(n)`` (``n`` >= 1 is not assumed); the body inside the ``with``."""
    assert b.block is not None
    before = b.block
    head, body, done = b.new_block(label), b.new_block(f"{label}.body"), b.new_block(f"{label}.end")
    b.jump(head)
    b.position_at_end(head)
    i = b.phi(I64, name=label)
    i.incoming.append((before, zero))
    b.branch(b.cmp("lt", i, n), body, done)
    b.position_at_end(body)
    yield i
    latch = b.block
    assert latch is not None
    step = b.add(i, one)
    b.jump(head)
    i.incoming.append((latch, step))
    b.position_at_end(done)


#: The ValueError of a shuffled-order launch of 2**31 threads or more (or blocks).
TOO_MANY_TO_SHUFFLE = "a shuffled-order run takes fewer than 2**31 blocks and threads per block"

#: Multipliers of the shuffled order: ``t -> (t * P + 7) % n`` permutes ``range(n)``
#: when ``P`` and ``n`` are coprime; the first prime that does not divide ``n``.
_SHUFFLE_PRIMES = (1_000_003, 999_983)


def linear_count(b: Builder, dims: Sequence[Value]) -> Value:
    """``dims[0] * dims[1] * ...`` (each >= 1), or ValueError from 2**31 on
    (:data:`TOO_MANY_TO_SHUFFLE`; no product can overflow before the check)."""
    limit = b.const(1 << 31, I64)
    count: Value = b.const(1, I64)
    for d in dims:
        with b.if_then(b.cmp("ge", d, limit), "toomany"):
            b.raise_("ValueError", TOO_MANY_TO_SHUFFLE)
        count = b.mul(count, d)
        with b.if_then(b.cmp("ge", count, limit), "toomany"):
            b.raise_("ValueError", TOO_MANY_TO_SHUFFLE)
    return count


def shuffled(b: Builder, t: Value, n: Value) -> Value:
    """Position ``t`` of a fixed permutation of ``range(n)`` (``0 <= t < n < 2**31``)."""
    p: Value = b.const(1, I64)
    for prime in reversed(_SHUFFLE_PRIMES):
        c = b.const(prime, I64)
        p = b.select(b.cmp("ne", b.insert(ops.Mod(n, c, type=I64)), b.const(0, I64)), c, p)
    return b.insert(ops.Mod(b.add(b.mul(t, p), b.const(7, I64)), n, type=I64))


def unravel(b: Builder, u: Value, dims: Sequence[Value]) -> list[Value]:
    """The coordinates (x first, x fastest) of linear index ``u`` over ``dims``."""
    out = []
    for d in dims[:-1]:
        out.append(b.insert(ops.Mod(u, d, type=I64)))
        u = b.insert(ops.FloorDiv(u, d, type=I64))
    return [*out, u]


@contextmanager
def points(b: Builder, dims: Sequence[Value], label: str, shuffle: bool) -> Iterator[list[Value]]:
    """Loop over every point ``[x, y, z]`` of the box ``dims`` (x fastest), or over them
    in a fixed shuffled order (:func:`shuffled`); the body inside the ``with``."""
    zero, one = b.const(0, I64), b.const(1, I64)
    if not shuffle:
        with (
            counted_loop(b, dims[2], zero, one, f"{label}.z") as z,
            counted_loop(b, dims[1], zero, one, f"{label}.y") as y,
            counted_loop(b, dims[0], zero, one, f"{label}.x") as x,
        ):
            yield [x, y, z]
        return
    n = linear_count(b, dims)
    with counted_loop(b, n, zero, one, label) as t:
        yield unravel(b, shuffled(b, t, n), dims)


def block_arrays(b: Builder, phased: Phased, block: Sequence[Value]) -> list[Value]:
    """Check the block's size and allocate the context arrays, the shared arrays and the
    two-element state (``resume``, ``reached``); returns them in that order."""
    limits = (1024, 1024, 64)
    bad: Value = b.const(False, I1)
    for d, limit in zip(block, limits, strict=True):
        bad = b.insert(ops.BitOr(bad, b.cmp("gt", d, b.const(limit, I64)), type=I1))
    with b.if_then(bad, "bigblock"):
        b.raise_(  # the product below cannot overflow past this
            "ValueError", TOO_MANY_THREADS
        )
    threads = b.mul(b.mul(block[0], block[1]), block[2])
    with b.if_then(b.cmp("gt", threads, b.const(1024, I64)), "bigblock"):
        b.raise_("ValueError", TOO_MANY_THREADS)
    out: list[Value] = [
        b.insert(ops.NewArray((threads,), type=ArrayType(t, 1, "C"))) for t in phased.context
    ]
    for t, shape in phased.shared:
        dims = tuple(b.const(d, I64) for d in shape)
        out.append(b.insert(ops.NewArray(dims, type=t)))
    out.append(b.insert(ops.NewArray((b.const(2, I64),), type=ArrayType(I64, 1, "C"))))
    return out


def run_phases(
    b: Builder,
    phased: Phased,
    arrays: list[Value],
    ctaid: list[Value],
    dims: list[Value],
    own: list[Value],
    shuffle: bool = False,
) -> None:
    """One block, in phases (module docstring); ``dims`` are block x, y, z then grid
    x, y, z, ``ctaid`` the block's x, y, z."""
    *per_launch, state = arrays
    zero = b.const(0, I64)
    _set(b, state, 0, zero)
    head = b.new_block("phase")
    b.jump(head)
    b.position_at_end(head)
    _set(b, state, 1, b.const(-1, I64))
    block = dims[:3]
    with points(b, block, "tid", shuffle) as (tx, ty, tz):
        slot = b.add(b.mul(b.add(b.mul(tz, block[1]), ty), block[0]), tx)
        thread = [tx, ty, tz, *ctaid, *dims]
        r = b.call(
            phased.function.name, [_get(b, state, 0), slot, *per_launch, *thread, *own], result=I64
        )
        reached = _get(b, state, 1)
        first = b.cmp("eq", reached, b.const(-1, I64))
        differ = b.insert(ops.BitAnd(b.unary(ops.Not, first), b.cmp("ne", reached, r), type=I1))
        with b.if_then(differ, "diverged"):
            b.raise_("RuntimeError", DIVERGED)
        _set(b, state, 1, r)
    reached = _get(b, state, 1)
    _set(b, state, 0, reached)
    done = b.new_block("phase.end")
    b.branch(b.cmp("eq", reached, zero), done, head)
    b.position_at_end(done)


def _addr(b: Builder, state: Value, k: int) -> Value:
    return b.insert(
        ops.ElementAddr(state, (b.const(k, I64),), in_range=True, type=PointerType(I64))
    )


def _get(b: Builder, state: Value, k: int) -> Value:
    return b.insert(ops.Load(_addr(b, state, k), type=I64))


def _set(b: Builder, state: Value, k: int, v: Value) -> None:
    b.insert(ops.Store(_addr(b, state, k), v, type=NONE))
