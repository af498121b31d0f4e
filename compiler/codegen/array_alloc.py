"""Lowering of array allocation, copies and accumulation (docs/abi.md "Arrays").

``newarray``/``copyarray`` call the runtime for an owned C-contiguous block
(:mod:`.arrays`, "Owned memory"); ``newarray {on_stack}`` takes frame memory; ``copyarray`` and
``arrayacc`` on strided arrays run loop nests over the descriptors' shape and strides.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.arrays import (
    DATA,
    HEADER_BYTES,
    MEMINFO,
    RUNTIME_ALLOC,
    SHAPE,
    STRIDES,
    alignment,
    descriptor_type,
    itemsize,
    memory_type,
)
from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.types import I1, ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_NEGATIVE_DIMENSIONS = "negative dimensions are not allowed"
_TOO_BIG = (
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."
)
_OUT_OF_MEMORY = "out of memory"

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()

#: Largest ``nbytes`` accepted: the block (header + data) must fit in ``int64_t``.
_MAX_NBYTES = (1 << 63) - 1 - HEADER_BYTES


def _allocate(
    fl: FunctionLowering, at: ArrayType, shape: Sequence[ll.Value], *, check_negative: bool
) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
    """A new owned C-contiguous block of ``shape``.

    Returns ``(descriptor, data pointer, nbytes, element count)``. Raises
    ValueError for negative dimensions (when ``check_negative``), MemoryError when
    the size overflows or the runtime returns NULL.
    """
    b = fl.b
    zero = ll.Constant(_I64, 0)
    one = ll.Constant(_I64, 1)
    size = itemsize(at.dtype)
    if check_negative:
        negative = [b.icmp_signed("<", s, zero) for s in shape]
        fl.raise_if(fl.any_of(negative), "ValueError", _NEGATIVE_DIMENSIONS)
    nbytes: ll.Value = ll.Constant(_I64, size)
    count: ll.Value = one
    overflows: list[ll.Value] = []
    for s in shape:  # NumPy's order: itemsize * shape[0] * shape[1] * ...
        pair = b.umul_with_overflow(nbytes, s)
        nbytes = b.extract_value(pair, 0)
        overflows.append(b.extract_value(pair, 1))
        count = b.mul(count, s)
    overflows.append(b.icmp_unsigned(">", nbytes, ll.Constant(_I64, _MAX_NBYTES)))
    fl.raise_if(fl.any_of(overflows), "MemoryError", _TOO_BIG)
    meminfo = b.call(fl.arrays.runtime_function(RUNTIME_ALLOC), [nbytes], name="meminfo")
    is_null = b.icmp_unsigned("==", meminfo, ll.Constant(_I8P, None))
    fl.raise_if(is_null, "MemoryError", _OUT_OF_MEMORY)
    data = b.gep(meminfo, [ll.Constant(_I64, HEADER_BYTES)], inbounds=True, name="data")
    return _c_descriptor(fl, at, shape, data, meminfo, count), data, nbytes, count


def _c_descriptor(
    fl: FunctionLowering,
    at: ArrayType,
    shape: Sequence[ll.Value],
    data: ll.Value,
    meminfo: ll.Value,
    count: ll.Value,
) -> ll.Value:
    """The descriptor of a C-contiguous array of ``shape`` at ``data``."""
    b = fl.b
    zero = ll.Constant(_I64, 0)
    size = itemsize(at.dtype)
    # C order; an empty array has all strides 0, as NumPy 2 gives it
    empty = b.icmp_unsigned("==", count, zero)
    strides: list[ll.Value] = [zero] * at.ndim
    step: ll.Value = ll.Constant(_I64, size)
    for axis in reversed(range(at.ndim)):
        strides[axis] = b.select(empty, zero, step)
        if axis:
            step = b.mul(step, shape[axis])
    desc: ll.Value = ll.Constant(descriptor_type(at), ll.Undefined)
    desc = b.insert_value(desc, data, DATA)
    desc = b.insert_value(desc, meminfo, MEMINFO)
    for axis in range(at.ndim):
        desc = b.insert_value(desc, shape[axis], [SHAPE, axis])
        desc = b.insert_value(desc, strides[axis], [STRIDES, axis])
    return desc


def _stack_allocate(
    fl: FunctionLowering, inst: ops.NewArray, at: ArrayType
) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
    """Frame memory for a ``newarray {on_stack}`` (:func:`frame_array`)."""
    dims = []
    for d in inst.shape:
        if not isinstance(d, ops.Const) or type(d.value) is not int or d.value < 0:
            raise fl.ice(f"on-stack newarray dimension {d!r} is not a non-negative const")
        dims.append(d.value)
    return frame_array(fl, at, dims)


def frame_array(
    fl: FunctionLowering, at: ArrayType, dims: Sequence[int]
) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
    """A C-contiguous array of constant shape ``dims`` in frame memory (an ``alloca`` in
    the prologue, so LLVM sizes the frame statically); ``meminfo`` is NULL: no reference
    count. Returns ``(descriptor, data pointer, nbytes, element count)``."""
    b = fl.b
    count = 1
    for n in dims:
        count *= n
    nbytes = count * itemsize(at.dtype)
    slot = fl.prologue.alloca(ll.ArrayType(_I8, max(nbytes, 1)), name="stack")
    slot.align = HEADER_BYTES
    data = b.bitcast(slot, _I8P, name="data")
    shape = [ll.Constant(_I64, n) for n in dims]
    count_v = ll.Constant(_I64, count)
    desc = _c_descriptor(fl, at, shape, data, ll.Constant(_I8P, None), count_v)
    return desc, data, ll.Constant(_I64, nbytes), count_v


@LOWERING.register(ops.NewArray)
def _newarray(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """A new array (in frame memory with ``on_stack``), filled if ``inst.fill``."""
    assert isinstance(inst, ops.NewArray)
    b = fl.b
    at = fl.arrays.array_type(inst.type)
    if len(inst.shape) != at.ndim:
        raise fl.ice(f"newarray with {len(inst.shape)} sizes for {at}")
    shape = []
    for s in inst.shape:
        if not isinstance(s.type, ScalarType):
            raise fl.ice(f"array size of type {s.type}")
        shape.append(fl.arrays.i64(fl.value(s), s.type))
    if inst.on_stack:
        desc, data, nbytes, count = _stack_allocate(fl, inst, at)
    else:
        desc, data, nbytes, count = _allocate(fl, at, shape, check_negative=True)
    fill = inst.fill
    if fill is None:
        return desc
    if fill.type != at.dtype:
        raise fl.ice(f"newarray of {at} filled with {fill.type}")
    if _is_zero_bits(fill):
        fl.arrays.memset(data, nbytes)
        return desc
    value = fl.value(fill)
    if at.dtype == I1:
        value = b.zext(value, _I8)
    elem = b.bitcast(data, memory_type(at.dtype).as_pointer())
    pre = b.block
    loop = fl.arrays.block("fill.loop")
    done = fl.arrays.block("fill.done")
    b.cbranch(b.icmp_unsigned("==", count, ll.Constant(_I64, 0)), done, loop)
    b.position_at_end(loop)
    i = b.phi(_I64, "fill.i")
    b.store(value, b.gep(elem, [i], inbounds=True), align=alignment(at.dtype))
    nxt = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
    i.add_incoming(ll.Constant(_I64, 0), pre)
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_unsigned("<", nxt, count), loop, done)
    b.position_at_end(done)
    return desc


@LOWERING.register(ops.CopyArray)
def _copyarray(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """A C-ordered owned copy: ``memcpy`` when the source is C-contiguous, else loops.

    Contiguity is decided at run time with NumPy's rule: every axis of length > 1
    has the stride of the C layout (axes of length 1 may have any stride), or the
    array is empty.
    """
    assert isinstance(inst, ops.CopyArray)
    b = fl.b
    src_type = fl.arrays.array_type(inst.array.type)
    at = fl.arrays.array_type(inst.type)
    if (src_type.dtype, src_type.ndim) != (at.dtype, at.ndim):
        raise fl.ice(f"copyarray of {src_type} typed {at}")
    src = fl.value(inst.array)
    shape = [fl.arrays.field(src, SHAPE, k) for k in range(at.ndim)]
    strides = [fl.arrays.field(src, STRIDES, k) for k in range(at.ndim)]
    desc, data, nbytes, count = _allocate(fl, at, shape, check_negative=False)
    src_data = fl.arrays.field(src, DATA)
    one = ll.Constant(_I64, 1)
    contiguous: ll.Value | None = None
    if src_type.layout != "C":
        conds = [b.icmp_unsigned("==", count, ll.Constant(_I64, 0))]
        expected: ll.Value = ll.Constant(_I64, itemsize(at.dtype))
        axis_ok = []
        for k in reversed(range(at.ndim)):
            axis_ok.append(
                b.or_(
                    b.icmp_signed("==", shape[k], one),
                    b.icmp_signed("==", strides[k], expected),
                )
            )
            if k:
                expected = b.mul(expected, shape[k])
        conds.append(fl.all_of(axis_ok))
        contiguous = fl.any_of(conds)
    done = fl.arrays.block("copy.done")
    if contiguous is None:  # statically C-contiguous
        fl.arrays.memcpy(data, src_data, nbytes)
        b.branch(done)
    else:
        fast = fl.arrays.block("copy.memcpy")
        slow = fl.arrays.block("copy.strided")
        b.cbranch(contiguous, fast, slow)
        b.position_at_end(fast)
        fl.arrays.memcpy(data, src_data, nbytes)
        b.branch(done)
        b.position_at_end(slow)
        # not contiguous implies not empty: every axis has length >= 1 (do-while loops)
        dst = b.bitcast(data, memory_type(at.dtype).as_pointer())
        _copy_loops(fl, at.dtype, 0, shape, strides, src_data, ll.Constant(_I64, 0), dst)
        b.branch(done)
    b.position_at_end(done)
    return desc


def _copy_loops(
    fl: FunctionLowering,
    dtype: ScalarType,
    axis: int,
    shape: Sequence[ll.Value],
    strides: Sequence[ll.Value],
    src: ll.Value,
    dst_index: ll.Value,
    dst: ll.Value,
) -> ll.Value:
    """Copy axis ``axis`` onwards from ``src`` (i8*) to ``dst[dst_index...]``.

    Emits one do-while loop per axis (all lengths are >= 1 here), leaves the builder
    after the loop and returns the next destination index.
    """
    b = fl.b
    pre = b.block
    body = fl.arrays.block(f"copy.axis{axis}")
    b.branch(body)
    b.position_at_end(body)
    i = b.phi(_I64, f"copy.i{axis}")
    p = b.phi(_I8P, f"copy.src{axis}")
    d = b.phi(_I64, f"copy.dst{axis}")
    if axis == len(shape) - 1:
        elem_ptr = memory_type(dtype).as_pointer()
        v = b.load(b.bitcast(p, elem_ptr), align=alignment(dtype))
        b.store(v, b.gep(dst, [d], inbounds=True), align=alignment(dtype))
        d_next = b.add(d, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
    else:
        d_next = _copy_loops(fl, dtype, axis + 1, shape, strides, p, d, dst)
    latch = b.block
    i_next = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
    p_next = b.gep(p, [strides[axis]])
    i.add_incoming(ll.Constant(_I64, 0), pre)
    i.add_incoming(i_next, latch)
    p.add_incoming(src, pre)
    p.add_incoming(p_next, latch)
    d.add_incoming(dst_index, pre)
    d.add_incoming(d_next, latch)
    after = fl.arrays.block(f"copy.axis{axis}.done")
    b.cbranch(b.icmp_unsigned("<", i_next, shape[axis]), body, after)
    b.position_at_end(after)
    return d_next


@LOWERING.register(ops.AccumulateArray)
def _accumulate(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """``target += source`` elementwise (same shape, any strides), in C order."""
    assert isinstance(inst, ops.AccumulateArray)
    b = fl.b
    tt = fl.arrays.array_type(inst.target.type)
    st = fl.arrays.array_type(inst.source.type)
    if (tt.dtype, tt.ndim) != (st.dtype, st.ndim) or tt.dtype == I1:
        raise fl.ice(f"arrayacc of {st} into {tt}")
    target, source = fl.value(inst.target), fl.value(inst.source)
    shape = [fl.arrays.field(target, SHAPE, k) for k in range(tt.ndim)]
    operands = [
        (fl.arrays.field(d, DATA), [fl.arrays.field(d, STRIDES, k) for k in range(tt.ndim)])
        for d in (target, source)
    ]
    zero = ll.Constant(_I64, 0)
    empty = fl.any_of([b.icmp_signed("<=", n, zero) for n in shape])
    loops = fl.arrays.block("acc.loops")
    done = fl.arrays.block("acc.done")
    b.cbranch(empty, done, loops)
    b.position_at_end(loops)
    elem = memory_type(tt.dtype).as_pointer()
    align = alignment(tt.dtype)

    def body(pointers: list[ll.Value]) -> None:
        dst, src = (b.bitcast(p, elem) for p in pointers)
        x, y = b.load(dst, align=align), b.load(src, align=align)
        total = b.fadd(x, y, flags=fl.fast) if tt.dtype.is_float else b.add(x, y)
        b.store(total, dst, align=align)

    _strided_loops(fl, "acc", 0, shape, operands, body)
    b.branch(done)
    b.position_at_end(done)
    return None


def _strided_loops(
    fl: FunctionLowering,
    label: str,
    axis: int,
    shape: Sequence[ll.Value],
    operands: Sequence[tuple[ll.Value, Sequence[ll.Value]]],
    body: Callable[[list[ll.Value]], None],
) -> None:
    """A C-order loop nest over ``shape`` from ``axis`` on, advancing one ``i8*`` per
    operand ``(start, byte strides)``; ``body`` gets the current pointers.

    Do-while loops: every length must be >= 1 (the caller tests for empty arrays).
    The builder is left after the nest.
    """
    b = fl.b
    pre = b.block
    loop = fl.arrays.block(f"{label}.axis{axis}")
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(_I64, f"{label}.i{axis}")
    pointers = [b.phi(_I8P, f"{label}.p{axis}") for _ in operands]
    if axis == len(shape) - 1:
        body(list(pointers))
    else:
        inner = [(p, strides) for p, (_, strides) in zip(pointers, operands)]
        _strided_loops(fl, label, axis + 1, shape, inner, body)
    latch = b.block
    i_next = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
    i.add_incoming(ll.Constant(_I64, 0), pre)
    i.add_incoming(i_next, latch)
    for p, (start, strides) in zip(pointers, operands):
        p.add_incoming(start, pre)
        p.add_incoming(b.gep(p, [strides[axis]]), latch)
    after = fl.arrays.block(f"{label}.axis{axis}.done")
    b.cbranch(b.icmp_unsigned("<", i_next, shape[axis]), loop, after)
    b.position_at_end(after)


def _is_zero_bits(v: object) -> bool:
    """True for a constant whose memory representation is all zero bytes (not -0.0)."""
    if not isinstance(v, ops.Const):
        return False
    x = v.value
    if isinstance(x, float):
        return x == 0.0 and math.copysign(1.0, x) > 0.0
    return int(x) == 0
