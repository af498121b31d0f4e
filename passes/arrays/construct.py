"""``lower-arrays`` rules of array construction and conversion: ``arange``,
``linspace``, ``eye``, ``arraylit``, ``concat`` and ``astype`` become a ``newarray``
and the loops (or stores) that fill it, computing each element as NumPy does.

Before / after (``%r = arange i64 %a, %b, %s : array[i64,1,C]``)::

    condbr (cmp eq %s, 0), ^raise ZeroDivisionError, ^ok
    %n = max(0, -((a - b) // s))            # ceil((b - a) / s)
    %r = newarray (%n) ; for i < n: r[i] = a + i*s
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.interp_values import MESSAGES
from gradc.compiler.ir.ops.construct import CONCAT_MISMATCH
from gradc.compiler.ir.types import F64, I1, I64, ArrayType
from gradc.passes.arrays.linalg_loops import (
    counted_loop,
    dim,
    load,
    loop_nest,
    new_array,
    store,
)
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


def _result(inst: Instruction) -> ArrayType:
    t = inst.type
    assert isinstance(t, ArrayType)
    return t


def _arange(b: Builder, inst: ops.Arange) -> Value:
    t = _result(inst)
    start, stop, step = inst.start, inst.stop, inst.step
    zero = b.const(0.0 if t.dtype.is_float else 0, t.dtype)
    message = MESSAGES["float_div_zero" if t.dtype.is_float else "int_div_zero"]
    with b.if_then(b.cmp("eq", step, zero), "arange.zero"):
        b.raise_("ZeroDivisionError", message)
    if t.dtype.is_float:  # NumPy: ceil((stop - start) / step) elements start + i*delta
        wide = [b.cast(v, F64) for v in (start, stop, step)]
        quotient = b.binary(ops.FDiv, b.sub(wide[1], wide[0]), wide[2])
        count = b.cast(b.math("ceil", quotient), I64)
        delta = b.sub(b.add(start, step), start)
    else:  # exact: ceil((stop - start) / step) == -((start - stop) // step)
        count = b.unary(ops.Neg, b.binary(ops.FloorDiv, b.sub(start, stop), step))
        count = b.cast(count, I64)
        delta = step
    count = b.insert(ops.Max(count, b.const(0, I64), type=I64))
    out = new_array(b, t, [count], None)
    with counted_loop(b, b.const(0, I64), count, label="arange") as loop:
        i = b.cast(loop.index, t.dtype)
        store(b, out, [loop.index], b.add(start, b.mul(i, delta)))
    return out


def _linspace(b: Builder, inst: ops.Linspace) -> Value:
    """NumPy's ``linspace``: ``i*step + start`` (``i/div*delta + start`` where the
    step underflows to 0, ``i*delta + start`` without a step), the last element
    ``stop`` with the endpoint; computed in f64, then converted."""
    t = _result(inst)
    start, stop, num = inst.start, inst.stop, inst.num
    with b.if_then(b.cmp("lt", num, b.const(0, I64)), "linspace.negative"):
        b.raise_format("ValueError", "Number of samples, {0}, must be non-negative.", [num])
    div = num if inst.no_endpoint else b.sub(num, b.const(1, I64))
    positive = b.cmp("gt", div, b.const(0, I64))
    fdiv = b.select(positive, b.cast(div, F64), b.const(1.0, F64))  # never divides by 0
    delta = b.sub(stop, start)
    step = b.binary(ops.FDiv, delta, fdiv)
    use_step = b.insert(ops.BitAnd(positive, b.cmp("ne", step, b.const(0.0, F64)), type=I1))
    out = new_array(b, t, [num], None)
    with counted_loop(b, b.const(0, I64), num, label="linspace") as loop:
        i = b.cast(loop.index, F64)
        scaled = b.select(
            use_step,
            b.mul(i, step),
            b.select(positive, b.mul(b.binary(ops.FDiv, i, fdiv), delta), b.mul(i, delta)),
        )
        store(b, out, [loop.index], b.add(scaled, start))
    if not inst.no_endpoint:
        last = b.sub(num, b.const(1, I64))
        with b.if_then(b.cmp("gt", num, b.const(1, I64)), "linspace.end"):
            store(b, out, [last], stop)
    return out


def _eye(b: Builder, inst: ops.Eye) -> Value:
    """Zeros, then ``out[i, i + k] = 1`` for ``max(0, -k) <= i < min(rows, cols - k)``."""
    t = _result(inst)
    rows, cols, k = inst.rows, inst.cols, inst.diagonal
    values = (0.0, 1.0) if t.dtype.is_float else (False, True) if t.dtype.is_bool else (0, 1)
    zero, one = (b.const(v, t.dtype) for v in values)
    out = new_array(b, t, [rows, cols], zero)
    first = b.insert(ops.Max(b.unary(ops.Neg, k), b.const(0, I64), type=I64))
    last = b.insert(ops.Min(rows, b.sub(cols, k), type=I64))
    with counted_loop(b, first, last, label="eye") as loop:
        store(b, out, [loop.index, b.add(loop.index, k)], one)
    return out


def _arraylit(b: Builder, inst: ops.ArrayLiteral) -> Value:
    t = _result(inst)
    shape = [b.const(d, I64) for d in inst.shape]
    out = new_array(b, t, shape, None)
    strides = [1] * len(inst.shape)
    for axis in range(len(inst.shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * inst.shape[axis + 1]
    for position, element in enumerate(inst.elements):
        index = [b.const(position // s % n, I64) for s, n in zip(strides, inst.shape, strict=True)]
        store(b, out, index, element)
    return out


def _concat_check(b: Builder, inst: ops.Concatenate) -> None:
    """NumPy's ValueError where an array differs from the first off the joined axis."""
    views = [_joined_shape(b, inst, a) for a in inst.arrays]
    for index, shape in enumerate(views[1:], start=1):
        for k, (n, size) in enumerate(zip(views[0], shape, strict=True)):
            if inst.kind != "stack" and k == inst.axis:
                continue
            with b.if_then(b.cmp("ne", n, size), "concat.mismatch"):
                if inst.kind == "stack":
                    b.raise_("ValueError", "all input arrays must have the same shape")
                else:
                    template = CONCAT_MISMATCH.format(k, "{0}", index, "{1}")
                    b.raise_format("ValueError", template, [n, size])


