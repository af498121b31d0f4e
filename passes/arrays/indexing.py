"""``lower-arrays`` rules of indexing that copies (compiler/ir/ops/indexing.py).

``take %x, %idx`` (``x[idx]``): a loop nest over ``idx.shape`` checking each index
(NumPy's IndexError "index 5 is out of bounds for axis 0 with size 3", a negative index
counted from the end once; checked even when ``x`` has no elements per row, as NumPy
does), around one over ``x.shape[1:]`` copying ``x[idx[j...], k...]``.

``compress %x, %mask`` (``x[mask]``): the shapes checked axis by axis (NumPy's
IndexError; an empty mask selects nothing, as NumPy reads it as an empty integer index), a first loop nest counting the true elements, the result allocated, a
second loop nest copying the selected elements in C order. The running position lives
in a one-element array (put on the stack by ``stack-promote``).

``maskassign %x, %mask, %v`` (``x[mask] = v``): the same shape checks, then for an array
``v`` the count of true elements checked against its length (NumPy's ValueError unless
equal, or 1), then one loop nest storing ``v`` (or ``v[position]``, the running position
as above) where the mask is true.

``indexassign %x, %idx, %v`` (``x[idx] = v``): ``v``'s shape checked against the indexed
shape ``idx.shape + x.shape[1:]``, then every index (NumPy's checks, before any write),
then one loop nest over ``idx`` and ``x``'s other axes storing ``v`` (an element of it,
an axis of size 1 read at 0) in C order: a repeated index keeps the last value.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.interp_values import MESSAGES
from gradc.compiler.ir.ops.indexing import (
    INDEX_ASSIGN_AXIS_ERROR,
    INDEX_ASSIGN_ERROR,
    MASK_ASSIGN_ERROR,
    MASK_ERROR,
)
from gradc.compiler.ir.types import I64, ArrayType
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


def _take(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Take)
    b = lw.b
    x, idx = inst.array, inst.index
    idims, xdims = lw.dims(idx), lw.dims(x)
    out = lw.new_array(inst.type, [*idims, *xdims[1:]])
    zero = lw.const(0, I64)
    with lw.loop_nest(idims, "take") as outer:
        # checked here, even when x has no elements per row (NumPy checks every index)
        i = b.cast(lw.load(idx, outer), I64)
        j = b.select(b.cmp("lt", i, zero), b.add(i, xdims[0]), i)
        bad = b.binary(ops.BitOr, b.cmp("lt", j, zero), b.cmp("ge", j, xdims[0]))
        with b.if_then(bad, "take.error"):
            b.raise_format("IndexError", MESSAGES["index_range"], [i, zero, xdims[0]])
        with lw.loop_nest(xdims[1:], "take.row") as inner:
            lw.store(out, [*outer, *inner], lw.load(x, [j, *inner]))
    return out


def _check_mask(lw: ArrayLowering, x: Value, mask: Value, label: str) -> None:
    """NumPy's IndexError unless ``mask`` has ``x``'s shape (an empty mask passes: NumPy
    reads it as an empty integer index)."""
    b = lw.b
    xd, md = lw.dims(x), lw.dims(mask)
    zero, one = lw.const(0, I64), lw.const(1, I64)
    size = one
    for m in md:
        size = b.mul(size, m)
    empty = b.cmp("eq", size, zero)
    for k, (n, m) in enumerate(zip(xd, md, strict=True)):
        bad = b.binary(ops.BitAnd, b.cmp("ne", n, m), b.unary(ops.Not, empty))
        with b.if_then(bad, f"{label}.error"):
            b.raise_format("IndexError", MASK_ERROR, [lw.const(k, I64), n, m])


def _count(lw: ArrayLowering, mask: Value, label: str) -> Value:
    """A one-element array holding the count of true elements of ``mask``."""
    b = lw.b
    zero, one = lw.const(0, I64), lw.const(1, I64)
    where = lw.new_array(ArrayType(I64, 1, "C"), [one])
    lw.store(where, [zero], zero)
    with (
        lw.loop_nest(lw.dims(mask), f"{label}.count") as index,
        b.if_then(lw.load(mask, index), f"{label}.hit"),
    ):
        lw.store(where, [zero], b.add(lw.load(where, [zero]), one))
    return where


def _compress(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Compress)
    b = lw.b
    x, mask = inst.array, inst.mask
    _check_mask(lw, x, mask, "compress")
    zero, one = lw.const(0, I64), lw.const(1, I64)
    where = _count(lw, mask, "compress")
    out = lw.new_array(inst.type, [lw.load(where, [zero])])
    lw.store(where, [zero], zero)
    with (
        lw.loop_nest(lw.dims(mask), "compress.copy") as index,
        b.if_then(lw.load(mask, index), "compress.take"),
    ):
        at = lw.load(where, [zero])
        lw.store(out, [at], lw.load(x, index))
        lw.store(where, [zero], b.add(at, one))
    return out


def _mask_assign(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.MaskAssign)
    b = lw.b
    x, mask, item = inst.array, inst.mask, inst.item
    _check_mask(lw, x, mask, "maskassign")
    zero, one = lw.const(0, I64), lw.const(1, I64)
    if not isinstance(item.type, ArrayType):
        with (
            lw.loop_nest(lw.dims(mask), "maskassign.store") as index,
            b.if_then(lw.load(mask, index), "maskassign.hit"),
        ):
            lw.store(x, index, item)
        return None
    where = _count(lw, mask, "maskassign")
    count, length = lw.load(where, [zero]), lw.dims(item)[0]
    bad = b.binary(ops.BitAnd, b.cmp("ne", length, count), b.cmp("ne", length, one))
    with b.if_then(bad, "maskassign.error"):
        b.raise_format("ValueError", MASK_ASSIGN_ERROR, [length, count])
    step = b.select(b.cmp("eq", length, one), zero, one)  # one value: each element gets it
    lw.store(where, [zero], zero)
    with (
        lw.loop_nest(lw.dims(mask), "maskassign.store") as index,
        b.if_then(lw.load(mask, index), "maskassign.hit"),
    ):
        at = lw.load(where, [zero])
        lw.store(x, index, lw.load(item, [at]))
        lw.store(where, [zero], b.add(at, step))
    return None


def _check_item(lw: ArrayLowering, item: Value, target: list[Value]) -> list[Value]:
    """NumPy's ValueError unless array ``item`` broadcasts to shape ``target``; the
    index of ``item``'s element for each target index (a size-1 axis read at 0) is
    computed from the sizes returned (``item``'s, aligned at the end)."""
    b = lw.b
    sizes = lw.dims(item)
    one = lw.const(1, I64)
    for axis in range(1, len(sizes) + 1):
        got, want = sizes[-axis], target[-axis]
        bad = b.binary(ops.BitAnd, b.cmp("ne", got, want), b.cmp("ne", got, one))
        with b.if_then(bad, "indexassign.shape"):
            if len(target) == 1:
                b.raise_format("ValueError", INDEX_ASSIGN_ERROR, [got, want])
            else:
                where = lw.const(len(target) - axis, I64)
                b.raise_format("ValueError", INDEX_ASSIGN_AXIS_ERROR, [got, want, where])
    return sizes


def _index_assign(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.IndexAssign)
    b = lw.b
    x, idx, item = inst.array, inst.index, inst.item
    idims, xdims = lw.dims(idx), lw.dims(x)
    target = [*idims, *xdims[1:]]
    sizes = _check_item(lw, item, target) if isinstance(item.type, ArrayType) else []
    zero, one = lw.const(0, I64), lw.const(1, I64)
    with lw.loop_nest(idims, "indexassign.check") as outer:  # every index before any write
        i = b.cast(lw.load(idx, outer), I64)
        j = b.select(b.cmp("lt", i, zero), b.add(i, xdims[0]), i)
        bad = b.binary(ops.BitOr, b.cmp("lt", j, zero), b.cmp("ge", j, xdims[0]))
        with b.if_then(bad, "indexassign.error"):
            b.raise_format("IndexError", MESSAGES["index_range"], [i, zero, xdims[0]])
    with lw.loop_nest(idims, "indexassign") as outer:
        i = b.cast(lw.load(idx, outer), I64)
        j = b.select(b.cmp("lt", i, zero), b.add(i, xdims[0]), i)
        with lw.loop_nest(xdims[1:], "indexassign.row") as inner:
            if isinstance(item.type, ArrayType):
                full = [*outer, *inner][len(target) - len(sizes) :]
                at = [
                    b.select(b.cmp("eq", s, one), zero, k) for s, k in zip(sizes, full, strict=True)
                ]
                value = lw.load(item, at)
            else:
                value = item
            lw.store(x, [j, *inner], value)
    return None


ARRAY_LOWERING.set([ops.Take], ArrayRule(lower=_take))
ARRAY_LOWERING.set([ops.IndexAssign], ArrayRule(lower=_index_assign))
ARRAY_LOWERING.set([ops.Compress], ArrayRule(lower=_compress))
ARRAY_LOWERING.set([ops.MaskAssign], ArrayRule(lower=_mask_assign))
