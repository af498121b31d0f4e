"""``gradc bench``'s baselines: the module as plain Python (gradc inert), and its peers.

The module is imported with ``GRADC_PLAIN_PYTHON=1`` so that ``@gradc.export`` returns the
Python function itself; Numba's ``njit`` and JAX's ``jit`` of it are timed when installed.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from gradc.cli.bench_stats import short_error

PLAIN_ENV = "GRADC_PLAIN_PYTHON"  # gradc.runtime_mode.PLAIN_PYTHON_ENV

#: The peers whose ``jit`` of the plain Python function is timed when installed.
PEERS = ("numba", "jax")


@contextmanager
def gradc_inert() -> Iterator[None]:
    """While active, ``@gradc.export`` returns the Python function itself (plain mode)
    and imports write no bytecode."""
    saved_env, saved_bytecode = os.environ.get(PLAIN_ENV), sys.dont_write_bytecode
    os.environ[PLAIN_ENV] = "1"
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = saved_bytecode
        if saved_env is None:
            os.environ.pop(PLAIN_ENV, None)
        else:
            os.environ[PLAIN_ENV] = saved_env


def import_plain(source: Path) -> ModuleType:
    """Import ``source`` as plain Python with gradc inert (its body runs; no bytecode is
    written). Its exports are then plain ``FunctionType`` objects.

    Raises:
        ImportError: the file cannot be imported; any exception its body raises.
    """
    spec = importlib.util.spec_from_file_location(source.stem, source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {source}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(source.parent.resolve()))
    try:
        with gradc_inert():
            spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def load_peers() -> tuple[dict[str, Callable[[Any], Any]], dict[str, str]]:
    """The installed peers' jit decorators (``numba.njit``, ``jax.jit`` with float64
    enabled), and a note (``"not installed"``, or why the import failed) for each missing
    one."""
    import importlib

    jits: dict[str, Callable[[Any], Any]] = {}
    notes: dict[str, str] = {}
    for name in PEERS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            notes[name] = "not installed"
            continue
        except Exception as exc:  # a broken installation: say so, do not fail the bench
            notes[name] = f"import failed: {short_error(exc, 60)}"
            continue
        if name == "jax":  # float64 as gradc's and NumPy's, not JAX's default float32
            module.config.update("jax_enable_x64", True)
        jits[name] = module.njit if name == "numba" else module.jit
    return jits, notes


def plain_function(module: ModuleType | None, name: str) -> Callable[..., Any] | None:
    """``module.name`` when it is a plain Python function (gradc inert), else None."""
    fn = getattr(module, name, None) if module is not None else None
    return fn if isinstance(fn, types.FunctionType) else None


def primal_of(module: ModuleType | None, name: str) -> str:
    """The primal's name when ``module.name`` is a derivative declaration, else ``""``."""
    import gradc

    obj = getattr(module, name, None) if module is not None else None
    if isinstance(obj, gradc.DerivativePlaceholder):
        return str(getattr(obj.fn, "__name__", ""))
    return ""
