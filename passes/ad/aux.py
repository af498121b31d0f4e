"""JAX's ``has_aux=True``: ``gradc.grad(f, has_aux=True)`` of an ``f`` returning
``(value, aux)`` returns ``(gradient, aux)``; ``value_and_grad`` returns
``((value, aux), gradient)``.

The gradient is that of ``f.value`` (a copy of ``f`` returning the value alone); the
export calls it, then ``f`` once more for ``aux`` (so ``f`` may not write its array
arguments: the second run would see the first one's writes).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import clone_function
from gradc.compiler.ir.core import Argument, Function, Module
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import ScalarType, TupleType
from gradc.passes.ad.memory import refuse_argument_writes
from gradc.passes.ad.sweep_state import user_type_name
from gradc.passes.ad.taping import DEFAULT_OPTIONS, TapeOptions


def aux_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    tape: TapeOptions = DEFAULT_OPTIONS,
) -> Function:
    """Add the ``has_aux=True`` export ``name`` (``kind``: ``grad`` or ``value_and_grad``).

    Raises:
        PassError: ``fn`` does not return a pair whose first element is a float, or it
            may write an array argument; what reverse mode refuses in ``fn``.
    """
    t = fn.return_type
    if not (
        isinstance(t, TupleType)
        and len(t.elements) == 2
        and isinstance(t.elements[0], ScalarType)
        and t.elements[0].is_float
    ):
        raise PassError(
            f"has_aux=True needs '{fn.source_name}' to return a pair (value, aux) with a "
            f"float value, not {user_type_name(t)}",
            loc,
        )
    refuse_argument_writes(
        module,
        fn,
        loc,
        f"has_aux=True with '{fn.source_name}', which may write its array argument "
        "{names}: the export runs it twice (once for the gradient, once for aux)",
    )
    from gradc.passes.ad.reverse_exports import reverse_export

    value_fn = _value_only(module, fn)
    pattern = "_".join(map(str, wrt)) + (".tuple" if wrt_sequence else "")
    inner_name = f"{value_fn.name}.{kind}.{pattern}"
    inner = module.functions.get(inner_name)
    if inner is None:
        inner = reverse_export(module, inner_name, kind, value_fn, wrt, wrt_sequence, loc, tape)
        inner.exported = False
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        derivative = b.call(inner.name, list(params), inner.return_type)
        full = b.call(fn.name, list(params), fn.return_type)
        aux = b.tuple_get(full, 1)
        if kind == "grad":
            result = b.make_tuple([derivative, aux])
        else:
            value = b.make_tuple([b.tuple_get(derivative, 0), aux])
            result = b.make_tuple([value, b.tuple_get(derivative, 1)])
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def _value_only(module: Module, fn: Function) -> Function:
    """``fn.value``: a copy of ``fn`` returning the first element of its pair."""
    name = f"{fn.name}.value"
    if name in module.functions:
        return module.functions[name]
    copy = clone_function(fn, name).function
    t = copy.return_type
    assert isinstance(t, TupleType)
    copy.return_type = t.elements[0]
    b = Builder(copy)
    for inst in list(copy.instructions()):
        if isinstance(inst, ops.Return) and inst.value is not None:
            b.position_before(inst)
            with b.at(inst.loc):
                inst.value = b.tuple_get(inst.value, 0)
    module.add(copy)
    return copy
