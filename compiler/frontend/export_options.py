"""The arguments of ``@gradc.export(...)``: signature strings and per-function options.

Numba's habits, read as Numba users write them::

    @gradc.export("f64(f64, f64)")                                 # one signature
    @gradc.export(["f64(f64, f64)", "f32(f32, f32)", "i64(i64, i64)"])   # several
    @gradc.export(fastmath=True, boundscheck=False)                # options, types from
                                                                   # the annotations

Several signatures make one export per signature, each its own specialised function with
its own cache key, named :func:`overload_name` (``f.f64.f64``); the loader dispatches a
call of ``f`` among them on the argument types (``gradc.artifacts.loader.dispatch``).

``fastmath=`` and ``boundscheck=`` override the build's options (``gradc build
--fastmath`` / ``--no-boundscheck``, ``CompilerOptions``) for that export only: they
enter its key and no other export's. They apply to everything compiled into the export's
object, i.e. its own body and every helper or export it calls (inlined or not): the
caller's flags. A called export keeps its own flags in its own entry only. A derivative
export (``d_f = gradc.grad(f)``) is compiled with ``f``'s options.

Compiled code calling a function with several signatures specialises it to the argument
types like any helper (Python's semantics, no conversion): a call with one signature's
exact types calls that export's function, other types make a helper of their own.
"""

from __future__ import annotations

import ast

from gradc._dataclass import dataclass
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.ir.types import ArrayType, Type, python_name

__all__ = ["EXPORT_OPTIONS", "ExportArguments", "export_arguments", "overload_name"]

#: The per-function options ``@gradc.export`` takes, each a ``CompilerOptions`` field.
EXPORT_OPTIONS = ("fastmath", "boundscheck")

_LAYOUT_TAGS = {"A": "", "C": "c", "F": "f"}


@dataclass(frozen=True)
class ExportArguments:
    """What an ``@gradc.export(...)`` call says.

    Attributes:
        signatures: the signature strings, in order (empty: types from the annotations).
        several: the signatures were given as a list or tuple (Numba's form); a list of
            one is one signature.
        options: (option name, value) of the per-function options given, in
            :data:`EXPORT_OPTIONS` order.
    """

    signatures: tuple[str, ...]
    several: bool
    options: tuple[tuple[str, bool], ...]


def export_arguments(src: SourceFile, deco: ast.Call) -> ExportArguments:
    """Read the arguments of the decorator call ``deco`` (``@gradc.export(...)``).

    Raises:
        CompileError: at the offending argument: more than one positional argument, a
            signature that is not a string literal (or a list/tuple of them), an empty
            list, an unknown keyword, or an option value that is not ``True``/``False``.
    """
    if len(deco.args) > 1:
        raise src.error(
            "gradc.export takes one signature string or a list of them, e.g. "
            '@gradc.export(["f64(f64)", "f32(f32)"])',
            deco.args[1],
        )
    signatures: list[str] = []
    several = False
    if deco.args:
        arg = deco.args[0]
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        several = isinstance(arg, ast.List | ast.Tuple)
        if several and not items:
            raise src.error("gradc.export: the list of signatures is empty", arg)
        for item in items:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                raise src.error(
                    'a gradc.export signature is a string literal, e.g. "f64(f64, i64)"',
                    item,
                )
            signatures.append(item.value)
    options: dict[str, bool] = {}
    for kw in deco.keywords:
        if kw.arg not in EXPORT_OPTIONS:
            shown = "**" if kw.arg is None else f"{kw.arg}="
            raise src.error(
                f"gradc.export has no option {shown!r}; its options are "
                + ", ".join(f"{o}=" for o in EXPORT_OPTIONS),
                kw.value if kw.arg is None else kw,
            )
        if not (isinstance(kw.value, ast.Constant) and type(kw.value.value) is bool):
            raise src.error(
                f"gradc.export option {kw.arg}= takes True or False (a literal)", kw.value
            )
        options[kw.arg] = kw.value.value
    ordered = tuple((o, options[o]) for o in EXPORT_OPTIONS if o in options)
    return ExportArguments(tuple(signatures), several and len(signatures) > 1, ordered)


def overload_name(name: str, types: list[Type]) -> str:
    """The export name of function ``name`` specialised to parameter ``types`` when it
    has several signatures: ``f.f64.i64``; arrays as dtype, rank and layout
    (``f.f64_1d`` for ``f64[:]``, ``f.f32_2dc`` for ``f32[:, ::1]``, ``f`` suffix for
    Fortran order); ``f.void`` without parameters. Python names hold no dot, so these
    never clash with a function's name."""
    parts = []
    for t in types:
        if isinstance(t, ArrayType):
            parts.append(f"{python_name(t.dtype)}_{t.ndim}d{_LAYOUT_TAGS.get(t.layout, '')}")
        else:
            parts.append(python_name(t).replace("[", "_").replace("]", "").replace(",", "_"))
    return ".".join([name, *parts]) if parts else f"{name}.void"
