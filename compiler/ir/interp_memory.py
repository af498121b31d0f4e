"""Interpreter rules of arrays, derived pointers, reference counts and tapes.

Arrays are NumPy arrays; a derived pointer is a :class:`~.interp_values.Pointer`, a
byte offset into one, mapped back to an element by ``load``/``store``; a tape is a
Python list (the interpreter's module docstring).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import (
    MESSAGES,
    NUMPY_DTYPES,
    POISON,
    RULES,
    InterpreterError,
    Pointer,
    scalar_type,
)
from gradc.compiler.ir.types import ArrayType

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine


def _byte_offset(array: Any, indices: Sequence[object], *, check: bool) -> int:
    shape, strides = array.shape, array.strides
    if len(indices) != len(shape):
        raise InterpreterError(f"{len(indices)} index(es) for a {len(shape)}-d array")
    offset = 0
    for axis, (i, size, stride) in enumerate(zip(indices, shape, strides)):
        assert isinstance(i, int)
        j = i + size if i < 0 else i  # wrapped once, checked or not (as compiled)
        if check:
            if not 0 <= j < size:
                raise IndexError(MESSAGES["index_range"].format(i, axis, size))
        offset += j * stride
    return offset


def _element(p: Pointer) -> tuple[int, ...]:
    """The index of the element ``p`` points at (NumPy views do not overlap)."""
    shape, strides = p.array.shape, p.array.strides
    rest = p.offset
    index = [0] * len(shape)
    flipped = [False] * len(shape)
    axes = []
    for k, (n, s) in enumerate(zip(shape, strides)):
        if s < 0:  # count from the other end so that every stride is positive
            rest -= (n - 1) * s
            flipped[k] = True
        if s != 0 and n > 1:
            axes.append(k)
    for k in sorted(axes, key=lambda k: -abs(strides[k])):
        i = min(rest // abs(strides[k]), shape[k] - 1)
        if i > 0:
            index[k] = i
            rest -= i * abs(strides[k])
    if rest != 0 or any(n == 0 for n in shape):
        raise InterpreterError(f"pointer at byte offset {p.offset} is not at an element")
    return tuple(n - 1 - i if f else i for i, n, f in zip(index, shape, flipped))


@RULES.register(ops.ArrayDim)
def _dim(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.ArrayDim)
    return int(vals[0].shape[inst.axis])  # type: ignore[attr-defined]


@RULES.register(ops.ElementAddr)
def _elemaddr(m: Machine, inst: Instruction, vals: list[object]) -> object:
    array, *indices = vals
    return Pointer(array, _byte_offset(array, indices, check=True))


@RULES.register(ops.ElementOffset)
def _elemoffset(m: Machine, inst: Instruction, vals: list[object]) -> object:
    array, *indices = vals
    return _byte_offset(array, indices, check=False)


@RULES.register(ops.ArrayAddress)
def _dataaddr(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return int(vals[0].__array_interface__["data"][0])  # type: ignore[attr-defined]


@RULES.register(ops.Addr)
def _addr(m: Machine, inst: Instruction, vals: list[object]) -> object:
    array, offset = vals
    assert isinstance(offset, int)
    return Pointer(array, offset)


@RULES.register(ops.PointerAdd)
def _ptradd(m: Machine, inst: Instruction, vals: list[object]) -> object:
    p, offset = vals
    assert isinstance(p, Pointer) and isinstance(offset, int)
    return Pointer(p.array, p.offset + offset)


@RULES.register(ops.Poison)
def _poison(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return POISON


@RULES.register(ops.Load)
def _load(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (p,) = vals
    assert isinstance(p, Pointer)
    t = scalar_type(inst)
    x = p.array[_element(p)]
    return bool(x) if t.is_bool else float(x) if t.is_float else int(x)


@RULES.register(ops.Store)
def _store(m: Machine, inst: Instruction, vals: list[object]) -> object:
    p, value = vals
    assert isinstance(p, Pointer)
    p.array[_element(p)] = value
    return None


@RULES.register(ops.NewArray)
def _newarray(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    assert isinstance(inst, ops.NewArray)
    t = inst.type
    if not isinstance(t, ArrayType):
        raise InterpreterError(f"newarray result type {t} is not an array")
    dims = [int(d) for d in vals[: len(inst.shape)]]  # type: ignore[call-overload]
    if any(d < 0 for d in dims):
        raise ValueError(MESSAGES["negative_dims"])
    fill = vals[len(inst.shape)] if inst.fill is not None else 0
    return np.full(tuple(dims), fill, dtype=NUMPY_DTYPES[t.dtype.name], order="C")


@RULES.register(ops.CopyArray)
def _copyarray(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    return np.array(vals[0], order="C", copy=True)


@RULES.register(ops.AccumulateArray)
def _arrayacc(m: Machine, inst: Instruction, vals: list[object]) -> object:
    target, source = vals
    target += source  # type: ignore[operator]
    return None


@RULES.register(ops.IncRef, ops.DecRef)
def _refcount(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return None


@RULES.register(ops.TapeNew)
def _tapenew(m: Machine, inst: Instruction, vals: list[object]) -> object:
    return []


@RULES.register(ops.TapePush)
def _tapepush(m: Machine, inst: Instruction, vals: list[object]) -> object:
    tape, value = vals
    assert isinstance(tape, list)
    tape.append(value)
    return None


@RULES.register(ops.TapePop)
def _tapepop(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (tape,) = vals
    assert isinstance(tape, list)
    if not tape:
        raise InterpreterError("tapepop from an empty tape")
    return tape.pop()


@RULES.register(ops.TapeFree)
def _tapefree(m: Machine, inst: Instruction, vals: list[object]) -> object:
    (tape,) = vals
    assert isinstance(tape, list)
    if tape:
        raise InterpreterError(f"tapefree of a tape holding {len(tape)} value(s)")
    return None


@RULES.register(ops.AtomicAdd)
def _atomicadd(m: Machine, inst: Instruction, vals: list[object]) -> object:
    """One thread at a time: a read, an add (wrapping for ints) and a write."""
    p, value = vals
    assert isinstance(p, Pointer)
    t = scalar_type(inst)
    old = p.array[_element(p)]
    old = float(old) if t.is_float else int(old)
    if t.is_float:
        p.array[_element(p)] = old + value  # type: ignore[operator]
    else:
        half = 1 << (t.bits - 1)
        p.array[_element(p)] = (old + value + half) % (1 << t.bits) - half  # type: ignore[operator]
    return old


@RULES.register(ops.SharedArray)
def _sharedarray(m: Machine, inst: Instruction, vals: list[object]) -> object:
    """The thread's own array (``ops.SharedArray``: no valid sequential run can tell it
    from the block's), NaN-filled floats or zeros: its content is undefined."""
    import numpy as np  # lazily: only array programs need NumPy

    assert isinstance(inst, ops.SharedArray)
    t = inst.type
    if not isinstance(t, ArrayType):
        raise InterpreterError(f"sharedarray result type {t} is not an array")
    fill = math.nan if t.dtype.is_float else 0
    return np.full(inst.shape, fill, dtype=NUMPY_DTYPES[t.dtype.name])


@RULES.register(ops.SyncThreads)
def _syncthreads(m: Machine, inst: Instruction, vals: list[object]) -> object:
    x, y, z = vals
    if x * y * z != 1:  # type: ignore[operator]
        raise RuntimeError(ops.SEQUENTIAL_BARRIER)
    return None
