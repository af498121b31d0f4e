"""The digest of the compiler's own source when gradc runs from a source checkout: a
cache-key component (``versions.source``, compiler/keys.py), so that an edit of the
compiler never reuses objects or runtime objects the unedited compiler made.

An installed gradc (a wheel) is named by its version alone, which changes with each
release: its digest is ``""``. A checkout (``pip install -e``, or the package directories
beside ``setup.cfg``) is not: two builds of one version may come from different code. Its
digest is the sha256 of the compiler's Python files (path and content), the same on every
machine for one commit, so a team's remote cache still hits between checkouts of one
commit.

Hashing the ~2 MB of source costs ~10 ms, so the digest is kept in the user's cache
(``$GRADC_CACHE_DIR/runtime/source-<fingerprint>``, beside the runtime objects) under a
fingerprint of the files' paths, sizes and modification times (one ``stat`` per file,
~1 ms): an edited file changes the fingerprint, and the content is hashed once more.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from gradc._hashing import sha256

#: The package directories whose code decides what a build emits (setup.cfg's
#: package_dir: compiler/ -> gradc.compiler, ...); the CLI's does not.
_DIRS = ("compiler", "passes", "artifacts", "gradc")


def _checkout_root() -> Path | None:
    """The source checkout gradc runs from, or None for an installed package."""
    root = Path(__file__).resolve().parent.parent
    if (root / "setup.cfg").is_file() and (root / "gradc" / "__init__.py").is_file():
        return root
    return None


def _sources(root: Path) -> list[tuple[str, os.DirEntry[str]]]:
    """(path relative to ``root``, directory entry) of every Python file, sorted."""
    files: list[tuple[str, os.DirEntry[str]]] = []

    def walk(folder: str, relative: str) -> None:
        with os.scandir(folder) as entries:
            for e in sorted(entries, key=lambda e: e.name):
                if e.is_dir() and e.name != "__pycache__":
                    walk(e.path, f"{relative}/{e.name}")
                elif e.name.endswith(".py"):
                    files.append((f"{relative}/{e.name}", e))

    for name in _DIRS:
        walk(str(root / name), name)
    return files


def _fingerprint(files: list[tuple[str, os.DirEntry[str]]]) -> str:
    h = sha256()
    for relative, entry in files:
        st = entry.stat()
        h.update(f"{relative}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _content_digest(files: list[tuple[str, os.DirEntry[str]]]) -> str:
    h = sha256()
    for relative, entry in files:
        with open(entry.path, "rb") as f:
            data = f.read()
        h.update(f"{relative}\0{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def _memo_path(fingerprint: str) -> Path:
    """Beside the runtime objects, which ``gradc cache clear`` removes with them."""
    from gradc.compiler.codegen.runtime_cache import runtime_cache_dir

    return runtime_cache_dir() / f"source-{fingerprint}"


@functools.cache
def source_digest() -> str:
    """The sha256 (hex) of the compiler's source in a checkout, ``""`` when installed.

    Never raises for an unwritable cache folder: the digest is then computed each time.
    """
    root = _checkout_root()
    if root is None:
        return ""
    files = _sources(root)
    memo = _memo_path(_fingerprint(files))
    try:
        text = memo.read_text()
        if len(text) == 64:
            return text
    except OSError:
        pass
    digest = _content_digest(files)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, memo)  # atomic: a reader sees the whole digest or none
    except OSError:
        pass
    return digest


__all__ = ["source_digest"]
