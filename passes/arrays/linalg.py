"""``lower-arrays`` rules of linear algebra: ``contract`` (``@``, ``np.dot``, ``np.inner``,
``np.vdot``), ``outer`` and ``trace`` become loop nests of scalar IR.

Before / after (``%y = contract matmul %a, %x : array[f64,1,C]``, ``a`` 2-D, ``x`` 1-D)::

    %k = dim %a, 1 ; %k2 = dim %x, 0 ; condbr (cmp ne %k, %k2), ^raise, ^ok
    %y = newarray (%n) : array[f64,1,C]
    for i < n:  acc = 0.0 ; for p < k: acc += a[i, p] * x[p] ;  y[i] = acc

Why our own loops and not the BLAS NumPy loaded: AD runs after ``lower-arrays`` and
differentiates these loops with the scalar rules (an opaque BLAS call would need
array-level derivative rules, which are later work: docs/ad.md), and the artifact stays
free of a run-time dependency on NumPy's BLAS (docs/arrays_linalg.md). A product with a
matrix on the right is register-tiled (passes/arrays/matmul_tiles.py); every other
output is a sum of products in :data:`LANES` partial sums (:func:`_sum_of_products`);
products with a bool result sum in ``int64``, then ``!= 0``. The order of additions
differs from OpenBLAS's, so float results agree with NumPy's to rounding, integer
results exactly.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.linalg import contract_axes, contract_mismatch
from gradc.compiler.ir.types import I64, ArrayType, ScalarType
from gradc.passes.arrays.linalg_loops import (
    counted_loop,
    dim,
    load,
    loop_nest,
    new_array,
    product,
    store,
)
from gradc.passes.arrays.loops import ArrayLowering
from gradc.passes.arrays.matmul_tiles import tiled_product
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule

#: Partial sums of a sum of products (8 f64: two AVX2 registers).
LANES = 8


def _zero(b: Builder, t: ScalarType) -> Value:
    return b.const(False if t.is_bool else 0.0 if t.is_float else 0, t)


def _acc_type(t: ScalarType) -> ScalarType:
    """The type sums of products are taken in: the dtype, ``i64`` for bools."""
    return I64 if t.is_bool else t


def _dtype(inst: Instruction) -> ScalarType:
    t = inst.type
    return t.dtype if isinstance(t, ArrayType) else t  # type: ignore[return-value]


def _check(b: Builder, inst: ops.Contract) -> None:
    """Raise NumPy's ValueError unless the contracted axes have one length."""
    lhs, rhs = inst.lhs, inst.rhs
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
    if inst.kind == "vdot":
        left = product(b, [dim(b, lhs, k) for k in range(lt.ndim)])
        right = product(b, [dim(b, rhs, k) for k in range(rt.ndim)])
    else:
        la, ra = contract_axes(inst.kind, lt.ndim, rt.ndim)
        left, right = dim(b, lhs, la), dim(b, rhs, ra)
    template, fields = contract_mismatch(inst.kind, lt.ndim, rt.ndim)
    with b.if_then(b.cmp("ne", left, right), "shape.mismatch"):
        operands = (lhs, rhs)
        values = [(left, right)[k] if axis < 0 else dim(b, operands[k], axis) for k, axis in fields]
        b.raise_format("ValueError", template, values)


def _sum_of_products(
    b: Builder, count: Value, left: object, right: object, acc_t: ScalarType
) -> Value:
    """``Σ_p left(p) * right(p)`` for ``p < count`` in ``acc_t`` (``left``/``right``:
    callables from the index to the element): :data:`LANES` partial sums of every
    :data:`LANES`-th product (independent chains, contiguous reads LLVM vectorises),
    the products left over added to the first, then the partial sums added pairwise."""
    lanes = b.const(LANES, I64)
    groups = b.binary(ops.FloorDiv, count, lanes)
    zero = _zero(b, acc_t)
    with counted_loop(b, b.const(0, I64), groups, [zero] * LANES, "dot") as loop:
        base = b.mul(loop.index, lanes)
        loop.next = []
        for t in range(LANES):
            p = b.add(base, b.const(t, I64))
            term = b.mul(left(p), right(p))  # type: ignore[operator]
            loop.next.append(b.add(loop.values[t], term))
    with counted_loop(b, b.mul(groups, lanes), count, [loop.values[0]], "dot.rest") as rest:
        term = b.mul(left(rest.index), right(rest.index))  # type: ignore[operator]
        rest.next = [b.add(rest.values[0], term)]
    sums = [rest.values[0], *loop.values[1:]]
    while len(sums) > 1:
        sums = [b.add(sums[t], sums[t + 1]) for t in range(0, len(sums), 2)]
    return sums[0]


