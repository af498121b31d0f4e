"""Blobs written while a ``-j N`` build still compiles, renamed into place by its write.

A cold build of many exports writes hundreds of files (objects, wrappers, texts): creating
each costs ~0.1-0.2 ms of system time, all of it in the ``write`` stage, after the last
object was emitted, where the other cores have nothing left to do. A :class:`BlobStage`
lets the build process write each blob as soon as its task's result is in, between its
own tasks (``gradc.compiler.backend``), so that the file creation is spread over the
parallel part of the build, whose tasks the other processes take meanwhile.

What is staged is a temporary file (``durable.TMP_PREFIX``) in the blob's final folder,
named nothing a reader looks at, not yet fsync'ed: the ``write`` stage
(``store.write_artifact(..., staged=...)``) takes the temporaries of the blobs it has to
write, fsyncs them with the others (concurrently), renames them into place, blobs first
and the manifest last, exactly as it writes any blob (DESIGN.md §5). Not fsync'ed
earlier: an fsync commits the file system's journal, and every file created meanwhile
waits for it (measured: ~2.5 ms per file created beside a thread fsyncing the staged
ones, against ~0.1 ms). Blob names are content addresses, so a
temporary staged for a blob is that blob's bytes; a staged blob the write does not need
(an unchanged artifact, ``texts=False``) is removed by :meth:`BlobStage.discard`, as is
everything staged when the build fails: a failed build leaves nothing behind, not even
the folders this stage created. Staging never changes what is written, only when.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from gradc._hashing import sha256
from gradc.artifacts.durable import write_temporary
from gradc.artifacts.manifest_paths import object_path, text_path

__all__ = ["BlobStage"]


class BlobStage:
    """Temporaries of blobs of the artifact directory ``out``, written ahead of its write.

    Args:
        out: the artifact directory (created, with its parents, at the first blob).
        texts: whether the build stores texts (``write_artifact``'s ``texts``): without,
            :meth:`put_text` stages nothing.
    """

    def __init__(self, out: Path, texts: bool = True) -> None:
        self.out = out
        self.texts = texts
        self._staged: dict[str, str] = {}  # relative blob path -> its temporary
        self._created: list[Path] = []  # folders this stage made, outermost first

    def put_object(self, code: bytes) -> None:
        """Stage the object blob of ``code`` (nothing for an empty one)."""
        if code:
            self._put(object_path(sha256(code).hexdigest()), code)

    def put_text(self, text: str, kind: str) -> None:
        """Stage the text blob of ``text`` of ``kind`` (``"ir"``, ``"llvm"``, ``"asm"``);
        nothing for an empty text or a build without texts."""
        if text and self.texts:
            data = text.encode("utf-8")
            self._put(text_path(sha256(data).hexdigest(), kind), data)

    def _put(self, rel: str, data: bytes) -> None:
        if rel in self._staged:
            return
        folder = (self.out / rel).parent
        if not folder.is_dir():
            missing = [p for p in (folder, *folder.parents) if not p.is_dir()]
            folder.mkdir(parents=True, exist_ok=True)
            self._created.extend(reversed(missing))
        self._staged[rel] = write_temporary(self.out / rel, data)

    def take(self, rel: str) -> str | None:
        """The temporary staged for the blob ``rel``, now the caller's to fsync and rename
        or remove (None: none staged, or a writer cleaning up after a crash removed it)."""
        tmp = self._staged.pop(rel, None)
        return tmp if tmp is not None and os.path.exists(tmp) else None

    def temporaries(self) -> set[str]:
        """The names of the temporaries staged and not yet taken (for the writer's sweep
        of crashed writers' temporaries, which must leave them)."""
        return {os.path.basename(tmp) for tmp in self._staged.values()}

    def discard(self) -> None:
        """Remove every temporary not taken, and the folders this stage created if they
        are empty (a failed build: nothing of it is left)."""
        for tmp in self._staged.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._staged.clear()
        for folder in reversed(self._created):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty: another writer may be using it
        self._created.clear()
