"""Lowering of views (:mod:`gradc.compiler.ir.ops.views`): descriptor arithmetic only.

A view's descriptor is computed from its base's (docs/abi.md "Arrays": data, meminfo,
shape, byte strides); no element is read or copied. After its checks pass, the view takes
a reference on the base's block (``gradc_rt1_incref(meminfo)``, nothing for a borrowed
or stack array whose ``meminfo`` is NULL), so it owns one reference like any array
compiled code makes, and ``lifetimes`` releases it where it dies.

``view`` per index item, on the base's axis ``k`` of length ``n`` and byte stride ``s``:

* integer ``i``: ``j = i < 0 ? i + n : i``; ``j`` outside ``[0, n)`` raises IndexError
  with NumPy's message template (the same as ``elemaddr``'s); ``data += j * s``;
* slice: CPython's ``PySlice_AdjustIndices`` (defaults by the sign of the step, start
  and stop wrapped once and clamped to ``[0, n]`` or ``[-1, n-1]``), a step of 0 raises
  ValueError("slice step cannot be zero"); the length is
  ``(stop - start - 1) // step + 1`` (or ``(start - stop - 1) // -step + 1``) when
  positive, else 0; ``data += start * s`` when the length is not 0; the stride becomes
  ``s * step``;
* new axis: length 1, stride 0 (NumPy's).

``transpose`` permutes shape and strides. ``reshape`` resolves the unknown dimension,
checks the size (NumPy's ValueErrors) and gives C strides (of a C array) or strides built
up from the stride of a 1-D array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.array_alloc import _TOO_BIG, _c_descriptor
from gradc.compiler.codegen.arrays import (
    DATA,
    INDEX_ERROR_TEMPLATE,
    MEMINFO,
    RUNTIME_INCREF,
    SHAPE,
    STRIDES,
    descriptor_type,
    itemsize,
)
from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_views import STEP_ZERO, UNKNOWN_DIMS
from gradc.compiler.ir.ops.indexing import FLAT_INDEX_ERROR
from gradc.compiler.ir.ops.views import INT_ITEM, NEW_ITEM, item_operands
from gradc.compiler.ir.types import ArrayType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_I64 = ll.IntType(64)
_ZERO = ll.Constant(_I64, 0)
_ONE = ll.Constant(_I64, 1)


def _raise_with(
    fl: FunctionLowering, cond: ll.Value, kind: str, template: str, data: Sequence[ll.Value]
) -> None:
    """Raise ``kind`` with message ``template`` over ``data`` (up to three ``i64``) when
    ``cond``; continue in a fresh block. Without data the message is final."""
    fail = fl.llfn.append_basic_block(f"raise.{kind}")
    fl.fill_error(ll.IRBuilder(fail), kind, template, data=list(data) or None)
    target = fl.unwind_to(fail)
    ok = fl.llfn.append_basic_block(fl.continuation())
    fl.b.cbranch(cond, target, ok).set_weights([1, 1 << 20])
    fl.b.position_at_end(ok)


def _descriptor(
    fl: FunctionLowering,
    at: ArrayType,
    data: ll.Value,
    meminfo: ll.Value,
    shape: Sequence[ll.Value],
    strides: Sequence[ll.Value],
) -> ll.Value:
    """A descriptor of type ``at`` from its fields; takes a reference on ``meminfo``."""
    b = fl.b
    fl.b.call(fl.arrays.runtime_function(RUNTIME_INCREF), [meminfo])
    desc: ll.Value = ll.Constant(descriptor_type(at), ll.Undefined)
    desc = b.insert_value(desc, data, DATA)
    desc = b.insert_value(desc, meminfo, MEMINFO)
    for axis, (n, s) in enumerate(zip(shape, strides, strict=True)):
        desc = b.insert_value(desc, n, [SHAPE, axis])
        desc = b.insert_value(desc, s, [STRIDES, axis])
    return desc


def _adjust(b: ll.IRBuilder, x: ll.Value, n: ll.Value, negative: ll.Value) -> ll.Value:
    """A given slice start or stop, as ``PySlice_AdjustIndices``: wrapped once, then
    clamped to ``[0, n]`` (to ``[-1, n - 1]`` for a negative step)."""
    wrapped = b.select(b.icmp_signed("<", x, _ZERO), b.add(x, n), x)
    low = b.select(negative, ll.Constant(_I64, -1), _ZERO)
    high = b.select(negative, b.sub(n, _ONE), n)
    clamped = b.select(b.icmp_signed("<", wrapped, _ZERO), low, wrapped)
    return b.select(b.icmp_signed(">=", wrapped, n), high, clamped)


def _slice(
    fl: FunctionLowering, item: str, given: list[ll.Value], n: ll.Value
) -> tuple[ll.Value, ll.Value, ll.Value]:
    """``(start, length, step)`` of slice item ``item`` (``sXYZ``) on an axis of length n."""
    b = fl.b
    values = iter(given)
    start_v, stop_v, step_v = (next(values) if bit == "1" else None for bit in item[1:])
    if step_v is None:
        step: ll.Value = _ONE
        negative: ll.Value = ll.Constant(ll.IntType(1), 0)
    else:
        _raise_with(fl, b.icmp_signed("==", step_v, _ZERO), "ValueError", STEP_ZERO, [])
        # CPython clamps a step below -PY_SSIZE_T_MAX to it (so that -step exists)
        least = ll.Constant(_I64, -((1 << 63) - 1))
        step = b.select(b.icmp_signed("<", step_v, least), least, step_v)
        negative = b.icmp_signed("<", step, _ZERO)
    minus_one = ll.Constant(_I64, -1)
    start = (
        _adjust(b, start_v, n, negative)
        if start_v is not None
        else b.select(negative, b.sub(n, _ONE), _ZERO)
    )
    stop = (
        _adjust(b, stop_v, n, negative) if stop_v is not None else b.select(negative, minus_one, n)
    )
    # the distance covered and the step, both made positive
    span = b.select(negative, b.sub(start, stop), b.sub(stop, start))
    magnitude = b.select(negative, b.neg(step), step)
    count = b.add(b.sdiv(b.sub(span, _ONE), magnitude), _ONE)
    length = b.select(b.icmp_signed(">", span, _ZERO), count, _ZERO)
    return start, length, step


def _view(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.SliceView)
    at, base = inst.type, inst.array.type
    assert isinstance(at, ArrayType) and isinstance(base, ArrayType)
    b = fl.b
    desc = fl.value(inst.array)
    args = [fl.value(a) for a in inst.args]
    offset: ll.Value = _ZERO
    shape: list[ll.Value] = []
    strides: list[ll.Value] = []
    axis = 0
    for item in inst.items:
        given, args = args[: item_operands(item)], args[item_operands(item) :]
        if item == NEW_ITEM:
            shape.append(_ONE)
            strides.append(_ZERO)
            continue
        n = b.extract_value(desc, [SHAPE, axis])
        s = b.extract_value(desc, [STRIDES, axis])
        if item == INT_ITEM:
            (i,) = given
            j = b.select(b.icmp_signed("<", i, _ZERO), b.add(i, n), i)
            oob = b.icmp_unsigned(">=", j, n)  # unsigned: a still-negative j is huge
            data = [i, ll.Constant(_I64, axis), n]
            _raise_with(fl, oob, "IndexError", INDEX_ERROR_TEMPLATE, data)
            offset = b.add(offset, b.mul(j, s))
        else:
            start, length, step = _slice(fl, item, given, n)
            moved = b.select(b.icmp_signed(">", length, _ZERO), b.mul(start, s), _ZERO)
            offset = b.add(offset, moved)
            shape.append(length)
            strides.append(b.mul(s, step))
        axis += 1
    data_ptr = b.gep(b.extract_value(desc, DATA), [offset])
    return _descriptor(fl, at, data_ptr, b.extract_value(desc, MEMINFO), shape, strides)


def _transpose(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Transpose)
    at = inst.type
    assert isinstance(at, ArrayType)
    b = fl.b
    desc = fl.value(inst.array)
    shape = [b.extract_value(desc, [SHAPE, k]) for k in inst.perm]
    strides = [b.extract_value(desc, [STRIDES, k]) for k in inst.perm]
    data = b.extract_value(desc, DATA)
    return _descriptor(fl, at, data, b.extract_value(desc, MEMINFO), shape, strides)


def _reshape(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.Reshape)
    at, base = inst.type, inst.array.type
    assert isinstance(at, ArrayType) and isinstance(base, ArrayType)
    b = fl.b
    desc = fl.value(inst.array)
    size: ll.Value = _ONE
    for k in range(base.ndim):
        size = b.mul(size, b.extract_value(desc, [SHAPE, k]))
    dims = [fl.value(d) for d in inst.shape]
    unknowns: ll.Value = _ZERO
    known: ll.Value = _ONE
    overflows: list[ll.Value] = []  # a product past int64 never matches: NumPy refuses it
    for d in dims:
        negative = b.icmp_signed("<", d, _ZERO)
        unknowns = b.add(unknowns, b.zext(negative, _I64))
        pair = b.smul_with_overflow(known, b.select(negative, _ONE, d))
        known = b.extract_value(pair, 0)
        overflows.append(b.extract_value(pair, 1))
    _raise_with(fl, b.icmp_signed(">", unknowns, _ONE), "ValueError", UNKNOWN_DIMS, [])
    has_unknown = b.icmp_signed("==", unknowns, _ONE)
    # with an unknown dimension: the known ones must divide the size (and not be 0)
    safe = b.select(b.icmp_signed("==", known, _ZERO), _ONE, known)
    inexact = fl.any_of(
        [b.icmp_signed("==", known, _ZERO), b.icmp_signed("!=", b.srem(size, safe), _ZERO)]
    )
    bad = b.select(has_unknown, inexact, b.icmp_signed("!=", known, size))
    bad = fl.any_of([bad, *overflows])
    dynamic = [fl.value(d) for d in inst.shape if not isinstance(d, ops.Const)]
    _raise_with(fl, bad, "ValueError", inst.message, [size, *dynamic[:2]])
    filled = b.sdiv(size, safe)
    shape = [b.select(b.icmp_signed("<", d, _ZERO), filled, d) for d in dims]
    # NumPy's limit on any array: itemsize times the nonzero sizes must fit in int64
    nbytes: ll.Value = ll.Constant(_I64, itemsize(at.dtype))
    big: list[ll.Value] = []
    for n in shape:
        pair = b.smul_with_overflow(nbytes, b.select(b.icmp_signed("==", n, _ZERO), _ONE, n))
        nbytes = b.extract_value(pair, 0)
        big.append(b.extract_value(pair, 1))
    _raise_with(fl, fl.any_of(big), "ValueError", _TOO_BIG, [])
    data = b.extract_value(desc, DATA)
    meminfo = b.extract_value(desc, MEMINFO)
    if base.layout == "C":
        fl.b.call(fl.arrays.runtime_function(RUNTIME_INCREF), [meminfo])
        return _c_descriptor(fl, at, shape, data, meminfo, size)
    # a 1-D array of any stride: the last axis steps by it, each other by the next's span
    strides: list[ll.Value] = [b.extract_value(desc, [STRIDES, 0])]
    for n in reversed(shape[1:]):
        strides.insert(0, b.mul(strides[0], n))
    return _descriptor(fl, at, data, meminfo, shape, strides)


LOWERING.set([ops.SliceView], _view)
LOWERING.set([ops.Transpose], _transpose)
LOWERING.set([ops.Reshape], _reshape)


def _flatindex(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    """``i < 0 ? i + size : i``, IndexError when still outside ``[0, size)``."""
    assert isinstance(inst, ops.FlatIndex)
    b = fl.b
    i, size = fl.value(inst.index), fl.value(inst.size)
    j = b.select(b.icmp_signed("<", i, _ZERO), b.add(i, size), i)
    _raise_with(fl, b.icmp_unsigned(">=", j, size), "IndexError", FLAT_INDEX_ERROR, [i, size])
    return j


LOWERING.set([ops.FlatIndex], _flatindex)
