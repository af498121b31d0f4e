"""Inference of views: types of ``basicindex``, ``transpose`` and ``reshape``, NumPy's
indexing errors at compile time (the rank is static), and their materialisation
(``basicindex`` becomes a typed :class:`ops.SliceView`; dimensions become ``i64``).

Errors NumPy raises from the rank alone are compile errors with NumPy's messages
(``too many indices for array: array is 1-dimensional, but 2 were indexed``, ``an index
can only have a single ellipsis ('...')``, ``repeated axis in transpose``, ``axis 2 is out
of bounds for array of dimension 2``). Refused: a 0-d array result (``a[..., 1]`` of a 1-D
array; gradc has no 0-d arrays), ``ravel`` of an array not known to be C-contiguous and
``reshape`` of one with more than one axis (NumPy copies or not by its run-time strides;
write ``a.copy().reshape``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.infer.materialize import MATERIALIZE, Materializer
from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.ops.views import (
    FLIP_ALL,
    FULL_SLICE,
    INT_ITEM,
    NEW_ITEM,
    reshape_type,
    transpose_type,
    view_type,
)
from gradc.compiler.ir.types import (
    I64,
    NONE,
    ArrayType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec

_ELLIPSIS = "..."
#: ``np.flip(a)`` (compiler/frontend/array_functions.py): ``a[::-1, ::-1, ...]`` over
#: every axis, which the front end cannot spell before the rank is known.
_FLIP_ALL = FLIP_ALL
_REVERSED = "s001"
_BAD_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices"
)


def _expanded(inf: Inference, inst: ops.BasicIndex, t: ArrayType) -> tuple[str, ...]:
    """The items with ``...`` and the missing trailing axes made full slices."""
    items = inst.items
    if items == (_FLIP_ALL,):
        return (_REVERSED,) * t.ndim
    if items.count(_ELLIPSIS) > 1:
        raise inf.error("an index can only have a single ellipsis ('...')", inst)
    used = sum(1 for x in items if x not in (NEW_ITEM, _ELLIPSIS))
    if used > t.ndim:
        raise inf.error(
            f"too many indices for array: array is {t.ndim}-dimensional, but {used} were indexed",
            inst,
        )
    fill = (FULL_SLICE,) * (t.ndim - used)
    if _ELLIPSIS in items:
        k = items.index(_ELLIPSIS)
        return (*items[:k], *fill, *items[k + 1 :])
    return (*items, *fill)


@TRANSFER.register(ops.BasicIndex)
def _basic_index(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.BasicIndex)
    t = inst.value.type
    if isinstance(t, UnknownType) or any(isinstance(a.type, UnknownType) for a in inst.args):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"slicing a value of type {python_name(t)} is not supported", inst)
    for a in inst.args:
        if not (isinstance(a.type, ScalarType) and a.type.is_int and not a.type.is_bool):
            raise inf.error(_BAD_INDEX, inst)
    result = view_type(t, _expanded(inf, inst, t))
    if result is None:
        raise inf.error("this index gives a 0-d array, which gradc does not support", inst)
    return result


@MATERIALIZE.register(ops.BasicIndex)
def _basic_index_view(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.BasicIndex)
    t = inst.value.type
    assert isinstance(t, ArrayType)
    items = inst.items
    if items == (_FLIP_ALL,):
        _flip_all_view(m, inst, t)
        return
    if _ELLIPSIS in items:
        k = items.index(_ELLIPSIS)
        used = sum(1 for x in items if x not in (NEW_ITEM, _ELLIPSIS))
        items = (*items[:k], *(FULL_SLICE,) * (t.ndim - used), *items[k + 1 :])
    else:
        used = sum(1 for x in items if x != NEW_ITEM)
        items = (*items, *(FULL_SLICE,) * (t.ndim - used))
    m.b.position_before(inst)
    with m.b.at(inst.loc):
        args = tuple(m.b.cast(a, I64) for a in inst.args)
        view = m.b.insert(ops.SliceView(inst.value, args, items, type=inst.type))
    m.replaced[inst] = view
    inst.erase()


def _flip_all_view(m: Materializer, inst: ops.BasicIndex, t: ArrayType) -> None:
    """``np.flip(a)``: the view ``a[::-1, ::-1, ...]`` (a step of -1 on every axis)."""
    m.b.position_before(inst)
    with m.b.at(inst.loc):
        steps = tuple(m.b.const(-1, I64) for _ in range(t.ndim))
        view = m.b.insert(ops.SliceView(inst.value, steps, (_REVERSED,) * t.ndim, type=inst.type))
    m.replaced[inst] = view
    inst.erase()


@TRANSFER.register(ops.Transpose)
def _transpose(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Transpose)
    t = inst.array.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no attribute 'T'", inst)
    perm = inst.perm or tuple(range(t.ndim))[::-1]
    if len(perm) != t.ndim:
        raise inf.error("axes don't match array", inst)
    for k in perm:
        if not -t.ndim <= k < t.ndim:
            raise inf.error(f"axis {k} is out of bounds for array of dimension {t.ndim}", inst)
    perm = tuple(k % t.ndim for k in perm)
    if len(set(perm)) != len(perm):
        raise inf.error("repeated axis in transpose", inst)
    inst.perm = perm
    result = transpose_type(t, perm)
    assert result is not None
    return result


@TRANSFER.register(ops.Reshape)
def _reshape(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Reshape)
    t = inst.array.type
    dims = [d.type for d in inst.shape]
    if isinstance(t, UnknownType) or any(isinstance(d, UnknownType) for d in dims):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no method reshape()", inst)
    if reshape_type(t, 1, ravel=inst.ravel) is None:
        raise inf.error(
            f"{'ravel' if inst.ravel else 'reshape'}() of a {python_name(t)}, which is not "
            "known to be C-contiguous, is not supported (NumPy copies it or not by its "
            "strides at run time): reshape a copy, a.copy().reshape(...), or declare the "
            "array C-contiguous (f64[:, ::1])",
            inst,
        )
    rank = 0
    for d in dims:
        parts = d.elements if isinstance(d, TupleType) and len(inst.shape) == 1 else (d,)
        for p in parts:
            if not (isinstance(p, ScalarType) and p.is_int and not p.is_bool):
                raise inf.error(
                    f"'{python_name(p)}' object cannot be interpreted as an integer", inst
                )
        rank += len(parts)
    if rank == 0:
        raise inf.error("reshape() to a 0-d array is not supported", inst)
    result = reshape_type(t, rank, ravel=inst.ravel)
    assert result is not None
    return result


def _message(dims: list[Value]) -> str:
    """NumPy's size-mismatch message for these dimensions (see :class:`ops.Reshape`); a
    negative dimension known only at run time shows as its number, not ``newaxis``."""
    parts: list[str] = []
    dynamic = 0
    for d in dims:
        if isinstance(d, ops.Const):
            parts.append(str(d.value) if int(d.value) >= 0 else "newaxis")
        else:
            dynamic += 1
            parts.append(f"{{{dynamic}}}")
    if dynamic > 2:
        return "cannot reshape array of size {0} into the requested shape"
    shown = ",".join(parts) + ("," if len(parts) == 1 else "")
    return f"cannot reshape array of size {{0}} into shape ({shown})"


@MATERIALIZE.register(ops.Reshape)
def _reshape_dims(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Reshape)
    b = m.b
    b.position_before(inst)
    with b.at(inst.loc):
        dims: list[Value] = []
        for d in inst.shape:
            if isinstance(d.type, TupleType):
                dims.extend(b.cast(b.tuple_get(d, k), I64) for k in range(len(d.type.elements)))
            else:
                dims.append(b.cast(d, I64))
        new = b.insert(
            ops.Reshape(inst.array, tuple(dims), _message(dims), inst.ravel, type=inst.type)
        )
    m.replaced[inst] = new
    inst.erase()


def assign_check(inf: Inference, inst: ops.SetItem, t: ArrayType) -> None:
    """``a[i] = value`` with fewer indices than ``a`` has axes (the target a view, made
    by the front end for slices): the value is a scalar or an array NumPy casts into the
    target (unsafely, as ``__setitem__`` does: a float into an int array truncates, a
    NaN or an infinity raises as ``int()``), with no more axes than the target."""
    item = inst.item.type
    if isinstance(item, UnknownType):
        return
    target_ndim = t.ndim - len(inst.indices)
    dtype = item.dtype if isinstance(item, ArrayType) else item
    if not isinstance(dtype, ScalarType):
        raise inf.error(
            f"cannot assign a {python_name(item)} to a slice of a {python_name(t)} array",
            inst,
        )
    if isinstance(item, ArrayType) and item.ndim > target_ndim:
        raise inf.error(
            f"cannot assign a {item.ndim}-D array to a {target_ndim}-D slice (NumPy's "
            "ValueError: could not broadcast input array)",
            inst,
        )


def assign_slice(m: Materializer, inst: ops.SetItem) -> None:
    """``a[indices] = item`` into the view ``a[indices]`` (:class:`ops.AssignInto`); an
    in-place update whose item is that same view already wrote it (``w[i] *= s``)."""
    t = inst.value.type
    assert isinstance(t, ArrayType)
    b = m.b
    n = len(inst.indices)
    args = tuple(b.cast(i, I64) for i in inst.indices)
    items = (INT_ITEM,) * n + (FULL_SLICE,) * (t.ndim - n)
    item = inst.item
    if (
        isinstance(item, ops.SliceView)
        and item.array is inst.value
        and item.items == items
        and item.args == args
    ):
        return  # ``current op= rhs`` was written into this view by ``elementwise_into``
    view = inst.value
    if n:
        view_t = view_type(t, items)
        assert view_t is not None  # inference typed the target (a row of a[i] = ...)
        view = b.insert(ops.SliceView(inst.value, args, items, type=view_t))
    value = item if isinstance(item.type, ArrayType) else b.cast(item, t.dtype)
    b.insert(ops.AssignInto(view, value, type=NONE))


def fancy_type(inf: Inference, inst: ops.GetItem, t: ArrayType) -> Type | None:
    """``x[idx]`` (an integer array: ``idx.shape + x.shape[1:]``) or ``x[mask]`` (a bool
    array of ``x``'s rank: 1-D); C-contiguous copies of ``x``'s dtype."""
    if len(inst.indices) > 1:
        return _gather_type(inf, inst, t)
    (index,) = inst.indices
    i = index.type
    assert isinstance(i, ArrayType)
    if i.dtype.is_bool:
        if i.ndim != t.ndim:
            raise inf.error(
                f"too many indices for array: array is {t.ndim}-dimensional, but {i.ndim} "
                "were indexed"
                if i.ndim > t.ndim
                else f"a boolean index of {i.ndim} axes into a {t.ndim}-D array is not "
                "supported (only a mask of the array's shape)",
                inst,
            )
        return ArrayType(t.dtype, 1, "C")
    if not i.dtype.is_int:
        raise inf.error(
            "arrays used as indices must be of integer (or boolean) type", inst
        )  # NumPy's IndexError message
    return ArrayType(t.dtype, i.ndim + t.ndim - 1, "C")


def _gather_type(inf: Inference, inst: ops.GetItem, t: ArrayType) -> Type | None:
    """``a[rows, cols]``: one integer index (scalar or array) per axis; a C copy of the
    index arrays' broadcast rank."""
    if len(inst.indices) > t.ndim:
        raise inf.error(
            f"too many indices for array: array is {t.ndim}-dimensional, but "
            f"{len(inst.indices)} were indexed",
            inst,
        )
    ranks = []
    for index in inst.indices:
        i = index.type
        if isinstance(i, UnknownType):
            return None
        dtype = i.dtype if isinstance(i, ArrayType) else i
        if not (isinstance(dtype, ScalarType) and dtype.is_int and not dtype.is_bool):
            raise inf.error(
                "indexing with several indices, an array among them, needs integer indices "
                f"(a[rows, cols]), got {python_name(i)}",
                inst,
            )
        if isinstance(i, ArrayType):
            ranks.append(i.ndim)
    if len(inst.indices) != t.ndim:
        raise inf.error(
            f"a[rows, cols] of a {t.ndim}-D array needs {t.ndim} indices, got "
            f"{len(inst.indices)} (slices among integer-array indices are not supported)",
            inst,
        )
    return ArrayType(t.dtype, max(ranks), "C")


def fancy_read(m: Materializer, inst: ops.GetItem) -> Value:
    """:class:`ops.Take` or :class:`ops.Compress` for ``x[idx]``/``x[mask]``,
    :class:`ops.Gather` for ``a[rows, cols]``."""
    if len(inst.indices) > 1:
        return m.b.insert(ops.Gather(inst.value, inst.indices, type=inst.type))
    (index,) = inst.indices
    i = index.type
    assert isinstance(i, ArrayType)
    if i.dtype.is_bool:
        return m.b.insert(ops.Compress(inst.value, index, type=inst.type))
    return m.b.insert(ops.Take(inst.value, index, type=inst.type))


@TRANSFER.register(ops.FlatGet)
def _flat_get(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.FlatGet)
    t, i = inst.value.type, inst.index.type
    if isinstance(t, UnknownType) or isinstance(i, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no attribute 'flat'", inst)
    if not (isinstance(i, ScalarType) and i.is_int and not i.is_bool):
        raise inf.error("a.flat can be indexed only by one integer here", inst)
    return t.dtype


@MATERIALIZE.register(ops.FlatGet)
def _flat_load(m: Materializer, inst: Instruction) -> None:
    """``a.flat[i]``: the position checked against the size, unravelled in C order."""
    assert isinstance(inst, ops.FlatGet)
    t = inst.value.type
    assert isinstance(t, ArrayType)
    b = m.b
    b.position_before(inst)
    with b.at(inst.loc):
        dims = [b.insert(ops.ArrayDim(inst.value, k, type=I64)) for k in range(t.ndim)]
        size: Value = dims[0]
        for d in dims[1:]:
            size = b.mul(size, d)
        rest: Value = b.insert(ops.FlatIndex(b.cast(inst.index, I64), size, type=I64))
        index: list[Value] = []
        for d in reversed(dims[1:]):  # positive sizes: the size is not 0 past the check
            index.insert(0, b.insert(ops.Mod(rest, d, type=I64)))
            rest = b.insert(ops.FloorDiv(rest, d, type=I64))
        index.insert(0, rest)
        load = b.insert(ops.Load(m.address(inst.value, tuple(index)), type=t.dtype))
    m.replaced[inst] = load
    inst.erase()
