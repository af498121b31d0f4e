"""A shared artifact cache on S3-compatible storage, through fsspec (docs/remote.md).

Machines that build the same module with the same options compute the same cache keys
(DESIGN.md §5); this store lets the second one download what the first compiled::

    <url>/cas/<sha256>   immutable blobs (objects, wrappers, LLVM and assembly texts),
                         named by the sha256 of their bytes, written create-only
                         (``If-None-Match: *``)
    <url>/ac/<key>       one small msgpack record per cache key (an export's CPU variant,
                         or the runtime object): the sha256 of each of its blobs and the
                         toolchain that wrote it; written create-only, after its blobs

There are no LIST calls and no locks: a reader asks for ``ac/<key>``, then for the blobs it
names, and checks every blob against its sha256 (the store may not). Anything odd — a
missing blob, a wrong hash, an unreadable record, a record of another key or toolchain, a
record that differs from ours for the same key (a non-reproducible build) — is a miss plus
a warning, never a failed build. A store that cannot be reached (connection refused,
timeouts, missing credentials) is reported once and then left alone for the rest of the
build, which completes locally.

fsspec (and s3fs for ``s3://``) is imported only when a remote cache is used, never by
``import gradc`` or ``gradc.load``. Credentials come from the store's own chain (for S3:
the environment, ``~/.aws``, instance roles); the endpoint of an S3-compatible store from
``AWS_ENDPOINT_URL`` or fsspec's ``FSSPEC_S3_ENDPOINT_URL``. This module reads no
environment variables itself: callers (``gradc.cli``, ``gradc.runtime_mode``) pass a
:class:`RemoteOptions`.
"""

from __future__ import annotations

import hashlib
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

from gradc.artifacts.store import BuildOutputLike, ReusableEntry

#: Version of the ``ac/<key>`` record layout; part of every record.
RECORD_FORMAT = 1
#: Records larger than this are not records (a misplaced object): unreadable.
_MAX_RECORD_BYTES = 64 * 1024
_SHA = re.compile(r"[0-9a-f]{64}")
#: The blobs a record may name, in the order of :class:`ReusableEntry`'s fields.
_BLOB_KINDS = ("object", "wrapper", "llvm", "asm")


class RemoteCacheWarning(UserWarning):
    """Something in the remote cache could not be used (the build went on without it)."""


@dataclass(frozen=True)
class RemoteOptions:
    """Where the remote cache is and how to talk to it (read in ``cli/``, passed down).

    Attributes:
        url: an fsspec URL of a folder whose filesystem writes create-only
            (``pipe_file(mode="create")``): ``s3://bucket/prefix``, ``gs://bucket/prefix``.
        readonly: look up only, never publish (consumers that must not write).
        timeout_s: connect and read timeout of each request, in seconds.
        attempts: how many times a request that failed for a transient reason (a
            connection error, a timeout, a 5xx) is tried in all, with a short back-off.
    """

    url: str
    readonly: bool = False
    timeout_s: float = 10.0
    attempts: int = 2

    def __post_init__(self) -> None:
        if "://" not in self.url:
            raise ValueError(f"remote cache URL {self.url!r} needs a scheme (s3://bucket/prefix)")
        if self.timeout_s <= 0 or self.attempts < 1:
            raise ValueError("remote cache timeout must be > 0 and attempts >= 1")


class _Unreachable(Exception):
    """The store failed in a way that is not about one object: stop using it."""


@dataclass
class RemoteStats:
    """What one :class:`RemoteCache` did (for ``--timings`` and the summary line).

    Attributes:
        hits: cache key -> record of each key found and verified.
        published: keys whose record this process wrote.
        seconds: wall time spent talking to the store.
    """

    hits: dict[str, Mapping[str, str]] = field(default_factory=dict)
    published: set[str] = field(default_factory=set)
    seconds: float = 0.0


