"""Runtime mode and an export's own options (``@gradc.export(fastmath=True)``,
``boundscheck=False``): the cached artifact counts as up to date in the next process
(issue 14: it was rebuilt on every import, and ``GRADC_NO_COMPILE=1`` always failed),
while an artifact built with other build-wide options still does not
(gradc.runtime_options).

Whether a process compiled is observed: the child reports whether ``gradc.compiler`` was
imported. Oracle: the plain Python function (``py_func``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradc.artifacts.store import read_manifest
from gradc.runtime_mode import cache_artifact_dir, stale_reason

from .helpers import build_ok, run_python

MODULE = """\
import gradc
from gradc import f64


@gradc.export
def k(x: f64) -> f64:
    return x - 1.0


@gradc.export(fastmath=True)
def g(x: f64) -> f64:
    return x * 2.0 + 1.0


@gradc.export(boundscheck=False)
def h(x: f64) -> f64:
    return x / 4.0
"""

CHILD = """
import json, sys
import fm
out = {"values": [fm.g(1.5), fm.h(1.5), fm.k(1.5)],
       "plain": [fm.g.py_func(1.5), fm.h.py_func(1.5), fm.k.py_func(1.5)]}
out["compiled"] = any(m.startswith("gradc.compiler") for m in sys.modules)
print(json.dumps(out))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "fm.py").write_text(MODULE)
    return tmp_path / "proj"


def _child(cwd: Path, cache: Path, **env: str) -> dict[str, object]:
    proc = run_python(CHILD, cwd=cwd, env={"GRADC_CACHE_DIR": str(cache), **env})
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


def test_export_options_artifact_is_reused_by_the_next_process(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = _child(project, cache)
    assert first["compiled"] is True and first["values"] == first["plain"]
    manifest = read_manifest(cache_artifact_dir(project / "fm.py", cache))
    options = {e.name: e.key_components["options.fastmath"] for e in manifest.entries}
    assert options == {"k": False, "g": True, "h": False}  # the override is in g's key only
    assert stale_reason(manifest, project / "fm.py", check_options=True) is None
    second = _child(project, cache, GRADC_NO_COMPILE="1")
    assert second["compiled"] is False and second["values"] == first["values"]


def test_a_build_with_other_build_wide_options_is_still_stale(
    project: Path, tmp_path: Path
) -> None:
    out = tmp_path / "fm.gradc"
    _, manifest = build_ok(project / "fm.py", out, "--no-boundscheck")
    reason = stale_reason(manifest, project / "fm.py", check_options=True)
    assert reason == "k: options.boundscheck False -> True"
    _, manifest = build_ok(project / "fm.py", out, "--fastmath")
    assert stale_reason(manifest, project / "fm.py", check_options=True) == (
        "k: options.fastmath True -> False"
    )


def test_the_check_agrees_with_the_compilers_keys_and_options() -> None:
    """gradc.runtime_options repeats two compiler facts so as not to import it."""
    from gradc.compiler import keys
    from gradc.compiler.frontend.export_options import EXPORT_OPTIONS
    from gradc.runtime_options import OVERRIDABLE, runtime_key

    assert OVERRIDABLE == EXPORT_OPTIONS
    shared = {"options.fastmath": False, "target.cpu": "x86-64", "versions.llvm": "20"}
    assert runtime_key(shared) == keys.runtime_key(shared)
