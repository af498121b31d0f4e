"""The low-level, allocation-free derivative exports: ``gradc.reverse`` and ``gradc.forward``.

Enzyme's calling convention (Moses & Churavy 2020; Enzyme.jl's ``Duplicated``, ``Active``
and ``Const``): each parameter of ``f`` carries an activity annotation, and the caller
supplies the shadow memory, so a derivative call in a hot loop allocates no arrays.

For ``f(x: f64[:], n: i64, c: f64) -> f64`` declared
``r = gradc.reverse(f, x=gradc.Duplicated, c=gradc.Active)``:

* ``r(x, d_x, n, c) -> (f(x, n, c), ∂f/∂c)``: every ``Duplicated`` array is followed by its
  shadow ``d_x`` (same shape, any layout the parameter's type accepts) and the gradient is
  **accumulated** into it: ``d_x += ∂f/∂x``. The caller zeroes ``d_x`` for a fresh
  gradient, or keeps it to sum gradients over calls. The adjoints of ``Active`` float
  scalars are returned after the value, in parameter order. Where ``f`` overwrites an
  element of a ``Duplicated`` array, the shadow element is reset to zero by the reverse
  sweep at that write (the old value no longer reaches the result), as in Enzyme.
* ``t = gradc.forward(f, x=gradc.Duplicated, c=gradc.Duplicated)``:
  ``t(x, d_x, n, c, d_c) -> (f(x, n, c), ḟ)``: each ``Duplicated`` parameter is followed
  by its tangent (read, never written); the result is the value and the directional
  derivative, as :func:`gradc.jvp` gives with the tangents last.

Two ``Duplicated`` arrays that share memory take shadows that share memory the same
way (one shadow for one array passed twice): the derivative then flows through the
shared memory; other overlaps a write could reach are refused (:mod:`.aliasing`).

Unannotated parameters are ``Const``. ``Duplicated`` applies to float arrays (and, in
forward mode, to float scalars); ``Active`` to float scalars in reverse mode.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import I64, NONE, TAPE, ArrayType, ScalarType
from gradc.passes.ad.aliasing import emit_overlap_checks
from gradc.passes.ad.forward import check_returns_value, jvp_function, private_tangents
from gradc.passes.ad.reverse import vjp_functions
from gradc.passes.ad.sweep_state import user_type_name


def activity_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    activity: tuple[str, ...],
    loc: Loc,
) -> Function:
    """Add the ``gradc.reverse``/``gradc.forward`` export ``name`` of ``fn`` to ``module``.

    ``wrt`` lists the annotated (non-``Const``) parameter indices in increasing order and
    ``activity`` their annotations (``"duplicated"`` or ``"active"``).

    Raises:
        PassError: an annotation does not fit its parameter (``Active`` on an array,
            ``Duplicated`` on a float scalar in reverse mode), or ``gradc.reverse`` of a
            function that does not return a float.
    """
    mode = dict(zip(wrt, activity, strict=True))
    for i, act in mode.items():
        p = fn.params[i]
        if isinstance(p.type, ArrayType) and act == "active":
            raise PassError(
                f"gradc.Active applies to float scalars; array parameter '{p.name}' is "
                "gradc.Duplicated (its gradient is accumulated into a shadow you pass)",
                loc,
            )
        if kind == "reverse" and isinstance(p.type, ScalarType) and act == "duplicated":
            raise PassError(
                f"gradc.Duplicated in reverse mode needs an array; float parameter "
                f"'{p.name}' is gradc.Active (its adjoint is returned)",
                loc,
            )
    if kind == "forward":
        return _forward_export(module, name, fn, mode, loc)
    if not (isinstance(fn.return_type, ScalarType) and fn.return_type.is_float):
        raise PassError(
            f"gradc.reverse needs '{fn.source_name}' to return a float, not "
            f"{user_type_name(fn.return_type)} "
            "(use gradc.vjp for other results)",
            loc,
        )
    return _reverse_export(module, name, fn, mode, loc)


def _interleaved_params(
    fn: Function, wrapper: Function, mode: dict[int, str]
) -> tuple[list[Argument], dict[int, Argument]]:
    """``wrapper``'s parameters: ``fn``'s, each ``Duplicated`` one followed by ``d_<name>``."""
    params: list[Argument] = []
    shadows: dict[int, Argument] = {}
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
        if mode.get(p.index) == "duplicated":
            shadow = Argument(type=p.type, name=f"d_{p.name}", index=len(wrapper.params))
            wrapper.params.append(shadow)
            shadows[p.index] = shadow
    return params, shadows


def check_shapes(b: Builder, primal: Value, shadow: Value, what: str = "shadow") -> None:
    """Emit code raising ValueError unless array ``shadow`` (a shadow or a tangent) has
    the shape of array parameter ``primal`` (axis by axis); the message names both."""
    t = primal.type
    assert isinstance(t, ArrayType)
    for axis in range(t.ndim):
        n = b.insert(ops.ArrayDim(primal, axis, type=I64))
        m = b.insert(ops.ArrayDim(shadow, axis, type=I64))
        with b.if_then(b.cmp("ne", n, m), label="shape"):
            b.raise_(
                "ValueError",
                f"{what} '{shadow.name}' must have the shape of '{primal.name}' "
                f"(they differ in axis {axis})",
            )


def _forward_export(
    module: Module, name: str, fn: Function, mode: dict[int, str], loc: Loc
) -> Function:
    check_returns_value(fn, loc)
    derived = jvp_function(module, fn, frozenset(mode))
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params, tangents = _interleaved_params(fn, wrapper, {i: "duplicated" for i in mode})
    wrapper.return_type = derived.return_type
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        for i in sorted(mode):
            if isinstance(fn.params[i].type, ArrayType):
                check_shapes(b, params[i], tangents[i], "tangent")
        emit_overlap_checks(
            module, fn, b, params, kind="forward", pattern=frozenset(mode), tangents=tangents
        )
        private = private_tangents(module, fn, b, dict(tangents))
        args: list[Value] = [*params, *(private[i] for i in sorted(mode))]
        b.ret(b.call(derived.name, args, derived.return_type))
    module.add(wrapper)
    return wrapper


def _reverse_export(
    module: Module, name: str, fn: Function, mode: dict[int, str], loc: Loc
) -> Function:
    derived = vjp_functions(module, fn, frozenset(mode))
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params, supplied = _interleaved_params(fn, wrapper, mode)
    result_type = fn.return_type
    assert isinstance(result_type, ScalarType)
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        for i, shadow in supplied.items():
            check_shapes(b, params[i], shadow)
        emit_overlap_checks(
            module, fn, b, params, kind="reverse", pattern=frozenset(mode), shadows=supplied
        )
        shadows: list[Value] = []
        for k, i in enumerate(derived.array_params):
            if i in supplied:
                # an F-ordered parameter's shadow is typed A in the reverse function
                shadows.append(b.cast(supplied[i], derived.rev.params[k].type))
                continue
            # a Const array that active values are written into still needs a shadow
            # for the reverse sweep: a zeroed scratch one, dropped afterwards
            t = params[i].type
            assert isinstance(t, ArrayType)
            dims = tuple(b.insert(ops.ArrayDim(params[i], a, type=I64)) for a in range(t.ndim))
            scratch = b.insert(
                ops.NewArray(dims, b.const(0.0, t.dtype), type=ArrayType(t.dtype, t.ndim, "C"))
            )
            shadows.append(b.cast(scratch, derived.rev.params[k].type))
        tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
        value = b.call(derived.fwd.name, [*params, tape], derived.fwd.return_type)
        seed = b.const(1.0, result_type)
        adjoints = b.call(derived.rev.name, [*shadows, tape, seed], derived.rev.return_type)
        b.insert(ops.TapeFree(tape, type=NONE))
        results = [value]
        for i in sorted(mode):
            if mode[i] == "active":
                results.append(b.tuple_get(adjoints, derived.scalar_params.index(i)))
        result = b.make_tuple(results)
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper
