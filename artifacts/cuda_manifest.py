"""The ``cuda`` section of the manifest (format 1.6): kernels built for CUDA.

Schema (inside ``manifest.msgpack``, maps with sorted keys)::

    cuda: {
      archs: ["sm_80", "sm_90"],                  # requested archs, ascending
      kernels: [                                  # kernel exports, in source order
        { name: str,
          signature: {params: [[name, type], ...], result: "none", writes: [name, ...]},
          symbol: str,                            # the .entry name in every variant
          sites: [[file, line, col], ...],        # raise site k is sites[k-1]
          variants: [                             # the PTX first, then cubins by arch
            { kind: "ptx" | "cubin",
              arch: "sm_80",                      # PTX .target, or the cubin's arch
              isa: "7.0",                         # PTX ISA (of the PTX assembled)
              file: "cuda/<sha256>.ptx" | "cuda/<sha256>.sm_90.cubin",
              sha256: str,                        # of the file's bytes
              key: str,                           # cache key of this variant
              key_components: {str: str | int | bool} }, ...] }, ...] }

The signature is the kernel's own (no grid parameters); its parameters are passed as
docs/abi.md "CUDA kernels" says (``gradc.artifacts.abi.cuda``). The CPU part of the
artifact holds the same kernel as a grid loop (the export of the kernel's name, with the
parameters ``grid_x`` ... ``block_z`` first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gradc.artifacts.errors import ArtifactError

__all__ = [
    "CudaKernelEntry",
    "CudaSection",
    "CudaVariantEntry",
    "cuda_blob_path",
    "cuda_section",
    "reusable_cuda",
]

_SHA = r"[0-9a-f]{64}"
CUDA_BLOB_PATH = re.compile(rf"cuda/({_SHA})\.(ptx|sm_\d+\.cubin)")
_KINDS = ("ptx", "cubin")


def cuda_blob_path(sha256: str, kind: str, arch: str) -> str:
    """``cuda/<sha256>.ptx`` for PTX, ``cuda/<sha256>.<arch>.cubin`` for a cubin."""
    return f"cuda/{sha256}.ptx" if kind == "ptx" else f"cuda/{sha256}.{arch}.cubin"


@dataclass(frozen=True)
class CudaVariantEntry:
    """One variant of a kernel (see the module docstring for the fields)."""

    kind: str
    arch: str
    isa: str
    file: str
    sha256: str
    key: str
    key_components: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {
            "kind": self.kind,
            "arch": self.arch,
            "isa": self.isa,
            "file": self.file,
            "sha256": self.sha256,
            "key": self.key,
            "key_components": dict(self.key_components),
        }


@dataclass(frozen=True)
class CudaKernelEntry:
    """A kernel built for CUDA: its own signature (``params`` as (name, type) pairs),
    entry symbol, raise sites and variants."""

    name: str
    params: tuple[tuple[str, str], ...]
    writes: tuple[str, ...]
    symbol: str
    sites: tuple[tuple[str, int, int], ...]
    variants: tuple[CudaVariantEntry, ...]

    def site(self, number: int) -> tuple[str, int, int] | None:
        """The (file, line, col) of raise site ``number`` (1-based); None if unknown."""
        return self.sites[number - 1] if 0 < number <= len(self.sites) else None

    def to_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {
            "name": self.name,
            "signature": {
                "params": [[n, t] for n, t in self.params],
                "result": "none",
                "writes": list(self.writes),
            },
            "symbol": self.symbol,
            "sites": [list(s) for s in self.sites],
            "variants": [v.to_dict() for v in self.variants],
        }


@dataclass(frozen=True)
class CudaSection:
    """The manifest's ``cuda`` section: the archs asked for and the kernels."""

    archs: tuple[str, ...]
    kernels: tuple[CudaKernelEntry, ...]

    def kernel(self, name: str) -> CudaKernelEntry:
        """The kernel ``name``.

        Raises:
            KeyError: no such kernel (the message lists them).
        """
        for k in self.kernels:
            if k.name == name:
                return k
        names = ", ".join(k.name for k in self.kernels) or "(none)"
        raise KeyError(f"no CUDA kernel {name!r}; kernels: {names}")

    def blobs(self) -> set[str]:
        """Relative paths of every file the section references."""
        return {v.file for k in self.kernels for v in k.variants}

    def to_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {"archs": list(self.archs), "kernels": [k.to_dict() for k in self.kernels]}

    @classmethod
    def from_dict(cls, raw: object, where: str) -> CudaSection:
        """Validate plain data into a section.

        Raises:
            ArtifactError: a missing field or one of the wrong type, naming it.
        """
        data = _map(raw, f"{where}: cuda")
        kernels = []
        for i, k in enumerate(_list(data.get("archs"), f"{where}: cuda.archs")):
            _str(k, f"{where}: cuda.archs[{i}]")
        for i, item in enumerate(_list(data.get("kernels"), f"{where}: cuda.kernels")):
            kernels.append(_kernel(item, f"{where}: cuda.kernels[{i}]"))
        return cls(tuple(data["archs"]), tuple(kernels))


