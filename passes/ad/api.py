"""Derivative exports: the functions ``gradc.grad``/``value_and_grad``/``jvp``/``vjp``
declare, built from the derived functions of :mod:`.forward` and :mod:`.reverse`.

For an export ``f(x, y, n)`` and ``wrt=("x", "y")``:

* ``jvp``: ``t(x, y, n, d_x, d_y) -> (f(x, y, n), ḟ)``, the tangents in ``wrt`` order;
* ``grad``: ``g(x, y, n) -> (∂f/∂x, ∂f/∂y)`` — one value instead of a tuple when
  ``wrt`` is a single name or position, as with JAX's ``argnums``; array parameters get
  arrays of their shape;
* ``value_and_grad``: ``(f(...), grad)``;
* ``vjp``: ``v(x, y, n, ct) -> grad`` scaled by the output cotangent ``ct``;
* ``reverse``/``forward``: the Enzyme-style forms with caller-supplied shadows, see
  :mod:`.lowlevel`.

Every derivative export starts by checking that its array arguments do not share memory
in a way the derivative cannot follow (``ValueError`` before anything runs;
:mod:`.aliasing`).
"""

from __future__ import annotations

from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import ArrayType
from gradc.passes.ad.activity import is_active_param
from gradc.passes.ad.aliasing import emit_overlap_checks
from gradc.passes.ad.forward import check_returns_value, jvp_function, private_tangents
from gradc.passes.ad.higher import runs_reverse_sweep
from gradc.passes.ad.lowlevel import activity_export, check_shapes
from gradc.passes.ad.taping import DEFAULT_OPTIONS, TapeOptions


def add_derivative_export(
    module: Module,
    name: str,
    kind: str,
    target: str,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    activity: tuple[str, ...] = (),
    tape: TapeOptions = DEFAULT_OPTIONS,
    has_aux: bool = False,
    width: int = 1,
) -> Function:
    """Add the exported derivative function ``name`` of ``target`` to ``module``.

    ``kind`` is ``grad``, ``value_and_grad``, ``jvp``, ``vjp``, ``hessian``
    (:mod:`.higher`: also ``grad``/``value_and_grad`` of a function that runs a reverse
    sweep, assembled from forward-mode columns), or the low-level
    ``reverse``/``forward`` (:mod:`.lowlevel`), whose ``activity`` gives each ``wrt``
    parameter's annotation. ``tape``: the taping strategies of ``grad``,
    ``value_and_grad`` and ``vjp`` (:class:`.taping.TapeOptions`). ``has_aux``: JAX's,
    for ``grad``/``value_and_grad`` (:mod:`.aux`). ``jacfwd``/``jacrev``: Jacobians
    (:mod:`.jacobians`); ``width``: tangents per forward sweep of ``jvp``/``jacfwd``
    (:mod:`.vector_forward`).

    Raises:
        PassError: a ``wrt`` parameter cannot be differentiated (an int, a bool), or the
            function contains a construct without a derivative rule.
    """
    fn = module.functions[target]
    for i in wrt:
        if i >= len(fn.params):
            raise PassError(f"'{fn.source_name}' has no parameter at position {i}", loc)
        p = fn.params[i]
        if not is_active_param(p):
            raise PassError(
                f"cannot differentiate '{target}' with respect to '{p.name}' of type "
                f"{p.type}: only float scalars and float arrays have derivatives",
                loc,
            )
    if kind in ("reverse", "forward"):
        return activity_export(module, name, kind, fn, wrt, activity, loc)
    if kind in ("jacfwd", "jacrev"):
        from gradc.passes.ad.jacobians import jacobian_export

        return jacobian_export(module, name, kind, fn, wrt, wrt_sequence, loc, width)
    if kind == "jvp" and width > 1:
        from gradc.passes.ad.vector_forward import vector_jvp_export

        return vector_jvp_export(module, name, fn, wrt, loc, width)
    if has_aux:  # gradc.grad/value_and_grad(f, has_aux=True): f returns (value, aux)
        from gradc.passes.ad.aux import aux_export

        return aux_export(module, name, kind, fn, wrt, wrt_sequence, loc, tape)
    if kind == "hessian" or (kind != "jvp" and runs_reverse_sweep(module, fn)):
        from gradc.passes.ad.higher import higher_order_export

        return higher_order_export(module, name, kind, fn, wrt, wrt_sequence, loc, tape)
    if kind == "jvp":
        return _jvp_export(module, name, fn, wrt, loc)
    from gradc.passes.ad.reverse_exports import reverse_export

    return reverse_export(module, name, kind, fn, wrt, wrt_sequence, loc, tape)


def tangent_names(fn: Function, wrt: list[int]) -> dict[int, str]:
    """The names of a JVP export's tangent parameters, by ``wrt`` index: ``d_<name>``,
    with one more ``d`` while that names a parameter already (a JVP of a JVP: ``dd_x``
    beside ``x`` and ``d_x``); ``compiler/frontend/derivatives.py`` names them alike."""
    taken = {p.name for p in fn.params}
    names: dict[int, str] = {}
    for i in wrt:
        name = f"d_{fn.params[i].name}"
        while name in taken:
            name = "d" + name
        taken.add(name)
        names[i] = name
    return names


def _copy_params(fn: Function, wrapper: Function) -> list[Argument]:
    out = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        out.append(arg)
    return out


def _jvp_export(module: Module, name: str, fn: Function, wrt: list[int], loc: Loc) -> Function:
    check_returns_value(fn, loc)
    derived = jvp_function(module, fn, frozenset(wrt))
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = _copy_params(fn, wrapper)
    tangents: dict[int, Value] = {}
    names = tangent_names(fn, wrt)
    for i in wrt:
        t = Argument(type=fn.params[i].type, name=names[i], index=len(wrapper.params))
        wrapper.params.append(t)
        tangents[i] = t
    wrapper.return_type = derived.return_type
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        for i in wrt:
            if isinstance(fn.params[i].type, ArrayType):
                check_shapes(b, params[i], tangents[i], "tangent")
        emit_overlap_checks(
            module, fn, b, params, kind="jvp", pattern=frozenset(wrt), tangents=tangents
        )
        tangents = private_tangents(module, fn, b, tangents)
        args = [*params, *(tangents[i] for i in sorted(wrt))]
        b.ret(b.call(derived.name, args, derived.return_type))
    module.add(wrapper)
    return wrapper
