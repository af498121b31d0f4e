"""Writing and reading artifact directories (DESIGN.md §5).

Layout::

    NAME.gradc/
      manifest.msgpack       see gradc.artifacts.manifest
      objects/<sha256>.o     relocatable objects (exports and the runtime), content-addressed
      texts/<sha256>.ir|.ll|.s   IR, LLVM IR and assembly texts for ``gradc inspect``
      .lock                  empty; writers hold it (flock, as filelock) while they write

Writes are atomic and crash-safe: each file is written to a temporary file in its final
directory, fsync'ed, then ``os.replace``'d into place; blobs first, the manifest last, so
a reader sees either the previous artifact or the new one. One fsync policy: the new
blobs are written, then fsync'ed together (concurrently: the file system commits them in
one journal transaction or few), renamed, and each of their folders fsync'ed once; only
then is the manifest written, fsync'ed, renamed and its folder fsync'ed
(tests/artifacts/test_store_crash.py kills a build at each of these steps). Writers into one directory
are serialised by the lock. A write that fails removes what it added and leaves the
previous artifact intact; a successful one removes blobs no longer referenced and stray
temporary files of crashed writers. Nothing that varies between identical builds is
written (no timestamps, no absolute paths): identical builds give identical bytes.

Damage (a truncated or corrupt manifest, a missing blob, a blob whose bytes do not hash to
its name) is found by :func:`find_damage`; :func:`write_artifact` reports it through its
``on_damage`` callback (an :class:`~gradc.artifacts.errors.ArtifactWarning` by default)
and replaces every damaged file, and readers (:func:`read_blob`, the loader) raise
:class:`~gradc.artifacts.errors.ArtifactError` naming the file. Nothing damaged is ever
reused or linked.

Reading needs no write access and takes no lock. This module must not import the compiler
(the loader uses it at run time), so :func:`write_artifact` duck-types the driver's
``BuildOutput``.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gradc._dataclass import dataclass
from gradc._hashing import sha256
from gradc.artifacts.abi.description import check_object
from gradc.artifacts.abi.symbols import ABI_VERSION, RUNTIME_ABI, wrapper_symbol
from gradc.artifacts.durable import TMP_PREFIX as _TMP_PREFIX
from gradc.artifacts.durable import atomic_write as _atomic_write
from gradc.artifacts.durable import locked as _locked
from gradc.artifacts.durable import write_blobs as _write_blobs
from gradc.artifacts.errors import ArtifactError, ArtifactWarning, FormatVersionError
from gradc.artifacts.manifest import (
    MANIFEST_NAME,
    TEXT_EXTENSIONS,
    Entry,
    EntrySignature,
    EntryVariant,
    Manifest,
    Producer,
    Runtime,
    Target,
    Wrapper,
    object_path,
    text_path,
)
from gradc.artifacts.reading import read_blob as read_blob
from gradc.artifacts.reading import read_manifest as read_manifest
from gradc.artifacts.toolchain import host_producer

if TYPE_CHECKING:
    from gradc.artifacts.cuda_manifest import CudaSection
    from gradc.artifacts.staging import BlobStage

LOCK_NAME = ".lock"
_BLOB_DIRS = ("objects", "texts", "cuda")


# ---------------------------------------------------------------------------- input shapes


class _ParamLike(Protocol):
    """A parameter; optional ``writes: bool`` (the export may write this array)."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...


class _SignatureLike(Protocol):
    @property
    def params(self) -> Iterable[_ParamLike]: ...
    @property
    def result(self) -> str: ...


class CompiledEntryLike(Protocol):
    """What :func:`write_artifact` reads from each ``BuildOutput.entries`` item.

    ``gradc.compiler.driver.CompiledEntry`` fits. Optional attributes read with
    ``getattr``: ``dependencies`` (name -> hash, default ``{}``), ``sites`` ((file, line,
    col) per raise site, default none), ``abi_version``
    (default :data:`~gradc.artifacts.abi.ABI_VERSION`), ``wrapper_object`` (bytes of
    the CPython fast-call wrapper, ``b""`` for none) and ``wrapper_symbol`` (default:
    ``gradc.artifacts.abi.wrapper_symbol`` of the entry symbol, docs/abi.md).
    """

    @property
    def name(self) -> str: ...
    @property
    def signature(self) -> _SignatureLike: ...
    @property
    def symbol(self) -> str: ...
    @property
    def object_code(self) -> bytes: ...
    @property
    def key(self) -> str: ...
    @property
    def key_components(self) -> Mapping[str, Any]: ...
    @property
    def ir_text(self) -> str: ...
    @property
    def llvm_text(self) -> str: ...
    @property
    def asm_text(self) -> str: ...


