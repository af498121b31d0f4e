"""``lower-arrays`` rule of ``gather`` (``a[rows, cols]``, compiler/ir/ops/indexing.py).

NumPy's checks in its order (``numpy/_core/src/multiarray/mapping.c``): each scalar
index against its axis; the index arrays' shapes broadcast (IndexError "shape mismatch:
indexing arrays could not be broadcast together with shapes (2,) (3,) "); unless the
broadcast shape has no elements, every element of each index array in turn against its axis (the first bad one
in NumPy's iteration order named), a negative index counting from the end once. Then one loop nest over the broadcast shape
reads ``a[i0[j...], i1[j...], ...]`` (an index array's size-1 axes read at 0) into a new
C array. Derivatives come from the loops (a scatter-add of the cotangent).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.interp_values import MESSAGES
from gradc.compiler.ir.ops.indexing import GATHER_SHAPE_ERROR
from gradc.compiler.ir.types import I64, ArrayType
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


def _wrapped(lw: ArrayLowering, i: Value, size: Value, axis: int, label: str) -> Value:
    """``i`` counted from the end once when negative, checked against ``size``."""
    b = lw.b
    zero = lw.const(0, I64)
    i = b.cast(i, I64)
    j = b.select(b.cmp("lt", i, zero), b.add(i, size), i)
    bad = b.binary(ops.BitOr, b.cmp("lt", j, zero), b.cmp("ge", j, size))
    with b.if_then(bad, f"{label}.error"):
        b.raise_format("IndexError", MESSAGES["index_range"], [i, lw.const(axis, I64), size])
    return j


def _shape_text(rank: int, first: int) -> str:
    """NumPy's ``(2,3)`` of a shape whose sizes are fields ``first...``."""
    fields = ",".join(f"{{{first + k}}}" for k in range(rank))
    return f"({fields}{',' if rank == 1 else ''}) "


def _broadcast(lw: ArrayLowering, arrays: list[Value]) -> list[Value]:
    """The broadcast shape of the index arrays; NumPy's IndexError where they differ."""
    b = lw.b
    one = lw.const(1, I64)
    shapes = [lw.dims(a) for a in arrays]
    template = GATHER_SHAPE_ERROR
    first = 0
    for s in shapes:
        template += _shape_text(len(s), first)
        first += len(s)
    fields = [d for s in shapes for d in s]
    rank = max(len(s) for s in shapes)
    result: list[Value] = []
    for axis in range(-rank, 0):
        size = one
        for s in shapes:
            if len(s) >= -axis:
                d = s[axis]
                bad = b.binary(
                    ops.BitAnd,
                    b.binary(ops.BitAnd, b.cmp("ne", d, one), b.cmp("ne", size, one)),
                    b.cmp("ne", size, d),
                )
                with b.if_then(bad, "gather.shape.error"):
                    b.raise_format("IndexError", template, fields)
                size = b.select(b.cmp("ne", d, one), d, size)
        result.append(size)
    return result


def _check_array(lw: ArrayLowering, index: Value, size: Value, axis: int) -> None:
    """Every element of ``index`` against ``size``; NumPy's IndexError names the bad one
    it meets first: in index order for a 1-D ``intp`` array (its fast path), else in
    memory order (its iterator's: the lowest address, for C, F, reversed and strided
    layouts alike), which the loop finds keeping the lowest byte offset of a bad one in
    a three-element state (found, offset, index)."""
    b = lw.b
    t = index.type
    assert isinstance(t, ArrayType)
    if t.ndim == 1 and t.dtype == I64:  # NumPy's intp fast path: in index order
        with lw.loop_nest(lw.dims(index), "gather.check") as at:
            _wrapped(lw, lw.load(index, at), size, axis, "gather.check")
        return
    zero, one, two = (lw.const(v, I64) for v in (0, 1, 2))
    state = lw.new_array(ArrayType(I64, 1, "C"), [lw.const(3, I64)])
    lw.store(state, [zero], zero)
    with lw.loop_nest(lw.dims(index), "gather.check") as at:
        i = b.cast(lw.load(index, at), I64)
        j = b.select(b.cmp("lt", i, zero), b.add(i, size), i)
        bad = b.binary(ops.BitOr, b.cmp("lt", j, zero), b.cmp("ge", j, size))
        with b.if_then(bad, "gather.bad"):
            offset = b.insert(ops.ElementOffset(index, tuple(at), type=I64))
            first = b.cmp("eq", lw.load(state, [zero]), zero)
            lower = b.cmp("lt", offset, lw.load(state, [one]))
            with b.if_then(b.binary(ops.BitOr, first, lower), "gather.lowest"):
                lw.store(state, [zero], one)
                lw.store(state, [one], offset)
                lw.store(state, [two], i)
    with b.if_then(b.cmp("ne", lw.load(state, [zero]), zero), "gather.error"):
        fields = [lw.load(state, [two]), lw.const(axis, I64), size]
        b.raise_format("IndexError", MESSAGES["index_range"], fields)


def _gather(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Gather)
    b = lw.b
    x = inst.array
    xdims = lw.dims(x)
    is_array = [isinstance(i.type, ArrayType) for i in inst.indices]
    scalars = {
        k: _wrapped(lw, i, xdims[k], k, "gather.scalar")
        for k, (i, a) in enumerate(zip(inst.indices, is_array, strict=True))
        if not a
    }
    arrays = [i for i, a in zip(inst.indices, is_array, strict=True) if a]
    shape = _broadcast(lw, arrays)
    zero, one = lw.const(0, I64), lw.const(1, I64)
    size = one
    for d in shape:
        size = b.mul(size, d)
    with b.if_then(b.cmp("ne", size, zero), "gather.nonempty"):  # NumPy checks none if empty
        for k, (i, a) in enumerate(zip(inst.indices, is_array, strict=True)):
            if a:
                _check_array(lw, i, xdims[k], k)
    out = lw.new_array(inst.type, shape)
    with lw.loop_nest(shape, "gather") as at:
        where: list[Value] = []
        for k, (i, a) in enumerate(zip(inst.indices, is_array, strict=True)):
            if not a:
                where.append(scalars[k])
                continue
            dims = lw.dims(i)
            own = at[len(at) - len(dims) :]
            read = [b.select(b.cmp("eq", d, one), zero, j) for d, j in zip(dims, own, strict=True)]
            raw = b.cast(lw.load(i, read), I64)
            where.append(b.select(b.cmp("lt", raw, zero), b.add(raw, xdims[k]), raw))
        lw.store(out, at, lw.load(x, where))
    return out


ARRAY_LOWERING.set([ops.Gather], ArrayRule(lower=_gather))
