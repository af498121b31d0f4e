"""Type inference and specialisation: untyped IR from the front end → typed IR.

Every function is inferred once per tuple of argument types (a *specialisation*, as in
Numba). Exports are specialised at their declared signature and keep their Python name;
other specialisations are named ``<name>.<type>.<type>`` from their argument types — by
content, never by a counter. A function of an imported user module is named by its
qualified name (``helpers.f.f64``, ``pkg.sub.g.i64``), so that functions of the same name
in two files never clash. Only functions the exports reach are lowered and inferred.

Inference is a monotone fixpoint over the type lattice of
:func:`gradc.compiler.ir.types.join` (``UNKNOWN`` at the bottom): each instruction's type
is computed from its operands' types by the rules below, phis join their incoming types,
calls take their callee's current return type. Recursive specialisations start with an
``UNKNOWN`` return type and are re-inferred until no return type changes. Afterwards
:func:`_materialize` makes every implicit conversion an explicit :class:`~ops.Cast`, so
lowering sees operands of exactly the types each operation requires.

Typing rules (Python's, restricted to static types; Numba's for small ints):

* ``+ - * // % **`` and unary ``-``/``abs``: the join of the operands, with any integer
  (``bool``, ``i32``) widened to ``i64``; ``/`` of integers gives ``f64``.
* ``min``/``max``/conditional expressions/phis: the join.
* comparisons: operands converted to their join; result ``bool``.
* conditions (``if``, ``while``, ``and``/``or`` tests, ``not``): truth value (``!= 0``).
* ``math`` functions take ``f64`` and return ``f64`` (``isnan``… return ``bool``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.annotations import TypeSyntaxError, type_from_annotation
from gradc.compiler.frontend.imports import FunctionRef
from gradc.compiler.frontend.lower import LoweredFunction, UnpackCheck, lower_function
from gradc.compiler.frontend.module_scan import ModuleInfo
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Function, Instruction, Module, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    F64,
    I1,
    I64,
    NONE,
    SCALARS,
    UNKNOWN,
    ArrayType,
    NoneType,
    PointerType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    join,
    python_name,
)

SpecKey = tuple[str, tuple[Type, ...]]


@dataclass
class _Spec:
    """One specialisation of a source function."""

    key: SpecKey
    lowered: LoweredFunction
    declared_result: Type | None
    return_type: Type = UNKNOWN
    calls: dict[ops.Call, _Spec] = field(default_factory=dict)

    @property
    def function(self) -> Function:
        return self.lowered.function


def symbol_for(name: str, arg_types: tuple[Type, ...]) -> str:
    """The IR name of a non-exported specialisation: ``name.f64.i64`` (``name.void``)."""
    parts = [
        python_name(t).replace("[", "_").replace("]", "_").replace(",", "_") for t in arg_types
    ]
    return ".".join([name, *parts]) if parts else f"{name}.void"


def infer_module(info: ModuleInfo) -> Module:
    """Type every export of ``info`` and everything it calls.

    Returns:
        a typed module holding the exports (``exported=True``, named by their Python
        names) and every specialisation they reach.

    Raises:
        CompileError: a type error, an unsupported construct, or a type that cannot be
            inferred, at the user's source line.
    """
    return _Inference(info).run()


class _Inference:
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.src = info.source
        self.specs: dict[SpecKey, _Spec] = {}
        self.symbols: dict[SpecKey, str] = {}
        #: callee name in ``call`` instructions -> its source function (any module)
        self.functions: dict[str, FunctionRef] = {}
        #: IR symbol -> the specialisation that owns it (names must not clash)
        self.owners: dict[str, SpecKey] = {}
        self.changed = False

    def run(self) -> Module:
        for export in self.info.exports:
            key = (export.name, tuple(export.param_types))
            if key in self.symbols:
                continue
            self.symbols[key] = export.name
            self.functions[export.name] = FunctionRef(self.info, export.name)
            spec = self._specialize(key, export.result_type)
            spec.function.exported = True
        self.changed = True
        while self.changed:
            self.changed = False
            for spec in list(self.specs.values()):
                self._infer(spec)
        module = Module(self.info.name, source_file=self.src.path)
        for spec in reversed(self.specs.values()):  # callees before callers
            self._finish(spec)
        for spec in self.specs.values():
            _Materializer(self, spec).run()
            module.add(spec.function)
        return module

    # -- specialisations ------------------------------------------------------------

    def _specialize(self, key: SpecKey, declared: Type | None) -> _Spec:
        name, arg_types = key
        symbol = self.symbols.setdefault(key, symbol_for(name, arg_types))
        ref = self.functions[name]
        node = ref.node
        owner = self.owners.setdefault(symbol, key)
        if owner != key:
            raise self.error(
                f"two functions would have the same IR name '{symbol}' ('{owner[0]}' and "
                f"'{name}' with these argument types); rename one of them",
                ref.module.source.loc(node),
            )
        lowered = lower_function(ref.module, node, symbol, list(arg_types))
        self.functions.update(lowered.callees)
        if (
            declared is None
            and node.returns is not None
            and not (ref.module is self.info and name in {e.name for e in self.info.exports})
        ):
            declared = self._helper_annotation(node.returns)
        spec = _Spec(key, lowered, declared)
        self.specs[key] = spec
        self.changed = True
        return spec

    def _helper_annotation(self, node: ast.expr) -> Type | None:
        try:
            return type_from_annotation(node)
        except TypeSyntaxError:
            return None  # helpers' annotations are optional hints

    def _callee(self, caller: _Spec, call: ops.Call) -> _Spec | None:
        arg_types = tuple(a.type for a in call.args)
        if any(_has_unknown(t) for t in arg_types):
            return None
        for t in arg_types:
            if not isinstance(t, ScalarType | TupleType | ArrayType):
                raise self.error(f"cannot pass a value of type {python_name(t)}", call)
        key = (call.callee, arg_types)
        spec = self.specs.get(key)
        if spec is None:
            spec = self._specialize(key, None)
        caller.calls[call] = spec
        return spec

    # -- the fixpoint -------------------------------------------------------------------

    def _infer(self, spec: _Spec) -> None:
        fn = spec.function
        local_change = True
        while local_change:
            local_change = False
            for inst in fn.instructions():
                new = self._transfer(spec, inst)
                if new is None or new == inst.type:
                    continue
                merged = join(inst.type, new)
                if merged is None:
                    raise self._unify_error(inst, inst.type, new)
                if merged != inst.type:
                    inst.type = merged
                    local_change = True
        returned = _returned_type(self, spec)
        if returned != spec.return_type:
            spec.return_type = returned
            self.changed = True

    def _transfer(self, spec: _Spec, inst: Instruction) -> Type | None:
        rule = _RULES.get(type(inst))
        if rule is not None:
            return rule(self, inst)
        if isinstance(inst, ops.Call):
            callee = self._callee(spec, inst)
            return callee.return_type if callee is not None else None
        return None  # terminators, constants and casts keep their type

    # -- errors ---------------------------------------------------------------------------

    def error(self, message: str, where: Instruction | Loc) -> CompileError:
        """An error at ``where``, with the source line of whichever file it lies in."""
        loc = where if isinstance(where, Loc) else where.loc
        return self.info.error(message, loc)

    def _unify_error(self, inst: Instruction, a: Type, b: Type) -> CompileError:
        what = f" for variable '{inst.name}'" if inst.name else ""
        return self.error(f"cannot unify types {python_name(a)} and {python_name(b)}{what}", inst)

    # -- after the fixpoint ---------------------------------------------------------------

    def _finish(self, spec: _Spec) -> None:
        fn = spec.function
        for inst in fn.instructions():
            if isinstance(inst.type, UnknownType) and not inst.IS_TERMINATOR:
                if isinstance(inst, ops.Call):
                    raise self.error(
                        f"cannot infer the return type of '{inst.callee}': it never "
                        "returns a value (recursion without a base case?)",
                        inst,
                    )
                raise self.error("cannot infer the type of this expression", inst)
        for check in spec.lowered.unpacks:
            _check_unpack(self, check)
        for int_check in spec.lowered.int_checks:
            t = int_check.value.type
            if not (isinstance(t, ScalarType) and t.is_int):
                raise self.error(
                    f"{int_check.what} must be an integer, not {python_name(t)}", int_check.loc
                )
        result = spec.return_type
        if isinstance(result, UnknownType):
            result = NONE  # every path raises
        declared = spec.declared_result
        if declared is not None:
            never_returns = isinstance(spec.return_type, UnknownType)
            if isinstance(declared, NoneType):
                ok = isinstance(result, NoneType)
            else:
                ok = never_returns or _converts_to(result, declared)
            if not ok:
                culprit: Instruction | Loc = fn.loc
                for inst in fn.instructions():
                    if isinstance(inst, ops.Return):
                        t = inst.value.type if inst.value is not None else NONE
                        if t != declared and not _converts_to(t, declared):
                            culprit = inst
                            break
                raise self.error(
                    f"return type mismatch: '{fn.source_name}' is declared to return "
                    f"{python_name(declared)} but returns {python_name(result)}",
                    culprit,
                )
            result = _refine(result, declared)
        fn.return_type = result


def _has_unknown(t: Type) -> bool:
    """True when ``t`` is ``UNKNOWN`` or a tuple with an ``UNKNOWN`` part, at any depth
    (a tuple built from a call whose callee's return type is not inferred yet)."""
    if isinstance(t, TupleType):
        return any(_has_unknown(e) for e in t.elements)
    return isinstance(t, UnknownType)


def _returned_type(inf: _Inference, spec: _Spec) -> Type:
    result: Type = UNKNOWN
    for inst in spec.function.instructions():
        if not isinstance(inst, ops.Return):
            continue
        t = inst.value.type if inst.value is not None else NONE
        merged = join(result, t)
        if merged is None:
            if isinstance(result, NoneType) or isinstance(t, NoneType):
                raise inf.error(
                    f"function '{spec.function.source_name}' returns a value on some "
                    "paths and None on others",
                    inst,
                )
            raise inf.error(
                f"cannot unify return types {python_name(result)} and {python_name(t)}",
                inst,
            )
        result = merged
    return result


def _refine(actual: Type, declared: Type) -> Type:
    """The result type: ``declared``, but keeping an array's more precise layout."""
    if isinstance(actual, ArrayType) and isinstance(declared, ArrayType):
        return actual
    if isinstance(actual, TupleType) and isinstance(declared, TupleType):
        return TupleType(
            tuple(_refine(a, d) for a, d in zip(actual.elements, declared.elements, strict=True))
        )
    if isinstance(actual, UnknownType | NoneType):
        return declared
    return declared


def _converts_to(actual: Type, declared: Type) -> bool:
    """May a value of type ``actual`` be returned where ``declared`` is promised?"""
    if actual == declared:
        return True
    if isinstance(actual, ArrayType) and isinstance(declared, ArrayType):
        return (actual.dtype, actual.ndim) == (declared.dtype, declared.ndim) and (
            declared.layout in ("A", actual.layout)
        )
    if isinstance(actual, ScalarType) and isinstance(declared, ScalarType):
        return declared.is_float or (actual.is_int and not declared.is_bool)
    if isinstance(actual, TupleType) and isinstance(declared, TupleType):
        return len(actual.elements) == len(declared.elements) and all(
            _converts_to(a, d) for a, d in zip(actual.elements, declared.elements, strict=True)
        )
    return False


def _check_unpack(inf: _Inference, check: UnpackCheck) -> None:
    t = check.value.type
    if not isinstance(t, TupleType):
        raise inf.error(f"cannot unpack a value of type {python_name(t)}", check.loc)
    if len(t.elements) != check.count:
        raise inf.error(
            f"cannot unpack a tuple of {len(t.elements)} elements into {check.count} names",
            check.loc,
        )


# -- transfer rules -------------------------------------------------------------------


def _scalar_operands(inf: _Inference, inst: Instruction, symbol: str) -> list[ScalarType] | None:
    types = [v.type for v in inst.operands()]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    if not all(isinstance(t, ScalarType) for t in types):
        shown = " and ".join(f"'{python_name(t)}'" for t in types)
        raise inf.error(f"unsupported operand type(s) for {symbol}: {shown}", inst)
    return types  # type: ignore[return-value]


def _widen_int(t: Type) -> Type:
    return I64 if isinstance(t, ScalarType) and t.is_int else t


_SYMBOLS = {
    ops.Add: "+",
    ops.Sub: "-",
    ops.Mul: "*",
    ops.Div: "/",
    ops.FloorDiv: "//",
    ops.Mod: "%",
    ops.Pow: "**",
    ops.Min: "min()",
    ops.Max: "max()",
    ops.Neg: "unary -",
    ops.Abs: "abs()",
    ops.Cmp: "comparison",
}


def _arith(inf: _Inference, inst: Instruction) -> Type | None:
    types = _scalar_operands(inf, inst, _SYMBOLS[type(inst)])
    if types is None:
        return None
    j = types[0]
    for t in types[1:]:
        j = join(j, t)  # type: ignore[assignment]
    if isinstance(inst, ops.Div):
        # Python's ``int / int`` has its own ZeroDivisionError message; the operands are
        # converted to floats afterwards, so the division says what its source was
        inst.kind = ops.DivKind.INT if j.is_int else ops.DivKind.FLOAT
        return F64 if j.is_int else j
    if isinstance(inst, ops.Min | ops.Max):
        return j
    return _widen_int(j)


def _cmp(inf: _Inference, inst: Instruction) -> Type | None:
    _scalar_operands(inf, inst, "comparison")
    return I1


def _truth_operand(inf: _Inference, value: Value, inst: Instruction) -> None:
    t = value.type
    if not isinstance(t, ScalarType | UnknownType):
        raise inf.error(f"a value of type {python_name(t)} has no truth value here", inst)


def _not(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Not)
    _truth_operand(inf, inst.operand, inst)
    return I1


def _select(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Select)
    a, b = inst.if_true.type, inst.if_false.type
    j = join(a, b)
    if j is None:
        raise inf._unify_error(inst, a, b)
    return None if isinstance(j, UnknownType) else j


def _phi(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Phi)
    result: Type = UNKNOWN
    for _, v in inst.incoming:
        j = join(result, v.type)
        if j is None:
            raise inf._unify_error(inst, result, v.type)
        result = j
    return None if isinstance(result, UnknownType) else result


def _math(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.MathCall)
    _scalar_operands(inf, inst, f"math.{inst.fn}()")
    return I1 if ops.MATH_FUNCTIONS[inst.fn].returns_bool else F64


def _cast(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Cast)
    t = inst.value.type
    if not isinstance(t, ScalarType | UnknownType):
        raise inf.error(f"cannot convert a value of type {python_name(t)} to a number", inst)
    return None


def _make_tuple(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.MakeTuple)
    types = [e.type for e in inst.elements]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    for t in types:
        if isinstance(t, NoneType):
            raise inf.error("a tuple cannot hold None", inst)
    return TupleType(tuple(types))


def _tuple_get(inf: _Inference, inst: Instruction) -> Type | None:
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


def _branch(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Branch)
    _truth_operand(inf, inst.cond, inst)
    return None


# -- arrays ---------------------------------------------------------------------------


def _index_types(inf: _Inference, inst: Instruction, indices: tuple[Value, ...]) -> bool:
    """True when every index is typed; raises unless each is an integer."""
    for index in indices:
        t = index.type
        if isinstance(t, UnknownType):
            return False
        if not (isinstance(t, ScalarType) and t.is_int and not t.is_bool):
            raise inf.error(f"array indices must be integers, not {python_name(t)}", inst)
    return True


def _check_rank(inf: _Inference, inst: Instruction, t: ArrayType, n: int) -> None:
    if n != t.ndim:
        raise inf.error(
            f"a {t.ndim}-D array needs {t.ndim} index{'es' * (t.ndim != 1)}, got {n} "
            "(partial indexing and views are not supported yet)",
            inst,
        )


def _getitem(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.GetItem)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if isinstance(t, TupleType):
        (index,) = inst.indices if len(inst.indices) == 1 else (None,)
        if not isinstance(index, ops.Const) or isinstance(index.value, bool | float):
            raise inf.error(
                "a tuple can be indexed only by a constant integer (iterating over tuples "
                "is not supported)",
                inst,
            )
        n = len(t.elements)
        if not -n <= int(index.value) < n:
            raise inf.error(f"tuple index {index.value} out of range for {python_name(t)}", inst)
        return t.elements[int(index.value)]
    if isinstance(t, ArrayType):
        _check_rank(inf, inst, t, len(inst.indices))
        _index_types(inf, inst, inst.indices)
        return t.dtype
    raise inf.error(f"cannot unpack or subscript a value of type {python_name(t)}", inst)


def _setitem(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.SetItem)
    t, item = inst.value.type, inst.item.type
    if isinstance(t, UnknownType):
        return NONE
    if not isinstance(t, ArrayType):
        raise inf.error(f"cannot assign to an element of a value of type {python_name(t)}", inst)
    _check_rank(inf, inst, t, len(inst.indices))
    _index_types(inf, inst, inst.indices)
    if not isinstance(item, UnknownType) and not _stores_into(item, t.dtype):
        raise inf.error(
            f"cannot store a {python_name(item)} into a {python_name(t)} array element "
            "(convert it explicitly, e.g. with int())",
            inst,
        )
    return NONE


def _stores_into(item: Type, dtype: ScalarType) -> bool:
    """NumPy's 'same_kind' rule: bool → int → float, and within a kind any width."""
    if not isinstance(item, ScalarType):
        return False
    if dtype.is_float:
        return True
    if dtype.is_bool:
        return item.is_bool
    return item.is_int


def _len(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.Len)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if isinstance(t, ArrayType | TupleType):
        return I64
    raise inf.error(f"object of type {python_name(t)} has no len()", inst)


def _array_attr(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.ArrayAttr)
    t = inst.value.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no attribute '{inst.attr}'", inst)
    if inst.attr == "shape":
        return TupleType((I64,) * t.ndim)
    return I64


def _allocate(inf: _Inference, inst: Instruction) -> Type | None:
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
        if _has_unknown(shape):  # ``(2, h(n))`` before h's return type is known
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
    if fill is not None and not isinstance(fill, UnknownType) and not _stores_into(fill, dtype):
        raise inf.error(
            f"cannot fill a {python_name(dtype)} array with a {python_name(fill)}", inst
        )
    return ArrayType(dtype, ndim, "C")


def _copy_array(inf: _Inference, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.CopyArray)
    t = inst.array.type
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, ArrayType):
        raise inf.error(f"a value of type {python_name(t)} has no method copy()", inst)
    return ArrayType(t.dtype, t.ndim, "C")


