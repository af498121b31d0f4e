"""Runtime mode: ``import m`` in plain Python gives m's exports compiled (gradc.runtime_mode).

Each scenario runs in fresh interpreters (what a user does), with ``GRADC_CACHE_DIR`` in
the test's temporary directory. Whether a process compiled is observed, not assumed: the
child reports whether ``gradc.compiler`` was imported. Oracles: the plain Python function
(``py_func``) and the analytic derivative.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gradc
from gradc.runtime_mode import ExportedFunction, cache_artifact_dir

from .helpers import build_ok, run_python

MODULE = """\
import gradc
from gradc import f64


@gradc.export
def ratio(x: f64) -> f64:
    return x * x / (x - 1.0)


d_ratio = gradc.grad(ratio, wrt="x")
"""

#: Imports ``rt`` from the working directory, calls it, reports as JSON.
CHILD = """
import json, sys
import rt
out = {"value": rt.ratio(3.0), "grad": rt.d_ratio(3.0)}
try:
    rt.ratio(1.0)
except ZeroDivisionError as exc:
    out["notes"] = exc.__notes__
out["artifact"] = str(rt.ratio.artifact)
out["compiled"] = any(m.startswith("gradc.compiler") for m in sys.modules)
print(json.dumps(out))
"""


def _child(cwd: Path, cache: Path, **env: str) -> dict[str, object]:
    proc = run_python(CHILD, cwd=cwd, env={"GRADC_CACHE_DIR": str(cache), **env})
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "rt.py").write_text(MODULE)
    return tmp_path / "proj"


def test_first_import_compiles_second_process_loads_without_compiling(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = _child(project, cache)
    expected_dir = cache_artifact_dir(project / "rt.py", cache)
    assert first["compiled"] is True
    assert first["artifact"] == str(expected_dir)
    assert (expected_dir / "manifest.msgpack").is_file()
    assert first["value"] == 3.0 * 3.0 / (3.0 - 1.0)
    assert first["grad"] == pytest.approx((2 * 3.0 * 2.0 - 9.0) / 4.0, rel=1e-15)
    line = MODULE.splitlines().index("    return x * x / (x - 1.0)") + 1
    assert first["notes"] == [f"raised by compiled rt.ratio at rt.py:{line}"]

    second = _child(project, cache, GRADC_NO_COMPILE="1")
    assert second["compiled"] is False
    assert {k: second[k] for k in ("value", "grad", "artifact")} == {
        k: first[k] for k in ("value", "grad", "artifact")
    }


def test_stale_artifact_recompiles_or_refuses(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _child(project, cache)
    (project / "rt.py").write_text(MODULE.replace("x * x /", "x * x * x /"))
    proc = run_python(
        CHILD, cwd=project, env={"GRADC_CACHE_DIR": str(cache), "GRADC_NO_COMPILE": "1"}
    )
    assert proc.returncode != 0
    assert "CompileForbiddenError" in proc.stderr and "GRADC_NO_COMPILE=1" in proc.stderr
    again = _child(project, cache)
    assert again["compiled"] is True
    assert again["value"] == 27.0 / 2.0


def test_comment_change_keeps_artifact_fresh_enough_to_reuse_objects(
    project: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    _child(project, cache)
    art = cache_artifact_dir(project / "rt.py", cache)
    objects = sorted(p.name for p in (art / "objects").iterdir())
    (project / "rt.py").write_text("# a comment\n\n" + MODULE)
    again = _child(project, cache)  # sources changed: rebuilt, objects reused by key
    assert sorted(p.name for p in (art / "objects").iterdir()) == objects
    line = MODULE.splitlines().index("    return x * x / (x - 1.0)") + 3
    assert again["notes"] == [f"raised by compiled rt.ratio at rt.py:{line}"]


def test_artifact_next_to_the_module_is_used(project: Path, tmp_path: Path) -> None:
    build_ok(project / "rt.py", project / "rt.gradc")
    cache = tmp_path / "cache"
    result = _child(project, cache, GRADC_NO_COMPILE="1")
    assert result["artifact"] == str(project / "rt.gradc")
    assert result["compiled"] is False and result["value"] == 4.5
    assert not cache.exists()


def test_export_in_plain_python(monkeypatch: pytest.MonkeyPatch) -> None:
    def f(x: float) -> float:
        return x + 1.0

    monkeypatch.delenv("GRADC_PLAIN_PYTHON", raising=False)
    proxy = gradc.export(f)
    assert isinstance(proxy, ExportedFunction)
    assert proxy.py_func is f and proxy.__name__ == "f" and proxy.artifact is None
    assert gradc.export("f64(f64)")(f).py_func is f  # type: ignore[attr-defined]
    monkeypatch.setenv("GRADC_PLAIN_PYTHON", "1")
    assert gradc.export(f) is f
