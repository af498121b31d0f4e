"""Boolean-mask writes ``a[mask] = v`` and ``a[mask] += v`` (the latter is ``a[mask] =
a[mask] + v``, Python's subscript update): typing and materialisation into
:class:`~gradc.compiler.ir.ops.MaskAssign`; integer-array writes ``a[idx] = v`` and
``a[idx] += v`` (``a[idx] = a[idx] + v``: a repeated index adds once, as NumPy's
buffered update) into :class:`~gradc.compiler.ir.ops.IndexAssign`, ``v`` a scalar or an
array broadcasting to ``idx.shape + a.shape[1:]``, cast and copied alike.

As NumPy: the mask has the array's rank (a smaller one is a compile error, as for reads);
``v`` is a scalar or an array of one axis whose length is the mask's count of true
elements, or 1 (run-time ValueError otherwise, NumPy's message); values are cast as
slice assignment casts them (unsafely, as NumPy's ``__setitem__``: a float into an int
array truncates). An array ``v`` is copied first, so that one sharing memory with ``a`` is read
before anything is written, as NumPy does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.ir import ops
from gradc.compiler.ir.types import (
    NONE,
    ArrayType,
    ScalarType,
    Type,
    UnknownType,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.materialize import Materializer
    from gradc.compiler.infer.specialize import Inference


def is_mask_write(inst: ops.SetItem) -> bool:
    """``inst`` is ``a[mask] = v``: one index, a bool array."""
    if len(inst.indices) != 1:
        return False
    t = inst.indices[0].type
    return isinstance(t, ArrayType) and t.dtype.is_bool


def mask_write_check(inf: Inference, inst: ops.SetItem, t: ArrayType) -> None:
    """Raise the compile error of an unsupported mask write into an array of type ``t``."""
    mask = inst.indices[0].type
    assert isinstance(mask, ArrayType)
    if mask.ndim != t.ndim:
        raise inf.error(
            f"too many indices for array: array is {t.ndim}-dimensional, but {mask.ndim} were "
            "indexed"
            if mask.ndim > t.ndim
            else f"a boolean index of {mask.ndim} axes into a {t.ndim}-D array is not supported "
            "(only a mask of the array's shape)",
            inst,
        )
    item = _item_type(inf, inst, t, "a boolean mask")
    if item is None:
        return
    if isinstance(item, ArrayType) and item.ndim != 1:
        raise inf.error(
            f"cannot assign a {item.ndim}-D array through a boolean mask (a scalar, or a 1-D "
            "array of one value per true element)",
            inst,
        )


def mask_write(m: Materializer, inst: ops.SetItem) -> None:
    """``a[mask] = v`` as a :class:`~ops.MaskAssign` (``v`` cast, or copied to a new array
    of the dtype)."""
    t = inst.value.type
    assert isinstance(t, ArrayType)
    item = inst.item
    if isinstance(item.type, ArrayType):
        item = m.b.insert(ops.AsType(t.dtype.name, item, type=ArrayType(t.dtype, 1, "C")))
    else:
        item = m.b.cast(item, t.dtype)
    m.b.insert(ops.MaskAssign(inst.value, inst.indices[0], item, type=NONE))


def is_index_write(inst: ops.SetItem) -> bool:
    """``inst`` is ``a[idx] = v``: one index, an integer array."""
    if len(inst.indices) != 1:
        return False
    t = inst.indices[0].type
    return isinstance(t, ArrayType) and not t.dtype.is_bool and t.dtype.is_int


def index_write_check(inf: Inference, inst: ops.SetItem, t: ArrayType) -> None:
    """Raise the compile error of an unsupported integer-array write into ``t``."""
    index = inst.indices[0].type
    assert isinstance(index, ArrayType)
    item = _item_type(inf, inst, t, "an integer index")
    if item is None:
        return
    target = index.ndim + t.ndim - 1
    if isinstance(item, ArrayType) and item.ndim > target:
        raise inf.error(
            f"cannot assign a {item.ndim}-D array to the {target}-D indexing result (NumPy's "
            "ValueError: shape mismatch)",
            inst,
        )


def index_write(m: Materializer, inst: ops.SetItem) -> None:
    """``a[idx] = v`` as an :class:`~ops.IndexAssign` (``v`` cast, or copied to a new
    array of the dtype)."""
    t = inst.value.type
    assert isinstance(t, ArrayType)
    item = inst.item
    it = item.type
    if isinstance(it, ArrayType):
        item = m.b.insert(ops.AsType(t.dtype.name, item, type=ArrayType(t.dtype, it.ndim, "C")))
    else:
        item = m.b.cast(item, t.dtype)
    m.b.insert(ops.IndexAssign(inst.value, inst.indices[0], item, type=NONE))


def fancy_write_check(inf: Inference, inst: ops.SetItem, t: ArrayType) -> bool:
    """Whether ``inst`` is ``a[mask] = v`` or ``a[idx] = v`` (then checked: the compile
    error of an unsupported one raised) rather than a basic-index write."""
    if is_mask_write(inst):
        mask_write_check(inf, inst, t)
        return True
    if is_index_write(inst):
        index_write_check(inf, inst, t)
        return True
    return False


def _item_type(inf: Inference, inst: ops.SetItem, t: ArrayType, through: str) -> Type | None:
    """The type of the value ``inst`` writes through ``through`` into an array of type
    ``t`` (None while unknown): a scalar or an array of scalars, any dtype (NumPy's
    ``__setitem__`` casts unsafely; the compile error of anything else raised)."""
    item = inst.item.type
    if isinstance(item, UnknownType):
        return None
    dtype = item.dtype if isinstance(item, ArrayType) else item
    if not isinstance(dtype, ScalarType):
        raise inf.error(
            f"cannot assign a {python_name(item)} through {through} into a {python_name(t)} array",
            inst,
        )
    return item
