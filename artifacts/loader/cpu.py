"""CPU loader: map an artifact's objects into this process and call them.

``load(path)`` reads the manifest, picks the CPU variant this host runs best
(:mod:`.variants`), verifies every object's sha256, checks that each object describes
itself as its manifest entry says, links all objects of the variant into one new image
with gradc's own ELF linker (:mod:`.linking`, :mod:`.link`, :mod:`.memory`), and returns a :class:`Library` with one callable per export: the
ctypes call path (:mod:`.calls`, with :mod:`.convert`, :mod:`.arrays` and
:mod:`.exceptions`), or a CPython builtin calling the export's fast-call wrapper
(:mod:`.fastcall`). The facts of the ABI (exception codes, layouts, symbol names, the
type syntax) come from ``gradc.artifacts.abi``.

**Trust.** Before linking, every entry object and fast-call wrapper object to be linked
must describe itself (its ``__gradc_abi_<symbol>`` constant,
``gradc.artifacts.abi.description``) exactly as its manifest entry says: signature,
``writes``, symbols, calling-convention version and target. A manifest that disagrees is
refused with ``AbiMismatchError``; no call ever uses a signature its object did not state.

This package imports no compiler code and no llvmlite (except to decide what
``/proc/cpuinfo`` cannot, :mod:`.variants`); numpy is imported only when a signature has
arrays.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from gradc.artifacts.abi.description import check_object
from gradc.artifacts.abi.symbols import ABI_VERSION, RUNTIME_ABI, RUNTIME_LIBRARY, RUNTIME_PREFIXES
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.arrays import ArrayOwner
from gradc.artifacts.loader.calls import make_export
from gradc.artifacts.loader.dispatch import make_dispatcher
from gradc.artifacts.loader.fastcall import FASTCALL_ENV, FastExport, fastcall_enabled, make_fast
from gradc.artifacts.loader.link import LinkError
from gradc.artifacts.loader.linking import (
    Runtime,
    link_library,
    link_runtime,
    linked_runtime,
    runtime_stats,
)
from gradc.artifacts.loader.numpy_api import numpy_symbols
from gradc.artifacts.loader.variants import host_cpu, required_features, select_variant
from gradc.artifacts.manifest_records import Manifest as Records
from gradc.artifacts.reading import read_blob, read_records
from gradc.artifacts.toolchain import llvm_version

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.manifest import Manifest as FullManifest
    from gradc.artifacts.manifest_records import AnyEntry as Entry
    from gradc.artifacts.manifest_records import AnyManifest as Manifest

__all__ = [
    "FASTCALL_ENV",
    "RUNTIME_LIBRARY",
    "ArrayOwner",
    "FastExport",
    "Library",
    "host_cpu",
    "llvm_version",
    "load",
    "required_features",
    "runtime_stats",
    "select_variant",
]

#: What the current runtime ABI changed, for the message refusing an older artifact.
_RUNTIME_CHANGES = "since rt2 a tape also records the array references pushed on it"


class Library:
    """A loaded artifact: one attribute per export, also ``lib["name"]``.

    ``dir(lib)`` and ``iter(lib)`` list the exports. A function exported with several
    signatures is one callable dispatching among them (:mod:`.dispatch`); each
    specialisation is also ``lib["f.f64"]`` (its entry's name). The compiled code stays
    mapped while the library or any of its functions is referenced.
    """

    def __init__(
        self,
        path: Path,
        manifest: Manifest,
        functions: dict[str, Callable[..., Any]],
        tracker: Any,
        ctypes_functions: dict[str, Callable[..., Any]] | None = None,
        specialisations: tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]]
        | None = None,
    ) -> None:
        self._gradc_path = path
        self._gradc_manifest = manifest
        self._gradc_full: FullManifest | None = None
        self._gradc_functions = functions
        self._gradc_tracker = tracker
        self._gradc_ctypes = ctypes_functions if ctypes_functions is not None else functions
        fast, slow = specialisations or ({}, {})
        self._gradc_all = {**functions, **fast}
        self._gradc_all_ctypes = {**self._gradc_ctypes, **slow}
        for name, fn in functions.items():
            if not name.startswith("_gradc_"):
                setattr(self, name, fn)

    def __getitem__(self, name: str) -> Callable[..., Any]:
        try:
            return self._gradc_all[name]
        except KeyError:
            raise KeyError(
                f"{self._gradc_manifest.module!r} exports no {name!r}; "
                f"exports: {', '.join(self._gradc_functions) or '(none)'}"
            ) from None

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: a misspelt export.
        if name.startswith("__") or name.startswith("_gradc_"):
            raise AttributeError(name)
        raise AttributeError(
            f"{self._gradc_manifest.module!r} exports no {name!r}; "
            f"exports: {', '.join(self._gradc_functions) or '(none)'}"
        )

    def __contains__(self, name: object) -> bool:
        return name in self._gradc_functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._gradc_functions)

    def __len__(self) -> int:
        return len(self._gradc_functions)

    def __dir__(self) -> list[str]:
        return sorted(self._gradc_functions)

    def __repr__(self) -> str:
        return (
            f"<gradc.Library {self._gradc_manifest.module!r} from {self._gradc_path}: "
            f"{', '.join(self._gradc_functions) or 'no exports'}>"
        )

    @property
    def manifest(self) -> FullManifest:
        """The artifact's manifest as the loaded CPU variant sees it
        (:meth:`Manifest.for_variant`: ``target`` is the variant loaded); shadowed by an
        export named ``manifest``. The loader reads records
        (``gradc.artifacts.manifest_records``); the dataclass is built when first asked."""
        full = self._gradc_full
        if full is None:
            m = self._gradc_manifest
            full = self._gradc_full = m.full() if isinstance(m, Records) else m
        return full

    def ctypes_function(self, name: str) -> Callable[..., Any]:
        """Export ``name`` on the ctypes path even when it has a fast-call wrapper (for
        benchmarks and tests; shadowed by an export named ``ctypes_function``)."""
        self[name]  # KeyError naming the exports
        call = self._gradc_all_ctypes[name]
        return call.ctypes_call() if isinstance(call, FastExport) else call

    def is_fast(self, name: str) -> bool:
        """Whether export ``name`` is called through its fast-call wrapper."""
        return self[name] is not self._gradc_all_ctypes[name]


def _read_objects(
    path: Path, fast: bool
) -> tuple[Manifest, dict[str, bytes], dict[str, bytes], bytes | None]:
    """The manifest of the CPU variant this host runs best (:func:`select_variant`,
    :meth:`Manifest.for_variant`), its verified entry objects and fast-call wrapper objects
    (sha256 -> bytes; no wrappers unless ``fast``) and its runtime object. The objects of
    other variants are not read.

    A writer may replace the artifact between reading the manifest and its blobs (and
    remove the blobs of the previous one); then the manifest has changed and the read is
    retried, up to :data:`_READ_ATTEMPTS` times in all. A blob that is missing or corrupt
    while the manifest stays the same is damage: its ArtifactError propagates. The runtime
    object is read only while no runtime is linked in this process.
    """

    def blobs(
        whole: Manifest,
    ) -> tuple[Manifest, dict[str, bytes], dict[str, bytes], bytes | None]:
        m = whole.for_variant(select_variant(path, whole))  # before reading any object
        objects = {e.sha256: read_blob(path, e.object) for e in m.entries}
        wrappers = {}
        if fast:
            for e in m.entries:
                if e.wrapper is not None:
                    wrappers[e.wrapper.sha256] = read_blob(path, e.wrapper.object)
        runtime = None
        if m.runtime is not None and linked_runtime() is None:
            runtime = read_blob(path, m.runtime.object)
        return m, objects, wrappers, runtime

    manifest = read_records(path)
    for attempt in range(1, _READ_ATTEMPTS + 1):
        try:
            return blobs(manifest)
        except ArtifactError:
            again = read_records(path)
            if again == manifest or attempt == _READ_ATTEMPTS:
                raise
            manifest = again
    raise AssertionError("unreachable")


#: How often :func:`_read_objects` reads an artifact that writers keep replacing.
_READ_ATTEMPTS = 5


def load(path: str | os.PathLike[str], *, fastcall: bool | None = None) -> Library:
    """Load the artifact directory ``path`` (``build/NAME.gradc``) into this process.

    Takes well under a millisecond per object (plus linking the runtime, for the first
    artifact that carries one). Of an artifact built
    for several CPUs, only the best variant the host supports is read and linked
    (:func:`select_variant`).

    Exports with a fast-call wrapper (docs/abi.md "Fast call path") are CPython builtins
    calling it; the others, and all of them with ``fastcall=False`` (default: on unless
    the environment variable ``GRADC_FASTCALL`` is ``0``), are Python functions calling
    through ctypes. A wrapper that fails to link leaves its library on the ctypes path.

    Raises:
        ArtifactError: the directory or manifest is missing or truncated, an object is
            missing or fails its sha256 check (the message names the file), the ABI
            version does not match, an object's ABI description disagrees with the
            manifest (``gradc.artifacts.abi.description.AbiMismatchError``, naming the
            export and what disagrees; nothing is linked), no CPU variant runs on this
            host (the message names each variant and the features the host lacks; nothing
            is linked), or linking fails.
        FormatVersionError: the artifact's major format version is not this gradc's.
    """
    path = Path(path)
    fast = fastcall_enabled() if fastcall is None else fastcall
    manifest, objects, wrappers, runtime_code = _read_objects(path, fast)
    _check_trust(path, manifest, objects, wrappers)
    if runtime_code is not None and manifest.runtime is not None:
        try:
            link_runtime(runtime_code, manifest.runtime.sha256)
        except LinkError as exc:
            raise ArtifactError(f"{path}: linking the runtime object failed: {exc}") from exc
    runtime = linked_runtime()
    tracker, wrappers = _link(path, manifest, objects, wrappers, runtime)
    keepalive = (tracker, runtime)
    functions = {}
    slow = {}
    for e in manifest.entries:
        address = tracker[e.symbol]
        if not address:
            raise ArtifactError(f"{path}: symbol {e.symbol} of {e.name!r} is not defined")
        build = _Build(e, manifest.module, address, keepalive)
        builtin = None
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            wrapper = tracker[e.wrapper.symbol]
            if _lazy(e):  # the ctypes path built on first fallback (issue 13: start-up)
                builtin = make_fast(e, manifest.module, wrapper, None, keepalive, build)
            else:
                builtin = make_fast(e, manifest.module, wrapper, build(), keepalive)
        if builtin is None:
            slow[e.name] = functions[e.name] = build()
        else:
            slow[e.name] = builtin.__self__  # type: ignore[attr-defined]  # its FastExport
            functions[e.name] = builtin
    specialisations = _add_dispatchers(manifest, functions), _add_dispatchers(manifest, slow)
    return Library(path, manifest, functions, keepalive, slow, specialisations)


class _Build:
    """``build()``: the ctypes path of one export (:func:`~.calls.make_export`)."""

    __slots__ = ("address", "entry", "keepalive", "module")

    def __init__(self, entry: Entry, module: str, address: int, keepalive: Any) -> None:
        self.entry, self.module, self.address, self.keepalive = entry, module, address, keepalive

    def __call__(self) -> Callable[..., Any]:
        return make_export(self.entry, self.module, self.address, self.keepalive)


def _lazy(e: Entry) -> bool:
    """Whether the ctypes path of fast export ``e`` is built only on first fallback: not
    for a function exported with several signatures (its dispatcher takes the callables)
    nor for one whose signature holds arrays (the wrapper reads such results through it)."""
    abi = e.signature.abi
    arrays = abi.result.holds_arrays or any(t.holds_arrays for _, t in abi.params)
    return not e.dispatch and not arrays


def _add_dispatchers(
    manifest: Manifest, functions: dict[str, Callable[..., Any]]
) -> dict[str, Callable[..., Any]]:
    """Replace in ``functions`` the entries of each function exported with several
    signatures (format 1.7, ``Entry.dispatch``) by one callable dispatching among them
    (:func:`~.dispatch.make_dispatcher`); returns the entries replaced, by name."""
    groups: dict[str, list[Any]] = {}
    for e in manifest.entries:
        if e.dispatch:
            groups.setdefault(e.dispatch, []).append(e)
    replaced: dict[str, Callable[..., Any]] = {}
    for name, entries in groups.items():
        specialisations = [(e, functions.pop(e.name)) for e in entries]
        replaced.update((e.name, fn) for e, fn in specialisations)
        functions[name] = make_dispatcher(name, manifest.module, specialisations)
    return replaced


def _check_trust(
    path: Path, manifest: Manifest, objects: dict[str, bytes], wrappers: dict[str, bytes]
) -> None:
    """Refuse, before anything is linked or called, entries of another calling convention,
    objects that do not describe themselves as the manifest says (docs/abi.md "ABI
    description") and a runtime of another runtime ABI (ArtifactError)."""
    for e in manifest.entries:
        if e.abi_version != ABI_VERSION:
            raise ArtifactError(
                f"{path}: export {e.name!r} uses calling convention version {e.abi_version}; "
                f"this loader speaks version {ABI_VERSION}: rebuild the artifact with this "
                "gradc (`gradc build`) or use a matching gradc"
            )
    for e in manifest.entries:
        check_object(str(path), e, manifest.target, objects[e.sha256])
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            check_object(str(path), e, manifest.target, wrappers[e.wrapper.sha256], "wrapper")
    if manifest.runtime is not None and manifest.runtime.abi != RUNTIME_ABI:
        raise ArtifactError(
            f"{path}: the artifact was built for runtime ABI {manifest.runtime.abi!r}; "
            f"this gradc links runtime ABI {RUNTIME_ABI!r} ({_RUNTIME_CHANGES}): "
            "rebuild the artifact with this gradc"
        )


def _link(
    path: Path,
    manifest: Manifest,
    objects: dict[str, bytes],
    wrappers: dict[str, bytes],
    runtime: Runtime | None,
) -> tuple[Any, dict[str, bytes]]:
    """Link the artifact: with its ``wrappers`` when they link, else without (e.g. a
    CPython lacking a function a wrapper calls: the ctypes path). Returns the resource
    tracker and the wrappers linked.

    Raises:
        ArtifactError: the objects do not link.
    """
    if wrappers:
        imports = {}
        abis = [e.signature.abi for e in manifest.entries if e.wrapper is not None]
        if any(a.result.holds_arrays or any(t.holds_arrays for _, t in a.params) for a in abis):
            imports = numpy_symbols(runtime)
        try:
            return link_library(manifest, objects, wrappers, runtime, imports), wrappers
        except LinkError:
            pass
    try:
        return link_library(manifest, objects, {}, runtime), {}
    except LinkError as exc:
        hint = ""
        if any(p in str(exc) for p in RUNTIME_PREFIXES) and runtime is None:
            hint = " (the artifact needs the gradc runtime but carries none: rebuild it)"
        raise ArtifactError(f"{path}: linking the objects failed: {exc}{hint}") from exc
