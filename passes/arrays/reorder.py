"""``lower-arrays`` rules of ``diag``, ``triangle`` and ``roll``
(compiler/ir/ops/reorder.py): loops that copy each element to its new place.

* ``diag`` of a 1-D ``v`` (length ``n``): a zero-filled ``(n + |k|)²`` array, then one
  loop storing ``v[i]`` at ``[i + max(-k, 0), i + max(k, 0)]``; of a 2-D ``a``: a loop
  over the diagonal's length ``max(0, min(rows - max(-k, 0), cols - max(k, 0)))``
  reading ``a[i + max(-k, 0), i + max(k, 0)]``.
* ``triangle``: a loop nest over the shape storing ``a[..., i, j]`` where ``j - i <= k``
  (``tril``; ``triu``: ``>= k``) and zero elsewhere (a ``select``: its derivative
  reaches only the kept elements).
* ``roll``: along an axis of length ``n``, element ``i`` reads ``(i - s) mod n`` with
  ``s = shift mod n`` (Python's, so a negative shift rolls left); ``axis=None``: the
  same on the C-order position, split back into indices by division.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I64, ArrayType
from gradc.passes.arrays.linalg_loops import new_array, product
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


def _zero(lw: ArrayLowering, t: ArrayType) -> Value:
    d = t.dtype
    return lw.const(False if d.is_bool else 0.0 if d.is_float else 0, d)


def _imax(lw: ArrayLowering, x: Value, y: Value) -> Value:
    return lw.b.insert(ops.Max(x, y, type=I64))


def _imin(lw: ArrayLowering, x: Value, y: Value) -> Value:
    return lw.b.insert(ops.Min(x, y, type=I64))


def _diag(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Diag)
    b = lw.b
    t = inst.type
    assert isinstance(t, ArrayType)
    zero = lw.const(0, I64)
    k = inst.diagonal
    row0 = _imax(lw, b.unary(ops.Neg, k), zero)  # first row of the diagonal
    col0 = _imax(lw, k, zero)
    dims = lw.dims(inst.array)
    if t.ndim == 2:
        n = dims[0]
        size = b.add(n, b.add(row0, col0))  # n + |k|
        out = new_array(b, t, [size, size], _zero(lw, t))
        lw.shapes[out] = [size, size]
        with lw.loop_nest([n], "diag") as (i,):
            lw.store(out, [b.add(i, row0), b.add(i, col0)], lw.load(inst.array, [i]))
        return out
    length = _imax(lw, _imin(lw, b.sub(dims[0], row0), b.sub(dims[1], col0)), zero)
    out = lw.new_array(t, [length])
    with lw.loop_nest([length], "diag") as (i,):
        lw.store(out, [i], lw.load(inst.array, [b.add(i, row0), b.add(i, col0)]))
    return out


def _triangle(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Triangle)
    b = lw.b
    t = inst.type
    assert isinstance(t, ArrayType)
    dims = lw.dims(inst.array)
    out = lw.new_array(t, dims)
    zero = _zero(lw, t)
    with lw.loop_nest(dims, "triangle") as index:
        offset = b.sub(index[-1], index[-2])  # j - i
        keep = b.cmp("ge" if inst.upper else "le", offset, inst.diagonal)
        lw.store(out, index, b.select(keep, lw.load(inst.array, index), zero))
    return out


def _wrap(lw: ArrayLowering, i: Value, n: Value) -> Value:
    """``i`` in ``[-n, n)`` brought into ``[0, n)``."""
    b = lw.b
    return b.select(b.cmp("lt", i, lw.const(0, I64)), b.add(i, n), i)


def _roll(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Roll)
    b = lw.b
    t = inst.type
    assert isinstance(t, ArrayType)
    dims = lw.dims(inst.array)
    out = lw.new_array(t, dims)
    one = lw.const(1, I64)
    n = product(b, dims) if inst.flat else dims[inst.axis]
    period = _imax(lw, n, one)  # a length 0 rolls nothing (and has no elements)
    shift = b.binary(ops.Mod, inst.shift, period)  # Python's mod: in [0, period)
    with lw.loop_nest(dims, "roll") as index:
        if not inst.flat:
            source = list(index)
            source[inst.axis] = _wrap(lw, b.sub(index[inst.axis], shift), period)
        else:
            position = index[0] if dims else lw.const(0, I64)
            for axis in range(1, len(dims)):
                position = b.add(b.mul(position, dims[axis]), index[axis])
            rest = _wrap(lw, b.sub(position, shift), period)
            source = [rest] * len(dims)
            for axis in range(len(dims) - 1, 0, -1):
                quotient = b.binary(ops.FloorDiv, rest, dims[axis])
                source[axis] = b.sub(rest, b.mul(quotient, dims[axis]))
                rest = quotient
            if dims:
                source[0] = rest
        lw.store(out, index, lw.load(inst.array, source))
    return out


ARRAY_LOWERING.set([ops.Diag], ArrayRule(lower=_diag))
ARRAY_LOWERING.set([ops.Triangle], ArrayRule(lower=_triangle))
ARRAY_LOWERING.set([ops.Roll], ArrayRule(lower=_roll))
