"""Shared fixtures: compile a corpus module through the real pipeline and load it.

``compile_module(path)`` runs the same steps as ``gradc build``: the driver compiles the
source (never importing it), the artifact store writes the artifact directory, and the
runtime loader maps it back into this process. Results are cached per path for the whole
session; a build that failed is cached too and re-raised, so one broken module costs one
build, not one per export. The pytest-xdist workers of a session share the builds
(``tests/shared_builds.py``): each module is compiled once per session, not once per worker.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# Test modules import corpus and example modules as plain Python to use their functions as
# oracles: ``@gradc.export`` must return the Python function there, not compile it
# (runtime mode, gradc.runtime_mode). Runtime-mode tests run subprocesses without this.
os.environ["GRADC_PLAIN_PYTHON"] = "1"

# Never the user's real cache: runtime mode's default cache folder (platformdirs, which
# follows XDG_CACHE_HOME), in this process and in every child a test starts without
# GRADC_CACHE_DIR, lies in a folder of this session, removed at exit.
_CACHE_HOME = tempfile.mkdtemp(prefix="gradc-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)


@pytest.fixture(scope="session")
def compile_module(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path | str], Any]:
    """Return ``compile(path) -> Library`` (one attribute per export), cached per path."""
    cache: dict[Path, Any] = {}
    failures: dict[Path, BaseException] = {}

    def _compile(path: Path | str) -> Any:
        key = Path(path).resolve()
        if key in failures:
            # the cached exception, with its traceback reset so it does not grow per test
            raise failures[key].with_traceback(None)
        if key not in cache:
            try:
                cache[key] = _build_and_load(key, tmp_path_factory)
            except Exception as exc:
                failures[key] = exc
                raise
        return cache[key]

    return _compile


def _build_and_load(path: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    import gradc
    from gradc.compiler.options import CompilerOptions
    from tests.shared_builds import shared_artifact

    return gradc.load(shared_artifact(path, CompilerOptions(), tmp_path_factory))


@pytest.fixture
def frozen_heap() -> Any:
    """Move every object alive before the test to the collector's permanent generation
    (``gc.freeze``) for the test's duration, then back (``gc.unfreeze``).

    A leak test compares the runtime's live blocks before and after many calls, each time
    after ``gc.collect()``; late in a session a full collection walks every object of the
    worker (builds, hypothesis' caches, loaded libraries) and took seconds per test. Frozen,
    ``gc.collect()`` walks only the objects made since the test began: all that its calls
    can have left behind. Garbage from before the test (with any blocks it holds) stays
    uncollected at both counts alike, so the comparison is the same one.
    """
    import gc

    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
