"""``lower-arrays`` rule of ``batchmatmul`` (``a @ b`` with an operand of more than 2
axes; compiler/ir/ops/batched.py).

Checks in NumPy's order: the core dimension (``a.shape[-1]`` against ``b``'s ``k``
axis), then the batch axes from the last (equal, or one of them 1). Then one loop nest
over the output (batch axes, ``n``, ``m``): each element is a sum of products over
``k`` in one running sum (in ``int64`` for bools, then ``!= 0``), an operand's batch
axis of size 1 read at 0. No register tiles (the 2-D product's, passes/arrays/
matmul_tiles.py): batched products are usually of small matrices.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.batched import BATCH_MISMATCH
from gradc.compiler.ir.ops.linalg import contract_mismatch
from gradc.compiler.ir.types import I64, ArrayType
from gradc.passes.arrays.linalg_loops import counted_loop
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


def batch_dims(lw: ArrayLowering, lb: list[Value], rb: list[Value]) -> list[Value]:
    """The broadcast batch sizes; NumPy's ValueError where they differ (neither 1)."""
    b = lw.b
    one = lw.const(1, I64)
    out: list[Value] = []
    for axis in range(1, max(len(lb), len(rb)) + 1):
        x = lb[-axis] if axis <= len(lb) else one
        y = rb[-axis] if axis <= len(rb) else one
        differ = b.cmp("ne", x, y)
        neither = b.binary(ops.BitAnd, b.cmp("ne", x, one), b.cmp("ne", y, one))
        with b.if_then(b.binary(ops.BitAnd, differ, neither), "batchmatmul.batch"):
            b.raise_format("ValueError", BATCH_MISMATCH, [x, y, lw.const(-axis, I64)])
        out.insert(0, b.select(b.cmp("eq", x, one), y, x))
    return out


def batch_index(lw: ArrayLowering, sizes: list[Value], index: list[Value]) -> list[Value]:
    """An operand's batch indices (its ``sizes``, aligned at the last of ``index``)."""
    b = lw.b
    zero, one = lw.const(0, I64), lw.const(1, I64)
    tail = index[len(index) - len(sizes) :]
    return [b.select(b.cmp("eq", s, one), zero, i) for s, i in zip(sizes, tail, strict=True)]


def _batch_matmul(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.BatchMatmul)
    b = lw.b
    lhs, rhs = inst.lhs, inst.rhs
    lt, rt, out_t = lhs.type, rhs.type, inst.type
    assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
    assert isinstance(out_t, ArrayType)
    ld, rd = lw.dims(lhs), lw.dims(rhs)
    k = ld[-1]
    k_rhs = rd[0] if rt.ndim == 1 else rd[-2]
    template, _ = contract_mismatch("matmul", 2, 2)
    with b.if_then(b.cmp("ne", k, k_rhs), "batchmatmul.core"):
        b.raise_format("ValueError", template, [k_rhs, k])
    lb, rb = ld[:-2], rd[:-2]
    batch = batch_dims(lw, lb, rb)
    rows = [ld[-2]] if lt.ndim >= 2 else []
    cols = [rd[-1]] if rt.ndim >= 2 else []
    out = lw.new_array(out_t, [*batch, *rows, *cols])
    acc_t = I64 if out_t.dtype.is_bool else out_t.dtype
    zero = lw.const(0.0 if acc_t.is_float else 0, acc_t)
    with lw.loop_nest([*batch, *rows, *cols], "batchmatmul") as index:
        bidx = index[: len(batch)]
        i = [index[len(batch)]] if rows else []
        j = [index[-1]] if cols else []
        lbatch, rbatch = batch_index(lw, lb, bidx), batch_index(lw, rb, bidx)
        with counted_loop(b, lw.const(0, I64), k, [zero], "batchmatmul.k") as p:
            x = b.cast(lw.load(lhs, [*lbatch, *i, p.index]), acc_t)
            y = b.cast(lw.load(rhs, [*rbatch, p.index, *j]), acc_t)
            p.next = [b.add(p.values[0], b.mul(x, y))]
        total = p.values[0]
        if out_t.dtype.is_bool:
            total = b.cmp("ne", total, zero)
        lw.store(out, index, total)
    return out


ARRAY_LOWERING.set([ops.BatchMatmul], ArrayRule(lower=_batch_matmul))
