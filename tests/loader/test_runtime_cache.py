"""The runtime object is built once per key (compiler/codegen/runtime_cache.py): later
builds of other modules, in this process or another, take it from the cache; a damaged
cache file is rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradc.compiler.codegen import runtime_cache

SOURCE = """\
import gradc
from gradc import f64


@gradc.export
def {name}(a: f64[:]) -> f64[:]:
    return a * 2.0
"""


def _build(tmp_path: Path, name: str) -> bytes:
    from gradc.artifacts.store import read_blob, read_manifest
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    src = tmp_path / f"{name}.py"
    src.write_text(SOURCE.format(name=name))
    out = tmp_path / f"{name}.gradc"
    build_artifact(src, out, CompilerOptions())
    m = read_manifest(out)
    assert m.runtime is not None
    return read_blob(out, m.runtime.object)


def test_runtime_is_built_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runtime_cache, "_memory", {})
    from gradc.compiler.codegen import runtime

    built = []
    real = runtime.runtime_module

    def counting() -> object:
        built.append(True)
        return real()

    monkeypatch.setattr(runtime, "runtime_module", counting)
    first = _build(tmp_path, "one")
    assert len(built) == 1
    assert _build(tmp_path, "two") == first and len(built) == 1  # from memory
    monkeypatch.setattr(runtime_cache, "_memory", {})
    assert _build(tmp_path, "three") == first and len(built) == 1  # from the cache folder
    (cached,) = runtime_cache.runtime_cache_dir().glob("*.o")
    cached.write_bytes(cached.read_bytes()[:-7])  # truncated: rebuilt and replaced
    monkeypatch.setattr(runtime_cache, "_memory", {})
    assert _build(tmp_path, "four") == first and len(built) == 2
    assert cached.read_bytes()[32:] == first
