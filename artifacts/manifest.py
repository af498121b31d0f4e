"""The artifact manifest: ``manifest.msgpack`` at the root of ``NAME.gradc/`` (DESIGN.md §5).

Schema (a msgpack map; every map is written with sorted keys, so identical builds give
identical bytes)::

    format_version: [major, minor]                 # FORMAT_VERSION
    producer:  {gradc: str, llvmlite: str, llvm: str}
    target:    {triple: str, cpu: str, features: str}
    module:    str                                 # module name (file stem)
    sources:   {str: str}                          # module-relative file -> sha256 of
                                                   # its bytes, every file read (1.2)
    runtime:   {abi: "rt2", object: "objects/<sha256>.o", sha256: str,
                key: str}                          # optional (1.1); key: cache key (1.2)
    entries: [                                     # exports, in source order
      { name: str,                                 # Python name of the export
        signature: {params: [[name, type], ...], result: type,     # gradc type strings
                    writes: [name, ...],           # array params the export writes (1.1)
                    types: {params: [T, ...], result: T},    # structured (1.4)
                    defaults: [[name, value], ...]},         # default values (1.5)
        abi_version: int,                          # docs/abi.md (ABI_VERSION)
        symbol: str,                               # C-ABI entry symbol in the object
        object: "objects/<sha256>.o",              # relative path of the ELF object
        sha256: str,                               # hex sha256 of the object's bytes
        key: str,                                  # hex sha256 cache key
        key_components: {str: str | int | float | bool | None},   # one field each:
                                                   # ir, options.opt_level, target.cpu ...
        dependencies: {str: str},                  # IR function reached -> Merkle hash
        sites: [[file, line, col], ...],           # raise site k is sites[k-1] (1.2;
                                                   # docs/abi.md "Error record")
        texts: {"ir"|"llvm"|"asm": "texts/<sha256>.ir" | ".ll" | ".s"},
                                                   # "asm": written up to 1.2 only
        wrapper: {symbol: str, object: "objects/<sha256>.o", sha256: str},
                                                   # optional (1.1): CPython fast-call wrapper
        variants: [{symbol, object, sha256, key, wrapper?}, ...],
                                                   # optional (1.2): one per top-level variant
        dispatch: str }, ...]                      # optional (1.7): one of several signatures
    variants: [{cpu: str, features: str}, ...]     # optional (1.2): CPU variants, in order
    cuda: {archs, kernels: [...]}                  # optional (1.6): kernels built for CUDA,
                                                   # gradc.artifacts.cuda_manifest

Type strings are ``gradc.compiler.ir.types.python_name``'s: ``f64``, ``f32``, ``i64``,
``i32``, ``bool``, ``none``, ``tuple[f64,i64]`` and arrays spelt like annotations
(``f64[:]``, ``f64[:, ::1]`` C order, ``f64[::1, :]`` Fortran order), read by the one
parser ``gradc.artifacts.abi.parse_type``. ``signature.types`` (1.4) is the same signature
structured, each ``T`` a map ``{kind: "scalar", name}``, ``{kind: "array", dtype, ndim,
layout}`` or ``{kind: "tuple", elements: [T, ...]}`` (``gradc.artifacts.abi.types``); a
reader checks that it agrees with the strings (the strings are what objects describe).

``runtime`` is the object defining the ``gradc_rt1_*``/``gradc_rt2_*`` functions of
docs/abi.md; the loader links the first one it sees once per process and every artifact
against it (and refuses an artifact whose ``runtime.abi`` is not its own).
``wrapper`` is the export's CPython ``METH_FASTCALL`` wrapper object (docs/abi.md "Fast
call path"), absent for exports that only have the ctypes path.

``sites`` maps the site number in an error record to the source position that raised
(module-relative file, 1-based line, 0-based column); objects hold no line numbers, so a
comment added above a function changes the site table and ``sources``, not the object.

``variants`` (1.2, written only when there are several) lists the CPU variants the
artifact was built for (``gradc build --cpu x86-64-v2,x86-64-v3,native``); element 0 is
``target`` (same triple). Every entry then has ``variants`` of the same length: element
``i`` is the export compiled for CPU variant ``i`` (element 0 repeats the entry's own
``symbol``, ``object``, ``sha256``, ``key`` and ``wrapper``). A 1.1 reader ignores both and
loads variant 0, checked against ``target``; :meth:`Manifest.for_variant` gives the
single-variant view of variant ``i`` that the loader links.

History: 1.0 had no ``runtime``, ``wrapper`` and ``signature.writes``; 1.1 readers accept 1.0
manifests (no runtime; nothing written). 1.2 added ``sources``, ``runtime.key``,
``entries[].sites`` and the CPU ``variants``; their error records carry a site number where
1.1's carried a line (a 1.1 artifact's errors name no line when loaded by a 1.2 reader).
1.3 stops writing the ``asm`` text (the object's assembly): ``gradc inspect --asm``
generates it from the ``llvm`` text (the optimised LLVM IR the object was emitted from) and
the entry's ``target.*`` and ``options.opt_level`` key components, and still shows the
``.s`` text of older artifacts. 1.4 adds ``signature.types``. 1.5 adds ``signature.defaults``:
the trailing parameters a call may omit, each with its value (an int, float or bool of the
parameter's type), written only when there are some; a 1.4 reader ignores it (every
argument is then required). 1.6 adds ``cuda`` (``gradc build --target cuda``): per kernel its
PTX and one cubin per arch under ``cuda/``, each with its own key; a 1.5 reader ignores it.
1.7 adds ``entries[].dispatch``, written only for the entries of a function exported with
several signatures (``@gradc.export(["f64(f64)", "f32(f32)"])``): each such entry is named
``f.f64``, ``f.f32`` and has ``dispatch: "f"``, the name under which the loader offers one
callable dispatching on the argument types (``gradc.artifacts.loader.dispatch``); a 1.6
reader ignores it and offers the entries under their own names.
Readers accept any minor version of their major version (unknown fields are ignored) and
refuse other major versions with :class:`FormatVersionError`.

``abi_version`` 2 (calling convention 2, ``gradc.artifacts.abi.ABI_VERSION``) means every
entry and wrapper object carries its ABI description (``gradc.artifacts.abi.description``),
which the loader checks against the entry before linking; the manifest alone is never
trusted to say how to call an object. Entries of ``abi_version`` 1 carry none and are
refused.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import field, replace

import msgpack

from gradc._dataclass import dataclass
from gradc.artifacts.abi.signature import Signature
from gradc.artifacts.manifest_paths import FORMAT_VERSION as FORMAT_VERSION
from gradc.artifacts.manifest_paths import MANIFEST_NAME as MANIFEST_NAME
from gradc.artifacts.manifest_paths import TEXT_EXTENSIONS as TEXT_EXTENSIONS
from gradc.artifacts.manifest_paths import Kinds, for_variant, unpack
from gradc.artifacts.manifest_paths import blob_sha256 as blob_sha256
from gradc.artifacts.manifest_paths import object_path as object_path
from gradc.artifacts.manifest_paths import text_path as text_path

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.cuda_manifest import CudaSection


@dataclass(frozen=True)
class Producer:
    """Versions of what produced the artifact (gradc, llvmlite, and LLVM as ``"22.1.0"``)."""

    gradc: str
    llvmlite: str
    llvm: str


@dataclass(frozen=True)
class Target:
    """Code-generation target: LLVM triple, CPU name and feature string (``"+avx2,..."``)."""

    triple: str
    cpu: str
    features: str


@dataclass(frozen=True)
class Runtime:
    """The runtime object of the artifact: its ABI name (``"rt2"``; ``"rt1"`` before
    tapes recorded their array references), content address and cache key (options,
    target and versions it was built for; ``""`` before 1.2)."""

    abi: str
    object: str
    sha256: str
    key: str = ""


@dataclass(frozen=True)
class Wrapper:
    """An export's fast-call wrapper: its symbol and its object's content address."""

    symbol: str
    object: str
    sha256: str


@dataclass(frozen=True)
class EntryVariant:
    """An export compiled for one CPU variant: entry symbol, object, key and wrapper."""

    symbol: str
    object: str
    sha256: str
    key: str
    wrapper: Wrapper | None = None


@dataclass(frozen=True)
class EntrySignature:
    """Signature of an export: ``params`` as (name, gradc type) pairs, ``result`` type string.

    Type strings are those of ``gradc.compiler.driver.Signature``: ``"f64"``, ``"f32"``,
    ``"i64"``, ``"i32"``, ``"bool"``, ``"none"``, ``"tuple[f64,i64]"`` (nesting allowed),
    arrays as ``"f64[:]"``, ``"f64[:, ::1]"``, ``"f64[::1, :]"``. ``writes`` names the
    (array) parameters the export may write to, in parameter order; ``defaults`` gives
    (name, value) of the trailing parameters a call may omit.
    """

    params: tuple[tuple[str, str], ...]
    result: str
    writes: tuple[str, ...] = ()
    defaults: tuple[tuple[str, int | float | bool], ...] = ()

    @functools.cached_property
    def abi(self) -> Signature:
        """The structured signature (``gradc.artifacts.abi.Signature``) of the strings.

        Raises:
            TypeStringError: a string is not a gradc type (an ``ArtifactError``).
        """
        return Signature.parse(self.params, self.result, self.writes)

    def __str__(self) -> str:
        args = ", ".join(f"{n}: {t}" for n, t in self.params)
        return f"({args}) -> {self.result}"


@dataclass(frozen=True)
class Entry:
    """One exported function of the artifact (see the module docstring for the fields)."""

    name: str
    signature: EntrySignature
    abi_version: int
    symbol: str
    object: str
    sha256: str
    key: str
    key_components: dict[str, Any] = field(default_factory=dict)
    dependencies: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    wrapper: Wrapper | None = None
    variants: tuple[EntryVariant, ...] = ()
    sites: tuple[tuple[str, int, int], ...] = ()
    dispatch: str = ""

    def site(self, number: int) -> tuple[str, int, int] | None:
        """The (file, line, col) of raise site ``number`` (1-based); None if unknown."""
        if 0 < number <= len(self.sites):
            return self.sites[number - 1]
        return None


@dataclass(frozen=True)
class Manifest:
    """The decoded ``manifest.msgpack``."""

    producer: Producer
    target: Target
    module: str
    entries: tuple[Entry, ...]
    format_version: tuple[int, int] = FORMAT_VERSION
    runtime: Runtime | None = None
    variants: tuple[Target, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)
    cuda: CudaSection | None = None

    def targets(self) -> tuple[Target, ...]:
        """The CPU variants, in order: ``variants``, or ``(target,)`` for one CPU."""
        return self.variants or (self.target,)

    def for_variant(self, index: int) -> Manifest:
        """This manifest as if built for CPU variant ``index`` alone: that variant's target
        and, in every entry, its symbol, object, sha256, key and wrapper.

        Raises:
            IndexError: no such variant.
        """
        selected: Manifest = for_variant(self, index, replace)
        return selected

    def entry(self, name: str) -> Entry:
        """The entry exported as ``name``.

        Raises:
            KeyError: no such export (the message lists the exports).
        """
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(f"no export {name!r}; exports: {', '.join(self.names()) or '(none)'}")

    def names(self) -> list[str]:
        """Export names in source order."""
        return [e.name for e in self.entries]

    def to_dict(self) -> dict[str, Any]:
        """The manifest as plain msgpack-able data (lists and dicts)."""
        data: dict[str, Any] = {
            "format_version": list(self.format_version),
            "producer": {
                "gradc": self.producer.gradc,
                "llvmlite": self.producer.llvmlite,
                "llvm": self.producer.llvm,
            },
            "target": {
                "triple": self.target.triple,
                "cpu": self.target.cpu,
                "features": self.target.features,
            },
            "module": self.module,
            "sources": dict(self.sources),
            "entries": [
                {
                    "name": e.name,
                    "signature": {
                        "params": [[n, t] for n, t in e.signature.params],
                        "result": e.signature.result,
                        "writes": list(e.signature.writes),
                        "types": e.signature.abi.types_data(),
                        **(
                            {"defaults": [[n, v] for n, v in e.signature.defaults]}
                            if e.signature.defaults
                            else {}
                        ),
                    },
                    "abi_version": e.abi_version,
                    "symbol": e.symbol,
                    "object": e.object,
                    "sha256": e.sha256,
                    "key": e.key,
                    "key_components": dict(e.key_components),
                    "dependencies": dict(e.dependencies),
                    "texts": dict(e.texts),
                    "sites": [list(site) for site in e.sites],
                    **_wrapper_dict(e.wrapper),
                    **({"variants": [_variant_dict(v) for v in e.variants]} if e.variants else {}),
                    **({"dispatch": e.dispatch} if e.dispatch else {}),
                }
                for e in self.entries
            ],
        }
        if self.variants:
            data["variants"] = [{"cpu": t.cpu, "features": t.features} for t in self.variants]
        if self.cuda is not None:
            data["cuda"] = self.cuda.to_dict()
        if self.runtime is not None:
            data["runtime"] = {
                "abi": self.runtime.abi,
                "object": self.runtime.object,
                "sha256": self.runtime.sha256,
                "key": self.runtime.key,
            }
        return data

    def encode(self) -> bytes:
        """msgpack bytes with every map's keys sorted (byte-reproducible)."""
        return msgpack.packb(_sorted_maps(self.to_dict()), use_bin_type=True)  # type: ignore[no-any-return]

    @classmethod
    def decode(cls, data: bytes, where: str = MANIFEST_NAME) -> Manifest:
        """Decode and validate manifest bytes read from ``where`` (named in errors).

        Raises:
            FormatVersionError: the major format version is not ours.
            ArtifactError: the data is truncated, not msgpack, or does not fit the schema.
        """
        return cls.from_dict(unpack(data, where), where)

    @classmethod
    def from_dict(cls, raw: object, where: str = MANIFEST_NAME) -> Manifest:
        """Validate plain data (as :meth:`to_dict` returns it) into a :class:`Manifest`
        (:mod:`gradc.artifacts.manifest_schema`).

        Raises:
            FormatVersionError: the major format version is not ours.
            ArtifactError: a field is missing or has the wrong type (naming the field).
        """
        from gradc.artifacts.manifest_schema import manifest_from_dict

        manifest: Manifest = manifest_from_dict(raw, where, _KINDS)
        return manifest


#: The classes :func:`~gradc.artifacts.manifest_schema.manifest_from_dict` builds.
_KINDS = Kinds(Producer, Target, Runtime, Wrapper, EntryVariant, EntrySignature, Entry, Manifest)


def _wrapper_dict(wrapper: Wrapper | None) -> dict[str, Any]:
    if wrapper is None:
        return {}
    return {
        "wrapper": {"symbol": wrapper.symbol, "object": wrapper.object, "sha256": wrapper.sha256}
    }


def _variant_dict(v: EntryVariant) -> dict[str, Any]:
    return {
        "symbol": v.symbol,
        "object": v.object,
        "sha256": v.sha256,
        "key": v.key,
        **_wrapper_dict(v.wrapper),
    }


def _sorted_maps(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {k: _sorted_maps(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list | tuple):
        return [_sorted_maps(x) for x in obj]
    return obj
