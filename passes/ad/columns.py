"""Jacobians by columns of forward mode: ``gradc.hessian`` and ``gradc.grad`` of a
reverse-mode derivative.

Reverse mode does not differentiate derivative code (the tape), so a gradient of a
function that itself runs a reverse sweep is assembled from forward-mode sweeps, one per
element of the ``wrt`` parameters (forward-over-reverse): the JVP of ``g`` along the
unit tangent ``e_(j,k)`` is the column ``(j, k)`` of ``g``'s Jacobian.

Result layout (JAX's, for ``jacfwd``/``hessian``): for outputs ``i`` of ``g`` (its
result, or the elements of a tuple result) and ``wrt`` parameters ``j``, the block
``J[i][j]`` has the shape ``shape(output i) + shape(parameter j)``:
``J[i][j][a, k] = ∂ out_i[a] / ∂ p_j[k]``; a float when both are scalars, a fresh C
array otherwise. Blocks nest as outputs, then parameters, each level a tuple only where
the declaration used a tuple (``wrt=("x", "w")``); a single name gives the block.

``gradc.hessian(f, wrt=W)`` is the Jacobian of ``gradc.grad(f, wrt=W)`` with respect
to ``W``: ``H[i][j]`` is ``∂²f / ∂p_i ∂p_j`` with the shape ``shape(p_i) + shape(p_j)``
(for one 1-D parameter ``x`` of length ``n``, an ``(n, n)`` array). Parameters in ``W``
are float scalars or 1-D float arrays.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    F32,
    F64,
    I64,
    NONE,
    ArrayType,
    PointerType,
    ScalarType,
    TupleType,
)
from gradc.passes.ad.forward import jvp_function
from gradc.passes.ad.layout import as_shadow
from gradc.passes.ad.memory import callee_writes


@dataclass(frozen=True)
class Columns:
    """What to assemble: the function, the parameters, the nesting of the result.

    Attributes:
        g: the differentiated function (its result: a float, a 1-D float array of the
            shape of the ``wrt`` parameter of the same position, or a tuple of those).
        wrt: the parameters, in the declaration's order.
        wrt_sequence: the result has a tuple level over ``wrt``.
        out_sequence: ``g`` returns a tuple (a tuple level over its elements).
        out_like: for each output, the ``wrt`` position whose parameter shape an array
            output has (None for a scalar output).
        with_value: the result is ``(g(...), blocks)`` (``value_and_grad``).
    """

    g: Function
    wrt: list[int]
    wrt_sequence: bool
    out_sequence: bool
    out_like: list[int | None]
    with_value: bool = False


def check_columns(module: Module, g: Function, wrt: list[int], what: str, loc: Loc) -> None:
    """Refuse what :func:`jacobian_export` cannot assemble.

    Raises:
        PassError: a ``wrt`` parameter is neither an f64 scalar nor a 1-D f64 array,
            or ``g`` (or a callee) may write an array parameter (each column reruns it).
    """
    for i in wrt:
        t = g.params[i].type
        if (isinstance(t, ArrayType) and (t.ndim != 1 or t.dtype != F64)) or t == F32:
            raise PassError(
                f"{what} with respect to '{g.params[i].name}' of type {t}: only f64 scalars "
                "and 1-D f64 arrays are supported",
                loc,
            )
    written = callee_writes(module, g.name)[g.name]
    if written:
        names = ", ".join(f"'{g.params[i].name}'" for i in sorted(written))
        raise PassError(
            f"{what} of '{g.source_name}', which may write its array argument {names}: "
            "each column of the Jacobian reruns it (pass a copy inside the function)",
            loc,
        )


def jacobian_export(module: Module, name: str, spec: Columns, loc: Loc) -> Function:
    """Add the export ``name(params of g...)`` returning the Jacobian blocks of
    ``spec`` (the module docstring gives the layout); it calls ``g``'s JVP once per
    element of the ``wrt`` parameters."""
    g = spec.g
    jv = jvp_function(module, g, frozenset(spec.wrt))
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in g.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        blocks = _Assembler(b, jv, spec, params).run()
        rows = [_nest(row, spec.wrt_sequence, b) for row in blocks]
        result = _nest(rows, spec.out_sequence, b)
        if spec.with_value:
            result = b.make_tuple([b.call(g.name, list(params), g.return_type), result])
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def vjp_export(module: Module, name: str, spec: Columns, loc: Loc) -> Function:
    """Add the export ``name(params of g..., cotangents)`` returning ``Σ_i ct_i·J[i][j]``
    for each ``wrt`` parameter ``j`` (a tuple over ``wrt`` where the declaration used
    one). Cotangents as ``gradc.vjp``'s: ``cotangent`` for a float or 1-D array result,
    ``ct_<k>`` for float element ``k`` of a tuple (of floats and 1-D f64 arrays); an
    array cotangent of another length raises ``ValueError``."""
    g = spec.g
    jv = jvp_function(module, g, frozenset(spec.wrt))
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in g.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    result = g.return_type
    elements = result.elements if isinstance(result, TupleType) else (result,)
    cts: dict[int, Value] = {}
    for k, t in enumerate(elements):
        if t == F64 or (isinstance(t, ArrayType) and t.dtype == F64 and t.ndim == 1):
            ct_type = ArrayType(F64, 1, "A") if isinstance(t, ArrayType) else F64
            ct_name = f"ct_{k}" if isinstance(result, TupleType) else "cotangent"
            ct = Argument(type=ct_type, name=ct_name, index=len(wrapper.params))
            wrapper.params.append(ct)
            cts[k] = ct
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        out = _nest(_Assembler(b, jv, spec, params).contracted(cts), spec.wrt_sequence, b)
        wrapper.return_type = out.type
        b.ret(out)
    module.add(wrapper)
    return wrapper


def _nest(values: list[Value], sequence: bool, b: Builder) -> Value:
    return b.make_tuple(values) if sequence else values[0]


class _Assembler:
    """Builds the column sweeps into the wrapper at ``b``."""

    def __init__(self, b: Builder, jv: Function, spec: Columns, params: list[Argument]):
        self.b, self.jv, self.spec, self.params = b, jv, spec, params
        self.order = sorted(spec.wrt)  # the JVP's tangents come in parameter order

    def dims(self, position: int | None) -> Value | None:
        """The length of the ``wrt`` parameter at ``position`` (None: a scalar)."""
        if position is None:
            return None
        p = self.params[self.spec.wrt[position]]
        if not isinstance(p.type, ArrayType):
            return None
        return self.b.insert(ops.ArrayDim(p, 0, type=I64))

    def run(self) -> list[list[Value]]:
        b, spec = self.b, self.spec
        zeros: dict[int, Value] = {}
        for i in self.order:
            n = self.dims(spec.wrt.index(i))
            zeros[i] = b.const(0.0, F64) if n is None else _new(b, [n])
        out_dims = [self.dims(like) for like in spec.out_like]
        blocks: list[list[Value]] = [[] for _ in spec.out_like]
        for j in spec.wrt:
            n = self.dims(spec.wrt.index(j))
            if n is None:
                outputs = self.column({**zeros, j: b.const(1.0, F64)})
                for i, out in enumerate(outputs):
                    blocks[i].append(out)
                continue
            made = [_new(b, [n] if m is None else [m, n]) for m in out_dims]
            with _loop(b, n, "column") as k:
                self.unit(zeros[j], k, 1.0)
                for i, out in enumerate(self.column(zeros)):
                    self.place(made[i], out, out_dims[i], k)
                self.unit(zeros[j], k, 0.0)
            for i, block in enumerate(made):
                blocks[i].append(block)
        return blocks

    def contracted(self, cts: dict[int, Value]) -> list[Value]:
        """For each ``wrt`` parameter, ``Σ_i <ct_i, ∂out_i/∂p>`` (``cts``: output index ->
        its cotangent): the VJP, a float or an array of the parameter's length."""
        b, spec = self.b, self.spec
        zeros: dict[int, Value] = {}
        for i in self.order:
            n = self.dims(spec.wrt.index(i))
            zeros[i] = b.const(0.0, F64) if n is None else _new(b, [n])
        acc = _new(b, [b.const(1, I64)])
        results: list[Value] = []
        for j in spec.wrt:
            n = self.dims(spec.wrt.index(j))
            if n is None:
                results.append(self.dot(self.column({**zeros, j: b.const(1.0, F64)}), cts, acc))
                continue
            made = _new(b, [n])
            with _loop(b, n, "column") as k:
                self.unit(zeros[j], k, 1.0)
                value = self.dot(self.column(zeros), cts, acc)
                b.insert(ops.Store(_element(b, made, [k]), value, type=NONE))
                self.unit(zeros[j], k, 0.0)
            results.append(made)
        return results

    def dot(self, outs: list[Value], cts: dict[int, Value], acc: Value) -> Value:
        """``Σ_i <cts[i], outs[i]>``, summed in ``acc[0]``."""
        b = self.b
        zero = b.const(0, I64)
        b.insert(ops.Store(_element(b, acc, [zero]), b.const(0.0, F64), type=NONE))
        for i, ct in cts.items():
            out = outs[i]
            if not isinstance(out.type, ArrayType):
                self.add_to(acc, b.mul(ct, out))
                continue
            m = b.insert(ops.ArrayDim(out, 0, type=I64))
            with b.if_then(b.cmp("ne", b.insert(ops.ArrayDim(ct, 0, type=I64)), m), "shape"):
                b.raise_("ValueError", f"cotangent '{ct.name}' must have the shape of the result")
            with _loop(b, m, "dot") as a:
                x = b.insert(ops.Load(_element(b, ct, [a]), type=F64))
                y = b.insert(ops.Load(_element(b, out, [a]), type=F64))
                self.add_to(acc, b.mul(x, y))
        return b.insert(ops.Load(_element(b, acc, [zero]), type=F64))

    def add_to(self, acc: Value, value: Value) -> None:
        b = self.b
        cell = _element(b, acc, [b.const(0, I64)])
        b.insert(ops.Store(cell, b.add(b.insert(ops.Load(cell, type=F64)), value), type=NONE))

    def column(self, tangents: dict[int, Value]) -> list[Value]:
        """The outputs' tangents of one JVP call with ``tangents``."""
        b = self.b
        tangent_args = [as_shadow(b, tangents[i], self.params[i].type) for i in self.order]
        args = [*self.params, *tangent_args]
        both = b.call(self.jv.name, args, self.jv.return_type)
        tangent = b.tuple_get(both, 1)
        if not self.spec.out_sequence:
            return [tangent]
        assert isinstance(tangent.type, TupleType)
        return [b.tuple_get(tangent, i) for i in range(len(tangent.type.elements))]

    def unit(self, array: Value, k: Value, value: float) -> None:
        self.b.insert(ops.Store(_element(self.b, array, [k]), self.b.const(value, F64), type=NONE))

    def place(self, block: Value, out: Value, m: Value | None, k: Value) -> None:
        """Column ``k`` of ``block`` := ``out`` (a scalar, or an array of length ``m``)."""
        b = self.b
        if m is None:
            b.insert(ops.Store(_element(b, block, [k]), out, type=NONE))
            return
        with _loop(b, m, "row") as a:
            value = b.insert(ops.Load(_element(b, out, [a]), type=F64))
            b.insert(ops.Store(_element(b, block, [a, k]), value, type=NONE))