def _joined_shape(b: Builder, inst: ops.Concatenate, array: Value) -> list[Value]:
    """The shape ``array`` is joined as: its own, ``(1, n)`` for ``vstack``."""
    t = array.type
    assert isinstance(t, ArrayType)
    shape = [dim(b, array, k) for k in range(t.ndim)]
    return [b.const(1, I64), *shape] if inst.kind == "vstack" else shape


def _concat(b: Builder, inst: ops.Concatenate) -> Value:
    """Each array copied into its place: along the joined axis after the ones before it
    (``stack``/``vstack``: at its position on the new axis)."""
    _concat_check(b, inst)
    t = _result(inst)
    axis, new_axis = inst.axis, inst.kind != "concatenate"
    first = inst.arrays[0]
    first_t = first.type
    assert isinstance(first_t, ArrayType)
    shape = [dim(b, first, k) for k in range(first_t.ndim)]
    if new_axis:
        shape.insert(axis, b.const(len(inst.arrays), I64))
    else:
        total = shape[axis]
        for a in inst.arrays[1:]:
            total = b.add(total, dim(b, a, axis))
        shape[axis] = total
    out = new_array(b, t, shape, None)
    offset: Value = b.const(0, I64)
    for position, a in enumerate(inst.arrays):
        extents = [dim(b, a, k) for k in range(first_t.ndim)]
        with loop_nest(b, extents, "concat") as index:
            target = list(index)
            if new_axis:
                target.insert(axis, b.const(position, I64))
            else:
                target[axis] = b.add(target[axis], offset)
            store(b, out, target, load(b, a, index))
        if not new_axis:
            offset = b.add(offset, extents[axis])
    return out


def _astype(b: Builder, inst: ops.AsType) -> Value:
    t = _result(inst)
    a = inst.array
    extents = [dim(b, a, k) for k in range(t.ndim)]
    out = new_array(b, t, extents, None)
    with loop_nest(b, extents, "astype") as index:
        store(b, out, index, load(b, a, index, t.dtype))
    return out


def _rule(build: Callable[[Builder, Any], Value]) -> ArrayRule:
    return ArrayRule(lower=lambda lw, inst: build(lw.b, inst))


ARRAY_LOWERING.set([ops.Arange], _rule(_arange))
ARRAY_LOWERING.set([ops.Linspace], _rule(_linspace))
ARRAY_LOWERING.set([ops.Eye], _rule(_eye))
ARRAY_LOWERING.set([ops.ArrayLiteral], _rule(_arraylit))
ARRAY_LOWERING.set([ops.Concatenate], _rule(_concat))
ARRAY_LOWERING.set([ops.AsType], _rule(_astype))