def _no_result(inf: _Inference, inst: Instruction) -> Type | None:
    return NONE


_RULES: dict[type[Instruction], Callable[[_Inference, Instruction], Type | None]] = {
    **{
        cls: _arith
        for cls in (
            ops.Add,
            ops.Sub,
            ops.Mul,
            ops.Div,
            ops.FloorDiv,
            ops.Mod,
            ops.Pow,
            ops.Min,
            ops.Max,
            ops.Neg,
            ops.Abs,
        )
    },
    ops.Cmp: _cmp,
    ops.Not: _not,
    ops.Select: _select,
    ops.Phi: _phi,
    ops.MathCall: _math,
    ops.Cast: _cast,
    ops.MakeTuple: _make_tuple,
    ops.TupleGet: _tuple_get,
    ops.Branch: _branch,
    ops.GetItem: _getitem,
    ops.SetItem: _setitem,
    ops.Len: _len,
    ops.ArrayAttr: _array_attr,
    ops.Allocate: _allocate,
    ops.CopyArray: _copy_array,
    ops.Store: _no_result,
    ops.IncRef: _no_result,
    ops.DecRef: _no_result,
}


# -- making conversions explicit ------------------------------------------------------


class _Materializer:
    """Insert the casts the typing rules imply and rename calls to their callees."""

    def __init__(self, inf: _Inference, spec: _Spec) -> None:
        self.inf = inf
        self.spec = spec
        self.b = Builder(spec.function)
        # front-end operations replaced by their expansion: operands are redirected as
        # each instruction is visited and once more at the end (for phis and casts
        # visited before), not by a scan of the function per replacement
        self.replaced: dict[Value, Value] = {}

    def run(self) -> None:
        fn = self.spec.function
        for block in list(fn.blocks):
            for inst in list(block.instructions):
                self._redirect(inst)
                self._visit(inst)
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

    def _visit(self, inst: Instruction) -> None:
        if isinstance(inst, ops.BinaryOp | ops.Neg | ops.Abs):
            for name in inst.OPERANDS:
                setattr(inst, name, self.coerce(getattr(inst, name), inst.type, inst))
        elif isinstance(inst, ops.Cmp):
            common = join(inst.lhs.type, inst.rhs.type)
            assert common is not None
            inst.lhs = self.coerce(inst.lhs, common, inst)
            inst.rhs = self.coerce(inst.rhs, common, inst)
        elif isinstance(inst, ops.Not):
            inst.operand = self.coerce(inst.operand, I1, inst)
        elif isinstance(inst, ops.Branch):
            inst.cond = self.coerce(inst.cond, I1, inst)
        elif isinstance(inst, ops.Select):
            inst.cond = self.coerce(inst.cond, I1, inst)
            inst.if_true = self.coerce(inst.if_true, inst.type, inst)
            inst.if_false = self.coerce(inst.if_false, inst.type, inst)
        elif isinstance(inst, ops.MathCall):
            inst.args = tuple(self.coerce(a, F64, inst) for a in inst.args)
        elif isinstance(inst, ops.Phi):
            incoming = []
            for pred, v in inst.incoming:
                term = pred.terminator
                assert term is not None
                incoming.append((pred, self.coerce(v, inst.type, term)))
            inst.incoming = incoming
        elif isinstance(inst, ops.Return):
            fn = self.spec.function
            if inst.value is not None:
                inst.value = self.coerce(inst.value, fn.return_type, inst)
        elif isinstance(inst, ops.Call):
            callee = self.spec.calls[inst]
            inst.callee = callee.function.name
            inst.type = callee.function.return_type
        elif isinstance(inst, ops.FRONT_END_OPERATIONS):
            self.b.position_before(inst)
            with self.b.at(inst.loc):
                result = self._expand(inst)
            if result is not None:
                self.replaced[inst] = result
            inst.erase()

    def _expand(self, inst: Instruction) -> Value | None:
        """The typed operations that replace a front-end operation (built before it)."""
        b = self.b
        if isinstance(inst, ops.GetItem):
            t = inst.value.type
            if isinstance(t, TupleType):
                (index,) = inst.indices
                assert isinstance(index, ops.Const)
                return b.tuple_get(inst.value, int(index.value) % len(t.elements))
            return b.insert(ops.Load(self._address(inst.value, inst.indices), type=inst.type))
        if isinstance(inst, ops.SetItem):
            array_type = inst.value.type
            assert isinstance(array_type, ArrayType)
            pointer = self._address(inst.value, inst.indices)
            item = b.cast(inst.item, array_type.dtype)
            b.insert(ops.Store(pointer, item, type=NONE))
            return None
        if isinstance(inst, ops.Len):
            t = inst.value.type
            if isinstance(t, TupleType):
                return b.const(len(t.elements), I64)
            return b.insert(ops.ArrayDim(inst.value, 0, type=I64))
        if isinstance(inst, ops.ArrayAttr):
            t = inst.value.type
            assert isinstance(t, ArrayType)
            if inst.attr == "ndim":
                return b.const(t.ndim, I64)
            dims: list[Value] = [
                b.insert(ops.ArrayDim(inst.value, k, type=I64)) for k in range(t.ndim)
            ]
            if inst.attr == "shape":
                return b.make_tuple(dims)
            size = dims[0]
            for d in dims[1:]:
                size = b.mul(size, d)
            return size
        if isinstance(inst, ops.Allocate):
            return self._allocate(inst)
        raise AssertionError(f"unexpected front-end operation {inst.OPNAME}")

    def _address(self, array: Value, indices: tuple[Value, ...]) -> Value:
        t = array.type
        assert isinstance(t, ArrayType)
        index = tuple(self.b.cast(i, I64) for i in indices)
        return self.b.insert(ops.ElementAddr(array, index, type=PointerType(t.dtype)))

    def _allocate(self, inst: ops.Allocate) -> Value:
        b = self.b
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
