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
from gradc.artifacts.manifest_paths import MANIFEST_NAME, blob_sha256

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gradc.artifacts import manifest_records
    from gradc.artifacts.manifest import Manifest

try:  # CPython's own SHA-256: ``hashlib`` loads OpenSSL's libcrypto first (~3 ms at start-up)
    from _sha2 import sha256 as _builtin_sha256  # type: ignore[import-not-found]  # >= 3.12
except ImportError:
    try:
        from _sha256 import sha256 as _builtin_sha256  # type: ignore[import-not-found]
    except ImportError:  # a CPython built without it: hashlib's
        _builtin_sha256 = None

__all__ = ["read_blob", "read_manifest", "read_records"]

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
    from gradc.artifacts.manifest import Manifest

    path, data = _manifest_bytes(art_dir)
    return Manifest.decode(data, str(path))


def read_records(art_dir: str | os.PathLike[str]) -> manifest_records.Manifest:
    """:func:`read_manifest` as the loader's records (``gradc.artifacts.manifest_records``:
    the same checks and errors, without importing ``dataclasses``).

    Raises:
        ArtifactError, FormatVersionError: as :func:`read_manifest`.
    """
    from gradc.artifacts.manifest_records import decode

    path, data = _manifest_bytes(art_dir)
    return decode(data, str(path))


def _manifest_bytes(art_dir: str | os.PathLike[str]) -> tuple[Path, bytes]:
    """The path and bytes of ``art_dir/manifest.msgpack`` (ArtifactError naming it)."""
    path = Path(art_dir) / MANIFEST_NAME
    try:
        return path, path.read_bytes()
    except FileNotFoundError:
        if not Path(art_dir).exists():
            raise ArtifactError(f"no artifact at {art_dir} (directory does not exist)") from None
        raise ArtifactError(f"{path} is missing: not a gradc artifact") from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {path}: {exc}") from exc


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