class BuildOutputLike(Protocol):
    """What :func:`write_artifact` reads from ``gradc.compiler.driver.BuildOutput``.

    Optional: ``producer`` (a :class:`Producer`; when absent the versions of this process
    are used), ``runtime_object`` (bytes of the ``gradc_rt1_*`` runtime object; stored
    as the manifest's ``runtime`` when non-empty), ``runtime_key`` (its cache key),
    ``sources`` (module-relative file -> sha256) and ``variant_targets`` (the target of
    each CPU variant, when several: then every entry has ``variants``, the export compiled
    for variants 1.. in order).
    """

    @property
    def module_name(self) -> str: ...
    @property
    def entries(self) -> Iterable[CompiledEntryLike]: ...
    @property
    def target(self) -> Mapping[str, str]: ...


# ---------------------------------------------------------------------------- writing


def build_manifest(
    build: BuildOutputLike, producer: Producer | None = None, *, texts: bool = True
) -> tuple[Manifest, dict[str, bytes]]:
    """The manifest of ``build`` and its blobs (relative path -> bytes); writes nothing.
    Without ``texts`` the IR, LLVM and assembly texts are left out (a shipped artifact
    needs only its objects; ``gradc inspect --ir`` then has nothing to show).

    Raises:
        ArtifactError: two entries share a name, or a field has the wrong type.
    """
    if producer is None:
        producer = getattr(build, "producer", None) or host_producer()
    variant_targets = [_target(t) for t in getattr(build, "variant_targets", ()) or ()]
    blobs: dict[str, bytes] = {}
    entries = [_entry(e, variant_targets, blobs, texts) for e in build.entries]
    runtime = None
    runtime_code = bytes(getattr(build, "runtime_object", b"") or b"")
    if runtime_code:
        sha = sha256(runtime_code).hexdigest()
        runtime = Runtime(
            RUNTIME_ABI, object_path(sha), sha, str(getattr(build, "runtime_key", "") or "")
        )
        blobs[runtime.object] = runtime_code
    manifest = Manifest(
        producer=producer,
        target=_target(build.target),
        module=build.module_name,
        entries=tuple(entries),
        runtime=runtime,
        variants=tuple(variant_targets),
        sources=dict(getattr(build, "sources", {}) or {}),
        cuda=_cuda_section(build, blobs),
    )
    # Round-trip through the validator: what we write is what readers accept.
    Manifest.from_dict(manifest.to_dict(), "new manifest")
    return manifest, blobs


def _entry(
    e: CompiledEntryLike, variant_targets: list[Target], blobs: dict[str, bytes], with_texts: bool
) -> Entry:
    """The manifest entry of compiled export ``e`` (with its texts if ``with_texts``); its
    blobs are added to ``blobs``."""
    code = bytes(e.object_code)
    sha = sha256(code).hexdigest()
    obj = object_path(sha)
    blobs[obj] = code
    texts: dict[str, str] = {}
    for kind, text in (("ir", e.ir_text), ("llvm", e.llvm_text), ("asm", e.asm_text)):
        if text and with_texts:
            data = text.encode("utf-8")
            rel = text_path(sha256(data).hexdigest(), kind)
            blobs[rel] = data
            texts[kind] = rel
    wrapper = _wrapper(e, blobs)
    variants: list[EntryVariant] = []
    others = tuple(getattr(e, "variants", ()) or ())
    if len(others) != len(variant_targets[1:]):
        raise ArtifactError(
            f"export {e.name!r} has {len(others) + 1} CPU variants, the build "
            f"{max(len(variant_targets), 1)}"
        )
    if others:
        variants.append(EntryVariant(e.symbol, obj, sha, e.key, wrapper))
        for v in others:
            vcode = bytes(v.object_code)
            vsha = sha256(vcode).hexdigest()
            blobs[object_path(vsha)] = vcode
            variants.append(
                EntryVariant(v.symbol, object_path(vsha), vsha, v.key, _wrapper(v, blobs))
            )
    return Entry(
        name=e.name,
        signature=EntrySignature(
            params=tuple((p.name, p.type) for p in e.signature.params),
            result=e.signature.result,
            writes=tuple(p.name for p in e.signature.params if getattr(p, "writes", False)),
            defaults=tuple(getattr(e.signature, "defaults", ())),
        ),
        abi_version=int(getattr(e, "abi_version", ABI_VERSION)),
        symbol=e.symbol,
        object=obj,
        sha256=sha,
        key=e.key,
        key_components=dict(e.key_components),
        dependencies=dict(getattr(e, "dependencies", {}) or {}),
        texts=texts,
        wrapper=wrapper,
        variants=tuple(variants),
        sites=tuple((str(f), int(line), int(col)) for f, line, col in getattr(e, "sites", ())),
        dispatch=str(getattr(e, "dispatch", "")),
    )


