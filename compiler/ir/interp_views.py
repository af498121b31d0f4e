"""Interpreter rules of views (:mod:`gradc.compiler.ir.ops.views`): NumPy's own basic
indexing, ``transpose`` and ``reshape`` on the NumPy arrays the interpreter holds, so the
interpreter is an oracle for the code generator's descriptor arithmetic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.interp_values import MESSAGES, RULES, InterpreterError
from gradc.compiler.ir.ops.control import FORMAT_FIELDS
from gradc.compiler.ir.ops.indexing import (
    FLAT_INDEX_ERROR,
    INDEX_ASSIGN_AXIS_ERROR,
    INDEX_ASSIGN_ERROR,
    MASK_ASSIGN_ERROR,
    MASK_ERROR,
)
from gradc.compiler.ir.ops.views import INT_ITEM, NEW_ITEM, item_operands

if TYPE_CHECKING:
    from gradc.compiler.ir.interp import Machine

#: The messages of :class:`ops.Reshape` (NumPy's).
UNKNOWN_DIMS = "can only specify one unknown dimension"
STEP_ZERO = "slice step cannot be zero"


def _index(items: tuple[str, ...], args: list[Any], shape: tuple[int, ...]) -> tuple[Any, ...]:
    """The NumPy index tuple of ``items``; an integer checked as compiled code checks it
    (NumPy's IndexError message, naming the base's axis)."""
    out: list[Any] = []
    pos = 0
    axis = 0
    for item in items:
        n = item_operands(item)
        vals = [int(v) for v in args[pos : pos + n]]
        pos += n
        if item == NEW_ITEM:
            out.append(None)
            continue
        if item == INT_ITEM:
            (i,) = vals
            size = shape[axis]
            if not -size <= i < size:
                raise IndexError(MESSAGES["index_range"].format(i, axis, size))
            out.append(i)
        else:
            given = iter(vals)
            start, stop, step = (next(given) if bit == "1" else None for bit in item[1:])
            if step == 0:
                raise ValueError(STEP_ZERO)
            out.append(slice(start, stop, step))
        axis += 1
    return tuple(out)


@RULES.register(ops.SliceView)
def _view(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.SliceView)
    array: Any = vals[0]
    return array[_index(inst.items, vals[1:], array.shape)]


@RULES.register(ops.Transpose)
def _transpose(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Transpose)
    return vals[0].transpose(inst.perm)  # type: ignore[attr-defined]


@RULES.register(ops.Reshape)
def _reshape(m: Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Reshape)
    array: Any = vals[0]
    if not array.flags.c_contiguous and (array.ndim != 1 or inst.ravel):
        raise InterpreterError("reshape of an array that is not C-contiguous")
    dims = [int(d) for d in vals[1:]]  # type: ignore[call-overload]
    if sum(d < 0 for d in dims) > 1:
        raise ValueError(UNKNOWN_DIMS)
    known = 1
    for d in dims:
        known *= d if d >= 0 else 1
    unknown = any(d < 0 for d in dims)
    if (unknown and (known == 0 or array.size % known)) or (not unknown and known != array.size):
        dynamic = [d for d, v in zip(dims, inst.shape) if not isinstance(v, ops.Const)]
        raise ValueError(inst.message.format(array.size, *dynamic[:2]))
    if unknown:
        dims = [d if d >= 0 else array.size // known for d in dims]
    return array.reshape(dims)  # NumPy's ValueError for a shape too big for int64


@RULES.register(ops.AssignInto)
def _assign_into(m: Machine, inst: Instruction, vals: list[object]) -> object:
    out: Any = vals[0]
    value: Any = vals[1]
    if hasattr(value, "shape"):
        _check_broadcast(value.shape, out.shape)
    out[...] = value  # NumPy copies an operand that overlaps ``out``
    return None


def _check_broadcast(shape: tuple[int, ...], into: tuple[int, ...]) -> None:
    """NumPy's ValueError when ``shape`` does not broadcast to ``into``, with the
    message compiled code gives (passes/arrays/views.py)."""
    for k in range(-1, -len(shape) - 1, -1):
        if shape[k] not in (into[k], 1):
            if len(shape) + len(into) <= FORMAT_FIELDS:
                raise ValueError(
                    f"could not broadcast input array from shape {_text(shape)} into shape "
                    f"{_text(into)}"
                )
            raise ValueError(
                f"could not broadcast input array (size {shape[k]} into size {into[k]} at axis {k})"
            )


def _text(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


@RULES.register(ops.Take)
def _take(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    array: Any = vals[0]
    return np.ascontiguousarray(array[vals[1]])  # NumPy's IndexError and message


@RULES.register(ops.Gather)
def _gather(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    array: Any = vals[0]
    return np.ascontiguousarray(array[tuple(vals[1:])])  # NumPy's IndexError and message


@RULES.register(ops.Compress)
def _compress(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    array: Any = vals[0]
    return np.ascontiguousarray(array[vals[1]])


@RULES.register(ops.MaskAssign)
def _maskassign(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    array: Any = vals[0]
    mask: Any = vals[1]
    if mask.size:  # NumPy reads an empty mask as an empty integer index
        for k, (n, size) in enumerate(zip(array.shape, mask.shape, strict=True)):
            if n != size:
                raise IndexError(MASK_ERROR.format(k, n, size))
    item: Any = vals[2]
    count = int(np.count_nonzero(mask))
    if isinstance(item, np.ndarray) and item.size not in (1, count):
        raise ValueError(MASK_ASSIGN_ERROR.format(item.size, count))
    if count:
        array[mask] = item
    return None


@RULES.register(ops.IndexAssign)
def _indexassign(m: Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    array: Any = vals[0]
    index: Any = vals[1]
    item: Any = vals[2]
    target = index.shape + array.shape[1:]
    if isinstance(item, np.ndarray):
        for axis in range(1, item.ndim + 1):
            got, want = item.shape[-axis], target[-axis]
            if got not in (want, 1):
                if len(target) == 1:
                    raise ValueError(INDEX_ASSIGN_ERROR.format(got, want))
                raise ValueError(INDEX_ASSIGN_AXIS_ERROR.format(got, want, len(target) - axis))
    n = array.shape[0]
    for i in index.reshape(-1).tolist():
        if not -n <= i < n:
            raise IndexError(MESSAGES["index_range"].format(i, 0, n))
    array[index] = item
    return None


@RULES.register(ops.FlatIndex)
def _flatindex(m: Machine, inst: Instruction, vals: list[object]) -> object:
    i, size = (int(v) for v in vals)  # type: ignore[call-overload]
    if not -size <= i < size:
        raise IndexError(FLAT_INDEX_ERROR.format(i, size))
    return i + size if i < 0 else i