def _kernel(raw: object, at: str) -> CudaKernelEntry:
    k = _map(raw, at)
    sig = _map(k.get("signature"), f"{at}.signature")
    params = []
    for j, p in enumerate(_list(sig.get("params"), f"{at}.signature.params")):
        pair = _list(p, f"{at}.signature.params[{j}]")
        if len(pair) != 2:
            raise ArtifactError(f"{at}.signature.params[{j}] is not [name, type]")
        params.append((_str(pair[0], f"{at}.params[{j}]"), _str(pair[1], f"{at}.params[{j}]")))
    writes = tuple(_str(w, f"{at}.signature.writes") for w in _list(sig.get("writes"), at))
    sites = []
    for j, s in enumerate(_list(k.get("sites"), f"{at}.sites")):
        site = _list(s, f"{at}.sites[{j}]")
        if len(site) != 3 or not isinstance(site[1], int) or not isinstance(site[2], int):
            raise ArtifactError(f"{at}.sites[{j}] is not [file, line, col]")
        sites.append((_str(site[0], f"{at}.sites[{j}]"), site[1], site[2]))
    variants = tuple(
        _variant(v, f"{at}.variants[{j}]")
        for j, v in enumerate(_list(k.get("variants"), f"{at}.variants"))
    )
    return CudaKernelEntry(
        _str(k.get("name"), f"{at}.name"),
        tuple(params),
        writes,
        _str(k.get("symbol"), f"{at}.symbol"),
        tuple(sites),
        variants,
    )


def _variant(raw: object, at: str) -> CudaVariantEntry:
    v = _map(raw, at)
    kind = _str(v.get("kind"), f"{at}.kind")
    if kind not in _KINDS:
        raise ArtifactError(f"{at}.kind is {kind!r}, not one of {', '.join(_KINDS)}")
    file = _str(v.get("file"), f"{at}.file")
    sha = _str(v.get("sha256"), f"{at}.sha256")
    arch = _str(v.get("arch"), f"{at}.arch")
    m = CUDA_BLOB_PATH.fullmatch(file)
    if m is None or m.group(1) != sha or file != cuda_blob_path(sha, kind, arch):
        raise ArtifactError(f"{at}.file {file!r} does not name its {kind} by its sha256")
    return CudaVariantEntry(
        kind,
        arch,
        _str(v.get("isa"), f"{at}.isa"),
        file,
        sha,
        _str(v.get("key"), f"{at}.key"),
        dict(_map(v.get("key_components"), f"{at}.key_components")),
    )


def _map(raw: object, at: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ArtifactError(f"{at} is not a map")
    return raw


def _list(raw: object, at: str) -> list[Any]:
    if not isinstance(raw, list):
        raise ArtifactError(f"{at} is not a list")
    return raw


def _str(raw: object, at: str) -> str:
    if not isinstance(raw, str):
        raise ArtifactError(f"{at} is not a string")
    return raw


def cuda_section(build: object, blobs: dict[str, bytes]) -> CudaSection | None:
    """The section of ``build``'s CUDA kernels (``BuildOutput.cuda``: objects with
    ``name``, ``signature``, ``symbol``, ``sites`` and ``variants`` of ``kind``, ``arch``,
    ``isa``, ``code``, ``key``, ``key_components``), their files added to ``blobs``;
    None when the build made none."""
    import hashlib

    kernels = tuple(getattr(build, "cuda", ()) or ())
    if not kernels:
        return None
    entries = []
    archs: dict[str, None] = {}
    for k in kernels:
        variants = []
        for v in k.variants:
            sha = hashlib.sha256(v.code).hexdigest()
            path = cuda_blob_path(sha, v.kind, v.arch)
            blobs[path] = bytes(v.code)
            if v.kind == "cubin":
                archs[v.arch] = None
            variants.append(
                CudaVariantEntry(v.kind, v.arch, v.isa, path, sha, v.key, dict(v.key_components))
            )
        params = tuple((p.name, p.type) for p in k.signature.params)
        writes = tuple(p.name for p in k.signature.params if p.writes)
        entries.append(
            CudaKernelEntry(k.name, params, writes, k.symbol, tuple(k.sites), tuple(variants))
        )
    return CudaSection(tuple(archs), tuple(entries))


def reusable_cuda(
    manifest_cuda: CudaSection | None, read: Any
) -> tuple[dict[str, bytes], list[str]]:
    """Variant key -> its verified bytes, for every CUDA variant of a previous build whose
    file is intact; and one message per variant that is not. ``read(relpath)`` reads a
    blob and checks its sha256 (``store.read_blob``), raising ``ArtifactError``."""
    found: dict[str, bytes] = {}
    problems: list[str] = []
    for k in manifest_cuda.kernels if manifest_cuda is not None else ():
        for v in k.variants:
            try:
                found[v.key] = read(v.file)
            except ArtifactError as exc:
                problems.append(f"cannot reuse the {v.arch} {v.kind} of kernel {k.name!r}: {exc}")
    return found, problems
