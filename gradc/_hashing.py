"""``sha256`` without ``hashlib``: the interpreter's own SHA-256 (the same digests).

``import hashlib`` loads OpenSSL's ``_hashlib`` and sets up every algorithm it offers:
~1.7 % of the instructions of a first ``gradc build``, which hashes only a few kilobytes
with SHA-256 (cache keys, blob names; issue 13, build latency). The built-in module
(``_sha256``, ``_sha2`` from Python 3.12) is CPython's own implementation; an
interpreter built without it uses ``hashlib``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha256 import sha256
    except ImportError:  # Python 3.12+: _sha2; or no built-in SHA-2 at all
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256

__all__ = ["sha256"]
