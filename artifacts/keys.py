"""Canonical encoding and cache keys (DESIGN.md §5).

:func:`canonical_encode` turns a nested value into bytes that depend only on the value:
map keys are sorted (by their encoding), every item carries a type tag, and nothing
depends on Python's ``hash()``, ``id()``, dict insertion order or the process. Equal
values encode equally; values of different types never collide (``1``, ``1.0``, ``True``
and ``"1"`` all differ).

Grammar (``n`` is a decimal ASCII length or count):

=========== =================================================
``None``    ``N``
``bool``    ``T`` / ``F``
``int``     ``i`` decimal ``;``
``float``   ``d`` 8 bytes IEEE-754 big-endian (``-0.0 != 0.0``; NaNs by bit pattern)
``str``     ``s`` n ``:`` UTF-8 bytes
``bytes``   ``b`` n ``:`` bytes
list/tuple  ``l`` n ``:`` items (tuples encode as lists)
``dict``    ``m`` n ``:`` (key, value) pairs sorted by the key's encoding
=========== =================================================
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Mapping

from gradc._hashing import sha256

#: Prefix of every key's hash input; bump it when the encoding changes.
KEY_DOMAIN = b"gradc-key-v1\x00"


def canonical_encode(obj: object) -> bytes:
    """Encode ``obj`` canonically (see the module docstring for the grammar).

    Raises:
        TypeError: ``obj`` contains a value of another type (a set, an object, a numpy
            scalar that is not a float subclass ...), naming the type and where it is.
        ValueError: two map keys encode equally.
    """
    out = bytearray()
    _encode(obj, out, "value")
    return bytes(out)


def sha256_key(obj: object) -> str:
    """The hex sha256 of ``KEY_DOMAIN + canonical_encode(obj)`` (64 lowercase hex digits)."""
    return sha256(KEY_DOMAIN + canonical_encode(obj)).hexdigest()


def _encode(obj: object, out: bytearray, where: str) -> None:
    if obj is None:
        out += b"N"
    elif obj is True:
        out += b"T"
    elif obj is False:
        out += b"F"
    elif isinstance(obj, bool):  # a bool subclass that is neither True nor False: impossible
        raise TypeError(f"cannot encode {type(obj).__name__} at {where}")
    elif isinstance(obj, int):
        out += b"i%d;" % int(obj)
    elif isinstance(obj, float):
        out += b"d" + struct.pack(">d", float(obj))
    elif isinstance(obj, str):
        data = str(obj).encode("utf-8")
        out += b"s%d:" % len(data)
        out += data
    elif isinstance(obj, bytes | bytearray | memoryview):
        data = bytes(obj)
        out += b"b%d:" % len(data)
        out += data
    elif isinstance(obj, list | tuple):
        out += b"l%d:" % len(obj)
        for i, item in enumerate(obj):
            _encode(item, out, f"{where}[{i}]")
    elif isinstance(obj, Mapping):
        pairs: list[tuple[bytes, bytes]] = []
        for key, value in obj.items():
            k = bytearray()
            _encode(key, k, f"{where} key {key!r}")
            v = bytearray()
            _encode(value, v, f"{where}[{key!r}]")
            pairs.append((bytes(k), bytes(v)))
        pairs.sort()
        for a, b in itertools.pairwise(pairs):
            if a[0] == b[0]:
                raise ValueError(f"two keys of the map at {where} encode equally")
        out += b"m%d:" % len(pairs)
        for k_bytes, v_bytes in pairs:
            out += k_bytes
            out += v_bytes
    else:
        raise TypeError(f"cannot encode {type(obj).__name__} at {where} in a cache key")
