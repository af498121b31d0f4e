"""Types and helpers of derivative arrays: tangents (forward mode) and shadows (reverse).

A tangent or shadow array has the shape of its primal array, but not always its memory
layout: derivative code makes its own arrays (zeroed tangents of inactive arrays, private
copies of tangents the JVP writes, scratch shadows, shadows of local arrays) with
``newarray``/``copyarray``, which are always C-contiguous, while the caller's tangents and
shadows come in the primal parameter's layout. A Fortran-ordered primal (``f64[::1, :]``)
therefore gets a tangent typed ``A`` (any strides), which both kinds relabel to; ``C`` and
``A`` primals keep their own layout (a C array relabels to ``A``; a ``C`` parameter's
tangent is made C). So the rule is one function, :func:`shadow_type`, used for every
parameter, local, phi, cast and result of derivative code.

Also here: the type of the adjoint a function receives for its result
(:func:`adjoint_type`), float tests and zeros of scalar types (:func:`is_float`,
:func:`zero`), which the sweeps and the adjoints of the rules share, and
:func:`sum_function`, the sum of an array's elements, which the adjoint of an
allocation filled with an active value (``np.full(shape, y)``: ∂/∂y = Σ shadow) calls.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, I64, ArrayType, PointerType, ScalarType, TupleType, Type


def shadow_type(t: Type) -> Type:
    """The type of the tangent or shadow of a value of type ``t``.

    An F-ordered float array's is the same array type with layout ``A`` (derivative code
    allocates C arrays, which cannot be relabelled F); tuples map elementwise; every other
    type is its own tangent type.
    """
    if isinstance(t, ArrayType) and t.layout == "F":
        return ArrayType(t.dtype, t.ndim, "A")
    if isinstance(t, TupleType):
        return TupleType(tuple(shadow_type(e) for e in t.elements))
    return t


def adjoint_type(t: Type, top: bool = True) -> Type:
    """The type of the adjoint a function receives for a result of type ``t``: the
    result's own type for a float, a C-ordered shadow array for a float array result
    (its adjoints, added to the shadow of the returned array), a tuple of those."""
    if isinstance(t, ScalarType) and t.is_float:
        return t
    if top and isinstance(t, ArrayType) and t.dtype.is_float:
        return ArrayType(t.dtype, t.ndim, "C")
    if isinstance(t, TupleType):
        return TupleType(tuple(adjoint_type(e, top=False) for e in t.elements))
    return F64  # ints, bools, arrays in tuples: a placeholder (their adjoint is ignored)


def is_float(t: Type) -> bool:
    """Is ``t`` a float scalar type?"""
    return isinstance(t, ScalarType) and t.is_float


def zero(b: Builder, t: Type) -> Value:
    """A new constant zero of scalar type ``t`` at ``b``'s insertion point."""
    assert isinstance(t, ScalarType), t
    return b.const(0.0 if t.is_float else 0, t)


def as_shadow(b: Builder, v: Value, like: Type) -> Value:
    """``v`` (a tangent or shadow array, or a tuple of scalars) relabelled to
    ``shadow_type(like)``: a no-op when it already has that type, else a layout cast
    (C or F to A)."""
    return b.cast(v, shadow_type(like))


def fill_adjoint(module: Module, b: Builder, shadow: Value) -> Value:
    """The adjoint of the fill value of a new array whose shadow is ``shadow``: the sum
    of the shadow's elements (a call of :func:`sum_function`, at the builder's
    position)."""
    t = shadow.type
    assert isinstance(t, ArrayType)
    fn = sum_function(module, t, b.loc)
    return b.call(fn.name, [b.cast(shadow, fn.params[0].type)], fn.return_type)


def sum_function(module: Module, t: ArrayType, loc: Loc) -> Function:
    """``gradc.ad.sum.<dtype>.<ndim>(a: array[dtype, ndim, A]) -> dtype``: the sum of
    every element of ``a`` in C order (0 for an empty array), added to ``module`` once.

    Used by the adjoint of ``newarray`` with an active fill value: each element is the
    fill, so the fill's adjoint is the sum of the new array's shadow.
    """
    assert isinstance(t.dtype, ScalarType) and t.dtype.is_float
    name = f"gradc.ad.sum.{t.dtype}.{t.ndim}"
    if name in module.functions:
        return module.functions[name]
    fn = Function(name, return_type=t.dtype, loc=loc, source_name="sum")
    arg_type = ArrayType(t.dtype, t.ndim, "A")
    a = Argument(type=arg_type, name="a", index=0)
    fn.params.append(a)
    b = Builder(fn)
    entry = fn.add_block("entry")
    b.position_at_end(entry)
    with b.at(loc):
        zero = b.const(0.0, t.dtype)
        dims: list[Value] = [b.insert(ops.ArrayDim(a, k, type=I64)) for k in range(t.ndim)]
        total = _sum_axes(b, a, dims, [], zero, t.dtype)
        b.ret(total)
    module.add(fn)
    return fn


def _sum_axes(
    b: Builder, a: Value, dims: list[Value], indices: list[Value], acc: Value, dtype: ScalarType
) -> Value:
    """``acc`` plus the elements of ``a`` at ``indices`` + every index of the remaining
    axes, as a loop nest built at the builder's position (which ends after it)."""
    axis = len(indices)
    if axis == len(dims):
        offset = b.insert(ops.ElementOffset(a, tuple(indices), type=I64))
        pointer = b.insert(ops.Addr(a, offset, type=PointerType(dtype)))
        return b.add(acc, b.insert(ops.Load(pointer, type=dtype)))
    before = b.block
    assert before is not None
    header = b.new_block(f"sum.{axis}.header")
    body = b.new_block(f"sum.{axis}.body")
    done = b.new_block(f"sum.{axis}.end")
    zero = b.const(0, I64)
    b.jump(header)
    b.position_at_end(header)
    i = b.phi(I64, name=f"i{axis}")
    s = b.phi(dtype, name=f"s{axis}")
    assert isinstance(i, ops.Phi) and isinstance(s, ops.Phi)
    b.branch(b.cmp("lt", i, dims[axis]), body, done)
    b.position_at_end(body)
    inner = _sum_axes(b, a, dims, [*indices, i], s, dtype)
    nxt = b.add(i, b.const(1, I64))
    latch = b.block
    assert latch is not None
    b.jump(header)
    i.incoming = [(before, zero), (latch, nxt)]
    s.incoming = [(before, acc), (latch, inner)]
    b.position_at_end(done)
    return s