def _cuda_section(build: object, blobs: dict[str, bytes]) -> CudaSection | None:
    """``cuda_manifest.cuda_section``, imported only for a build with CUDA kernels."""
    if not getattr(build, "cuda", ()):
        return None
    from gradc.artifacts.cuda_manifest import cuda_section

    return cuda_section(build, blobs)


def _target(t: Mapping[str, str]) -> Target:
    return Target(triple=t.get("triple", ""), cpu=t.get("cpu", ""), features=t.get("features", ""))


def _wrapper(e: CompiledEntryLike, blobs: dict[str, bytes]) -> Wrapper | None:
    """The fast-call wrapper of ``e`` (added to ``blobs``), None when it has none."""
    code = bytes(getattr(e, "wrapper_object", b"") or b"")
    if not code:
        return None
    sha = sha256(code).hexdigest()
    symbol = getattr(e, "wrapper_symbol", None) or wrapper_symbol(e.symbol)
    wrapper = Wrapper(symbol, object_path(sha), sha)
    blobs[wrapper.object] = code
    return wrapper


def write_artifact(
    out_dir: str | os.PathLike[str],
    build: BuildOutputLike,
    *,
    producer: Producer | None = None,
    on_damage: Callable[[str], None] | None = None,
    texts: bool = True,
    staged: BlobStage | None = None,
) -> Manifest:
    """Write ``build`` (a ``gradc.compiler.driver.BuildOutput``) as the artifact ``out_dir``.

    ``out_dir`` (``build/NAME.gradc``) and its parents are created. Returns the manifest
    written. When ``out_dir`` already holds exactly these manifest bytes and every blob
    with its content, nothing is written at all (no lock, no fsync). ``producer``
    defaults to ``build.producer`` if present, else ``toolchain.host_producer()``. When an
    artifact already in ``out_dir`` is damaged (:func:`find_damage`), ``on_damage`` is
    called with a message naming the damaged files (default: an
    :class:`~gradc.artifacts.errors.ArtifactWarning`) and every damaged file is replaced;
    intact blobs with the same content are kept as they are. ``texts=False`` leaves the
    IR, LLVM and assembly texts out (:func:`build_manifest`). ``staged``: blobs already
    written to temporaries while the build ran (``gradc.artifacts.staging``), used
    instead of writing them again; the caller discards the rest.

    Raises:
        ArtifactError: the build output does not fit the manifest schema.
        OSError: the directory cannot be written (the previous artifact stays intact).
    """
    manifest, blobs = build_manifest(build, producer, texts=texts)
    out = Path(out_dir)
    encoded = manifest.encode()
    ours = staged.temporaries() if staged is not None else set()
    if _is_current(out, encoded, blobs, ours):
        return manifest  # an identical artifact is there: write nothing, not even a lock

    out.mkdir(parents=True, exist_ok=True)
    with _locked(out / LOCK_NAME):
        _remove_temporaries(out, ours)
        problems = find_damage(out)
        if problems:
            message = f"damaged artifact {out}: {'; '.join(problems)}; rebuilding it"
            if on_damage is None:
                warnings.warn(message, ArtifactWarning, stacklevel=2)
            else:
                on_damage(message)
        previous = _referenced_or_none(out)
        created: list[Path] = []
        try:
            new = [rel for rel in sorted(blobs) if not _has_content(out / rel, blobs[rel])]
            _write_blobs(out, new, blobs, created, staged.take if staged is not None else None)
            if not _has_content(out / MANIFEST_NAME, encoded):
                _atomic_write(out / MANIFEST_NAME, encoded)
        except BaseException:
            keep = previous or set()
            for path in created:
                if path.relative_to(out).as_posix() not in keep:
                    with contextlib.suppress(OSError):
                        path.unlink()
            raise
        _collect_garbage(out, set(blobs))
    return manifest


