"""Durable, atomic file writes for the artifact store (``gradc.artifacts.store``).

Every file is written to a temporary file (:data:`TMP_PREFIX`) in its final folder,
fsync'ed, then ``os.replace``'d into place, and the folder fsync'ed: a reader sees the
old file or the new one, and after a crash (process or power) the new one is whole or
absent. :func:`write_blobs` does this for many files at once with fewer waits: all
written, then fsync'ed concurrently, then renamed, then each folder fsync'ed once.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

__all__ = [
    "FILE_MODE",
    "TMP_PREFIX",
    "atomic_write",
    "fsync_dir",
    "locked",
    "write_blobs",
    "write_temporary",
]

#: Prefix of temporary files (a crashed writer's are removed by the next write).
TMP_PREFIX = ".tmp-"

#: File mode of written files (artifacts are shipped and read by other users).
FILE_MODE = 0o644


def write_blobs(
    out: Path,
    rels: list[str],
    blobs: Mapping[str, bytes],
    created: list[Path],
    staged: Callable[[str], str | None] | None = None,
) -> None:
    """Write the blobs ``rels`` of ``out`` durably, before any manifest names them: each
    to a temporary file, all fsync'ed (concurrently), renamed into place (appended to
    ``created`` as they are), then each folder fsync'ed once. ``staged(rel)`` gives the
    temporary of a blob written earlier with these bytes (``gradc.artifacts.staging``),
    if any. Temporaries not renamed are removed on failure."""
    temporaries: list[tuple[str, Path]] = []
    try:
        for rel in rels:
            path = out / rel
            tmp = staged(rel) if staged is not None else None
            temporaries.append((tmp or write_temporary(path, blobs[rel]), path))
        _fsync_files([tmp for tmp, _ in temporaries])
        while temporaries:
            tmp, path = temporaries[0]
            os.replace(tmp, path)
            temporaries.pop(0)
            created.append(path)
    finally:
        for tmp, _ in temporaries:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    for folder in sorted({path.parent for path in created}):
        fsync_dir(folder)


def write_temporary(path: Path, data: bytes) -> str:
    """``data`` in a new temporary file beside ``path`` (not yet fsync'ed); its name."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TMP_PREFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), FILE_MODE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _fsync_file(name: str) -> None:
    fd = os.open(name, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_files(names: list[str]) -> None:
    """fsync every file of ``names``: concurrently when there are several, so that the
    file system can commit them together (about half the time of one after the other)."""
    if len(names) < 3:
        for name in names:
            _fsync_file(name)
        return
    # plain threads, not concurrent.futures (whose import, logging's included, costs a
    # small build more than its fsyncs' CPU): at most 8, each taking every 8th file
    import threading

    failures: list[BaseException] = []

    def fsync_every(start: int) -> None:
        try:
            for name in names[start :: min(8, len(names))]:
                _fsync_file(name)
        except BaseException as exc:  # re-raised in the caller's thread
            failures.append(exc)

    threads = [threading.Thread(target=fsync_every, args=(k,)) for k in range(min(8, len(names)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    tmp = write_temporary(path, data)
    try:
        _fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """fsync the folder ``path``, making its entries (renames) durable; a folder that
    cannot be opened or fsync'ed (some file systems refuse) is left as it is."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created if missing) while the block
    runs, waiting for any other holder: ``flock``, the lock ``filelock.FileLock`` takes on
    POSIX systems (``gradc cache`` probes it with one), without importing filelock
    (~15 ms); filelock itself where there is no ``fcntl``."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        from filelock import FileLock

        with FileLock(str(path)):
            yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
