"""What ``dataclasses.dataclass(cls, init=False, repr=False, eq=False, ...)`` does to a
class, done without the decorator (:func:`process`): its fields,
``__dataclass_fields__``, ``__dataclass_params__``, ``__match_args__``, docstring, and
for ``slots=True`` the slotted class made from it.

``dataclasses`` spends ~300,000 instructions on each class it processes: with ~300
dataclasses imported, a fifth of a first ``gradc build`` (issue 13, build latency). This
module covers the classes gradc declares: string annotations (``from __future__ import
annotations``) naming plain types or ``ClassVar``. For anything else (``InitVar``,
``KW_ONLY``, a frozen dataclass base, a mutable default, ``order``, ``weakref_slot``,
slots on Python other than 3.11, whose ``dataclasses`` make them differently ...)
:func:`process` returns None and :mod:`gradc._dataclass` calls ``dataclasses``, whose
result and errors are the reference. ``tests/test_dataclass_fields.py`` compares the two
for every dataclass of the package.
"""

from __future__ import annotations

import abc
import dataclasses
import re
import sys
import types
from collections.abc import Mapping
from dataclasses import MISSING, Field
from typing import Any, ClassVar

__all__ = ["process"]

#: ``dataclasses``' pattern of a string annotation's leading ``module.name``.
_MODULE_IDENTIFIER = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")


@dataclasses.dataclass
class _Probe:
    marker: ClassVar[int] = 0
    value: int = 0


# dataclasses' markers of a field's kind and its parameters' class, read off a probe
_PROBE_FIELDS: dict[str, Any] = _Probe.__dataclass_fields__
_FIELD: object = _PROBE_FIELDS["value"]._field_type
_CLASSVAR: object = _PROBE_FIELDS["marker"]._field_type
_PARAMS_TYPE: type = type(getattr(_Probe, "__dataclass_params__"))  # noqa: B009 (typed)
_PARAM_NAMES: tuple[str, ...] = tuple(getattr(_PARAMS_TYPE, "__slots__", ()))
_GENERIC_ALIAS = type(ClassVar[int])
_TYPING = sys.modules["typing"]
_INITVAR = dataclasses.InitVar
_KW_ONLY = dataclasses.KW_ONLY
#: annotation text -> its leading ``(module, name)`` (``(None, None)``: none), memoised
_SPLITS: dict[str, tuple[str | None, str | None]] = {}


def _kind(annotation: object, module: dict[str, Any]) -> object | None:
    """``_FIELD`` or ``_CLASSVAR``, as ``dataclasses`` decide it (for a string, its
    leading name looked up in the class's module, or a ``typing.``/``dataclasses.`` name
    through the module's import of them); None for ``InitVar`` and ``KW_ONLY``, left to
    ``dataclasses``."""
    if isinstance(annotation, str):
        split = _SPLITS.get(annotation)
        if split is None:
            match = _MODULE_IDENTIFIER.match(annotation)
            split = _SPLITS[annotation] = (match[1], match[2]) if match else (None, None)
        prefix, name = split
        if name is None:
            return _FIELD
        if prefix:
            owner = module.get(prefix)
            if owner is not _TYPING and owner is not dataclasses:
                return _FIELD
            named = vars(owner).get(name)
        else:
            named = module.get(name)
    else:
        named = annotation
    alias: Any = named  # a typing alias: its __origin__
    if named is ClassVar or (type(named) is _GENERIC_ALIAS and alias.__origin__ is ClassVar):
        return _CLASSVAR
    if named is _INITVAR or type(named) is _INITVAR or named is _KW_ONLY:
        return None
    return _FIELD


#: ``(name, annotation, kind, class-body value)`` of one annotation.
Classified = tuple[str, object, object, object]


def _classify(
    module: dict[str, Any], annotations: Mapping[str, object], values: Mapping[str, object]
) -> list[Classified] | None:
    """``(name, annotation, kind, class-body value)`` of each annotation, in order, the
    checks of ``dataclasses._get_field`` passed; None when ``dataclasses`` must decide
    or raise. Changes nothing."""
    out = []
    for name, annotation in annotations.items():
        kind = _kind(annotation, module)
        if kind is None:
            return None
        value = values.get(name, MISSING)
        if isinstance(value, Field):
            if kind is _CLASSVAR and (
                value.default_factory is not MISSING or value.kw_only is not MISSING
            ):
                return None  # dataclasses raise
            default = value.default
        else:
            default = MISSING if isinstance(value, types.MemberDescriptorType) else value
        if kind is _FIELD and default.__class__.__hash__ is None:
            return None  # a mutable default: dataclasses raise
        out.append((name, annotation, kind, value))
    if any(isinstance(v, Field) and k not in annotations for k, v in values.items()):
        return None  # a field() without an annotation: dataclasses raise
    return out


def _make_fields(classified: list[Classified], kw_only: bool) -> list[Field[Any]]:
    """The ``Field`` of each classified annotation (``dataclasses._get_field``): the
    class body's ``field()`` completed, or a new one of the default."""
    fields = []
    for name, annotation, kind, value in classified:
        if isinstance(value, Field):
            f = value
        else:
            if isinstance(value, types.MemberDescriptorType):
                value = MISSING
            f = dataclasses.field(default=value)  # type: ignore[arg-type]
        f.name, f.type, f._field_type = name, annotation, kind  # type: ignore[attr-defined]
        if kind is _FIELD and f.kw_only is MISSING:
            f.kw_only = kw_only
        fields.append(f)
    return fields