def _contract(b: Builder, inst: ops.Contract) -> Value:
    """The loops of ``inst`` (matmul, dot, inner): sums of products, or row updates for
    products with a matrix on the right."""
    _check(b, inst)
    lhs, rhs, kind = inst.lhs, inst.rhs, inst.kind
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
    dtype = _dtype(inst)
    acc_t = _acc_type(dtype)
    inner = kind == "inner"
    k = dim(b, lhs, lt.ndim - 1)

    def a_at(i: Value | None) -> object:
        return lambda p: load(b, lhs, [p] if i is None else [i, p], acc_t)

    def b_at(j: Value | None) -> object:
        if j is None:
            return lambda p: load(b, rhs, [p], acc_t)
        return lambda p: load(b, rhs, [j, p] if inner else [p, j], acc_t)

    if lt.ndim == 1 and rt.ndim == 1:
        return b.cast(_sum_of_products(b, k, a_at(None), b_at(None), acc_t), dtype)
    if rt.ndim == 2 and not inner and not dtype.is_bool:
        out_t = inst.type
        assert isinstance(out_t, ArrayType)
        return tiled_product(b, lhs, rhs, out_t)
    # one sum of products per output element
    out_t = inst.type
    assert isinstance(out_t, ArrayType)
    rows = [dim(b, lhs, 0)] if lt.ndim == 2 else []
    cols = [dim(b, rhs, 0 if inner else 1)] if rt.ndim == 2 else []
    out = new_array(b, out_t, rows + cols, None)
    with loop_nest(b, rows + cols, "out") as index:
        i = index[0] if rows else None
        j = index[-1] if cols else None
        total = _sum_of_products(b, k, a_at(i), b_at(j), acc_t)
        store(b, out, index, total)
    return out


def _vdot(b: Builder, inst: ops.Contract) -> Value:
    """``Σ lhs.flat[p] * rhs.flat[p]``: loops over ``lhs``, ``rhs`` indexed by the flat
    position (``divmod`` by its row length when it is 2-D)."""
    _check(b, inst)
    lhs, rhs = inst.lhs, inst.rhs
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
    dtype = _dtype(inst)
    acc_t = _acc_type(dtype)
    size = product(b, [dim(b, lhs, a) for a in range(lt.ndim)])
    lcols = dim(b, lhs, 1) if lt.ndim == 2 else None
    rcols = dim(b, rhs, 1) if rt.ndim == 2 else None

    def at(array: Value, cols: Value | None, p: Value) -> Value:
        if cols is None:
            return load(b, array, [p], acc_t)
        row = b.binary(ops.FloorDiv, p, cols)
        return load(b, array, [row, b.sub(p, b.mul(row, cols))], acc_t)

    total = _sum_of_products(
        b, size, lambda p: at(lhs, lcols, p), lambda p: at(rhs, rcols, p), acc_t
    )
    return b.cast(total, dtype)


def _flat_loops(b: Builder, array: Value, label: str) -> object:
    """Loops over every element of ``array`` in C order (its indices)."""
    t = array.type
    assert isinstance(t, ArrayType)
    return loop_nest(b, [dim(b, array, k) for k in range(t.ndim)], label)


def _flat_index(b: Builder, array: Value, index: list[Value]) -> Value:
    """The C-order position of ``array[index]``."""
    position = index[0]
    for k, i in enumerate(index[1:], start=1):
        position = b.add(b.mul(position, dim(b, array, k)), i)
    return position


def _outer(b: Builder, inst: ops.Outer) -> Value:
    lhs, rhs = inst.lhs, inst.rhs
    out_t = inst.type
    assert isinstance(out_t, ArrayType)
    lt, rt = lhs.type, rhs.type
    assert isinstance(lt, ArrayType) and isinstance(rt, ArrayType)
    dtype = out_t.dtype
    acc_t = _acc_type(dtype)
    rows = product(b, [dim(b, lhs, k) for k in range(lt.ndim)])
    cols = product(b, [dim(b, rhs, k) for k in range(rt.ndim)])
    out = new_array(b, out_t, [rows, cols], None)
    with _flat_loops(b, lhs, "outer.row") as li:  # type: ignore[attr-defined]
        i = _flat_index(b, lhs, li)
        a = load(b, lhs, li, acc_t)
        with _flat_loops(b, rhs, "outer.col") as ri:  # type: ignore[attr-defined]
            j = _flat_index(b, rhs, ri)
            store(b, out, [i, j], b.mul(a, load(b, rhs, ri, acc_t)))
    return out


def _trace(b: Builder, inst: ops.Trace) -> Value:
    t = inst.type
    assert isinstance(t, ScalarType)
    a = inst.array
    n = b.insert(ops.Min(dim(b, a, 0), dim(b, a, 1), type=I64))
    with counted_loop(b, b.const(0, I64), n, [_zero(b, t)], "trace") as loop:
        i = loop.index
        loop.next = [b.add(loop.values[0], load(b, a, [i, i], t))]
    return loop.values[0]


def _lower_contract(lw: ArrayLowering, inst: Instruction) -> Value:
    assert isinstance(inst, ops.Contract)
    return _vdot(lw.b, inst) if inst.kind == "vdot" else _contract(lw.b, inst)


def _lower_outer(lw: ArrayLowering, inst: Instruction) -> Value:
    assert isinstance(inst, ops.Outer)
    return _outer(lw.b, inst)


def _lower_trace(lw: ArrayLowering, inst: Instruction) -> Value:
    assert isinstance(inst, ops.Trace)
    return _trace(lw.b, inst)


ARRAY_LOWERING.set([ops.Contract], ArrayRule(lower=_lower_contract))
ARRAY_LOWERING.set([ops.Outer], ArrayRule(lower=_lower_outer))
ARRAY_LOWERING.set([ops.Trace], ArrayRule(lower=_lower_trace))
