"""After the fixpoint: make every implicit conversion an explicit :class:`~ops.Cast`.

Each operation's rule in :data:`MATERIALIZE` converts its operands to the types its
typing rule implies (``add %i, %x : f64`` gets ``cast %i : f64``), renames calls to their
callee's specialisation, and replaces every front-end operation (``getitem``,
``len``, ``allocate`` ...) by the typed operations it stands for. Operations without a
rule need no conversion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from gradc.compiler.infer import elementwise, weak
from gradc.compiler.ir import numpy_math, ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.ops.views import FULL_SLICE, INT_ITEM
from gradc.compiler.ir.promotion import AMBIGUOUS, Origin
from gradc.compiler.ir.types import (
    F64,
    I1,
    I64,
    NONE,
    ArrayType,
    PointerType,
    ScalarType,
    TupleType,
    Type,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Spec

#: A rule: ``(materializer, instruction) -> None``, editing the IR in place.
MaterializeRule = Callable[["Materializer", Instruction], None]

#: The rule of every operation whose operands need conversions, and of every front-end
#: operation (which its rule replaces).
MATERIALIZE: OpTable[MaterializeRule] = OpTable("inference (casts)")

Op = TypeVar("Op", bound=Instruction)


class Materializer:
    """Insert the casts the typing rules imply and rename calls to their callees.

    Args:
        spec: the specialisation to rewrite, after the fixpoint (every type known).
    """

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.b = Builder(spec.function)
        # front-end operations replaced by their expansion: operands are redirected as
        # each instruction is visited and once more at the end (for phis and casts
        # visited before), not by a scan of the function per replacement
        self.replaced: dict[Value, Value] = {}
        #: NEP 50's Python and NumPy scalars, of the function as inference typed it
        self.origins = weak.origins(spec.function)

    def run(self) -> None:
        """Rewrite the whole function."""
        fn = self.spec.function
        for block in list(fn.blocks):
            for inst in list(block.instructions):
                self._redirect(inst)
                rule = MATERIALIZE.get(inst)
                if rule is not None:
                    rule(self, inst)
        if self.replaced:
            for inst in fn.instructions():
                self._redirect(inst)

    def _redirect(self, inst: Instruction) -> None:
        """Operands of ``inst`` that are replaced front-end operations -> their values."""
        replaced = self.replaced
        if not replaced:
            return
        for v in inst.operands():
            if v in replaced:
                new = replaced[v]
                while new in replaced:
                    new = replaced[new]
                inst.replace_operand(v, new)

    def common_type(self, values: list[Value], arrays: int = 0) -> ScalarType:
        """NumPy's common type of ``values`` (the first ``arrays`` arrays), as inference
        decided it (compiler/infer/weak.py); Python's join where its rules apply."""
        common = weak.decide(values, lambda v: self.origins.get(v, Origin.EITHER), arrays)
        if common is None or common == AMBIGUOUS:  # scalars by Python's rules, or the join
            common = numpy_math.joined_type(weak.element_types(values))
        assert isinstance(common, ScalarType), common
        return common

    def coerce(self, value: Value, to: Type, before: Instruction) -> Value:
        """``value`` converted to ``to``, emitted just before ``before``."""
        if value.type == to:
            return value
        self.b.position_before(before)
        with self.b.at(before.loc):
            return self._convert(value, to)

    def _convert(self, value: Value, to: Type) -> Value:
        if isinstance(to, TupleType):
            assert isinstance(value.type, TupleType)
            parts = [
                self._convert(self.b.tuple_get(value, i), t) for i, t in enumerate(to.elements)
            ]
            return self.b.make_tuple(parts)
        return self.b.cast(value, to)

    def address(self, array: Value, indices: tuple[Value, ...]) -> Value:
        """``elemaddr`` of ``array[indices]``, the indices cast to ``i64``."""
        t = array.type
        assert isinstance(t, ArrayType)
        index = tuple(self.b.cast(i, I64) for i in indices)
        return self.b.insert(ops.ElementAddr(array, index, type=PointerType(t.dtype)))


# -- conversions ----------------------------------------------------------------------


