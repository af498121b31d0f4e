"""What the manifest's readers and writers share without its classes: the format version,
the file name and the blob paths (content addresses) of :mod:`gradc.artifacts.manifest`,
importable by the load path without ``dataclasses`` (issue 13: start-up).
"""

from __future__ import annotations

import re

from gradc.artifacts.errors import ArtifactError

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST_NAME",
    "TEXT_EXTENSIONS",
    "Kinds",
    "blob_sha256",
    "for_variant",
    "object_path",
    "text_path",
    "unpack",
]

#: (major, minor) of the format this module writes.
FORMAT_VERSION: tuple[int, int] = (1, 7)

MANIFEST_NAME = "manifest.msgpack"

#: Text kinds stored beside objects, and their file extensions.
TEXT_EXTENSIONS: dict[str, str] = {"ir": ".ir", "llvm": ".ll", "asm": ".s"}

_SHA = r"[0-9a-f]{64}"
_OBJECT_PATH = re.compile(rf"objects/({_SHA})\.o")
_TEXT_PATH = re.compile(rf"texts/({_SHA})\.(ir|ll|s)")


def object_path(sha256: str) -> str:
    """Relative path of an object blob: ``objects/<sha256>.o``."""
    return f"objects/{sha256}.o"


def text_path(sha256: str, kind: str) -> str:
    """Relative path of a text blob: ``texts/<sha256>.ir`` (``.ll`` for llvm, ``.s`` for asm)."""
    return f"texts/{sha256}{TEXT_EXTENSIONS[kind]}"


def blob_sha256(relpath: str) -> str:
    """The sha256 named by a blob's relative path (the content address).

    Raises:
        ArtifactError: the path is not ``objects/<sha>.o`` or ``texts/<sha>.<ext>`` (this
            also refuses absolute paths and ``..`` in a hostile manifest).
    """
    m = _OBJECT_PATH.fullmatch(relpath) or _TEXT_PATH.fullmatch(relpath)
    if m is None:
        from gradc.artifacts.cuda_manifest import CUDA_BLOB_PATH

        m = CUDA_BLOB_PATH.fullmatch(relpath)
    if m is None:
        raise ArtifactError(f"invalid blob path {relpath!r} in manifest")
    return m.group(1)


class Kinds:
    """The classes a manifest reader builds (``gradc.artifacts.manifest_schema``): the
    dataclasses of :mod:`gradc.artifacts.manifest`, or the slotted records of
    :mod:`gradc.artifacts.manifest_records` that the loader reads (issue 13: start-up).
    Each is called with the fields of its namesake in ``gradc.artifacts.manifest``
    (``Entry`` and ``Manifest`` by keyword)."""

    __slots__ = (
        "entry",
        "entry_signature",
        "entry_variant",
        "manifest",
        "producer",
        "runtime",
        "target",
        "wrapper",
    )

    def __init__(
        self,
        producer: Any,
        target: Any,
        runtime: Any,
        wrapper: Any,
        entry_variant: Any,
        entry_signature: Any,
        entry: Any,
        manifest: Any,
    ) -> None:
        self.producer = producer
        self.target = target
        self.runtime = runtime
        self.wrapper = wrapper
        self.entry_variant = entry_variant
        self.entry_signature = entry_signature
        self.entry = entry
        self.manifest = manifest


def unpack(data: bytes, where: str) -> object:
    """The msgpack data of manifest bytes read from ``where`` (named in errors).

    Raises:
        ArtifactError: the data is truncated or not msgpack.
    """
    import msgpack

    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated exception types
        raise ArtifactError(f"{where} is truncated or corrupt ({exc})") from exc


def for_variant(manifest: Any, index: int, replace: Callable[..., Any]) -> Any:
    """``manifest`` as if built for CPU variant ``index`` alone: that variant's target and,
    in every entry, its symbol, object, sha256, key and wrapper. One rule for the dataclass
    manifest (``replace`` is ``dataclasses.replace``) and the load path's records
    (``replace`` calls ``_replace``), so the two cannot drift.

    Raises:
        IndexError: no such variant.
    """
    if not manifest.variants:
        if index != 0:
            raise IndexError(f"variant {index} of a single-variant artifact")
        return manifest
    entries = tuple(
        replace(
            e,
            symbol=v.symbol,
            object=v.object,
            sha256=v.sha256,
            key=v.key,
            wrapper=v.wrapper,
            variants=(),
        )
        for e in manifest.entries
        for v in (e.variants[index],)
    )
    return replace(manifest, target=manifest.variants[index], entries=entries, variants=())
