"""``lower-arrays`` rule of slice assignment, ``assign_into %out, %value`` (``a[1:] = b``,
``a[2:5] = 0.0``, ``A[i] = row``; compiler/ir/ops/views.py).

The value must broadcast to ``out``'s shape: each of its axes (aligned at the last) has
``out``'s size or 1, else NumPy's ValueError "could not broadcast input array from shape
(4,) into shape (3,)" (when the two shapes have at most three sizes in all, the most an
error record carries; otherwise "could not broadcast input array (size 4 into size 3 at
axis -1)"). Then one loop nest over ``out`` stores the value's elements (a fused
elementwise producer computed in it: ``a[1:] = 2 * b`` allocates nothing).

Overlap: when an array the value reads may share memory with ``out`` (anything but a
scalar or an array made in this function that ``out`` is not a view of), the value is
first computed into a temporary, as NumPy copies an overlapping operand, so that
``a[1:] = a[:-1]`` shifts the elements instead of smearing the first.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I64, ArrayType, ScalarType
from gradc.passes.analysis.pointers import array_roots
from gradc.passes.arrays.loops import ArrayLowering, Reader
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule

#: Operations whose result is a new array (no other value aliases it at its definition).
_FRESH = (ops.Elementwise, ops.NewArray, ops.CopyArray)


def _leaves(lw: ArrayLowering, v: Value) -> list[Value]:
    """The arrays computing ``v`` reads from memory (through fused producers)."""
    if not isinstance(v.type, ArrayType):
        return []
    if v in lw.fused:
        assert isinstance(v, ops.Elementwise)
        return [x for a in v.args for x in _leaves(lw, a)]
    return [v]


def may_overlap(lw: ArrayLowering, value: Value, out: Value) -> bool:
    """May computing ``value`` read memory that ``out`` names? (Only a fresh array that
    ``out`` is not a view of is known not to.)"""
    roots = array_roots(out)
    return any(not isinstance(x, _FRESH) or x in roots for x in _leaves(lw, value))


def _check_shape(lw: ArrayLowering, value: Value, out_dims: list[Value]) -> None:
    """NumPy's ValueError unless ``value``'s shape broadcasts to ``out_dims``."""
    b = lw.b
    dims = lw.dims(value)
    one = lw.const(1, I64)
    full = len(dims) + len(out_dims) <= ops.FORMAT_FIELDS
    for k in range(-1, -len(dims) - 1, -1):
        d, o = dims[k], out_dims[k]
        if d is o:
            continue
        bad = b.binary(ops.BitAnd, b.cmp("ne", d, o), b.cmp("ne", d, one))
        if full:
            fields = [*dims, *out_dims]
            template = (
                f"could not broadcast input array from shape {_shape(0, len(dims))} into "
                f"shape {_shape(len(dims), len(out_dims))}"
            )
        else:
            fields = [d, o]
            template = f"could not broadcast input array (size {{0}} into size {{1}} at axis {k})"
        with b.if_then(bad, "assign.error"):
            b.raise_format("ValueError", template, fields)


def _shape(first: int, rank: int) -> str:
    parts = [f"{{{first + k}}}" for k in range(rank)]
    return "(" + ",".join(parts) + ("," if rank == 1 else "") + ")"


def _lower(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.AssignInto)
    out, value = inst.out, inst.value
    out_dims = lw.dims(out)
    if isinstance(value.type, ArrayType):
        _check_shape(lw, value, out_dims)
    reader: Reader = lw.operand(value, out_dims)
    if may_overlap(lw, value, out):  # NumPy copies an operand that overlaps the output
        t = value.type
        dtype = t.dtype if isinstance(t, ArrayType) else t
        assert isinstance(dtype, ScalarType)
        temp = lw.new_array(ArrayType(dtype, len(out_dims), "C"), out_dims)
        with lw.loop_nest(out_dims, "assign.temp") as index:
            lw.store(temp, index, reader.at(index))
        reader = lw.operand(temp, out_dims)
    with lw.loop_nest(out_dims, "assign") as index:
        lw.store(out, index, reader.at(index))
    return None


ARRAY_LOWERING.set([ops.AssignInto], ArrayRule(lower=_lower, fuses=True))