@MATERIALIZE.register(
    ops.Add,
    ops.Sub,
    ops.Mul,
    ops.Div,
    ops.FloorDiv,
    ops.Mod,
    ops.Pow,
    ops.Min,
    ops.Max,
    ops.BitAnd,
    ops.BitOr,
    ops.BitXor,
    ops.LShift,
    ops.RShift,
    ops.Neg,
    ops.Abs,
    ops.Invert,
)
def _arith(m: Materializer, inst: Instruction) -> None:
    if elementwise.applies(inst):
        elementwise.materialize(m, inst)
        return
    if isinstance(inst, ops.Pow) and not inst.type.is_float:  # type: ignore[attr-defined]
        inst.numpy = any(m.origins.get(v) is Origin.NUMPY for v in inst.operands())
    for name in inst.OPERANDS:
        setattr(inst, name, m.coerce(getattr(inst, name), inst.type, inst))


@MATERIALIZE.register(ops.Cmp)
def _cmp(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Cmp)
    if elementwise.applies(inst):
        elementwise.materialize(m, inst)
        return
    common = m.common_type([inst.lhs, inst.rhs])
    inst.lhs = m.coerce(inst.lhs, common, inst)
    inst.rhs = m.coerce(inst.rhs, common, inst)


@MATERIALIZE.register(ops.Not)
def _not(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Not)
    inst.operand = m.coerce(inst.operand, I1, inst)


@MATERIALIZE.register(ops.Branch)
def _branch(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Branch)
    inst.cond = m.coerce(inst.cond, I1, inst)


@MATERIALIZE.register(ops.Select)
def _select(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Select)
    inst.cond = m.coerce(inst.cond, I1, inst)
    inst.if_true = m.coerce(inst.if_true, inst.type, inst)
    inst.if_false = m.coerce(inst.if_false, inst.type, inst)


@MATERIALIZE.register(ops.MathCall)
def _math(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.MathCall)
    inst.args = tuple(m.coerce(a, F64, inst) for a in inst.args)


@MATERIALIZE.register(ops.Phi)
def _phi(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Phi)
    incoming = []
    for pred, v in inst.incoming:
        term = pred.terminator
        assert term is not None
        incoming.append((pred, m.coerce(v, inst.type, term)))
    inst.incoming = incoming


@MATERIALIZE.register(ops.Return)
def _return(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Return)
    if inst.value is not None:
        inst.value = m.coerce(inst.value, m.spec.function.return_type, inst)


@MATERIALIZE.register(ops.Call)
def _call(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Call)
    callee = m.spec.calls[inst]
    inst.callee = callee.function.name
    inst.type = callee.function.return_type
    # a no-op for a specialisation (its parameters are the arguments' types); a
    # derivative export takes any-strides arrays (a layout cast)
    inst.args = tuple(
        m.coerce(a, p.type, inst) for a, p in zip(inst.args, callee.function.params, strict=True)
    )


# -- front-end operations: replaced by typed ones -------------------------------------


Expand = Callable[[Materializer, Op], Value | None]


def _front_end(cls: type[Op]) -> Callable[[Expand[Op]], Expand[Op]]:
    """Register an expansion of front-end operation ``cls``: it builds the typed
    operations (before the instruction) and returns the value replacing it, if any."""

    def decorate(expand: Expand[Op]) -> Expand[Op]:
        def rule(m: Materializer, inst: Instruction) -> None:
            assert isinstance(inst, cls)
            m.b.position_before(inst)
            with m.b.at(inst.loc):
                result = expand(m, inst)
            if result is not None:
                m.replaced[inst] = result
                m.origins.setdefault(result, m.origins.get(inst, Origin.EITHER))
            inst.erase()

        MATERIALIZE.set([cls], rule)
        return expand

    return decorate


@_front_end(ops.GetItem)
def _getitem(m: Materializer, inst: ops.GetItem) -> Value | None:
    t = inst.value.type
    if isinstance(t, TupleType):
        (index,) = inst.indices
        if not isinstance(index, ops.Const):  # a loop counter in [0, n): a select chain
            assert inst.in_range
            n = len(t.elements)
            result = m.b.tuple_get(inst.value, n - 1)
            for k in range(n - 2, -1, -1):
                hit = m.b.cmp("eq", index, m.b.const(k, I64))
                result = m.b.select(hit, m.b.tuple_get(inst.value, k), result)
            return result
        return m.b.tuple_get(inst.value, int(index.value) % len(t.elements))
    if any(isinstance(i.type, ArrayType) for i in inst.indices):  # x[idx], a[r, c]: a copy
        from gradc.compiler.infer.views import fancy_read  # it imports this module

        return fancy_read(m, inst)
    if isinstance(inst.type, ArrayType):  # a[i] of a 2-D array: a row view
        t = inst.value.type
        assert isinstance(t, ArrayType)
        n = len(inst.indices)
        items = (INT_ITEM,) * n + (FULL_SLICE,) * (t.ndim - n)
        args = tuple(m.b.cast(i, I64) for i in inst.indices)
        return m.b.insert(ops.SliceView(inst.value, args, items, type=inst.type))
    return m.b.insert(ops.Load(m.address(inst.value, inst.indices), type=inst.type))


