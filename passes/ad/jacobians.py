"""Jacobians of array-valued functions: ``gradc.jacfwd`` and ``gradc.jacrev``.

For ``f`` returning an f64 or an f64 array (``jacfwd``: also a tuple of those) and
``wrt`` parameters that are f64 scalars or f64 arrays of any rank, the export
``J(params of f...)`` returns JAX's layout: for output ``i`` (a leaf of the result's
tuples, which ``jacfwd`` may nest) and parameter ``j`` the
block ``J[i][j]`` of shape ``shape(out_i) + shape(p_j)``,
``J[i][j][a..., k...] = ∂ out_i[a...] / ∂ p_j[k...]`` (a float when both are scalars, a
fresh C array otherwise). Blocks nest as outputs (a tuple level only for a tuple result),
then parameters (a tuple level only where ``wrt`` was a tuple), as ``jax.jacfwd``:
the result's tuple structure with each leaf replaced by its blocks.

* ``jacfwd`` runs ``f``'s JVP once per element of the ``wrt`` parameters along the unit
  tangent of that element (C order), or, with ``width=k``, the width-``k`` JVP
  (:mod:`.vector_forward`) once per ``k`` elements;
* ``jacrev`` runs ``f``'s VJP once per element of the result along the unit cotangent
  of that element. A function that runs a reverse sweep (a derivative declaration) has
  no VJP (:mod:`.higher`): its ``jacrev`` is assembled by columns as ``jacfwd``.

Where a result is an array, ``f`` runs once more first for the result's shape. Each
column or row reruns ``f``, so a function that may write an array argument is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, I64, NONE, ArrayType, TupleType, Type, python_name
from gradc.passes.ad.columns import _element, _loop, _new
from gradc.passes.ad.forward import jvp_function
from gradc.passes.ad.higher import runs_reverse_sweep
from gradc.passes.ad.layout import as_shadow
from gradc.passes.ad.memory import refuse_argument_writes


def jacobian_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    width: int = 1,
) -> Function:
    """Add the export ``name``: ``gradc.jacfwd`` or ``gradc.jacrev`` (``kind``) of ``fn``
    with respect to ``wrt`` (the module docstring gives the layout); ``width``: tangents
    per forward sweep (``jacfwd`` only).

    Raises:
        PassError: a ``wrt`` parameter that is not an f64 scalar or f64 array, a result
            that is not an f64, an f64 array (or, for ``jacfwd``, a tuple of those),
            ``fn`` writing an array argument, or a construct without a derivative rule.
    """
    _check(module, fn, wrt, kind, loc)
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        if kind == "jacrev" and not runs_reverse_sweep(module, fn):
            vjp = _vjp(module, fn, wrt, loc)
            result = _nest(_Rows(b, fn, params, wrt, vjp).run(), wrt_sequence, b)
        else:
            if width > 1:
                from gradc.passes.ad.vector_forward import vector_jvp_function

                jv = vector_jvp_function(module, fn, frozenset(wrt), width)
            else:
                jv = jvp_function(module, fn, frozenset(wrt))
            blocks = _Columns(b, fn, params, wrt, jv, width).run()
            rows = iter([_nest(row, wrt_sequence, b) for row in blocks])
            result = _rebuild(b, fn.return_type, rows)
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def _check(module: Module, fn: Function, wrt: list[int], kind: str, loc: Loc) -> None:
    what = f"gradc.{kind}"
    for i in wrt:
        t = fn.params[i].type
        if not (t == F64 or (isinstance(t, ArrayType) and t.dtype == F64)):
            raise PassError(
                f"{what} with respect to '{fn.params[i].name}' of type {python_name(t)}: "
                "only f64 scalars and f64 arrays are supported",
                loc,
            )
    out = fn.return_type
    for e in _leaf_types(out) if kind == "jacfwd" else [out]:
        if not (e == F64 or (isinstance(e, ArrayType) and e.dtype == F64)):
            allowed = "an f64, an f64 array or (nested) tuples of those"
            raise PassError(
                f"{what} of '{fn.source_name}' returning {python_name(out)}: its result "
                f"must be {allowed if kind == 'jacfwd' else 'an f64 or an f64 array'}",
                loc,
            )
    refuse_argument_writes(
        module,
        fn,
        loc,
        f"{what} of '{fn.source_name}', which may write its array argument {{names}}: "
        "each column of the Jacobian reruns it (pass a copy inside the function)",
    )


def _vjp(module: Module, fn: Function, wrt: list[int], loc: Loc) -> Function:
    """The internal ``gradc.vjp(fn, wrt=(...))`` the rows call (made once per pattern)."""
    from gradc.passes.ad.reverse_exports import reverse_export

    name = f"{fn.name}.vjp.{'_'.join(map(str, wrt))}.rows"
    vjp = module.functions.get(name)
    if vjp is None:
        vjp = reverse_export(module, name, "vjp", fn, wrt, True, loc)
        vjp.exported = False
    return vjp


def _nest(values: list[Value], sequence: bool, b: Builder) -> Value:
    return b.make_tuple(values) if sequence else values[0]


def _dims(b: Builder, v: Value) -> list[Value]:
    t = v.type
    if not isinstance(t, ArrayType):
        return []
    return [b.insert(ops.ArrayDim(v, k, type=I64)) for k in range(t.ndim)]


@contextmanager
def _loops(b: Builder, dims: list[Value], label: str) -> Iterator[list[Value]]:
    """Nested ``for`` loops over ``dims`` (C order); yields the indices (none: no loop)."""
    if not dims:
        yield []
        return
    with _loop(b, dims[0], label) as k, _loops(b, dims[1:], label) as rest:
        yield [k, *rest]


def _load(b: Builder, array: Value, index: list[Value]) -> Value:
    return b.insert(ops.Load(_element(b, array, index), type=F64)) if index else array


def _store(b: Builder, array: Value, index: list[Value], value: Value) -> None:
    b.insert(ops.Store(_element(b, array, index), value, type=NONE))


def _leaf_types(t: Type) -> list[Type]:
    """The types of the leaves of a result of type ``t`` (tuples flattened, in order)."""
    return [x for e in t.elements for x in _leaf_types(e)] if isinstance(t, TupleType) else [t]


def _leaves(b: Builder, value: Value) -> list[Value]:
    """The leaves of ``value`` (its tuples flattened, in order)."""
    t = value.type
    if not isinstance(t, TupleType):
        return [value]
    return [x for k in range(len(t.elements)) for x in _leaves(b, b.tuple_get(value, k))]


def _rebuild(b: Builder, t: Type, leaves: Iterator[Value]) -> Value:
    """A value of the tuple structure of ``t`` whose leaves are the next of ``leaves``
    (JAX's layout: each output leaf replaced by its blocks)."""
    if not isinstance(t, TupleType):
        return next(leaves)
    return b.make_tuple([_rebuild(b, e, leaves) for e in t.elements])


def _outputs(b: Builder, fn: Function, params: list[Argument]) -> list[Value | None]:
    """The leaves of ``fn``'s result where one is an array (for its shape: ``fn`` runs
    once), else None for each (scalar outputs need no shape)."""
    out = fn.return_type
    types = _leaf_types(out)
    if not any(isinstance(t, ArrayType) for t in types):
        return [None] * len(types)
    shaped: list[Value | None] = [*_leaves(b, b.call(fn.name, list(params), out))]
    return shaped


class _Columns:
    """``jacfwd``: one JVP call per ``width`` elements of each ``wrt`` parameter."""

    def __init__(
        self,
        b: Builder,
        fn: Function,
        params: list[Argument],
        wrt: list[int],
        jv: Function,
        width: int,
    ):
        self.b, self.fn, self.params, self.wrt, self.jv = b, fn, params, wrt, jv
        self.width = width
        self.order = sorted(wrt)  # the JVP's tangents come in parameter order

    def run(self) -> list[list[Value]]:
        b = self.b
        outs = _outputs(b, self.fn, self.params)
        out_dims = [[] if o is None else _dims(b, o) for o in outs]
        zeros: dict[
            int, Value
        ] = {}  # one zero tangent per parameter, shared by the lanes (only read)
        for i in self.order:
            p = self.params[i]
            dims = _dims(b, p)
            zeros[i] = as_shadow(b, _new(b, dims), p.type) if dims else b.const(0.0, F64)
        blocks: list[list[Value]] = [[] for _ in outs]
        for j in self.wrt:
            in_dims = _dims(b, self.params[j])
            if not in_dims:
                units = [b.const(1.0, F64)] + [zeros[j]] * (self.width - 1)
                first = self.column(zeros, j, units)[0]
                for i, dims in enumerate(out_dims):
                    blocks[i].append(self.copied(first[i], dims))
                continue
            made = [_new(b, dims + in_dims) for dims in out_dims]
            # one tangent array per lane, a unit vector while its sweep runs
            units = [_new(b, in_dims) for _ in range(self.width)]
            with _loop(b, self.sweeps(in_dims), "sweep") as s:
                index = [self.element(s, lane, in_dims) for lane in range(self.width)]
                for unit, ks in zip(units, index, strict=True):
                    _store(b, unit, ks, b.const(1.0, F64))
                shadows = [as_shadow(b, u, self.params[j].type) for u in units]
                column = self.column(zeros, j, shadows)
                for unit, ks, lane in zip(units, index, column, strict=True):
                    _store(b, unit, ks, b.const(0.0, F64))
                    for i, dims in enumerate(out_dims):
                        self.place(made[i], lane[i], dims, ks)
            for i, block in enumerate(made):
                blocks[i].append(block)
        return blocks

    def sweeps(self, dims: list[Value]) -> Value:
        """``ceil(size / width)``: the JVP calls for a parameter of shape ``dims``."""
        b = self.b
        size: Value = b.const(1, I64)
        for d in dims:
            size = b.mul(size, d)
        if self.width == 1:
            return size
        up = b.add(size, b.const(self.width - 1, I64))
        return b.insert(ops.FloorDiv(up, b.const(self.width, I64), type=I64))

    def element(self, sweep: Value, lane: int, dims: list[Value]) -> list[Value]:
        """The index (C order) of lane ``lane`` of sweep ``sweep``: flat index
        ``sweep·width + lane``, clamped to the last element (a lane past the end
        repeats the last column, stored again to the same place)."""
        b = self.b
        flat = b.add(b.mul(sweep, b.const(self.width, I64)), b.const(lane, I64))
        if self.width > 1:
            size: Value = b.const(1, I64)
            for d in dims:
                size = b.mul(size, d)
            flat = b.select(b.cmp("lt", flat, size), flat, b.sub(size, b.const(1, I64)))
        index: list[Value] = []
        for d in reversed(dims[1:]):
            index.insert(0, b.insert(ops.Mod(flat, d, type=I64)))
            flat = b.insert(ops.FloorDiv(flat, d, type=I64))
        return [flat, *index]

    def column(self, zeros: dict[int, Value], j: int, lanes: list[Value]) -> list[list[Value]]:
        """The outputs' tangents of one JVP call, per lane: the tangent of parameter
        ``j`` is ``lanes[lane]``, the others' zero."""
        b = self.b
        args: list[Value] = list(self.params)
        for unit in lanes:
            args += [unit if i == j else zeros[i] for i in self.order]
        both = b.call(self.jv.name, args, self.jv.return_type)
        out: list[list[Value]] = []
        for lane in range(len(lanes)):
            out.append(_leaves(b, b.tuple_get(both, 1 + lane)))
        return out

    def copied(self, out: Value, dims: list[Value]) -> Value:
        """A fresh C copy of output tangent ``out`` (the value itself for a scalar)."""
        if not dims:
            return out
        block = _new(self.b, dims)
        self.place(block, out, dims, [])
        return block

    def place(self, block: Value, out: Value, dims: list[Value], ks: list[Value]) -> None:
        """``block[a..., ks...] = out[a...]`` for every ``a`` in ``dims``."""
        b = self.b
        with _loops(b, dims, "row") as a:
            _store(b, block, [*a, *ks], _load(b, out, a))


class _Rows:
    """``jacrev``: one VJP call per element of ``fn``'s result."""

    def __init__(
        self, b: Builder, fn: Function, params: list[Argument], wrt: list[int], vjp: Function
    ):
        self.b, self.fn, self.params, self.wrt, self.vjp = b, fn, params, wrt, vjp

    def run(self) -> list[Value]:
        b = self.b
        (out,) = _outputs(b, self.fn, self.params)
        if out is None:  # a scalar result: the gradient
            grads = b.call(self.vjp.name, [*self.params, b.const(1.0, F64)], self.vjp.return_type)
            return [b.tuple_get(grads, k) for k in range(len(self.wrt))]
        out_dims = _dims(b, out)
        in_dims = [_dims(b, self.params[j]) for j in self.wrt]
        made = [_new(b, out_dims + dims) for dims in in_dims]
        ct = _new(b, out_dims)
        ct_type = self.vjp.params[-1].type
        with _loops(b, out_dims, "row") as a:
            _store(b, ct, a, b.const(1.0, F64))
            grads = b.call(self.vjp.name, [*self.params, b.cast(ct, ct_type)], self.vjp.return_type)
            for k, dims in enumerate(in_dims):
                grad = b.tuple_get(grads, k)
                with _loops(b, dims, "column") as ks:
                    _store(b, made[k], [*a, *ks], _load(b, grad, ks))
            _store(b, ct, a, b.const(0.0, F64))
        return made
