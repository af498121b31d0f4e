"""Derivative declarations: ``d_f = gradc.grad(f, wrt=...)`` and ``gradc build --grad``.

A module declares a derivative export by assigning one of :data:`DERIVATIVE_KINDS` applied
to an export defined above it: ``wrt`` names parameters (names or positions; JAX's
default, the first, without it), or, for ``gradc.reverse``/``gradc.forward``, each
parameter gets an activity annotation (docs/ad.md). ``gradc build --grad f:x,y`` asks for
the same as ``d_f = gradc.grad(f, wrt=("x", "y"))`` from the command line.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc._dataclass import dataclass

if TYPE_CHECKING:
    from gradc.compiler.frontend.exports import Export
    from gradc.compiler.frontend.module_scan import ModuleInfo

#: ``gradc`` functions that declare a derivative export: ``d_f = gradc.grad(f, wrt=...)``.
#: ``reverse``/``forward`` are the low-level, Enzyme-style forms (docs/ad.md): one activity
#: annotation per parameter instead of ``wrt``.
DERIVATIVE_KINDS = (
    *("grad", "value_and_grad", "jvp", "vjp", "hessian", "jacfwd", "jacrev"),
    *("reverse", "forward"),
)

#: The largest ``width=`` of ``gradc.jvp``/``gradc.jacfwd`` (the width-k JVP has k
#: tangent parameters per active parameter).
MAX_WIDTH = 64

#: Activity annotations of ``gradc.reverse``/``gradc.forward``, by their gradc name.
ACTIVITIES = {"Duplicated": "duplicated", "Active": "active", "Const": "const"}


@dataclass
class Derivative:
    """A module-level derivative declaration, e.g. ``d_f = gradc.grad(f, wrt=("x",))``.

    Attributes:
        name: the exported name (the assigned variable).
        kind: one of :data:`DERIVATIVE_KINDS`.
        target: the differentiated function's name (an export of the module).
        wrt: indices of the parameters differentiated with respect to, in the order given.
        wrt_sequence: ``wrt`` was a tuple or list (results are then tuples, as in JAX's
            ``argnums``), rather than one name or position.
        node: the declaration (for error locations).
        activity: for ``reverse``/``forward`` only: the annotation of each ``wrt``
            parameter, ``"duplicated"`` or ``"active"`` (the others are ``Const``).
        has_aux: JAX's ``has_aux=True``: the target returns ``(value, aux)``; ``grad``
            returns ``(gradient, aux)``, ``value_and_grad`` ``((value, aux), gradient)``.
        width: ``jvp``/``jacfwd``'s ``width=k``: tangents pushed per forward sweep (1
            unless given).
        dispatch: for the derivative of one signature of a function with several
            (:mod:`.overloads`): the declared name the loader dispatches on, while
            ``name`` is this specialisation's (``df.f64``); None otherwise.
    """

    name: str
    kind: str
    target: str
    wrt: list[int]
    wrt_sequence: bool
    node: ast.expr | ast.stmt
    activity: tuple[str, ...] = ()
    has_aux: bool = False
    width: int = 1
    dispatch: str | None = None


def derivative_of(info: ModuleInfo, stmt: ast.Assign | ast.AnnAssign) -> Derivative | None:
    """``name = gradc.grad(f, wrt=...)`` (and the other kinds), or None."""
    value = stmt.value
    if not isinstance(value, ast.Call):
        return None
    kind = next((k for k in DERIVATIVE_KINDS if info.is_gradc(value.func, k)), None)
    if kind is None:
        return None
    src = info.source
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        raise src.error(f"assign gradc.{kind}(...) to one name", stmt)
    if not value.args or not isinstance(value.args[0], ast.Name):
        raise src.error(f"gradc.{kind} takes the function to differentiate first", value)
    from gradc.compiler.frontend.overloads import first_overload

    written = value.args[0].id  # the name as declared; target: its first signature's
    target = first_overload(info, written)
    export = next((e for e in info.exports if e.name == target), None)
    inner = next((d for d in info.derivatives if d.name == target), None)
    if export is None and inner is None:
        raise src.error(
            f"gradc.{kind} needs an exported function or a derivative declaration defined "
            f"above it; '{written}' is neither (add @gradc.export with parameter types)",
            value.args[0],
        )
    if kind in ("reverse", "forward"):
        if export is None:
            raise src.error(
                f"gradc.{kind} differentiates an exported function; '{written}' is a "
                "derivative declaration (use gradc.grad, gradc.jvp or gradc.vjp of it)",
                value.args[0],
            )
        return _activity_declaration(info, targets[0].id, kind, export, value)
    if inner is not None and inner.kind in ("reverse", "forward"):
        raise src.error(
            f"gradc.{kind} of the low-level gradc.{inner.kind} declaration '{written}' is not "
            "supported; differentiate a gradc.grad, gradc.jvp or gradc.vjp declaration",
            value.args[0],
        )
    wrt_node, has_aux, width = _keywords(info, kind, value)
    params = parameter_names(info, target)
    if wrt_node is None:  # JAX's default: the first parameter
        return Derivative(
            targets[0].id, kind, target, [0], False, value, has_aux=has_aux, width=width
        )
    sequence = isinstance(wrt_node, ast.Tuple | ast.List)
    items = wrt_node.elts if isinstance(wrt_node, ast.Tuple | ast.List) else [wrt_node]
    wrt: list[int] = []
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            if item.value not in params:
                raise src.error(f"'{written}' has no parameter '{item.value}'", item)
            index = params.index(item.value)
        elif isinstance(item, ast.Constant) and type(item.value) is int:
            index = item.value
            if index < 0 or (index >= len(params) and (inner is None or inner.kind != "vjp")):
                raise src.error(f"'{written}' has no parameter at position {index}", item)
        else:
            raise src.error("wrt takes parameter names or positions (constants)", item)
        if index in wrt:
            raise src.error(f"parameter '{params[index]}' is listed twice in wrt", item)
        wrt.append(index)
    if not wrt:
        raise src.error(
            f"gradc.{kind}: wrt selects no parameter of '{written}'; name at least one "
            "(or leave wrt out for the first)",
            wrt_node,
        )
    return Derivative(
        targets[0].id, kind, target, wrt, sequence, value, has_aux=has_aux, width=width
    )


def _keywords(info: ModuleInfo, kind: str, call: ast.Call) -> tuple[ast.expr | None, bool, int]:
    """``(wrt, has_aux, width)`` of a declaration: ``wrt`` (a keyword, or the second
    positional argument) or JAX's ``argnums`` (positions only), ``has_aux`` (a constant
    bool, ``grad`` and ``value_and_grad`` only) and ``width`` (an int constant >= 1,
    ``jvp`` and ``jacfwd`` only)."""
    src = info.source
    wrt_node: ast.expr | None = None
    has_aux = False
    width = 1
    for kw in call.keywords:
        if kw.arg in ("wrt", "argnums"):
            if wrt_node is not None:
                raise src.error(
                    f"gradc.{kind}() takes wrt= or argnums= (its alias), not both", kw.value
                )
            if kw.arg == "argnums":
                items = kw.value.elts if isinstance(kw.value, ast.Tuple | ast.List) else [kw.value]
                for item in items:
                    if not (isinstance(item, ast.Constant) and type(item.value) is int):
                        raise src.error("argnums takes parameter positions (int constants)", item)
            wrt_node = kw.value
        elif kw.arg == "has_aux":
            if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                raise src.error("has_aux takes True or False", kw.value)
            has_aux = kw.value.value
            if has_aux and kind not in ("grad", "value_and_grad"):
                raise src.error(
                    f"has_aux=True goes with gradc.grad and gradc.value_and_grad, not gradc.{kind}",
                    kw.value,
                )
        elif kw.arg == "width" and kind in ("jvp", "jacfwd"):
            if not (isinstance(kw.value, ast.Constant) and type(kw.value.value) is int):
                raise src.error("width takes an int constant (tangents per sweep)", kw.value)
            width = kw.value.value
            if not 1 <= width <= MAX_WIDTH:
                raise src.error(f"width must be between 1 and {MAX_WIDTH}", kw.value)
        else:
            extra = ", width=" if kind in ("jvp", "jacfwd") else ""
            raise src.error(
                f"gradc.{kind}() got an unexpected keyword '{kw.arg}'",
                kw,
                help=f"its keywords are wrt= (or JAX's argnums=){extra} and has_aux=",
            )
    if len(call.args) == 2 and wrt_node is None:
        wrt_node = call.args[1]
    elif len(call.args) > 2 or (len(call.args) == 2 and wrt_node is not None):
        raise src.error(f"gradc.{kind}(f, wrt=...) takes one function and one wrt", call)
    return wrt_node, has_aux, width


def parameter_names(info: ModuleInfo, name: str) -> list[str]:
    """The parameter names of export or derivative declaration ``name`` as the front end
    knows them: an export's own; a derivative's primal's, then for ``jvp`` the tangents
    ``d_<name>`` of its ``wrt`` parameters (``dd_<name>`` where ``d_<name>`` is taken). (A ``vjp``'s cotangents depend on the
    inferred result type: they are reached by position only.)"""
    export = next((e for e in info.exports if e.name == name), None)
    if export is not None:
        return [a.arg for a in export.node.args.args]
    d = next(d for d in info.derivatives if d.name == name)
    params = parameter_names(info, d.target)
    if d.kind == "jvp":  # passes/ad/api.py's tangent_names: dd_x beside d_x
        names = list(params)
        for i in d.wrt:
            name = f"d_{params[i]}"
            while name in names:
                name = "d" + name
            names.append(name)
        return names
    return params


def _activity_declaration(
    info: ModuleInfo, name: str, kind: str, export: Export, call: ast.Call
) -> Derivative:
    """``gradc.reverse(f, x=gradc.Duplicated, c=gradc.Active)`` or the positional form
    ``gradc.reverse(f, gradc.Duplicated, gradc.Const, gradc.Active)`` (one annotation per
    parameter, Enzyme's order); unannotated parameters are ``Const``.
    """
    src = info.source
    params = [a.arg for a in export.node.args.args]
    annotated: dict[int, tuple[str, ast.expr]] = {}
    positional = call.args[1:]
    if len(positional) > len(params):
        raise src.error(
            f"gradc.{kind}: '{export.dispatch or export.name}' has {len(params)} parameters, "
            f"got {len(positional)} annotations",
            call,
        )
    items: list[tuple[int, ast.expr]] = list(enumerate(positional))
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params:
            raise src.error(
                f"'{export.dispatch or export.name}' has no parameter '{kw.arg}'", kw.value
            )
        index = params.index(kw.arg)
        if index < len(positional):
            raise src.error(f"parameter '{kw.arg}' is annotated twice", kw.value)
        items.append((index, kw.value))
    for index, node in items:
        activity = next((a for g, a in ACTIVITIES.items() if info.is_gradc(node, g)), None)
        if activity is None:
            raise src.error(
                f"gradc.{kind} annotates parameters with gradc.Duplicated, gradc.Active or "
                "gradc.Const",
                node,
            )
        annotated[index] = (activity, node)
    wrt: list[int] = []
    activity_of: list[str] = []
    for index in sorted(annotated):
        activity, node = annotated[index]
        if activity == "const":
            continue
        if kind == "forward" and activity == "active":
            raise src.error(
                "gradc.Active is a reverse-mode annotation; in gradc.forward a float "
                "parameter with a tangent is gradc.Duplicated",
                node,
            )
        wrt.append(index)
        activity_of.append(activity)
    if not wrt:
        raise src.error(
            f"gradc.{kind}({export.dispatch or export.name}, ...) marks no parameter Duplicated "
            "or Active",
            call,
        )
    return Derivative(name, kind, export.name, wrt, True, call, tuple(activity_of))


def derivative_callers(info: ModuleInfo) -> list[str]:
    """The exports whose code calls a derivative declaration of the module (``df(x)`` in
    a Newton step), directly or through functions of the module they call.

    Those are typed after AD has made the derivatives (``compiler/driver.py``)."""
    declared = {d.name for d in info.derivatives}
    reaches: dict[str, bool] = {}

    def names_in(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    declared |= {d.dispatch for d in info.derivatives if d.dispatch is not None}

    def reaches_derivative(name: str, seen: frozenset[str]) -> bool:
        if name not in reaches:
            used = names_in(info.functions[name])
            reaches[name] = bool(used & declared) or any(
                reaches_derivative(g, seen | {name})
                for g in sorted(used & info.functions.keys())
                if g not in seen and g != name
            )
        return reaches[name]

    return [e.name for e in info.exports if reaches_derivative(e.function, frozenset())]


class GradRequestError(ValueError):
    """A ``gradc build --grad`` request that does not fit the module (message says why)."""


def requested_derivative(info: ModuleInfo, spec: str) -> Derivative:
    """The derivative export a ``gradc build --grad SPEC`` option asks for.

    ``SPEC`` is ``f`` or ``f:x,y`` (parameter names or positions): the same as declaring
    ``d_f = gradc.grad(f, wrt=("x", "y"))`` in the module (without a list, ``wrt`` is the
    first parameter, as for ``gradc.grad(f)``). The export is named ``d_f``.

    Raises:
        GradRequestError: ``f`` is not an export of the module, a name in the list is not one
            of its parameters or is repeated, or ``d_f`` already names a function, an
            export or a derivative of the module (the message says which).
    """
    from gradc.compiler.frontend.overloads import first_overload

    target, _, wrt_text = spec.partition(":")
    target = target.strip()
    export = next((e for e in info.exports if e.name == first_overload(info, target)), None)
    if export is None or (export.dispatch is None and target != export.name):
        exports = ", ".join(dict.fromkeys(e.dispatch or e.name for e in info.exports)) or "none"
        raise GradRequestError(f"'{target}' is not an export of {info.name} (exports: {exports})")
    name = f"d_{target}"
    taken = {e.dispatch or e.name for e in info.exports}
    taken |= {d.dispatch or d.name for d in info.derivatives}
    if name in taken or name in info.functions:
        raise GradRequestError(
            f"'{name}' already exists in {info.name}; declare the derivative there"
        )
    params = [a.arg for a in export.node.args.args]
    if not wrt_text.strip():
        return Derivative(name, "grad", export.name, [0], False, export.node)
    wrt: list[int] = []
    for item in (w.strip() for w in wrt_text.split(",")):
        if item.isdigit() and int(item) < len(params):
            index = int(item)
        elif item in params:
            index = params.index(item)
        else:
            known = ", ".join(params)
            raise GradRequestError(f"'{target}' has no parameter '{item}' (parameters: {known})")
        if index in wrt:
            raise GradRequestError(f"parameter '{params[index]}' is listed twice")
        wrt.append(index)
    return Derivative(name, "grad", export.name, wrt, len(wrt) > 1, export.node)
