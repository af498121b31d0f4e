"""The compiled methods of :mod:`gradc._dataclass` kept on disk between processes, for
the ``gradc build`` command (:func:`keep_in`), as Python keeps modules' bytecode.

A dataclass's ``__init__`` (and ``__eq__``, ``__hash__``) is compiled from source on its
first call: ~70 of them in a build of a small module, 19,500 characters parsed and
compiled, ~4 % of the instructions of a first ``gradc build`` (issue 13, build latency).
The code object of a source text is the same in every process of one Python version, so
:func:`code_of` keeps each in a file (``marshal``, one per ``sys.implementation.
cache_tag``) read once per process and rewritten, atomically, at its exit when a source
was new. A missing, unreadable or damaged file is an empty cache; an unwritable folder
leaves it unwritten. Without :func:`keep_in` (a library, tests) nothing is read or written.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
from pathlib import Path
from types import CodeType

__all__ = ["code_of", "keep_in"]

#: Entries beyond which a rewrite keeps only those this process used (edited dataclasses
#: leave stale sources behind).
MAX_ENTRIES = 4096

_codes: dict[str, CodeType] = {}
_used: set[str] = set()
_file: Path | None = None
_changed = False


def keep_in(folder: Path) -> None:
    """Read the kept methods from ``folder`` (``dataclass-methods-<cache tag>.marshal``)
    and write the file back at the process's exit if a new one was compiled."""
    global _file
    _file = folder / f"dataclass-methods-{sys.implementation.cache_tag}.marshal"
    try:
        loaded = marshal.loads(_file.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        loaded = None
    if isinstance(loaded, dict):
        _codes.update(
            (k, v) for k, v in loaded.items() if isinstance(k, str) and isinstance(v, CodeType)
        )
    atexit.register(_write)


def code_of(source: str) -> CodeType:
    """``compile(source, "<string>", "exec")``, from the kept methods when there."""
    global _changed
    code = _codes.get(source)
    if code is None:
        code = compile(source, "<string>", "exec")
        if _file is not None:
            _codes[source] = code
            _changed = True
    _used.add(source)
    return code


def _write() -> None:
    if _file is None or not _changed:
        return
    codes = _codes if len(_codes) <= MAX_ENTRIES else {k: _codes[k] for k in _used}
    tmp = _file.with_name(f"{_file.name}.{os.getpid()}.tmp")
    try:
        _file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(marshal.dumps(codes))
        os.replace(tmp, _file)
    except OSError:
        tmp.unlink(missing_ok=True)