class RemoteCache:
    """A client of one remote cache (see the module docstring for the layout).

    Args:
        options: where and how.
        toolchain: identity of this compiler: ``{"gradc": ..., "llvmlite": ..., "llvm":
            ...}`` (``toolchain.host_producer()``'s fields); written into each record, and a
            record with another toolchain is not used.
        warn: called with each warning's text (default: a :class:`RemoteCacheWarning`).
        filesystem: an fsspec filesystem to use instead of opening ``options.url``, and
            the root path inside it (tests).

    Nothing is contacted before the first lookup or publish. No method raises for a
    problem of the store: each is a miss (or an unpublished key) and a warning.
    """

    def __init__(
        self,
        options: RemoteOptions,
        toolchain: Mapping[str, str],
        *,
        warn: Callable[[str], None] | None = None,
        filesystem: tuple[Any, str] | None = None,
    ) -> None:
        self.options = options
        self.toolchain = {k: str(v) for k, v in sorted(toolchain.items())}
        self.stats = RemoteStats()
        self._warn_fn = warn
        self._fs: Any = None
        self._root = ""
        if filesystem is not None:
            self._fs, self._root = filesystem[0], filesystem[1].rstrip("/")
        self._down: str | None = None
        self._records: dict[str, bytes | None] = {}  # record bytes read per key (None: absent)
        self._suspect: set[str] = set()  # keys whose record or blobs were bad (warned)
        self._denied_warned = False
        self._not_writable = False

    # ------------------------------------------------------------------ public

    @property
    def available(self) -> bool:
        """False once the store was found unreachable (it is then no longer contacted)."""
        return self._down is None

    def lookup(self, key: str) -> ReusableEntry | None:
        """The verified blobs stored for cache ``key``, or None (a miss; odd things warned)."""
        if self._down is not None:
            return None
        start = time.perf_counter()
        try:
            self._call(self._fs_or_open)
            return self._lookup(key)
        except _Unreachable:
            return None
        finally:
            self.stats.seconds += time.perf_counter() - start

    def publish(self, key: str, entry: ReusableEntry) -> None:
        """Store ``entry`` under ``key``: its blobs create-only, then its record.

        Does nothing in read-only mode or once the store is unreachable. A record already
        there for ``key`` is left as it is; when it differs from ours, that is a
        non-reproducible build (or another toolchain's record) and is warned about.
        """
        if self.options.readonly or self._not_writable or self._down is not None:
            return
        start = time.perf_counter()
        try:
            self._call(self._fs_or_open)
            self._publish(key, entry)
        except _Unreachable:
            pass
        finally:
            self.stats.seconds += time.perf_counter() - start

    def publish_build(self, build: BuildOutputLike) -> None:
        """Publish every entry (each CPU variant) and the runtime object of ``build``
        (a ``gradc.compiler.driver.BuildOutput``) that did not come from this store."""
        for key, entry in build_entries(build).items():
            if key not in self.stats.hits:
                self.publish(key, entry)

    def layered(self, local: Mapping[str, ReusableEntry]) -> LayeredCache:
        """A cache mapping for ``gradc.compiler.driver.build_module``: ``local`` first,
        then this store."""
        return LayeredCache(local, self)

    # ------------------------------------------------------------------ lookup

    def _lookup(self, key: str) -> ReusableEntry | None:
        raw = self._read_record(key)
        if raw is None:
            return None
        record = self._parse_record(key, raw)
        if record is None:
            self._suspect.add(key)
            return None
        names = {kind: f"{self._root}/cas/{sha}" for kind, sha in record.items()}
        got = self._cat(list(names.values()))
        blobs: dict[str, bytes] = {}
        for kind, path in names.items():
            data = got.get(path)
            sha = record[kind]
            if data is None:
                self._suspect.add(key)
                self._warn(f"{self._show(path)} is missing (named by ac/{key[:16]}…): not used")
                return None
            actual = hashlib.sha256(data).hexdigest()
            if actual != sha:
                self._suspect.add(key)
                self._warn(
                    f"{self._show(path)} is corrupt or truncated: sha256 {actual[:16]}… != "
                    f"expected {sha[:16]}… ({len(data)} bytes): not used"
                )
                return None
            blobs[kind] = data
        try:
            llvm = blobs.get("llvm", b"").decode("utf-8")
            asm = blobs.get("asm", b"").decode("utf-8")
        except UnicodeDecodeError:
            self._suspect.add(key)
            self._warn(f"ac/{key[:16]}… names a text blob that is not UTF-8: not used")
            return None
        foreign = foreign_blobs(key, blobs)
        if foreign is not None:
            self._suspect.add(key)
            where = self._show(f"{self._root}/ac/{key}")
            self._warn(f"{where} names blobs of another key: {foreign}: not used")
            return None
        self.stats.hits[key] = record
        return ReusableEntry(blobs["object"], blobs.get("wrapper", b""), llvm, asm)

    def _read_record(self, key: str) -> bytes | None:
        if key in self._records:
            return self._records[key]
        path = f"{self._root}/ac/{key}"
        try:
            raw: bytes | None = self._call(self._get, path)
        except FileNotFoundError:
            raw = None
        except PermissionError as exc:
            # S3 answers 403, not 404, for a missing key to a role without s3:ListBucket.
            if not self._denied_warned:
                self._denied_warned = True
                self._warn(
                    f"access denied reading {self._show(path)} ({exc}); such keys are "
                    "treated as misses (a role without s3:ListBucket gets 403 for a missing key)"
                )
            raw = None
        self._records[key] = raw
        return raw

    def _parse_record(self, key: str, raw: bytes) -> dict[str, str] | None:
        """The blobs (kind -> sha256) of a valid record for ``key``; None (and a warning)
        for anything else."""
        where = f"{self._show(f'{self._root}/ac/{key}')}"
        try:
            if len(raw) > _MAX_RECORD_BYTES:
                raise ValueError(f"{len(raw)} bytes")
            data = msgpack.unpackb(raw, raw=False)
            if not isinstance(data, dict):
                raise ValueError("not a map")
            fmt, rkey, toolchain, blobs = (
                data.get("format"),
                data.get("key"),
                data.get("toolchain"),
                data.get("blobs"),
            )
            if fmt != RECORD_FORMAT:
                raise ValueError(f"record format {fmt!r}, this gradc reads {RECORD_FORMAT}")
            if rkey != key:
                raise ValueError(f"it is the record of key {str(rkey)[:16]}…")
            if not isinstance(toolchain, dict) or not isinstance(blobs, dict):
                raise ValueError("no toolchain or blobs map")
            if "object" not in blobs or not set(blobs) <= set(_BLOB_KINDS):
                raise ValueError(f"blob kinds {sorted(blobs)}")
            if not all(isinstance(s, str) and _SHA.fullmatch(s) for s in blobs.values()):
                raise ValueError("a blob name is not a sha256")
        except Exception as exc:  # msgpack raises several unrelated types
            self._warn(f"{where} is unreadable ({exc}): not used")
            return None
        if toolchain != self.toolchain:
            theirs = ", ".join(f"{k} {v}" for k, v in sorted(toolchain.items()))
            ours = ", ".join(f"{k} {v}" for k, v in self.toolchain.items())
            self._warn(
                f"{where} was written by another toolchain ({theirs}; this is {ours}): not used"
            )
            return None
        return dict(blobs)

    # ------------------------------------------------------------------ publish

    def _publish(self, key: str, entry: ReusableEntry) -> None:
        blobs = _entry_blobs(entry)
        record = encode_record(key, self.toolchain, {k: s for k, (s, _) in blobs.items()})
        existing = self._records.get(key) if key in self._records else self._peek(key)
        if existing is not None and key not in self._suspect:
            self._compare(key, existing, record)
            return
        # Blobs first (create-only: a blob already there has these bytes, or is damaged
        # and was warned about), then the record: a reader never sees a record whose
        # blobs are not all stored.
        for sha, data in blobs.values():
            self._create(f"{self._root}/cas/{sha}", data)
        if existing is None:
            if self._create(f"{self._root}/ac/{key}", record):
                self.stats.published.add(key)
                self._records[key] = record
            else:  # another publisher got there first
                raced = self._peek(key)
                if raced is not None:
                    self._compare(key, raced, record)

    def _peek(self, key: str) -> bytes | None:
        self._records.pop(key, None)
        return self._read_record(key)

    def _compare(self, key: str, existing: bytes, ours: bytes) -> None:
        if existing != ours and key not in self._suspect:
            self._suspect.add(key)
            self._warn(
                f"{self._show(f'{self._root}/ac/{key}')} differs from this build's record for "
                "the same key (a non-reproducible build, or another writer's record); "
                "the stored record is kept"
            )

    def _create(self, path: str, data: bytes) -> bool:
        """Write ``path`` create-only; False when it already exists."""
        try:
            self._call(self._fs_or_open().pipe_file, path, data, mode="create")
        except FileExistsError:
            return False
        # A read-only role, or a bucket (folder) that does not exist: keep reading (every
        # key is then a miss), stop writing; the local build goes on.
        except (PermissionError, FileNotFoundError) as exc:
            self._warn(f"cannot write {self._show(path)} ({exc}); not publishing to it")
            self._not_writable = True
            raise _Unreachable from None
        return True

    # ------------------------------------------------------------------ the store

    def _fs_or_open(self) -> Any:
        """The filesystem (opened on first use: then ``_root`` is set too)."""
        if self._fs is None:
            self._fs, self._root = open_filesystem(self.options)
        return self._fs

    def _get(self, path: str) -> bytes:
        fs = self._fs_or_open()
        if _is_s3(fs):  # one GET: no HEAD for the size, no LIST when it is missing
            return bytes(fs.cat_file(path, max_concurrency=1))
        return bytes(fs.cat_file(path))

    def _cat(self, paths: list[str]) -> dict[str, bytes | None]:
        """Read ``paths`` concurrently: path -> bytes, None for a missing one."""
        fs = self._fs_or_open()
        kwargs = {"max_concurrency": 1} if _is_s3(fs) else {}
        got = self._call(fs.cat, paths, on_error="return", **kwargs)
        if not isinstance(got, dict):  # one path: fsspec returns its bytes
            got = {paths[0]: got}
        out: dict[str, bytes | None] = {}
        for path in paths:
            value = got.get(path, got.get(path.split("://", 1)[-1]))
            if isinstance(value, FileNotFoundError | PermissionError) or value is None:
                out[path] = None
            elif isinstance(value, BaseException):
                self._unreachable(value)
            else:
                out[path] = bytes(value)
        return out

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``; a failure that is not about the object (missing,
        exists, denied) marks the store unreachable, warns once and raises
        :class:`_Unreachable`."""
        try:
            return fn(*args, **kwargs)
        except (FileNotFoundError, FileExistsError, PermissionError):
            raise
        except Exception as exc:
            self._unreachable(exc)

    def _unreachable(self, exc: BaseException) -> Any:
        self._down = f"{type(exc).__name__}: {exc}"
        self._warn(
            f"remote cache {self.options.url} is unreachable ({self._down}); "
            "building locally without it"
        )
        raise _Unreachable from exc

    def _show(self, path: str) -> str:
        """``path`` as the user wrote the URL: ``s3://bucket/prefix/cas/ab12…``."""
        rel = path[len(self._root) :].lstrip("/") if path.startswith(self._root) else path
        if rel.startswith(("cas/", "ac/")):
            head, name = rel.split("/", 1)
            rel = f"{head}/{name[:16]}…"
        return f"{self.options.url.rstrip('/')}/{rel}"

    def _warn(self, message: str) -> None:
        if self._warn_fn is None:
            warnings.warn(message, RemoteCacheWarning, stacklevel=3)
        else:
            self._warn_fn(message)


