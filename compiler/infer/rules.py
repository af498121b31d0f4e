"""Transfer rules of type inference: an operation's type from its operands' types.

The typing rules are Python's, restricted to static types (the package docstring);
:data:`TRANSFER` holds one rule per operation the front end emits. A rule returns the
instruction's new type, or None when it keeps its type (not known yet, or fixed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc.compiler.infer import bool_kinds, elementwise, weak
from gradc.compiler.infer.bool_kinds import ambiguous_bools_message
from gradc.compiler.ir import numpy_math, ops
from gradc.compiler.ir.core import Argument, Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.ops.views import FULL_SLICE, INT_ITEM, view_type
from gradc.compiler.ir.types import (
    F64,
    I1,
    I64,
    NONE,
    SCALARS,
    UNKNOWN,
    ArrayType,
    NoneType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    join,
    python_name,
)

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec

#: A transfer rule: ``(inference, specialisation, instruction) -> new type or None``.
TransferRule = Callable[["Inference", "Spec", Instruction], "Type | None"]

#: The transfer rule of every operation the front end emits.
TRANSFER: OpTable[TransferRule] = OpTable("inference")


def has_unknown(t: Type) -> bool:
    """True when ``t`` is ``UNKNOWN`` or a tuple with an ``UNKNOWN`` part, at any depth
    (a tuple built from a call whose callee's return type is not inferred yet)."""
    if isinstance(t, TupleType):
        return any(has_unknown(e) for e in t.elements)
    return isinstance(t, UnknownType)


def _with_arrays(rule: TransferRule) -> TransferRule:
    """``rule``, except that an operation with an array operand (or a NumPy function
    only arrays have) is whole-array arithmetic (compiler/infer/elementwise.py)."""

    def wrapped(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
        if any(isinstance(v.type, UnknownType) for v in inst.operands()):
            return None  # an array operand would make it whole-array arithmetic
        bool_kinds.check_positive(spec.function, inst, inf.error)
        if elementwise.applies(inst):
            t = elementwise.transfer(
                inst, lambda vs, n: weak.array_common_type(spec.function, vs, n)
            )
            if isinstance(t, str):
                raise inf.error(t, inst)
            return t
        return rule(inf, spec, inst)

    return wrapped


def _scalar_operands(inf: Inference, inst: Instruction, symbol: str) -> list[ScalarType] | None:
    types = [v.type for v in inst.operands()]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    if not all(isinstance(t, ScalarType) for t in types):
        shown = " and ".join(f"'{python_name(t)}'" for t in types)
        raise inf.error(f"unsupported operand type(s) for {symbol}: {shown}", inst)
    return types  # type: ignore[return-value]


def _widened(inst: Instruction, j: ScalarType) -> Type:
    """Python's arithmetic result: the join, any integer widened to ``i64``."""
    return I64 if j.is_int else j


def _joined(inst: Instruction, j: ScalarType) -> Type:
    """``min``/``max``: the join itself (``min(True, False)`` is a bool)."""
    return j


def _true_division(inst: Instruction, j: ScalarType) -> Type:
    """``/``: ``f64`` for ints. Python's ``int / int`` has its own ZeroDivisionError
    message; the operands are converted to floats afterwards, so the division records
    what its source was (``kind``)."""
    assert isinstance(inst, ops.Div)
    inst.kind = ops.DivKind.INT if j.is_int else ops.DivKind.FLOAT
    return F64 if j.is_int else j


def _arith(symbol: str, result: Callable[[Instruction, ScalarType], Type]) -> TransferRule:
    """The rule of arithmetic written ``symbol`` in Python (``"+"``, ``"abs()"``): the
    join of the scalar operands, made the result type by ``result``."""

    def rule(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
        types = _scalar_operands(inf, inst, symbol)
        if types is None:
            return None
        if _ambiguous_bools(symbol, types, inst):
            raise inf.error(ambiguous_bools_message(symbol), inst)
        common = None if result is _joined else weak.numpy_scalars(spec.function, inst, inf.error)
        if common is not None:  # NEP 50's promotion, no widening to Python's int
            return _true_division(inst, common) if isinstance(inst, ops.Div) else common
        j = types[0]
        for t in types[1:]:
            j = join(j, t)  # type: ignore[assignment]
        return result(inst, j)

    return rule


#: Arithmetic whose value on bools differs between CPython (ints) and NumPy's bool
#: scalars (``np.True_ + np.True_`` is ``True``, ``*`` is ``and``, ``-`` a TypeError,
#: ``abs()`` a bool): refused when every operand is a bool scalar, not all of them
#: parameters or constants (:func:`_ambiguous_bools`), as ``~`` is, since gradc's types do
#: not say which kind of bool a value is (fuzz: ``x ** (t + t)`` with ``t = a.min() <=
#: np.all(b)``, seed 102085; ``e // ~abs(np.all(a))``, seed 820530). ``/ // % **`` give
#: equal values (NumPy's int8 of ``//``, ``%``, ``**`` is the same number).
_BOOL_AMBIGUOUS = frozenset({"+", "-", "*", "unary -", "abs()"})


def _ambiguous_bools(symbol: str, types: list[ScalarType], inst: Instruction) -> bool:
    """``symbol`` of bool scalars one of which may be NumPy's: not only parameters and
    constants (Python's bools: ``a + b`` of ``bool`` parameters is CPython's int)."""
    if symbol not in _BOOL_AMBIGUOUS or not all(t.is_bool for t in types):
        return False
    if getattr(inst, "numpy", False):  # np.add(b, c) of any bools: NumPy's, never Python's
        return True
    return not all(isinstance(v, Argument | ops.Const) for v in inst.operands())


def _class_name(t: Type) -> str:
    """The name of the Python class of a value of type ``t`` (``float`` for ``f64``), as
    CPython's TypeError messages show it; ``python_name`` for arrays and tuples."""
    if isinstance(t, ScalarType):
        return "float" if t.is_float else "bool" if t.is_bool else "int"
    return python_name(t)


def _bitwise(symbol: str) -> TransferRule:
    """The rule of ``&``, ``|``, ``^``, ``<<``, ``>>`` (``symbol``): ints or bools, never
    floats (CPython's TypeError, at compile time); a bool for ``&``, ``|``, ``^`` of two
    bools, else an ``i64`` (``True & 3`` and ``True << 1`` are ints)."""

    def rule(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
        types = _scalar_operands(inf, inst, symbol)
        if types is None:
            return None
        if any(t.is_float for t in types):
            shown = " and ".join(f"'{_class_name(t)}'" for t in types)
            raise inf.error(f"unsupported operand type(s) for {symbol}: {shown}", inst)
        if isinstance(inst, ops.BinaryOp) and inst.ON_BOOL and all(t.is_bool for t in types):
            return I1
        return I64

    return rule


@TRANSFER.register(ops.Invert)
@_with_arrays
def _invert(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    """``~x`` of an int; CPython's TypeError for a float or a tuple.

    ``~`` of a bool scalar is refused: CPython gives an int (``~True`` is -2, deprecated
    since 3.12) while NumPy's bool (``~np.all(a)``, ``~mask[i]``) gives the logical not,
    and gradc's types do not say which kind of bool a value is (a silently wrong number
    either way; the fuzzer found ``a[1:] + ~np.all(a, axis=0)``)."""
    assert isinstance(inst, ops.Invert)
    t = inst.operand.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ScalarType) or t.is_float:
        raise inf.error(f"bad operand type for unary ~: '{_class_name(t)}'", inst)
    if t.is_bool:
        raise inf.error(
            "~ of a bool is ambiguous: Python's bool gives an int (~True is -2), NumPy's "
            "bool (from np.all, np.any or a bool array's element) gives its logical not: "
            "write 'not b' for the logical not, or '~int(b)' for Python's int",
            inst,
        )
    return I64


@TRANSFER.register(ops.Cmp)
@_with_arrays
def _cmp(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    types = _scalar_operands(inf, inst, "comparison")
    if types is not None:  # np.float32(0.1) == 0.1 compares float32s: decidable?
        weak.numpy_scalars(spec.function, inst, inf.error)
    return I1


def _truth_operand(inf: Inference, value: Value, inst: Instruction) -> None:
    t = value.type
    if not isinstance(t, ScalarType | UnknownType):
        raise inf.error(f"a value of type {python_name(t)} has no truth value here", inst)


@TRANSFER.register(ops.Not)
def _not(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Not)
    _truth_operand(inf, inst.operand, inst)
    return I1


@TRANSFER.register(ops.Select)
def _select(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Select)
    a, b = inst.if_true.type, inst.if_false.type
    j = join(a, b)
    if j is None:
        raise inf.unify_error(inst, a, b)
    return None if isinstance(j, UnknownType) else j


@TRANSFER.register(ops.Phi)
def _phi(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Phi)
    result: Type = UNKNOWN
    for _, v in inst.incoming:
        j = join(result, v.type)
        if j is None:
            raise inf.unify_error(inst, result, v.type)
        result = j
    return None if isinstance(result, UnknownType) else result


@TRANSFER.register(ops.MathCall)
def _math(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.MathCall)
    _scalar_operands(inf, inst, f"math.{inst.fn}()")
    return I1 if ops.MATH_FUNCTIONS[inst.fn].returns_bool else F64


@TRANSFER.register(ops.NumpyCall)
@_with_arrays
def _numpy(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.NumpyCall)
    types = _scalar_operands(inf, inst, f"np.{inst.fn}()")
    if types is None:
        return None
    common = weak.common_type(spec.function, inst.operands())
    if isinstance(common, str):
        raise inf.error(f"np.{inst.fn}(): {common}", inst)
    result = numpy_math.result_type(inst.fn, types, common or numpy_math.joined_type(types))
    if isinstance(result, str):
        raise inf.error(result, inst)
    return result


@TRANSFER.register(ops.InPlace)
def _inplace(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.InPlace)
    t = elementwise.inplace_transfer(inst)
    if isinstance(t, str):
        raise inf.error(t, inst)
    return t


@TRANSFER.register(ops.Cast)
def _cast(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Cast)
    t = inst.value.type
    if not isinstance(t, ScalarType | UnknownType):
        raise inf.error(f"cannot convert a value of type {python_name(t)} to a number", inst)
    return None


@TRANSFER.register(ops.MakeTuple)
def _make_tuple(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.MakeTuple)
    types = [e.type for e in inst.elements]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    for t in types:
        if isinstance(t, NoneType):
            raise inf.error("a tuple cannot hold None", inst)
    return TupleType(tuple(types))


@TRANSFER.register(ops.TupleGet)
def _tuple_get(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.TupleGet)
    t = inst.tuple.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, TupleType):
        raise inf.error(f"cannot unpack or subscript a value of type {python_name(t)}", inst)
    if not -len(t.elements) <= inst.index < len(t.elements):
        raise inf.error(f"tuple index {inst.index} out of range for {python_name(t)}", inst)
    if inst.index < 0:
        inst.index += len(t.elements)
    return t.elements[inst.index]


@TRANSFER.register(ops.Branch)
def _branch(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Branch)
    _truth_operand(inf, inst.cond, inst)
    return None


# -- arrays ---------------------------------------------------------------------------


def _index_types(inf: Inference, inst: Instruction, indices: tuple[Value, ...]) -> bool:
    """True when every index is typed; raises unless each is an integer."""
    for index in indices:
        t = index.type
        if isinstance(t, UnknownType):
            return False
        if isinstance(t, ArrayType) and len(indices) > 1:
            raise inf.error(
                "assigning with an integer array among several indices (a[rows, cols] = v) "
                "is not supported: assign in a loop "
                "(for k in range(n): a[rows[k], cols[k]] = v[k])",
                inst,
            )
        if not (isinstance(t, ScalarType) and t.is_int and not t.is_bool):
            raise inf.error(f"array indices must be integers, not {python_name(t)}", inst)
    return True


def _check_rank(inf: Inference, inst: Instruction, t: ArrayType, n: int) -> None:
    if n > t.ndim:
        raise inf.error(
            f"too many indices for array: array is {t.ndim}-dimensional, but {n} were indexed",
            inst,
        )
    if n != t.ndim:
        raise inf.error(
            f"a {t.ndim}-D array needs {t.ndim} index{'es' * (t.ndim != 1)}, got {n} "
            "(assigning to a row or a slice is not supported yet)",
            inst,
        )


@TRANSFER.register(ops.GetItem)
def _getitem(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.GetItem)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if isinstance(t, TupleType):
        (index,) = inst.indices if len(inst.indices) == 1 else (None,)
        if inst.in_range and index is not None and _one_scalar_type(t):
            return t.elements[0]  # a for loop's counter over the tuple (materialize)
        if not isinstance(index, ops.Const) or isinstance(index.value, bool | float):
            raise inf.error(
                "a tuple can be indexed only by a constant integer (iterating over a tuple "
                "is supported only when its elements are scalars of one type, got "
                f"{python_name(t)})"
                if inst.in_range
                else "a tuple can be indexed only by a constant integer",
                inst,
            )
        n = len(t.elements)
        if not -n <= int(index.value) < n:
            raise inf.error(f"tuple index {index.value} out of range for {python_name(t)}", inst)
        return t.elements[int(index.value)]
    if isinstance(t, ArrayType):
        from gradc.compiler.infer.views import fancy_type  # it imports this module

        if any(isinstance(i.type, ArrayType) for i in inst.indices):
            return fancy_type(inf, inst, t)  # x[idx], x[mask], a[rows, cols]: a copy
        if len(inst.indices) < t.ndim:  # a[i] of a 2-D array: a row view (infer/views.py)
            _index_types(inf, inst, inst.indices)
            n = len(inst.indices)
            return view_type(t, (INT_ITEM,) * n + (FULL_SLICE,) * (t.ndim - n))
        _check_rank(inf, inst, t, len(inst.indices))
        _index_types(inf, inst, inst.indices)
        return t.dtype
    raise inf.error(f"cannot unpack or subscript a value of type {python_name(t)}", inst)


def _one_scalar_type(t: TupleType) -> bool:
    """The elements of ``t`` are scalars of one type (a loop may read them by index)."""
    return bool(t.elements) and all(
        isinstance(e, ScalarType) and e == t.elements[0] for e in t.elements
    )


@TRANSFER.register(ops.SetItem)
def _setitem(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.SetItem)
    t, item = inst.value.type, inst.item.type
    if isinstance(t, UnknownType):
        return NONE
    if not isinstance(t, ArrayType):
        raise inf.error(f"cannot assign to an element of a value of type {python_name(t)}", inst)
    from gradc.compiler.infer import mask_writes  # it imports this module

    if mask_writes.fancy_write_check(inf, inst, t):  # a[mask] = v, a[idx] = v
        return NONE
    if len(inst.indices) < t.ndim:  # a[i] = row, a[1:] = b: slice assignment
        from gradc.compiler.infer.views import assign_check  # it imports this module

        _index_types(inf, inst, inst.indices)
        assign_check(inf, inst, t)
        return NONE
    _check_rank(inf, inst, t, len(inst.indices))
    _index_types(inf, inst, inst.indices)
    if not isinstance(item, UnknownType) and not _stores_into(item, t.dtype):
        raise inf.error(
            f"cannot store a {python_name(item)} into a {python_name(t)} array element",
            inst,
        )
    return NONE


@TRANSFER.register(ops.AtomicAddItem)
def _atomicadditem(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    """``cuda.atomic_add(a, i, v)``: the old element, of ``a``'s dtype (not ``bool``)."""
    assert isinstance(inst, ops.AtomicAddItem)
    t, item = inst.value.type, inst.item.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType) or t.dtype == I1:
        raise inf.error(f"cuda.atomic_add() adds into a number array, not a {python_name(t)}", inst)
    _check_rank(inf, inst, t, len(inst.indices))
    _index_types(inf, inst, inst.indices)
    if not isinstance(item, UnknownType) and not _stores_into(item, t.dtype):
        raise inf.error(
            f"cuda.atomic_add() cannot add a {python_name(item)} to a {python_name(t)} "
            "array element (convert it explicitly, e.g. with int())",
            inst,
        )
    return t.dtype


@TRANSFER.register(ops.SyncThreads)
def _syncthreads(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    return NONE


@TRANSFER.register(ops.SharedArray)
def _sharedarray(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    """The front end types ``cuda.shared_array()`` from its constant arguments."""
    return inst.type


def _stores_into(item: Type, dtype: ScalarType) -> bool:
    """Any scalar: NumPy's ``a[i] = v`` casts unsafely (a float into an int array
    truncates, as ``int(v)``: a NaN or an infinity raises as it does; any into a bool
    array is ``v != 0``)."""
    return isinstance(item, ScalarType)


@TRANSFER.register(ops.Len)
def _len(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Len)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if isinstance(t, ArrayType | TupleType):
        return I64
    raise inf.error(f"object of type {python_name(t)} has no len()", inst)


@TRANSFER.register(ops.ArrayAttr)
def _array_attr(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.ArrayAttr)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no attribute '{inst.attr}'", inst)
    if inst.attr == "shape":
        return TupleType((I64,) * t.ndim)
    return I64


@TRANSFER.register(ops.Allocate)
def _allocate(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Allocate)
    if inst.like is not None:
        like = inst.like.type
        if isinstance(like, UnknownType):
            return None
        if not isinstance(like, ArrayType):
            raise inf.error(f"expected an array, got {python_name(like)}", inst)
        ndim, dtype = like.ndim, like.dtype
    else:
        assert inst.shape is not None
        shape = inst.shape.type
        if has_unknown(shape):  # ``(2, h(n))`` before h's return type is known
            return None
        dims = shape.elements if isinstance(shape, TupleType) else (shape,)
        if not dims or not all(
            isinstance(d, ScalarType) and d.is_int and not d.is_bool for d in dims
        ):
            raise inf.error(
                f"an array shape must be an int or a tuple of ints, not {python_name(shape)}",
                inst,
            )
        ndim, dtype = len(dims), F64
    fill = inst.fill.type if inst.fill is not None else None
    if inst.dtype:
        dtype = SCALARS[inst.dtype]
    elif inst.kind == "full" and inst.like is None:
        if fill is None or isinstance(fill, UnknownType):
            return None
        if isinstance(fill, ScalarType):  # np.full(3, 7) is an int64 array
            dtype = I64 if fill.is_int and not fill.is_bool else fill
    # np.full/np.full_like copy the fill value with casting='unsafe' (np.full(3, 1,
    # dtype=bool), np.full_like(ints, 2.5)): any number converts, as by .astype
    if fill is not None and not isinstance(fill, UnknownType | ScalarType):
        raise inf.error(
            f"cannot fill a {python_name(dtype)} array with a {python_name(fill)}", inst
        )
    return ArrayType(dtype, ndim, "C")


@TRANSFER.register(ops.CopyArray)
def _copy_array(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.CopyArray)
    t = inst.array.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no method copy()", inst)
    return ArrayType(t.dtype, t.ndim, "C")


@TRANSFER.register(ops.Store, ops.IncRef, ops.DecRef)
def _no_result(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    return NONE


@TRANSFER.register(ops.RaiseFormat)
def _raise_format(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.RaiseFormat)
    for v in inst.values:
        t = v.type
        if isinstance(t, UnknownType) or (isinstance(t, ScalarType) and (t.is_int or t == F64)):
            continue
        raise inf.error(
            "a field of an f-string raise message must be an int, a bool or a float (f64), "
            f"not {python_name(t)}",
            inst,
        )
    return None  # a terminator


@TRANSFER.register(ops.Const, ops.Jump, ops.Return, ops.Raise)
def _keep(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    return None  # constants and terminators keep their type


@TRANSFER.register(ops.Call)
def _call(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Call)
    callee = inf.callee(spec, inst)
    return callee.return_type if callee is not None else None


for _cls, _symbol, _result in (
    (ops.Add, "+", _widened),
    (ops.Sub, "-", _widened),
    (ops.Mul, "*", _widened),
    (ops.Div, "/", _true_division),
    (ops.FloorDiv, "//", _widened),
    (ops.Mod, "%", _widened),
    (ops.Pow, "**", _widened),
    (ops.Min, "min()", _joined),
    (ops.Max, "max()", _joined),
    (ops.Neg, "unary -", _widened),
    (ops.Abs, "abs()", _widened),
):
    _rule = _arith(_symbol, _result)
    TRANSFER.set([_cls], _rule if _cls in (ops.Min, ops.Max) else _with_arrays(_rule))

for _bit_op, _bit_symbol in (
    (ops.BitAnd, "&"),
    (ops.BitOr, "|"),
    (ops.BitXor, "^"),
    (ops.LShift, "<<"),
    (ops.RShift, ">>"),
):
    TRANSFER.set([_bit_op], _with_arrays(_bitwise(_bit_symbol)))
