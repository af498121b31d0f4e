"""gradc._hashing.sha256: hashlib's digests for short data (the built-in implementation)
and for long data (OpenSSL's), and incremental updates."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from gradc._hashing import LARGE, sha256


@settings(max_examples=50, deadline=None)
@given(data=st.binary(max_size=256), extra=st.binary(max_size=64))
def test_short_data_digests_equal_hashlib(data: bytes, extra: bytes) -> None:
    h = sha256(data)
    h.update(extra)
    assert h.hexdigest() == hashlib.sha256(data + extra).hexdigest()


def test_long_data_digest_equals_hashlib() -> None:
    for n in (LARGE - 1, LARGE, 3 * LARGE + 7):
        data = bytes(range(256)) * (n // 256) + b"x" * (n % 256)
        assert sha256(data).digest() == hashlib.sha256(data).digest()