class LayeredCache(Mapping[str, ReusableEntry]):
    """A local cache mapping, then a :class:`RemoteCache`, as one mapping for the driver.

    ``get(key)`` (what ``build_module`` calls per export and for the runtime) returns
    the local entry if any, else downloads and verifies the remote one (once per key).
    Iterating and ``len`` cover the local entries only (a remote store is never listed).
    """

    def __init__(self, local: Mapping[str, ReusableEntry], remote: RemoteCache) -> None:
        self.local = local
        self.remote = remote
        self._fetched: dict[str, ReusableEntry | None] = {}

    def __getitem__(self, key: str) -> ReusableEntry:
        if key in self.local:
            return self.local[key]
        if key not in self._fetched:
            self._fetched[key] = self.remote.lookup(key)
        found = self._fetched[key]
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.local)

    def __len__(self) -> int:
        return len(self.local)


def foreign_blobs(key: str, blobs: Mapping[str, bytes]) -> str | None:
    """Why ``blobs`` (kind -> bytes, each already matching its sha256) are not those of
    cache ``key``; None when they are.

    Each blob is verified against the sha256 its record names, but a record can name
    blobs of another key's content (a bug or a malicious writer swapped them). An entry's
    object defines exactly one ABI description, ``__gradc_abi_gradc_<export>_<key16>``,
    whose last 16 hex digits are its key's first 16 (``abi.symbols.entry_symbol``); its
    wrapper defines ``gradcpy_<export>_<key16>`` and its LLVM text names the entry
    symbol. The runtime object defines no description, only runtime functions, and its
    record names no other blob. (The runtime object names no key: a record of one
    runtime key pointing at the runtime object of other options is not detected; the
    loader checks the entry objects' target against the manifest.)
    """
    from gradc.artifacts.abi.symbols import (
        DESCRIPTION_PREFIX,
        RUNTIME_PREFIXES,
        wrapper_symbol,
    )
    from gradc.artifacts.elf import ElfError, defined_symbols

    try:
        defined = defined_symbols(blobs["object"])
        wrapper = defined_symbols(blobs["wrapper"]) if blobs.get("wrapper") else None
    except ElfError as exc:
        return f"an object is not an ELF relocatable object ({exc})"
    entries = sorted(
        n[len(DESCRIPTION_PREFIX) :] for n in defined if n.startswith(DESCRIPTION_PREFIX)
    )
    if not entries:
        if not any(n.startswith(tuple(RUNTIME_PREFIXES)) for n in defined):
            return "its object defines neither an entry nor the runtime"
        if set(blobs) != {"object"}:
            return (
                f"the runtime object comes with {', '.join(sorted(set(blobs) - {'object'}))} blobs"
            )
        return None
    if len(entries) != 1 or not entries[0].endswith(f"_{key[:16]}"):
        return f"its object is the entry {', '.join(entries)}, not one of key {key[:16]}…"
    symbol = entries[0]
    if wrapper is not None and wrapper_symbol(symbol) not in wrapper:
        return f"its wrapper object does not define {wrapper_symbol(symbol)}"
    if blobs.get("llvm") and symbol.encode() not in blobs["llvm"]:
        return f"its LLVM text does not define {symbol}"
    return None


