"""Derivative declarations: ``d_f = gradc.grad(f, wrt=...)`` and ``gradc build --grad``.

A module declares a derivative export by assigning one of :data:`DERIVATIVE_KINDS` applied
to an export defined above it: ``wrt`` names parameters (names or positions; JAX's
default, the first, without it), or, for ``gradc.reverse``/``gradc.forward``, each
parameter gets an activity annotation (docs/ad.md). ``gradc build --grad f:x,y`` asks for
the same as ``d_f = gradc.grad(f, wrt=("x", "y"))`` from the command line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradc.compiler.frontend.exports import Export
    from gradc.compiler.frontend.module_scan import ModuleInfo

#: ``gradc`` functions that declare a derivative export: ``d_f = gradc.grad(f, wrt=...)``.
#: ``reverse``/``forward`` are the low-level, Enzyme-style forms (docs/ad.md): one activity
#: annotation per parameter instead of ``wrt``.
DERIVATIVE_KINDS = ("grad", "value_and_grad", "jvp", "vjp", "reverse", "forward")

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
    """

    name: str
    kind: str
    target: str
    wrt: list[int]
    wrt_sequence: bool
    node: ast.expr | ast.stmt
    activity: tuple[str, ...] = ()


#: Keywords of JAX's and others' derivative functions -> what gradc says instead.
_KEYWORD_HELP = {
    "argnums": "gradc's wrt= takes parameter positions or names, as JAX's argnums does: "
    'wrt=0, wrt=(0, 1) or wrt=("x", "w")',
    "has_aux": "return the auxiliary value from another export; wrt= is the only keyword",
}


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
    target = value.args[0].id
    export = next((e for e in info.exports if e.name == target), None)
    if export is None:
        raise src.error(
            f"gradc.{kind} needs an exported function defined above it; "
            f"'{target}' is not one (add @gradc.export with parameter types)",
            value.args[0],
        )
    if kind in ("reverse", "forward"):
        return _activity_declaration(info, targets[0].id, kind, export, value)
    wrt_node: ast.expr | None = None
    for kw in value.keywords:
        if kw.arg != "wrt":
            raise src.error(
                f"gradc.{kind}() got an unexpected keyword '{kw.arg}'",
                kw,
                help=_KEYWORD_HELP.get(kw.arg or "", "its only keyword is wrt="),
            )
        wrt_node = kw.value
    if len(value.args) == 2 and wrt_node is None:
        wrt_node = value.args[1]
    elif len(value.args) > 2 or (len(value.args) == 2 and wrt_node is not None):
        raise src.error(f"gradc.{kind}(f, wrt=...) takes one function and one wrt", value)
    params = [a.arg for a in export.node.args.args]
    if wrt_node is None:  # JAX's default: the first parameter
        return Derivative(targets[0].id, kind, target, [0], False, value)
    sequence = isinstance(wrt_node, ast.Tuple | ast.List)
    items = wrt_node.elts if isinstance(wrt_node, ast.Tuple | ast.List) else [wrt_node]
    wrt: list[int] = []
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            if item.value not in params:
                raise src.error(f"'{target}' has no parameter '{item.value}'", item)
            index = params.index(item.value)
        elif isinstance(item, ast.Constant) and type(item.value) is int:
            index = item.value
            if not 0 <= index < len(params):
                raise src.error(f"'{target}' has no parameter at position {index}", item)
        else:
            raise src.error("wrt takes parameter names or positions (constants)", item)
        if index in wrt:
            raise src.error(f"parameter '{params[index]}' is listed twice in wrt", item)
        wrt.append(index)
    if not wrt:
        raise src.error(
            f"gradc.{kind}: wrt selects no parameter of '{target}'; name at least one "
            "(or leave wrt out for the first)",
            wrt_node,
        )
    return Derivative(targets[0].id, kind, target, wrt, sequence, value)


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
            f"gradc.{kind}: '{export.name}' has {len(params)} parameters, "
            f"got {len(positional)} annotations",
            call,
        )
    items: list[tuple[int, ast.expr]] = list(enumerate(positional))
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params:
            raise src.error(f"'{export.name}' has no parameter '{kw.arg}'", kw.value)
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
            f"gradc.{kind}({export.name}, ...) marks no parameter Duplicated or Active", call
        )
    return Derivative(name, kind, export.name, wrt, True, call, tuple(activity_of))


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
    target, _, wrt_text = spec.partition(":")
    target = target.strip()
    export = next((e for e in info.exports if e.name == target), None)
    if export is None:
        exports = ", ".join(e.name for e in info.exports) or "none"
        raise GradRequestError(f"'{target}' is not an export of {info.name} (exports: {exports})")
    name = f"d_{target}"
    taken = {e.name for e in info.exports} | {d.name for d in info.derivatives}
    if name in taken or name in info.functions:
        raise GradRequestError(
            f"'{name}' already exists in {info.name}; declare the derivative there"
        )
    params = [a.arg for a in export.node.args.args]
    if not wrt_text.strip():
        return Derivative(name, "grad", target, [0], False, export.node)
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
    return Derivative(name, "grad", target, wrt, len(wrt) > 1, export.node)