@_front_end(ops.SetItem)
def _setitem(m: Materializer, inst: ops.SetItem) -> Value | None:
    array_type = inst.value.type
    assert isinstance(array_type, ArrayType)
    from gradc.compiler.infer import mask_writes  # it imports this module

    if mask_writes.is_mask_write(inst):  # a[mask] = v
        mask_writes.mask_write(m, inst)
        return None
    if mask_writes.is_index_write(inst):  # a[idx] = v
        mask_writes.index_write(m, inst)
        return None
    if len(inst.indices) < array_type.ndim:  # slice assignment
        from gradc.compiler.infer.views import assign_slice  # it imports this module

        assign_slice(m, inst)
        return None
    pointer = m.address(inst.value, inst.indices)
    item = m.b.cast(inst.item, array_type.dtype)
    m.b.insert(ops.Store(pointer, item, type=NONE))
    return None


@_front_end(ops.AtomicAddItem)
def _atomicadditem(m: Materializer, inst: ops.AtomicAddItem) -> Value | None:
    array_type = inst.value.type
    assert isinstance(array_type, ArrayType)
    pointer = m.address(inst.value, inst.indices)
    item = m.b.cast(inst.item, array_type.dtype)
    return m.b.insert(ops.AtomicAdd(pointer, item, type=array_type.dtype))


@_front_end(ops.Len)
def _len(m: Materializer, inst: ops.Len) -> Value | None:
    t = inst.value.type
    if isinstance(t, TupleType):
        return m.b.const(len(t.elements), I64)
    return m.b.insert(ops.ArrayDim(inst.value, 0, type=I64))


@_front_end(ops.ArrayAttr)
def _array_attr(m: Materializer, inst: ops.ArrayAttr) -> Value | None:
    b = m.b
    t = inst.value.type
    assert isinstance(t, ArrayType)
    if inst.attr == "ndim":
        return b.const(t.ndim, I64)
    dims: list[Value] = [b.insert(ops.ArrayDim(inst.value, k, type=I64)) for k in range(t.ndim)]
    if inst.attr == "shape":
        return b.make_tuple(dims)
    size = dims[0]
    for d in dims[1:]:
        size = b.mul(size, d)
    return size


@_front_end(ops.Allocate)
def _allocate(m: Materializer, inst: ops.Allocate) -> Value | None:
    b = m.b
    t = inst.type
    assert isinstance(t, ArrayType)
    dims: list[Value]
    if inst.like is not None:
        dims = [b.insert(ops.ArrayDim(inst.like, k, type=I64)) for k in range(t.ndim)]
    else:
        assert inst.shape is not None
        shape = inst.shape
        if isinstance(shape.type, TupleType):
            dims = [b.cast(b.tuple_get(shape, k), I64) for k in range(t.ndim)]
        else:
            dims = [b.cast(shape, I64)]
    fill: Value | None
    if inst.kind == "full":
        assert inst.fill is not None
        fill = b.cast(inst.fill, t.dtype)
    elif inst.kind in ("zeros", "ones"):
        one = inst.kind == "ones"
        value: int | float | bool = (
            float(one) if t.dtype.is_float else bool(one) if t.dtype.is_bool else int(one)
        )
        fill = b.const(value, t.dtype)
    else:
        fill = None
    return b.insert(ops.NewArray(tuple(dims), fill, type=t))


@_front_end(ops.NumpyCall)
def _numpy(m: Materializer, inst: ops.NumpyCall) -> Value | None:
    if elementwise.applies(inst):
        return elementwise.build(m, inst)
    assert isinstance(inst.type, ScalarType)
    args = list(inst.args)
    return numpy_math.expand(m.b, inst.fn, args, inst.type, m.common_type(args))


@_front_end(ops.InPlace)
def _inplace(m: Materializer, inst: ops.InPlace) -> Value | None:
    return elementwise.inplace_build(m, inst)