def _base_fields(mro: tuple[type, ...]) -> tuple[dict[str, Field[Any]], bool, bool]:
    """The fields of the dataclasses of ``mro`` (a class's, without itself), later
    ones first as ``dataclasses`` (they win), whether there are any and whether one is
    frozen."""
    fields: dict[str, Field[Any]] = {}
    found = frozen = False
    for c in mro[::-1]:
        base_fields = getattr(c, "__dataclass_fields__", None)
        if base_fields is not None:
            found = True
            for f in base_fields.values():
                fields[f.name] = f
            frozen = frozen or getattr(c, "__dataclass_params__").frozen  # noqa: B009
    return fields, found, frozen


def _base_fields_of(base: type) -> tuple[dict[str, Field[Any]], bool, bool]:
    """:func:`_base_fields` of a class whose only base is ``base`` (a copy), memoised
    per base dataclass (its ``__dataclass_fields__`` are final once the decorator made
    it)."""
    known = _BASES.get(base)
    if known is None:
        known = _base_fields(base.__mro__)
        if "__dataclass_fields__" in base.__dict__:
            _BASES[base] = known
    return dict(known[0]), known[1], known[2]


_BASES: dict[type, tuple[dict[str, Field[Any]], bool, bool]] = {}


def _inherited_slots(cls: type) -> set[str] | None:
    """The slots of ``cls``'s bases (``dataclasses._add_slots``'s ``_get_slots``); None
    when ``dataclasses`` must decide (a base's ``__slots__`` is an iterator: it raises)."""
    taken: set[str] = set()
    for c in cls.__mro__[1:-1]:
        slots = c.__dict__.get("__slots__")
        if slots is None:
            continue
        if isinstance(slots, str):
            taken.add(slots)
        elif hasattr(slots, "__next__"):
            return None
        else:
            taken.update(slots)
    return taken


def _slotted(cls: type, fields: dict[str, Field[Any]], inherited: set[str]) -> type:
    """The class ``dataclasses._add_slots`` (Python 3.11) makes of processed ``cls``:
    created again with ``__slots__`` (its fields' names, less the bases' slots), without
    the fields' class attributes and its ``__dict__``/``__weakref__`` descriptors."""
    body = dict(cls.__dict__)
    names = tuple(f.name for f in fields.values() if f._field_type is _FIELD)  # type: ignore[attr-defined]
    body["__slots__"] = tuple(n for n in names if n not in inherited)
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    qualname = getattr(cls, "__qualname__", None)
    new: type = type(cls)(cls.__name__, cls.__bases__, body)
    if qualname is not None:
        new.__qualname__ = qualname
    return new


def process(cls: type, params: Mapping[str, bool]) -> type | None:
    """The class ``dataclasses.dataclass(cls, **params)`` would make with ``init``,
    ``repr``, ``eq`` and ``unsafe_hash`` False and ``frozen`` False (no methods made),
    ``params`` (the ten options of ``dataclass``) its ``__dataclass_params__``: ``cls``
    itself, or with ``slots`` a new class. None, with ``cls`` unchanged, when
    ``dataclasses`` must make it (see the module docstring)."""
    if params["order"] or params["weakref_slot"]:
        return None
    inherited = _inherited_slots(cls) if params["slots"] else set()
    if inherited is None or (params["slots"] and sys.version_info[:2] != (3, 11)):
        return None
    if params["slots"] and "__slots__" in cls.__dict__:
        return None  # dataclasses raise
    module = sys.modules.get(cls.__module__)
    bases = cls.__bases__
    found = _base_fields_of(bases[0]) if len(bases) == 1 else _base_fields(cls.__mro__[1:])
    fields, has_bases, frozen_base = found
    if module is None or (has_bases and (frozen_base or params["frozen"])):
        return None  # dataclasses check frozenness and make the frozen methods
    if not _PARAM_NAMES or not set(_PARAM_NAMES) <= params.keys():
        return None
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (as dataclasses)
    classified = _classify(vars(module), annotations, _class_values(cls, annotations))
    if classified is None:
        return None
    record: Any = object.__new__(_PARAMS_TYPE)
    for name in _PARAM_NAMES:
        setattr(record, name, params[name])
    cls.__dataclass_params__ = record  # type: ignore[attr-defined]
    for f in _make_fields(classified, params["kw_only"]):
        fields[f.name] = f
        if isinstance(getattr(cls, f.name, None), Field):
            if f.default is MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    cls.__dataclass_fields__ = fields  # type: ignore[attr-defined]
    if not cls.__doc__:
        cls.__doc__ = cls.__name__ + _text_signature(cls)
    if params["match_args"] and "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(  # type: ignore[attr-defined,misc]
            f.name
            for f in fields.values()
            if f._field_type is _FIELD and f.init and not f.kw_only  # type: ignore[attr-defined]
        )
    if params["slots"]:
        cls = _slotted(cls, fields, inherited)
    abc.update_abstractmethods(cls)
    return cls


def _class_values(cls: type, annotations: Mapping[str, object]) -> dict[str, object]:
    """The class attributes a dataclass takes defaults from (``getattr``: inherited
    ones too), and the class body's ``field()`` objects."""
    values = {name: getattr(cls, name, MISSING) for name in annotations}
    values.update({k: v for k, v in cls.__dict__.items() if isinstance(v, Field)})
    return values


def _text_signature(cls: type) -> str:
    """``dataclasses``' docstring of a class without one: its signature's text."""
    import inspect

    try:
        return str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return ""
