"""``gradc cache info|list|clear``: the user cache that runtime mode compiles into.

The cache root is ``$GRADC_CACHE_DIR``, else ``platformdirs.user_cache_dir("gradc")``
(``gradc.runtime_mode.cache_root``). Its entries are artifact directories named
``<stem>-<sha256(module path)[:16]>.gradc`` (a module file) or
``inline-<sha256(source text)[:16]>.gradc`` (code without a file), each with a
``<entry>.lock`` file beside it (the compile lock). Nothing outside the cache root is
read or removed; ``gradc build``'s ``build/`` folders are not part of the cache.
"""

from __future__ import annotations

import fnmatch
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import click

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.store import read_manifest
from gradc.compiler.codegen.runtime_cache import RUNTIME_FOLDER
from gradc.runtime_mode import cache_root

ENTRY_SUFFIX = ".gradc"
LOCK_SUFFIX = ".lock"


@dataclass(frozen=True)
class CacheEntry:
    """One artifact directory of the cache: its path, size in bytes (all files under it),
    modification time (seconds since the epoch, of its manifest), and its exports (names,
    empty when the manifest cannot be read: ``problem`` then says why)."""

    path: Path
    size: int
    mtime: float
    exports: tuple[str, ...]
    problem: str = ""


def cache_entries(root: Path) -> list[CacheEntry]:
    """The entries under ``root``, sorted by name; ``[]`` when ``root`` does not exist."""
    if not root.is_dir():
        return []
    entries = []
    for path in sorted(root.glob(f"*{ENTRY_SUFFIX}")):
        if not path.is_dir():
            continue
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        manifest_path = path / "manifest.msgpack"
        mtime = manifest_path.stat().st_mtime if manifest_path.is_file() else 0.0
        try:
            exports, problem = tuple(read_manifest(path).names()), ""
        except (ArtifactError, OSError) as exc:
            exports, problem = (), str(exc)
        entries.append(CacheEntry(path, size, mtime, exports, problem))
    return entries


def human_size(size: int) -> str:
    """``size`` bytes as ``'512 B'`` or ``'12.3 kB'`` (powers of 1000, as ``du --si``)."""
    if size < 1000:
        return f"{size} B"
    value = size / 1000
    for unit in ("kB", "MB"):
        if value < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


@click.group("cache")
def cache_command() -> None:
    """The user cache of runtime mode ($GRADC_CACHE_DIR or the platform's cache folder)."""


@cache_command.command("info")
def cache_info() -> None:
    """Print the cache folder, its number of entries and their total size."""
    root = cache_root()
    entries = cache_entries(root)
    runtimes = _runtime_objects(root)
    click.echo(f"cache: {root}")
    click.echo(f"entries: {len(entries)}")
    click.echo(f"size: {human_size(sum(e.size for e in entries))}")
    if runtimes:
        size = human_size(sum(p.stat().st_size for p in runtimes))
        click.echo(f"runtime objects: {len(runtimes)} ({size})")


def _runtime_objects(root: Path) -> list[Path]:
    """The runtime objects builds keep in ``<root>/runtime`` (one per runtime key:
    ``gradc.compiler.codegen.runtime_cache``)."""
    folder = root / RUNTIME_FOLDER
    return sorted(folder.glob("*.o")) if folder.is_dir() else []


@cache_command.command("list")
def cache_list() -> None:
    """One line per entry: folder name, size, age and exports."""
    root = cache_root()
    entries = cache_entries(root)
    if not entries:
        click.echo(f"no entries in {root}")
        return
    now = time.time()
    for e in entries:
        what = ", ".join(e.exports) if not e.problem else f"unreadable: {e.problem}"
        age = _age(now - e.mtime) if e.mtime else "?"
        click.echo(f"{e.path.name}  {human_size(e.size):>9}  {age:>8}  {what}")


@cache_command.command("clear")
@click.argument("patterns", nargs=-1, metavar="[PATTERN...]")
def cache_clear(patterns: tuple[str, ...]) -> None:
    """Remove every entry (and the cached runtime objects), or those whose folder name
    matches a shell PATTERN ('gmm-*'); an entry a process is compiling (its lock held) is
    kept."""
    from filelock import FileLock, Timeout

    root = cache_root()
    removed = 0
    for e in cache_entries(root):
        if patterns and not any(fnmatch.fnmatch(e.path.name, p) for p in patterns):
            continue
        lock = e.path.with_name(e.path.name + LOCK_SUFFIX)
        try:
            with FileLock(str(lock), timeout=0):  # a process compiling it holds this lock
                shutil.rmtree(e.path)
        except Timeout:
            click.echo(f"kept {e.path.name}: a process is compiling it", err=True)
            continue
        lock.unlink(missing_ok=True)
        removed += 1
    if not patterns:  # everything: the runtime objects too (a build remakes one in ~25 ms)
        shutil.rmtree(root / RUNTIME_FOLDER, ignore_errors=True)
    click.echo(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {root}")


def _age(seconds: float) -> str:
    """``'42 s'``, ``'5 min'``, ``'3 h'`` or ``'2 d'``."""
    for limit, unit, div in ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600)):
        if seconds < limit:
            return f"{seconds / div:.0f} {unit}"
    return f"{seconds / 86400:.0f} d"
