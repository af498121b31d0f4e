"""Reading an artifact directory: its manifest and its sha256-verified blobs.

What the loader needs at run time, apart from :mod:`gradc.artifacts.store` (which writes
artifacts and imports what writing needs), so that a process that only loads an artifact
imports no more than this (issue 13: start-up time). ``gradc.artifacts.store`` re-exports
both functions.
"""

from __future__ import annotations

import os
from pathlib import Path

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import MANIFEST_NAME, Manifest, blob_sha256

try:  # CPython's own SHA-256: ``hashlib`` loads OpenSSL's libcrypto first (~3 ms at start-up)
    from _sha2 import sha256 as _builtin_sha256  # type: ignore[import-not-found]  # >= 3.12
except ImportError:
    try:
        from _sha256 import sha256 as _builtin_sha256  # type: ignore[import-not-found]
    except ImportError:  # a CPython built without it: hashlib's
        _builtin_sha256 = None

__all__ = ["read_blob", "read_manifest"]

#: Blobs of more bytes than this are hashed by ``hashlib`` (OpenSSL's, faster per byte).
_LARGE_BLOB = 1 << 20


def _sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of ``data``: the builtin module's for small blobs, so that loading
    a typical artifact does not load OpenSSL; ``hashlib``'s for large ones."""
    if _builtin_sha256 is not None and len(data) <= _LARGE_BLOB:
        return _builtin_sha256(data).hexdigest()  # type: ignore[no-any-return]
    import hashlib

    return hashlib.sha256(data).hexdigest()


def read_manifest(art_dir: str | os.PathLike[str]) -> Manifest:
    """Read and validate ``art_dir/manifest.msgpack``.

    Raises:
        ArtifactError: no artifact there, or the manifest is truncated/corrupt (the
            message names the file).
        FormatVersionError: written by a gradc with another major format version.
    """
    path = Path(art_dir) / MANIFEST_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if not Path(art_dir).exists():
            raise ArtifactError(f"no artifact at {art_dir} (directory does not exist)") from None
        raise ArtifactError(f"{path} is missing: not a gradc artifact") from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {path}: {exc}") from exc
    return Manifest.decode(data, str(path))


def read_blob(art_dir: str | os.PathLike[str], relpath: str) -> bytes:
    """Read a blob (``objects/<sha>.o``, ``texts/<sha>.ll`` ...) and verify its sha256.

    Raises:
        ArtifactError: the blob is missing or its content does not hash to its name
            (corrupt or truncated); the message names the file.
    """
    expected = blob_sha256(relpath)
    path = Path(art_dir) / relpath
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ArtifactError(f"{path} is missing") from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {path}: {exc}") from exc
    actual = _sha256_hex(data)
    if actual != expected:
        raise ArtifactError(
            f"{path} is corrupt or truncated: sha256 {actual[:16]}… != expected {expected[:16]}…"
        )
    return data
