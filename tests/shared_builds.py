"""Artifact builds shared by the pytest-xdist workers of one test session.

Several workers run tests of the same corpus module; each used to compile it itself (one
build per module per worker). :func:`shared_artifact` builds a module once per session:
the artifact directory lies in a folder common to the session's workers (the parent of
each worker's ``basetemp``, which pytest-xdist sets to ``<session basetemp>/<worker id>``),
named by a hash of the source's path and bytes and of the build's arguments, and a file
lock makes the other workers wait for the first one's build and then load the same
directory (loading only reads it). A build that fails leaves nothing behind: a worker
that needs it again compiles it again and raises the same error.

The folder belongs to this session only (pytest removes old ``basetemp`` folders), so the
compiler's own code never changes under a cached build.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from filelock import FileLock

from gradc.compiler.options import CompilerOptions


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this test session sees (the session's ``basetemp`` when
    run without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_key(path: Path, options: CompilerOptions, grads: Sequence[str] = ()) -> str:
    """The name of ``path``'s build with ``options`` and ``grads``: sha256 of its resolved
    path, its bytes and the arguments' reprs (``CompilerOptions`` is a frozen dataclass)."""
    digest = hashlib.sha256()
    for part in (str(path.resolve()).encode(), path.read_bytes(), repr(options).encode()):
        digest.update(len(part).to_bytes(8, "little") + part)
    digest.update(repr(tuple(grads)).encode())
    return digest.hexdigest()[:32]


def shared_artifact(
    path: Path | str,
    options: CompilerOptions,
    tmp_path_factory: pytest.TempPathFactory,
    grads: Sequence[str] = (),
) -> Path:
    """The artifact directory of ``gradc build`` of ``path`` with ``options`` (and
    ``--grad`` requests ``grads``), built by the first worker of the session that asks.

    Raises what ``build_module`` raises (CompileError ...) when the module does not build.
    """
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module

    path = Path(path).resolve()
    root = session_folder(tmp_path_factory) / "shared-builds"
    root.mkdir(exist_ok=True)
    key = build_key(path, options, grads)
    out = root / key / f"{path.stem}.gradc"
    done = root / key / "complete"
    with FileLock(str(root / f"{key}.lock")):
        if not done.exists():
            write_artifact(out, build_module(path, options, grads))
            done.touch()
    return out
