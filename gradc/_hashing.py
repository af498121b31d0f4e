"""``sha256`` without ``hashlib`` for short data: the interpreter's own SHA-256 (the same
digests).

``import hashlib`` loads OpenSSL's ``_hashlib`` and sets up every algorithm it offers:
~1.7 % of the instructions of a first ``gradc build``, which hashes only a few kilobytes
with SHA-256 (cache keys, blob names; issue 13, build latency). The built-in module
(``_sha256``, ``_sha2`` from Python 3.12) is CPython's own implementation, but ~5× slower
than OpenSSL's (measured here: 300 MB/s against 1.7 GB/s on 4 MiB), so data of
:data:`LARGE` bytes or more (a big build's texts and objects) goes to ``hashlib``,
imported then. An interpreter built without the built-in module uses ``hashlib`` always.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import _Hash
    from hashlib import sha256 as _builtin
else:
    try:
        from _sha256 import sha256 as _builtin
    except ImportError:  # Python 3.12+: _sha2; or no built-in SHA-2 at all
        try:
            from _sha2 import sha256 as _builtin
        except ImportError:
            from hashlib import sha256 as _builtin

__all__ = ["LARGE", "sha256"]

#: Bytes from which :func:`sha256` hashes with OpenSSL's implementation.
LARGE = 1 << 16


def sha256(data: bytes = b"") -> _Hash:
    """A SHA-256 hash object of ``data`` (``hashlib.sha256``'s interface and digests):
    the built-in implementation for fewer than :data:`LARGE` bytes, OpenSSL's for more."""
    if len(data) >= LARGE:
        import hashlib

        return hashlib.sha256(data)
    return _builtin(data)
