"""The runtime object, built once per key and cached for every later build.

The runtime object (``gradc_rt*``, :mod:`.runtime`) is the same for every artifact built
with the same target, options and toolchain (its key, ``gradc.compiler.keys.runtime_key``:
the runtime ABI, the target, the options and the versions of gradc, llvmlite and LLVM). A
build whose artifact directory does not already hold it takes it from this cache instead
of compiling it (~25 ms): first from this process's memory, then from
``$GRADC_CACHE_DIR/runtime/<key>.o`` (default ``platformdirs.user_cache_dir("gradc")``, as
runtime mode's cache). A file there is its object's sha256 (32 bytes) followed by the
object; one whose digest does not match (damaged, truncated) is rebuilt and replaced. The
file is written to a temporary name and renamed into place, so a concurrent reader sees a
whole file or none; a cache folder that cannot be written only costs the rebuild.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from gradc._hashing import sha256

__all__ = ["RUNTIME_FOLDER", "cached_runtime", "find_runtime", "runtime_cache_dir"]

#: The environment variable naming gradc's cache root (as gradc.runtime_mode reads it).
_CACHE_DIR_ENV = "GRADC_CACHE_DIR"

#: The folder of the cache root that holds the runtime objects (``gradc cache`` reports
#: and clears it).
RUNTIME_FOLDER = "runtime"

_memory: dict[str, bytes] = {}


def runtime_cache_dir() -> Path:
    """``$GRADC_CACHE_DIR/runtime``, else ``platformdirs.user_cache_dir("gradc")/runtime``."""
    root = os.environ.get(_CACHE_DIR_ENV)
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("gradc")
    return Path(root) / RUNTIME_FOLDER


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    digest, code = data[:32], data[32:]
    return code if code and sha256(code).digest() == digest else None


def _write(path: Path, code: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".o")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(sha256(code).digest() + code)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # an unwritable cache: the next build compiles it again


def find_runtime(key: str) -> bytes | None:
    """The runtime object of ``key`` from this process's memory, else from the cache
    folder (then kept in memory); None when neither holds an intact one."""
    code = _memory.get(key)
    if code is None:
        code = _read(runtime_cache_dir() / f"{key}.o")
        if code is not None:
            _memory[key] = code
    return code


def cached_runtime(key: str, build: Callable[[], bytes]) -> bytes:
    """The runtime object of ``key``: :func:`find_runtime`, else ``build()`` (then stored
    in memory and in the cache folder).

    Raises:
        what ``build`` raises.
    """
    code = find_runtime(key)
    if code is None:
        code = build()
        _write(runtime_cache_dir() / f"{key}.o", code)
        _memory[key] = code
    return code
