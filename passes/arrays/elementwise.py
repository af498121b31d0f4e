"""``lower-arrays`` rules of the elementwise operations, with fusion.

``elementwise fn(args)`` becomes: the broadcast shape (checked), a new C array, one loop
nest storing ``fn`` of the operands' elements (:func:`gradc.compiler.ir.ufuncs.expand_element`).
A producer ``elementwise`` whose one use is another such operation (or any rule that
``fuses``) of the same rank is not materialised: its shape is checked where it was, and
its consumer computes its elements in its own loops (``read``), so that a chain
``a*x + b*np.exp(-x*x)`` is one loop nest allocating only its result.

``elementwise_into fn %out, (args)`` (``out += ...``) writes ``out`` in one loop nest
when every array it reads is ``out`` itself or an array made in this function after
nothing else could alias it; otherwise it computes a temporary first and copies it
(NumPy's rule for operands that may overlap the output).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gradc.compiler.ir import ops, ufuncs
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import ArrayType, ScalarType
from gradc.passes.analysis.pointers import array_roots
from gradc.passes.arrays.loops import ArrayLowering, Reader
from gradc.passes.arrays.table import ARRAY_LOWERING, ArrayRule


@dataclass
class _Apply:
    """A fused ``elementwise``: its ufunc of its operands' elements."""

    lw: ArrayLowering
    fn: str
    operands: list[Reader]
    result: ScalarType

    def at(self, index: Sequence[Value]) -> Value:
        elements = [r.at(index) for r in self.operands]
        return ufuncs.expand_element(self.lw.b, self.fn, elements, self.result)


def _dtype(inst: Instruction) -> ScalarType:
    t = inst.type
    assert isinstance(t, ArrayType)
    return t.dtype


def _prepare(lw: ArrayLowering, inst: Instruction) -> None:
    assert isinstance(inst, ops.Elementwise)
    lw.shapes[inst] = lw.broadcast(inst.args)


def _read(lw: ArrayLowering, inst: Instruction, out_dims: Sequence[Value]) -> Reader:
    assert isinstance(inst, ops.Elementwise)
    readers = [lw.operand(a, out_dims) for a in inst.args]
    return _Apply(lw, inst.fn, readers, _dtype(inst))


def _lower(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.Elementwise)
    dims = lw.broadcast(inst.args)
    out = lw.new_array(inst.type, dims)
    value = _Apply(lw, inst.fn, [lw.operand(a, dims) for a in inst.args], _dtype(inst))
    lw.for_each(dims, lambda index: lw.store(out, index, value.at(index)), "ew")
    return out


def _leaves(lw: ArrayLowering, values: Sequence[Value]) -> list[Value]:
    """The arrays a (fused) computation of ``values`` reads from memory."""
    out: list[Value] = []
    for v in values:
        if not isinstance(v.type, ArrayType):
            continue
        if v in lw.fused:
            assert isinstance(v, ops.Elementwise)
            out += _leaves(lw, v.args)
        else:
            out.append(v)
    return out


#: Operations whose result is a new array no other value aliases.
_FRESH = (ops.Elementwise, ops.NewArray, ops.CopyArray)


def _lower_into(lw: ArrayLowering, inst: Instruction) -> Value | None:
    assert isinstance(inst, ops.ElementwiseInto)
    out = inst.out
    out_type = out.type
    assert isinstance(out_type, ArrayType)
    dims = lw.broadcast(inst.args, out=out)
    # a fresh array is safe unless ``out`` is a view of it (``r = z[::-1]; r += z``)
    roots = array_roots(out)
    safe = all(
        v is out or (isinstance(v, _FRESH) and v not in roots) for v in _leaves(lw, inst.args)
    )
    result = ufuncs.result_type(inst.fn, [_element(a) for a in inst.args])
    assert isinstance(result, ScalarType)
    value: Reader = _Apply(lw, inst.fn, [lw.operand(a, dims) for a in inst.args], result)
    if not safe:  # compute a temporary first: an operand may overlap the output
        temp = lw.new_array(ArrayType(result, out_type.ndim, "C"), dims)
        read = value
        lw.for_each(dims, lambda index: lw.store(temp, index, read.at(index)), "ew.temp")
        lw.moves = []
        value = lw.operand(temp, dims)
    final = value
    lw.for_each(dims, lambda index: lw.store(out, index, final.at(index)), "ew.into")
    return None


def _element(v: Value) -> ScalarType:
    t = v.type
    if isinstance(t, ArrayType):
        return t.dtype
    assert isinstance(t, ScalarType)
    return t


def _fusible(inst: Instruction) -> bool:
    assert isinstance(inst, ops.Elementwise)
    return not (ufuncs.UFUNCS[inst.fn].may_raise and not _dtype(inst).is_float)


ARRAY_LOWERING.set(
    [ops.Elementwise],
    ArrayRule(lower=_lower, read=_read, fuses=True, prepare=_prepare, fusible=_fusible),
)
ARRAY_LOWERING.set([ops.ElementwiseInto], ArrayRule(lower=_lower_into, fuses=True))