def _is_current(
    out: Path, encoded: bytes, blobs: Mapping[str, bytes], ours: Container[str] = frozenset()
) -> bool:
    """``out`` holds manifest bytes ``encoded``, every blob of ``blobs`` intact, and no
    temporary file of a crashed writer (which a locked write would remove; ``ours``: the
    names of this build's staged ones)."""
    if not _has_content(out / MANIFEST_NAME, encoded):
        return False
    for folder in (out, *(out / d for d in _BLOB_DIRS)):
        if any(p.name not in ours for p in folder.glob(_TMP_PREFIX + "*")):
            return False
    return all(_has_content(out / rel, data) for rel, data in blobs.items())


def _has_content(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _referenced_or_none(out: Path) -> set[str] | None:
    """Blob paths referenced by the current manifest; None if there is no readable one."""
    try:
        manifest = read_manifest(out)
    except ArtifactError:
        return None
    return referenced_blobs(manifest)


def find_damage(art_dir: str | os.PathLike[str]) -> list[str]:
    """What is damaged in the artifact ``art_dir``: one message per problem, naming the file.

    Checks that the manifest decodes and validates, and that every blob it references
    exists and hashes (sha256) to its name. Empty when the artifact is intact, when there
    is no artifact (no directory or no manifest), or when the manifest is of another major
    format version (not damage: a different gradc wrote it). Reads every blob; writes
    nothing and takes no lock.
    """
    path = Path(art_dir)
    if not (path / MANIFEST_NAME).exists():
        return []
    try:
        manifest = read_manifest(path)
    except FormatVersionError:
        return []
    except ArtifactError as exc:
        return [str(exc)]
    problems = []
    for rel in sorted(referenced_blobs(manifest)):
        try:
            read_blob(path, rel)
        except ArtifactError as exc:
            problems.append(str(exc))
    return problems


def referenced_blobs(manifest: Manifest) -> set[str]:
    """Relative paths of every blob ``manifest`` references."""
    refs: set[str] = set() if manifest.cuda is None else manifest.cuda.blobs()
    if manifest.runtime is not None:
        refs.add(manifest.runtime.object)
    for e in manifest.entries:
        refs.add(e.object)
        if e.wrapper is not None:
            refs.add(e.wrapper.object)
        refs.update(e.texts.values())
        for v in e.variants:
            refs.add(v.object)
            if v.wrapper is not None:
                refs.add(v.wrapper.object)
    return refs


def _remove_temporaries(out: Path, ours: Container[str] = frozenset()) -> None:
    """Remove temporary files left by crashed writers (call with the lock held), but
    ``ours`` (names of this build's staged blobs)."""
    for folder in (out, *(out / d for d in _BLOB_DIRS)):
        if folder.is_dir():
            for p in folder.glob(_TMP_PREFIX + "*"):
                if p.name in ours:
                    continue
                with contextlib.suppress(OSError):
                    p.unlink()


def _collect_garbage(out: Path, keep: set[str]) -> None:
    """Remove blobs not in ``keep`` (call with the lock held, after the manifest)."""
    for d in _BLOB_DIRS:
        folder = out / d
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.is_file() and f"{d}/{p.name}" not in keep:
                with contextlib.suppress(OSError):
                    p.unlink()


# ---------------------------------------------------------------------------- reuse


@dataclass(frozen=True)
class ReusableEntry:
    """The blobs of one entry (or of the runtime) of a previous build, sha256-verified.

    Fits ``gradc.compiler.driver.CachedEntry``: the driver reuses them for an export
    whose cache key matches instead of lowering and emitting it.
    """

    object_code: bytes
    wrapper_object: bytes = b""
    llvm_text: str = ""
    asm_text: str = ""


@dataclass(frozen=True)
class PreviousBuild:
    """What an existing artifact offers a new build of the same module.

    Attributes:
        manifest: the artifact's manifest; None when there is none or it is unreadable.
        reusable: cache key -> verified blobs, for each entry (and the runtime, under
            ``Runtime.key``) whose blobs are all intact.
        problems: one message per thing that could not be reused although the manifest
            names it (a missing or damaged blob, an unreadable manifest); shown as
            warnings, and the entry is rebuilt.
    """

    manifest: Manifest | None
    reusable: dict[str, ReusableEntry]
    problems: list[str]


def previous_build(art_dir: str | os.PathLike[str]) -> PreviousBuild:
    """Read the artifact at ``art_dir`` for reuse; never raises for a damaged artifact.

    Every blob is read and its sha256 checked (:func:`read_blob`); an entry (or CPU
    variant of one) with any bad blob is not reusable. No artifact at all is no problem (a first build).
    """
    out = Path(art_dir)
    if not (out / MANIFEST_NAME).exists():
        return PreviousBuild(None, {}, [])
    try:
        manifest = read_manifest(out)
    except ArtifactError as exc:
        return PreviousBuild(None, {}, [f"cannot reuse {out}: {exc}"])
    reusable: dict[str, ReusableEntry] = {}
    problems: list[str] = []
    views = [manifest.for_variant(i) for i in range(len(manifest.targets()))]
    for j, e in enumerate(manifest.entries):
        if e.abi_version != ABI_VERSION:
            continue  # another calling convention: its keys cannot match this build's
        try:
            code = read_blob(out, e.object)
            wrapper = read_blob(out, e.wrapper.object) if e.wrapper is not None else b""
            _check_reusable(out, e, views[0].target, code, wrapper)
            texts = {k: read_text(out, e, k) for k in ("llvm", "asm") if k in e.texts}
        except ArtifactError as exc:
            problems.append(f"cannot reuse {e.name!r}: {exc}")
            continue
        reusable[e.key] = ReusableEntry(code, wrapper, texts.get("llvm", ""), texts.get("asm", ""))
        for view in views[1:]:  # the other CPU variants (texts are kept for variant 0)
            v = view.entries[j]
            try:
                vwrapper = read_blob(out, v.wrapper.object) if v.wrapper is not None else b""
                vcode = read_blob(out, v.object)
                _check_reusable(out, v, view.target, vcode, vwrapper)
                reusable[v.key] = ReusableEntry(vcode, vwrapper)
            except ArtifactError as exc:
                problems.append(f"cannot reuse a CPU variant of {e.name!r}: {exc}")
    if manifest.cuda is not None:
        from gradc.artifacts.cuda_manifest import reusable_cuda

        cuda, cuda_problems = reusable_cuda(manifest.cuda, lambda rel: read_blob(out, rel))
        reusable.update((key, ReusableEntry(code)) for key, code in cuda.items())
        problems += cuda_problems
    rt = manifest.runtime
    if rt is not None and rt.key:
        try:
            reusable[rt.key] = ReusableEntry(read_blob(out, rt.object))
        except ArtifactError as exc:
            problems.append(f"cannot reuse the runtime object: {exc}")
    return PreviousBuild(manifest, reusable, problems)


def _check_reusable(out: Path, e: Entry, target: Target, code: bytes, wrapper: bytes) -> None:
    """Refuse to reuse objects that disagree with their manifest entry: the new build
    takes them by ``e.key`` and names them by the key, so they must describe themselves
    as the entry says (``gradc.artifacts.abi``) and the symbol must carry the key.

    Raises:
        ArtifactError: they do not (the message says how).
    """
    if not e.symbol.endswith("_" + e.key[:16]):
        raise ArtifactError(f"{out}: export {e.name!r}: symbol {e.symbol} does not match its key")
    check_object(str(out), e, target, code)
    if wrapper:
        check_object(str(out), e, target, wrapper, "wrapper")


# ---------------------------------------------------------------------------- reading


def read_text(art_dir: str | os.PathLike[str], entry: Entry, kind: str) -> str:
    """The stored text of ``kind`` (``"ir"``, ``"llvm"`` or ``"asm"``) for ``entry``.

    Raises:
        KeyError: the artifact stores no such text for this entry.
        ArtifactError: the text blob is missing or corrupt.
    """
    if kind not in TEXT_EXTENSIONS:
        raise KeyError(f"unknown text kind {kind!r}; one of {', '.join(TEXT_EXTENSIONS)}")
    if kind not in entry.texts:
        raise KeyError(f"the artifact stores no {kind} text for {entry.name!r}")
    return read_blob(art_dir, entry.texts[kind]).decode("utf-8")
