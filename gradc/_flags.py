"""The one rule for gradc's environment flags (``GRADC_PLAIN_PYTHON``, ``GRADC_NO_COMPILE``,
``GRADC_FASTCALL``, ``GRADC_REMOTE_CACHE_READONLY``; ``GRADC_LOG`` reads its off values
the same way). Standard library only: the loader and ``import gradc`` use it."""

from __future__ import annotations

#: Values (stripped, any case) that mean "off"; ``""`` also means "not set".
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


def flag_value(value: str | None, default: bool = False) -> bool:
    """A flag's value: ``default`` when ``value`` is None (unset) or blank; False for
    ``0``, ``false``, ``no``, ``off`` in any case; True for anything else (``1``, ``yes``,
    ``on``, ``true``)."""
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in FALSE_WORDS