def host_toolchain() -> dict[str, str]:
    """This process's toolchain identity for records: gradc, llvmlite and LLVM versions
    (``toolchain.host_producer``)."""
    from gradc.artifacts.toolchain import host_producer

    p = host_producer()
    return {"gradc": p.gradc, "llvm": p.llvm, "llvmlite": p.llvmlite}


def build_entries(build: BuildOutputLike) -> dict[str, ReusableEntry]:
    """Cache key -> blobs of every entry, CPU variant and the runtime of ``build``."""
    out: dict[str, ReusableEntry] = {}
    for e in build.entries:
        for v in (e, *getattr(e, "variants", ())):
            out[v.key] = ReusableEntry(
                bytes(v.object_code),
                bytes(getattr(v, "wrapper_object", b"") or b""),
                getattr(v, "llvm_text", "") or "",
                getattr(v, "asm_text", "") or "",
            )
    runtime = bytes(getattr(build, "runtime_object", b"") or b"")
    runtime_key = str(getattr(build, "runtime_key", "") or "")
    if runtime and runtime_key:
        out[runtime_key] = ReusableEntry(runtime)
    return out


def _entry_blobs(entry: ReusableEntry) -> dict[str, tuple[str, bytes]]:
    """Kind -> (sha256, bytes) of each non-empty blob of ``entry``."""
    out = {}
    for kind, data in (
        ("object", entry.object_code),
        ("wrapper", entry.wrapper_object),
        ("llvm", entry.llvm_text.encode("utf-8")),
        ("asm", entry.asm_text.encode("utf-8")),
    ):
        if data or kind == "object":
            out[kind] = (hashlib.sha256(data).hexdigest(), bytes(data))
    return out


