"""The resolved annotations of some fields of a class: ``typing.get_type_hints(cls,
include_extras=True)`` restricted to the names asked for.

``get_type_hints`` evaluates every annotation of every class of the MRO, compiling each
string annotation anew; an operation class's printed fields (``printer.operation_fields``)
need only its own, not the base ``Instruction``'s, which every operation shares. Their
first use per class and process was a third of the ``passes`` stage of a small build
(the verifier reads them) and 1-2% of a first build (issue 13, build latency).
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Collection
from typing import Any


def field_hints(cls: type, names: Collection[str]) -> dict[str, Any]:
    """The resolved annotations of the fields ``names`` of ``cls``, as
    ``typing.get_type_hints(cls, include_extras=True)`` gives them (each from the class of
    the MRO that annotates it last, in the globals of its module and the namespace of its
    class, looked up in that order as ``get_type_hints`` does; a bare ``None`` is
    ``NoneType``). An annotation that does not evaluate to a fully resolved type (a quoted
    name inside it) is left to ``get_type_hints`` itself.

    Raises:
        NameError, SyntaxError, TypeError: as ``get_type_hints`` for an annotation that
            does not evaluate.
    """
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        annotations = inspect.get_annotations(base)
        wanted = [(name, value) for name, value in annotations.items() if name in names]
        if not wanted:
            continue
        module = getattr(sys.modules.get(base.__module__), "__dict__", {})
        namespace = dict(vars(base))
        for name, value in wanted:
            if value is None:
                value = type(None)
            elif isinstance(value, str):
                # get_type_hints' order for classes: the module's names before the class's
                value = eval(value, namespace, module)
                value = type(None) if value is None else value
            if not _resolved(value):
                return {
                    n: t
                    for n, t in typing.get_type_hints(cls, include_extras=True).items()
                    if n in names
                }
            hints[name] = value
    return hints


def _resolved(hint: object) -> bool:
    """No string or ``ForwardRef`` anywhere inside ``hint``."""
    if isinstance(hint, str | typing.ForwardRef):
        return False
    metadata = getattr(hint, "__metadata__", None)  # Annotated's metadata may be strings
    if metadata is not None:
        return _resolved(typing.get_args(hint)[0])
    return all(_resolved(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)
