"""Pass options: the inside of ``name{key=value key=v1,v2}`` as a frozen dataclass.

Each pass that takes options declares them as a frozen dataclass whose fields are
``str``, ``bool`` (spelled ``true``/``false``), ``int`` (non-negative, in decimal) or
``tuple[str, ...]`` (spelled ``v1,v2``); fields without a default are required. :func:`parse_options` builds it from
the text; the pass registry (:mod:`gradc.passes.registry`) binds it into the pass.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import TypeVar

OptionsT = TypeVar("OptionsT")


class PassOptionError(ValueError):
    """Pass options that do not parse or do not fit the module (the message says which)."""


def parse_options(name: str, cls: type[OptionsT], text: str) -> OptionsT:
    """``cls`` (a frozen dataclass) from ``key=value`` items separated by spaces.

    Raises:
        PassOptionError: an unknown or repeated key, an item without ``=``, a bad
            ``bool``, a missing required field, or a ``ValueError`` of the dataclass.
    """
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, object] = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq:
            raise PassOptionError(f"{name}: option {item!r} is not key=value")
        if key not in fields:
            known = ", ".join(fields)
            raise PassOptionError(f"{name}: unknown option {key!r} (options: {known})")
        if key in values:
            raise PassOptionError(f"{name}: option {key!r} given twice")
        values[key] = _option_value(name, key, hints[key], value)
    missing = [
        f.name
        for f in fields.values()
        if f.name not in values
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise PassOptionError(f"{name}: missing option {missing[0]}=...")
    try:
        return cls(**values)
    except ValueError as exc:
        raise PassOptionError(f"{name}: {exc}") from None


def _option_value(name: str, key: str, t: object, value: str) -> object:
    if t is bool:
        if value not in ("true", "false"):
            raise PassOptionError(f"{name}: option {key} is true or false, not {value!r}")
        return value == "true"
    if t == tuple[str, ...]:
        return tuple(v for v in value.split(",") if v)
    if t is int:
        if not value.isdigit():
            raise PassOptionError(f"{name}: option {key} is a non-negative integer, not {value!r}")
        return int(value)
    return value