def encode_record(key: str, toolchain: Mapping[str, str], blobs: Mapping[str, str]) -> bytes:
    """The ``ac/<key>`` record: msgpack of ``{"blobs": kind -> sha256, "format",
    "key", "toolchain"}`` with every map sorted, so equal records are equal bytes."""
    value = {
        "blobs": dict(sorted(blobs.items())),
        "format": RECORD_FORMAT,
        "key": key,
        "toolchain": dict(sorted(toolchain.items())),
    }
    return bytes(msgpack.packb(value, use_bin_type=True))


def open_filesystem(options: RemoteOptions) -> tuple[Any, str]:
    """The fsspec filesystem of ``options.url`` and the root path in it.

    For ``s3://`` the requests get ``options.timeout_s`` as connect and read timeout and
    ``options.attempts`` tries in all; other protocols get fsspec's defaults.

    A ``file://`` folder that does not exist yet is created on the first publish.

    Raises:
        ImportError: fsspec (or the protocol's package, s3fs for ``s3://``) is not
            installed: ``pip install 'gradc[remote]'``.
        ValueError: fsspec knows no such protocol, or the URL names no bucket (folder).
    """
    try:
        import fsspec
    except ImportError as exc:  # pragma: no cover - the extra is installed in tests
        raise ImportError(
            f"a remote cache needs fsspec: pip install 'gradc[remote]' ({exc})"
        ) from exc
    protocol = options.url.split("://", 1)[0]
    kwargs: dict[str, Any] = {"skip_instance_cache": True}
    if protocol in ("s3", "s3a"):
        kwargs["config_kwargs"] = {
            "connect_timeout": options.timeout_s,
            "read_timeout": options.timeout_s,
            "retries": {"total_max_attempts": 1},  # s3fs retries itself, see below
        }
    elif protocol in ("file", "local"):
        kwargs["auto_mkdir"] = True
    if protocol not in fsspec.available_protocols():
        raise ValueError(f"the protocol {protocol}:// is unknown to fsspec")
    fs, root = fsspec.core.url_to_fs(options.url, **kwargs)
    if not str(root).strip("/"):
        raise ValueError(f"{options.url} names no bucket or folder (s3://bucket/prefix)")
    if hasattr(fs, "retries"):
        fs.retries = options.attempts
    return fs, str(root).rstrip("/")


def _is_s3(fs: Any) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, tuple | list) else (fs.protocol,)
    return "s3" in protocol
