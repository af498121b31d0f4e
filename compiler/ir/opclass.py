"""``@operation``: the class decorator of every IR operation, a slotted dataclass with
identity equality (``@dataclass(eq=False, slots=True)``) whose ``__init__`` and
``__repr__`` are made on first use (:mod:`gradc._dataclass`).

``dataclasses.dataclass`` compiles each generated method from source when the class is
defined: for the ~100 operation classes, ~200 ``exec`` calls, a tenth of a first build's
instructions (issue 13, build latency), though a build constructs only a few dozen of
them. ``slots=True`` still makes each class twice (``dataclasses`` adds slots by
creating the class again): a metaclass on ``Instruction`` that gave the slots at the
first creation saved ~14 M instructions of imports, but made every ``isinstance`` test
against ``Instruction`` or an operation that fails take CPython's slow path (a Python
metaclass's ``__instancecheck__``), +1 % of the compile of even a small module.
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
