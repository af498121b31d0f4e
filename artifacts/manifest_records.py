"""The manifest as the loader reads it: slotted records of the fields of
:mod:`gradc.artifacts.manifest`'s dataclasses, validated by the same schema
(:func:`gradc.artifacts.manifest_schema.manifest_from_dict`: the same checks and errors),
built without importing ``dataclasses`` or ``inspect`` (issue 13: start-up time).

Each record has its namesake's fields, in the same order, and the methods the loader
uses (:meth:`Manifest.for_variant`, :meth:`Manifest.targets`, :meth:`Entry.site`,
``EntrySignature.abi``); :meth:`Manifest.full` is the dataclass
``gradc.artifacts.manifest.Manifest`` of the same fields (what ``Library.manifest``
returns, built when asked).
"""

from __future__ import annotations

from gradc.artifacts.abi.signature import Signature
from gradc.artifacts.abi.types import Record
from gradc.artifacts.manifest_paths import MANIFEST_NAME, Kinds, for_variant, unpack

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from gradc.artifacts import manifest as dc
    from gradc.artifacts.cuda_manifest import CudaSection

    #: What the loader's functions take: the dataclasses or these records.
    AnyEntry: TypeAlias = "dc.Entry | Entry"
    AnyManifest: TypeAlias = "dc.Manifest | Manifest"
    AnyTarget: TypeAlias = "dc.Target | Target"

__all__ = ["Entry", "EntrySignature", "Manifest", "Target", "decode"]


class _Fields(Record):
    """A :class:`Record` built from its fields, positionally or by keyword (all given)."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        values = dict(zip(fields, args))
        values.update(kwargs)
        if len(values) != len(fields) or len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes the fields {fields}")
        for name in fields:
            object.__setattr__(self, name, values[name])

    def _replace(self, **changes: Any) -> Any:
        return type(self)(**{n: changes.get(n, getattr(self, n)) for n in self._fields})


class Producer(_Fields):
    """``gradc.artifacts.manifest.Producer``'s fields."""

    __slots__ = _fields = ("gradc", "llvmlite", "llvm")
    gradc: str
    llvmlite: str
    llvm: str


class Target(_Fields):
    """``gradc.artifacts.manifest.Target``'s fields."""

    __slots__ = _fields = ("triple", "cpu", "features")
    triple: str
    cpu: str
    features: str


class Runtime(_Fields):
    """``gradc.artifacts.manifest.Runtime``'s fields."""

    __slots__ = _fields = ("abi", "object", "sha256", "key")
    abi: str
    object: str
    sha256: str
    key: str


class Wrapper(_Fields):
    """``gradc.artifacts.manifest.Wrapper``'s fields."""

    __slots__ = _fields = ("symbol", "object", "sha256")
    symbol: str
    object: str
    sha256: str


class EntryVariant(_Fields):
    """``gradc.artifacts.manifest.EntryVariant``'s fields."""

    __slots__ = _fields = ("symbol", "object", "sha256", "key", "wrapper")
    symbol: str
    object: str
    sha256: str
    key: str
    wrapper: Wrapper | None


class EntrySignature(_Fields):
    """``gradc.artifacts.manifest.EntrySignature``'s fields; ``abi`` parsed when first read."""

    _fields = ("params", "result", "writes", "defaults")
    __slots__ = (*_fields, "_abi")
    params: tuple[tuple[str, str], ...]
    result: str
    writes: tuple[str, ...]
    defaults: tuple[tuple[str, int | float | bool], ...]
    _abi: Signature

    @property
    def abi(self) -> Signature:
        """The structured signature of the strings (``EntrySignature.abi``).

        Raises:
            TypeStringError: a string is not a gradc type (an ``ArtifactError``).
        """
        try:
            return self._abi
        except AttributeError:
            abi = Signature.parse(self.params, self.result, self.writes)
            object.__setattr__(self, "_abi", abi)
            return abi

    def __str__(self) -> str:
        args = ", ".join(f"{n}: {t}" for n, t in self.params)
        return f"({args}) -> {self.result}"


class Entry(_Fields):
    """``gradc.artifacts.manifest.Entry``'s fields."""

    __slots__ = _fields = (
        "name",
        "signature",
        "abi_version",
        "symbol",
        "object",
        "sha256",
        "key",
        "key_components",
        "dependencies",
        "texts",
        "wrapper",
        "variants",
        "sites",
        "dispatch",
    )
    name: str
    signature: EntrySignature
    abi_version: int
    symbol: str
    object: str
    sha256: str
    key: str
    key_components: dict[str, Any]
    dependencies: dict[str, str]
    texts: dict[str, str]
    wrapper: Wrapper | None
    variants: tuple[EntryVariant, ...]
    sites: tuple[tuple[str, int, int], ...]
    dispatch: str

    def site(self, number: int) -> tuple[str, int, int] | None:
        """The (file, line, col) of raise site ``number`` (1-based); None if unknown."""
        if 0 < number <= len(self.sites):
            return self.sites[number - 1]
        return None


class Manifest(_Fields):
    """``gradc.artifacts.manifest.Manifest``'s fields and the methods the loader uses."""

    __slots__ = _fields = (
        "producer",
        "target",
        "module",
        "entries",
        "format_version",
        "runtime",
        "variants",
        "sources",
        "cuda",
    )
    producer: Producer
    target: Target
    module: str
    entries: tuple[Entry, ...]
    format_version: tuple[int, int]
    runtime: Runtime | None
    variants: tuple[Target, ...]
    sources: dict[str, str]
    cuda: CudaSection | None

    def targets(self) -> tuple[Target, ...]:
        """The CPU variants, in order: ``variants``, or ``(target,)`` for one CPU."""
        return self.variants or (self.target,)

    def for_variant(self, index: int) -> Manifest:
        """``gradc.artifacts.manifest.Manifest.for_variant``: this manifest as if built
        for CPU variant ``index`` alone.

        Raises:
            IndexError: no such variant.
        """
        replaced: Manifest = for_variant(self, index, _replace)
        return replaced

    def full(self) -> dc.Manifest:
        """The dataclass ``gradc.artifacts.manifest.Manifest`` of these fields."""
        from gradc.artifacts import manifest

        converted: dc.Manifest = _to_dataclass(self, manifest)
        return converted


def _to_dataclass(value: Any, module: Any) -> Any:
    """``value`` with every record of this module replaced by its namesake in ``module``."""
    if type(value) is tuple:
        return tuple(_to_dataclass(v, module) for v in value)
    if isinstance(value, _Fields):
        cls = getattr(module, type(value).__name__)
        return cls(*(_to_dataclass(v, module) for v in value._values()))
    return value


#: The classes :func:`decode` builds.
_KINDS = Kinds(Producer, Target, Runtime, Wrapper, EntryVariant, EntrySignature, Entry, Manifest)


def decode(data: bytes, where: str = MANIFEST_NAME) -> Manifest:
    """Decode and validate manifest bytes read from ``where`` (named in errors), as
    ``gradc.artifacts.manifest.Manifest.decode`` does, into records.

    Raises:
        FormatVersionError: the major format version is not ours.
        ArtifactError: the data is truncated, not msgpack, or does not fit the schema.
    """
    from gradc.artifacts.manifest_schema import manifest_from_dict

    manifest: Manifest = manifest_from_dict(unpack(data, where), where, _KINDS)
    return manifest


def _replace(record: Any, **changes: Any) -> Any:
    return record._replace(**changes)
