"""Differential: every export of the scalar codegen corpus (tests/codegen/corpus) and of
the array corpus (tests/codegen/corpus_arrays, exports whose parameters are scalars and
1-D float64/int64 arrays) gives identical results through gradc's own linker and through
LLVM's JIT linker (tests/loader/jit_link.py), on the fast path and on the ctypes path:
the same value bit for bit (NaN payloads aside), or the same exception type and message.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gradc
from gradc.artifacts.loader import cpu

from .jit_link import jit_link_library

REPO = Path(__file__).resolve().parents[2]
CODEGEN = REPO / "tests" / "codegen"


def _differential_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gradc_xcheck_diff", CODEGEN / "test_differential.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _outcome(fn: Any, args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "ok", _canonical(fn(*args))
    except Exception as exc:
        return type(exc).__name__, str(exc)


def _canonical(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_canonical(x) for x in v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else (v, math.copysign(1.0, v))
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, v.tobytes())
    return (type(v).__name__, v)


def _both(artifact: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    ours = gradc.load(artifact)
    with monkeypatch.context() as m:
        m.setattr(cpu, "link_library", jit_link_library)
        theirs = gradc.load(artifact)
    return ours, theirs


def _build(source: Path, out: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "gradc", "build", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.slow
def test_scalar_corpus_links_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    diff = _differential_module()
    checked = 0
    for path in diff.CORPUS_FILES:
        art = tmp_path / f"{path.stem}.gradc"
        _build(path, art)
        ours, theirs = _both(art, monkeypatch)
        for export in diff.discover(path):
            assert ours.is_fast(export.name) == theirs.is_fast(export.name)
            for args in diff.corner_inputs(export):
                for a, b in (
                    (ours[export.name], theirs[export.name]),
                    (ours.ctypes_function(export.name), theirs.ctypes_function(export.name)),
                ):
                    assert _outcome(a, args) == _outcome(b, args), (export.id, args)
                    checked += 1
    assert checked > 1000


_ARRAY_ARGS = {
    "f64[:]": [np.array([0.5, -2.0, 3.25]), np.zeros(0), np.arange(7.0)[::-2]],
    "i64[:]": [np.array([3, -1, 4], dtype=np.int64), np.arange(5, dtype=np.int64)],
    "f64": [0.0, -1.5, 2.0],
    "i64": [0, 1, 3],
}


def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, np.ndarray) else v


@pytest.mark.slow
def test_array_corpus_links_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for path in sorted((CODEGEN / "corpus_arrays").glob("*.py")):
        art = tmp_path / f"{path.stem}.gradc"
        _build(path, art)
        ours, theirs = _both(art, monkeypatch)
        for entry in ours.manifest.entries:
            name = entry.name
            params = [t for _, t in entry.signature.params]
            if not all(t in _ARRAY_ARGS for t in params):
                continue
            for k in range(3):
                args = tuple(_copy(_ARRAY_ARGS[t][k % len(_ARRAY_ARGS[t])]) for t in params)
                twin = tuple(_copy(a) for a in args)
                assert _outcome(ours[name], args) == _outcome(theirs[name], twin), (name, args)
                assert [_canonical(a) for a in args] == [_canonical(a) for a in twin]
                checked += 1
    assert checked > 20
