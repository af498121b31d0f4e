"""The register-tiled loop nest of matrix products (``@``/``np.dot``/``np.matmul`` with a
2-D operand and a numeric result), used by passes/arrays/linalg.py.

``out[i, j] = Σ_p a[i, p] * b[p, j]`` is computed a tile of :data:`ROWS` × :data:`COLS`
outputs at a time: the tile's sums are scalars carried around the ``p`` loop (LLVM's SLP
vectoriser packs a row of :data:`COLS` of them into vector registers; each ``p`` reads
:data:`ROWS` values of ``a`` and :data:`COLS` contiguous values of ``b``), and the
outputs are read and written once per tile, not once per ``p``. For a matrix product the
``p`` axis is cut into blocks of :data:`DEPTH` so that the rows of ``b`` a block reads
stay in cache while every row of ``a`` passes (``out`` accumulates block after block);
rows and columns left over at the edges take one sum each. A 1-D left operand is one
row (``(k,) @ (k, m)``); a 1-D right operand is one column (``(n, k) @ (k,)``, tiles of
:data:`ROWS` × 1). Each sum adds its products in increasing ``p``, in the result dtype.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import I64, ArrayType, ScalarType
from gradc.passes.arrays.linalg_loops import counted_loop, dim, load, new_array, store

#: Rows of ``a`` per tile.
ROWS = 4
#: Columns of ``b`` per tile (8 f64: two AVX2 registers, one AVX-512 register).
COLS = 8
#: Values of ``p`` per block of a matrix-matrix product (64 rows of ``b`` of 500 f64:
#: 256 kB).
DEPTH = 64


class _Product:
    """One matrix product being emitted: its operands, sizes and output."""

    def __init__(self, b: Builder, lhs: Value, rhs: Value, out_t: ArrayType) -> None:
        self.b = b
        self.dtype: ScalarType = out_t.dtype
        lt, rt = lhs.type, rhs.type
        assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
        if rt.ndim == 2 and rt.layout != "C":  # pack b: tile rows must be contiguous
            rhs = b.insert(ops.CopyArray(rhs, type=ArrayType(rt.dtype, 2, "C")))
        self.lhs, self.rhs = lhs, rhs
        self.a_rows = lt.ndim == 2
        self.b_cols = rt.ndim == 2
        self.k = dim(b, lhs, lt.ndim - 1)
        self.n = dim(b, lhs, 0) if self.a_rows else b.const(1, I64)
        self.m = dim(b, rhs, 1) if self.b_cols else b.const(1, I64)
        shape = ([self.n] if self.a_rows else []) + ([self.m] if self.b_cols else [])
        self.out = new_array(b, out_t, shape, self.zero())

    def zero(self) -> Value:
        return self.b.const(0.0 if self.dtype.is_float else 0, self.dtype)

    def a(self, i: Value, p: Value) -> Value:
        return load(self.b, self.lhs, [i, p] if self.a_rows else [p], self.dtype)

    def bv(self, p: Value, j: Value) -> Value:
        return load(self.b, self.rhs, [p, j] if self.b_cols else [p], self.dtype)

    def at(self, i: Value, j: Value) -> list[Value]:
        return ([i] if self.a_rows else []) + ([j] if self.b_cols else [])

    def tile(self, i0: Value, j0: Value, rows: int, cols: int, p0: Value, p1: Value) -> None:
        """``out[i0:i0+rows, j0:j0+cols] += Σ_{p0 <= p < p1} a[i, p] * b[p, j]``."""
        b = self.b
        offsets = [b.const(t, I64) for t in range(max(rows, cols))]
        ii = [b.add(i0, offsets[r]) for r in range(rows)]
        jj = [b.add(j0, offsets[c]) for c in range(cols)]
        sums = [load(b, self.out, self.at(i, j)) for i in ii for j in jj]
        with counted_loop(b, p0, p1, sums, "tile.p") as loop:
            p = loop.index
            av = [self.a(i, p) for i in ii]
            bv = [self.bv(p, j) for j in jj]
            loop.next = [
                b.add(loop.values[r * cols + c], b.mul(av[r], bv[c]))
                for r in range(rows)
                for c in range(cols)
            ]
        for r, i in enumerate(ii):
            for c, j in enumerate(jj):
                store(b, self.out, self.at(i, j), loop.values[r * cols + c])

    def tiles(self, p0: Value, p1: Value) -> None:
        """Every output's sum over ``p0 <= p < p1``: whole tiles, then the edges."""
        b = self.b
        rows = ROWS if self.a_rows else 1
        cols = COLS if self.b_cols else 1
        full_rows = _whole(b, self.n, rows)
        full_cols = _whole(b, self.m, cols)
        zero = b.const(0, I64)
        with counted_loop(b, zero, full_rows, label="tile.i") as it:
            i0 = b.mul(it.index, b.const(rows, I64))
            with counted_loop(b, zero, full_cols, label="tile.j") as jt:
                self.tile(i0, b.mul(jt.index, b.const(cols, I64)), rows, cols, p0, p1)
            first_col = b.mul(full_cols, b.const(cols, I64))
            with counted_loop(b, first_col, self.m, label="edge.j") as je:
                self.tile(i0, je.index, rows, 1, p0, p1)
        first_row = b.mul(full_rows, b.const(rows, I64))
        with (
            counted_loop(b, first_row, self.n, label="edge.i") as ie,
            counted_loop(b, zero, self.m, label="edge.ij") as je,
        ):
            self.tile(ie.index, je.index, 1, 1, p0, p1)


def _whole(b: Builder, n: Value, size: int) -> Value:
    """``n // size`` (``n >= 0``)."""
    return b.binary(ops.FloorDiv, n, b.const(size, I64)) if size > 1 else n


def tiled_product(b: Builder, lhs: Value, rhs: Value, out_t: ArrayType) -> Value:
    """The new array ``lhs @ rhs`` (at least one operand 2-D, a numeric dtype; the inner
    sizes already checked equal)."""
    product = _Product(b, lhs, rhs, out_t)
    if not (product.a_rows and product.b_cols):
        product.tiles(b.const(0, I64), product.k)
        return product.out
    depth = b.const(DEPTH, I64)
    blocks = _whole(b, b.add(product.k, b.const(DEPTH - 1, I64)), DEPTH)
    with counted_loop(b, b.const(0, I64), blocks, label="depth") as block:
        p0 = b.mul(block.index, depth)
        p1 = b.insert(ops.Min(b.add(p0, depth), product.k, type=I64))
        product.tiles(p0, p1)
    return product.out
