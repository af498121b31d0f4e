"""``@operation``: the class decorator of every IR operation, a slotted dataclass with
identity equality (``@dataclass(eq=False, slots=True)``) whose ``__init__`` and
``__repr__`` are made on first use (:mod:`gradc._dataclass`).

``dataclasses.dataclass`` compiles each generated method from source when the class is
defined: for the ~100 operation classes, ~200 ``exec`` calls, a tenth of a first build's
instructions (issue 13, build latency), though a build constructs only a few dozen of
them.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar, dataclass_transform

from gradc._dataclass import dataclass

_T = TypeVar("_T", bound=type)


@dataclass_transform(eq_default=False, field_specifiers=(dataclasses.field,))
def operation(cls: _T) -> _T:
    """``@dataclass(eq=False, slots=True)`` of :mod:`gradc._dataclass`: the new (slotted)
    class, its ``__init__`` compiled at its first construction."""
    return dataclass(eq=False, slots=True)(cls)
