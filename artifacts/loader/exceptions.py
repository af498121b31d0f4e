"""Exception translation: a nonzero status and its error record become a Python exception.

The record (docs/abi.md "Error record", ``gradc.artifacts.abi.layout``) names the
exception kind (``gradc.artifacts.abi.codes``), a message (a template over ``data[0..2]``
when ``data[3] == 1``) and the raise site, which the manifest entry's site table turns into
the note ``raised by compiled MODULE.NAME at FILE:LINE``.
"""

from __future__ import annotations

import contextlib
import ctypes
import struct

from gradc.artifacts.abi.codes import EXCEPTION_CLASSES
from gradc.artifacts.abi.layout import (
    ERROR_DATA_WORDS,
    ERROR_RECORD_BYTES,
    TEMPLATE_FLAG,
    TEMPLATE_FLOATS,
    TEMPLATE_SLOT,
)

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gradc.artifacts.manifest_records import AnyEntry as Entry

__all__ = ["ErrorRecord", "error_message", "format_message", "raise_error"]


class ErrorRecord(ctypes.Structure):
    """``gradc_error`` of docs/abi.md (48 bytes)."""

    _fields_ = (
        ("kind", ctypes.c_int32),
        ("site", ctypes.c_int32),  # raise site: manifest entry ``sites[site - 1]``
        ("message", ctypes.c_void_p),
        ("data", ctypes.c_int64 * ERROR_DATA_WORDS),
    )


assert ctypes.sizeof(ErrorRecord) == ERROR_RECORD_BYTES


def error_message(err: ErrorRecord) -> str:
    """The record's message, a template formatted with ``data[0..2]`` when
    ``data[3] == 1`` (ints), or ``16 + mask`` (``data[i]`` a double's bits where bit ``i``
    of ``mask`` is set); a template that does not format is shown as it is."""
    message = ctypes.string_at(err.message).decode("utf-8", "replace") if err.message else ""
    return format_message(message, list(err.data))


def format_message(message: str, data: list[int]) -> str:
    """``message`` formatted as an error record's ``data`` (its ``ERROR_DATA_WORDS``
    words) says: a template over ``data[0..2]`` (docs/abi.md "Message templates")."""
    flag = data[TEMPLATE_SLOT]
    if flag == TEMPLATE_FLAG or TEMPLATE_FLOATS <= flag < TEMPLATE_FLOATS + 8:
        mask = flag - TEMPLATE_FLOATS if flag != TEMPLATE_FLAG else 0
        words = list(data[:TEMPLATE_SLOT])
        values = [
            struct.unpack("<d", struct.pack("<q", w))[0] if mask >> i & 1 else w
            for i, w in enumerate(words)
        ]
        with contextlib.suppress(IndexError, KeyError, ValueError):
            message = message.format(*values)
    return message


def raise_error(status: int, err: ErrorRecord, qualname: str, entry: Entry) -> None:
    """Raise the exception of a call of export ``qualname`` (``module.name``) that
    returned ``status`` with record ``err``: the class of its kind (a RuntimeError naming
    an unknown kind), with a note naming the raise site when ``entry`` knows it."""
    kind = err.kind or status
    message = error_message(err)
    cls = EXCEPTION_CLASSES.get(kind)
    if cls is None:
        exc: Exception = RuntimeError(f"{message} (unknown gradc error kind {kind})")
    else:
        exc = cls(message)
    site = entry.site(err.site)
    if site is not None and site[1] > 0:
        exc.add_note(f"raised by compiled {qualname} at {site[0]}:{site[1]}")
    raise exc
