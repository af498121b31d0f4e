"""Second derivatives: ``gradc.hessian``, and ``gradc.grad``/``value_and_grad`` of a
function that runs a reverse sweep (a derivative declaration, e.g. grad of grad).

Reverse mode does not differentiate reverse-mode code (its tape), so both are
forward-over-reverse: the Jacobian of a gradient assembled from forward-mode columns
(:mod:`.columns`, which gives the result layout); ``gradc.vjp`` of one contracts each
column with the cotangents. ``gradc.jvp`` of a gradient needs nothing here (forward
mode differentiates the tape, :mod:`.rules.derivative_code`).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Module
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, ArrayType, TupleType, python_name
from gradc.passes.ad.columns import Columns, check_columns, jacobian_export, vjp_export
from gradc.passes.ad.taping import DEFAULT_OPTIONS, TapeOptions


def runs_reverse_sweep(module: Module, fn: Function) -> bool:
    """Does ``fn`` or a function it calls make a tape (is it reverse-mode code)?"""
    seen, todo = {fn.name}, [fn]
    while todo:
        for inst in todo.pop().instructions():
            if isinstance(inst, ops.TapeNew):
                return True
            if isinstance(inst, ops.Call) and inst.callee not in seen:
                seen.add(inst.callee)
                todo.append(module.functions[inst.callee])
    return False


def higher_order_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    tape: TapeOptions = DEFAULT_OPTIONS,
) -> Function:
    """Add the export ``name``: ``gradc.hessian(fn, wrt)``, or ``gradc.grad``/
    ``value_and_grad``/``vjp`` of ``fn`` that runs a reverse sweep.

    Raises:
        PassError: a gradient of a non-float result, a vjp of results other than f64 and 1-D f64 arrays, a ``wrt`` parameter that is
            not an f64 scalar or 1-D f64 array, or ``fn`` writing an array argument.
    """
    what = f"gradc.{kind}"
    if kind == "vjp":
        check_columns(module, fn, wrt, what, loc)
        out = fn.return_type
        for t in out.elements if isinstance(out, TupleType) else (out,):
            if not (t == F64 or (isinstance(t, ArrayType) and t.ndim == 1 and t.dtype == F64)):
                raise PassError(
                    f"{what} of '{fn.source_name}' returning {python_name(out)}: its "
                    "results must be f64 or 1-D f64 arrays (a tuple of those)",
                    loc,
                )
        spec = Columns(fn, wrt, wrt_sequence, isinstance(out, TupleType), [])
        return vjp_export(module, name, spec, loc)
    if fn.return_type != F64:
        raise PassError(f"{what} needs '{fn.source_name}' to return an f64", loc)
    if kind != "hessian":
        check_columns(module, fn, wrt, what, loc)
        spec = Columns(fn, wrt, wrt_sequence, False, [None], kind == "value_and_grad")
        return jacobian_export(module, name, spec, loc)
    from gradc.passes.ad.reverse_exports import reverse_export

    check_columns(module, fn, wrt, what, loc)
    gname = f"{fn.name}.grad.{'_'.join(map(str, wrt))}" + (".tuple" if wrt_sequence else "")
    g = module.functions.get(gname)
    if g is None and runs_reverse_sweep(module, fn):
        # a third derivative: the gradient by forward columns, its Jacobian by columns
        # of that gradient's JVP (forward-over-forward-over-reverse)
        g = higher_order_export(module, gname, "grad", fn, wrt, wrt_sequence, loc, tape)
        g.exported = False
    elif g is None:
        g = reverse_export(module, gname, "grad", fn, wrt, wrt_sequence, loc, tape)
        g.exported = False
    like = [k if isinstance(fn.params[i].type, ArrayType) else None for k, i in enumerate(wrt)]
    spec = Columns(g, wrt, wrt_sequence, wrt_sequence, like)
    return jacobian_export(module, name, spec, loc)
