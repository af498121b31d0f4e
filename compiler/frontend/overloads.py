"""Functions with several signatures (``@gradc.export(["f64(f64)", "f32(f32)"])``) and
their derivatives.

Each signature is an export of its own, named ``f.f64`` (``export_options.overload_name``)
with ``dispatch = "f"``. A derivative declaration of such a function,
``df = gradc.grad(f)``, declares one derivative per signature whose differentiated
(``wrt``) parameters are all floats (scalars or arrays): ``df.f64``, ``df.f32``, each with
``dispatch = "df"``, so that the loader dispatches ``df`` on its arguments as it does
``f``. Signatures with an integer or bool ``wrt`` parameter get no derivative: a call of
``df`` with integers converts them safely to the float signature (int -> float), as for
``f``. Second-order derivatives (``gradc.hessian``, and a derivative of a derivative
declaration) are made for the signatures whose ``wrt`` parameters are ``f64`` only: AD's
higher-order rules work in f64 (``passes/ad/higher.py``); an ``f32`` argument then runs
the f64 derivative (f32 -> f64 is a safe conversion). When no signature qualifies the
declaration is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gradc.compiler.ir.types import F64, ArrayType, ScalarType, Type, python_name

if TYPE_CHECKING:
    from gradc.compiler.frontend.derivatives import Derivative
    from gradc.compiler.frontend.exports import Export
    from gradc.compiler.frontend.module_scan import ModuleInfo

__all__ = ["expand_derivative", "first_overload", "overloads"]


def overloads(info: ModuleInfo, name: str) -> list[str]:
    """The names of the specialisations (exports or derivative declarations) of ``name``
    when it has several signatures, in declaration order; ``[]`` otherwise."""
    found = [e.name for e in info.exports if e.dispatch == name]
    return found or [d.name for d in info.derivatives if d.dispatch == name]


def first_overload(info: ModuleInfo, name: str) -> str:
    """The first specialisation of ``name`` (what a declaration differentiating ``name``
    is read against: they all share the parameter names), else ``name`` itself."""
    found = overloads(info, name)
    return found[0] if found else name


def expand_derivative(info: ModuleInfo, d: Derivative, target: str) -> list[Derivative]:
    """The derivatives declared by ``d``, read against the first specialisation of its
    ``target`` (as written in the declaration): ``[d]`` when ``target`` has one
    signature, else one per specialisation whose ``wrt`` parameters are floats.

    Raises:
        CompileError: at the declaration, when no specialisation has float ``wrt``
            parameters (the message lists the signatures).
    """
    names = overloads(info, target)
    if not names:
        return [d]
    second_order = d.kind == "hessian" or any(x.name == names[0] for x in info.derivatives)
    out: list[Derivative] = []
    shown: list[str] = []
    for name in names:
        export = _root_export(info, name)
        types = export.param_types
        shown.append(f"({', '.join(python_name(t) for t in types)})")
        wrt_types = [types[i] for i in d.wrt if i < len(types)]
        if all(_is_f64(t) if second_order else _is_float(t) for t in wrt_types):
            suffix = name[len(target) + 1 :]
            out.append(replace(d, name=f"{d.name}.{suffix}", target=name, dispatch=d.name))
    if not out:
        what = "f64 (second derivatives are f64 only)" if second_order else "floats"
        raise info.source.error(
            f"'{target}' has no signature whose differentiated parameters are {what} "
            f"(its signatures take {', '.join(shown)}); derivatives are taken with respect "
            "to float parameters",
            d.node,
            help='add a float signature, e.g. "f64(f64, f64)", to the export\'s list',
        )
    return out


def _root_export(info: ModuleInfo, name: str) -> Export:
    """The export that specialisation ``name`` (an export or a derivative's) derives from."""
    declared = {x.name: x for x in info.derivatives}
    while name in declared:
        name = declared[name].target
    return next(e for e in info.exports if e.name == name)


def _is_f64(t: Type) -> bool:
    return t == F64 or (isinstance(t, ArrayType) and t.dtype == F64)


def _is_float(t: Type) -> bool:
    if isinstance(t, ArrayType):
        return t.dtype.is_float
    return isinstance(t, ScalarType) and t.is_float