def _new(b: Builder, shape: list[Value]) -> Value:
    t = ArrayType(F64, len(shape), "C")
    return b.insert(ops.NewArray(tuple(shape), b.const(0.0, F64), type=t))


def _element(b: Builder, array: Value, indices: list[Value]) -> Value:
    t = array.type
    assert isinstance(t, ArrayType) and isinstance(t.dtype, ScalarType)
    return b.insert(ops.ElementAddr(array, tuple(indices), type=PointerType(t.dtype)))


@contextmanager
def _loop(b: Builder, n: Value, label: str) -> Iterator[Value]:
    """``for k in range(n):`` the body built inside the ``with``; after it the builder
    is past the loop."""
    before = b.block
    assert before is not None
    header, body, done = (b.new_block(f"{label}.{s}") for s in ("header", "body", "end"))
    zero = b.const(0, I64)
    b.jump(header)
    b.position_at_end(header)
    k = b.phi(I64, name="k")
    assert isinstance(k, ops.Phi)
    b.branch(b.cmp("lt", k, n), body, done)
    b.position_at_end(body)
    yield k
    nxt = b.add(k, b.const(1, I64))
    latch = b.block
    assert latch is not None
    b.jump(header)
    k.incoming = [(before, zero), (latch, nxt)]
    b.position_at_end(done)
