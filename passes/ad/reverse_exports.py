"""The exports ``gradc.grad``, ``gradc.value_and_grad`` and ``gradc.vjp`` declare, built
on the two sweeps of :mod:`.reverse` (the calling conventions are in :mod:`.api`).

For ``f(x, n)`` and ``wrt=(x,)``, the export ``d_f(x, n)``: checks that its array
arguments do not overlap in a way the derivative cannot follow (:mod:`.aliasing`),
makes a tape and a zeroed C-contiguous shadow per active array parameter, runs
``f.fwd`` (which fills the tape), then ``f.rev`` with the seed — ``1.0`` for a gradient,
the caller's cotangents for a vjp — frees the tape and returns the shadows and scalar
adjoints in ``wrt`` order (a tuple when ``wrt`` was a sequence).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import I64, NONE, TAPE, ArrayType, ScalarType, TupleType, Type
from gradc.passes.ad.aliasing import emit_overlap_checks
from gradc.passes.ad.layout import adjoint_type, is_float, zero
from gradc.passes.ad.reverse import vjp_functions
from gradc.passes.ad.sweep_state import Derived, user_type_name
from gradc.passes.ad.taping import DEFAULT_OPTIONS, TapeOptions


def reverse_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    options: TapeOptions = DEFAULT_OPTIONS,
) -> Function:
    """Add the exported ``grad``/``value_and_grad``/``vjp`` function ``name`` of ``fn``
    to ``module`` (see :mod:`.api`); ``options``: the taping strategies
    (:class:`.taping.TapeOptions`).

    Raises:
        PassError: ``fn``'s result has no adjoint of the kind's (a non-float result of a
            gradient; a vjp of None, int or bool arrays, tuples holding more than
            scalars), or a construct without an adjoint rule (from :func:`vjp_functions`).
    """
    result_type = fn.return_type
    if kind != "vjp" and not is_float(result_type):
        raise PassError(
            f"gradc.{kind} needs '{fn.source_name}' to return a float, not "
            f"{user_type_name(result_type)} (use gradc.vjp for other results)",
            loc,
        )
    if kind == "vjp":
        _check_vjp_result(fn, loc)
    pattern = frozenset(wrt)
    # the wrapper writes none of the caller's arrays between the two sweeps
    every_array = frozenset(k for k, p in enumerate(fn.params) if isinstance(p.type, ArrayType))
    derived = vjp_functions(module, fn, pattern, every_array, options, c_shadows=True)
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    cotangents = _cotangents(wrapper, result_type) if kind == "vjp" else []
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        array_ct = cotangents[0] if isinstance(result_type, ArrayType) and cotangents else None
        emit_overlap_checks(module, fn, b, params, kind=kind, pattern=pattern, cotangent=array_ct)
        tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
        shadows = _zero_shadows(b, derived, params)
        value = b.call(derived.fwd.name, [*params, tape], derived.fwd.return_type)
        if kind == "vjp":
            seed = _vjp_seed(b, fn, derived, value, cotangents, shadows, tape)
        else:
            assert isinstance(result_type, ScalarType)
            seed = b.const(1.0, result_type)
        adjoints = b.call(
            derived.rev.name,
            [*_shadow_args(b, derived, shadows), tape, seed],
            derived.rev.return_type,
        )
        b.insert(ops.TapeFree(tape, type=NONE))
        grads: list[Value] = []
        for i in wrt:
            if i in shadows:
                grads.append(shadows[i])
            else:
                grads.append(b.tuple_get(adjoints, derived.scalar_params.index(i)))
        grad: Value = b.make_tuple(grads) if wrt_sequence else grads[0]
        result = b.make_tuple([value, grad]) if kind == "value_and_grad" else grad
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def _zero_shadows(b: Builder, derived: Derived, params: list[Argument]) -> dict[int, Value]:
    """A zeroed C-contiguous shadow ``d_<name>`` of the shape of each active array
    parameter, by parameter index."""
    shadows: dict[int, Value] = {}
    for i in derived.array_params:
        t = params[i].type
        assert isinstance(t, ArrayType)
        dims = tuple(b.insert(ops.ArrayDim(params[i], k, type=I64)) for k in range(t.ndim))
        shadow_type = ArrayType(t.dtype, t.ndim, "C")
        shadows[i] = b.insert(
            ops.NewArray(dims, b.const(0.0, t.dtype), type=shadow_type, name=f"d_{params[i].name}")
        )
    return shadows


def _check_vjp_result(fn: Function, loc: Loc) -> None:
    """Refuse ``gradc.vjp`` of a function whose result has no float cotangents yet:
    None, an int or bool array, or a tuple holding anything but scalars. A float array
    result has an array cotangent."""
    t = fn.return_type
    if isinstance(t, ArrayType) and t.dtype.is_float:
        return
    elements = t.elements if isinstance(t, TupleType) else (t,)
    for e in elements:
        if not isinstance(e, ScalarType):
            raise PassError(
                f"gradc.vjp of '{fn.source_name}', which returns {user_type_name(t)}: "
                f"results of type {user_type_name(e)} have no cotangent yet (float scalars "
                "and tuples of scalars do)",
                loc,
            )


def _cotangents(wrapper: Function, result_type: Type) -> list[Argument]:
    """The vjp export's cotangent parameters, appended to ``wrapper``'s: one float per
    float result — ``cotangent``, or ``ct_<k>`` for element k of a tuple result (elements
    that are not floats get none) — or an array of any layout for an array result."""
    cotangents: list[Argument] = []
    if isinstance(result_type, TupleType):
        for k, e in enumerate(result_type.elements):
            if is_float(e):
                cotangents.append(Argument(type=e, name=f"ct_{k}", index=0))
    elif isinstance(result_type, ArrayType):  # any layout: copied before use
        ct_type = ArrayType(result_type.dtype, result_type.ndim, "A")
        cotangents.append(Argument(type=ct_type, name="cotangent", index=0))
    else:
        cotangents.append(Argument(type=adjoint_type(result_type), name="cotangent", index=0))
    for ct in cotangents:
        ct.index = len(wrapper.params)
        wrapper.params.append(ct)
    return cotangents


def _vjp_seed(
    b: Builder,
    fn: Function,
    derived: Derived,
    value: Value,
    cotangents: list[Argument],
    shadows: dict[int, Value],
    tape: Value,
) -> Value:
    """The reverse sweep's seed from the vjp export's cotangents (``value``: the result
    of the forward sweep). An array cotangent is checked against the result's shape:
    ValueError, after unwinding the tape, where they differ."""
    result_type = fn.return_type
    if isinstance(result_type, TupleType):
        given = {ct.name: ct for ct in cotangents}
        return b.make_tuple(
            [
                given[f"ct_{k}"] if f"ct_{k}" in given else zero(b, adjoint_type(e))
                for k, e in enumerate(result_type.elements)
            ]
        )
    if not isinstance(result_type, ArrayType):
        return cotangents[0]
    # the reverse sweep adds into (and may reset) its seed: give it a C copy
    ct = cotangents[0]
    c_type = ArrayType(result_type.dtype, result_type.ndim, "C")
    shape = tuple(b.insert(ops.ArrayDim(value, k, type=I64)) for k in range(c_type.ndim))
    for k in range(c_type.ndim):
        m = b.insert(ops.ArrayDim(ct, k, type=I64))
        with b.if_then(b.cmp("ne", shape[k], m), label="ct.shape"):
            # unwind the tape with a zero seed (it holds array references the reverse
            # sweep releases), free it, then raise
            unwind = b.insert(ops.NewArray(shape, b.const(0.0, c_type.dtype), type=c_type))
            b.call(
                derived.rev.name,
                [*_shadow_args(b, derived, shadows), tape, unwind],
                derived.rev.return_type,
            )
            b.insert(ops.TapeFree(tape, type=NONE))
            b.raise_(
                "ValueError",
                f"cotangent must have the shape of the result of "
                f"'{fn.source_name}' (they differ in axis {k})",
            )
    return b.insert(ops.CopyArray(ct, type=c_type))


def _shadow_args(b: Builder, derived: Derived, shadows: dict[int, Value]) -> list[Value]:
    """The wrapper's C shadows as the reverse function's shadow parameters."""
    return [
        b.cast(shadows[i], derived.rev.params[k].type)  # a no-op relabel for the .c variant
        for k, i in enumerate(derived.array_params)
    ]
