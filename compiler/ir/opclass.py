"""``@operation``: the class decorator of every IR operation, a slotted dataclass with
identity equality (``@dataclass(eq=False, slots=True)``) whose ``__init__`` and
``__repr__`` are made on first use (:mod:`gradc._dataclass`); and
:class:`OperationMeta`, the metaclass of ``Instruction``, which gives an operation its
``__slots__`` as the class is created.

``dataclasses.dataclass`` compiles each generated method from source when the class is
defined: for the ~100 operation classes, ~200 ``exec`` calls, a tenth of a first build's
instructions (issue 13, build latency), though a build constructs only a few dozen of
them. And ``slots=True`` creates each class a second time, with ``__slots__``: the
metaclass decides the slots from the class body first (``gradc._dataclass_fields.
presplit``), so the class is created once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, dataclass_transform

from gradc._dataclass import dataclass
from gradc._dataclass_fields import DEFAULTS, presplit

_T = TypeVar("_T", bound=type)


class OperationMeta(type):
    """The metaclass of ``Instruction``: a subclass (an operation, declared with
    :func:`operation`) is created with the ``__slots__`` ``dataclass(slots=True)`` would
    give it, its fields' class-body values (defaults, ``field()``) kept aside for
    :func:`operation` (``gradc._dataclass_fields.DEFAULTS``). A class body
    ``gradc._dataclass_fields`` does not cover is created as written (``dataclasses``
    then adds the slots)."""

    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> OperationMeta:
        if bases and isinstance(bases[0], OperationMeta):
            split = presplit(bases, namespace)
            if split is not None:
                slots, kept = split
                for field_name in kept[0]:
                    del namespace[field_name]
                namespace["__slots__"] = slots
                namespace[DEFAULTS] = kept
        return super().__new__(mcs, name, bases, namespace, **kwargs)


@dataclass_transform(eq_default=False, field_specifiers=(dataclasses.field,))
def operation(cls: _T) -> _T:
    """``@dataclass(eq=False, slots=True)`` of :mod:`gradc._dataclass`: the (slotted)
    class, its ``__init__`` compiled at its first construction."""
    return dataclass(eq=False, slots=True)(cls)
