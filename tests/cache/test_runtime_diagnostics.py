"""Runtime mode shows a compile error as the diagnostic, not after the compiler's frames."""

from __future__ import annotations

from pathlib import Path

from .helpers import run_python

MODULE = """\
import gradc
from gradc import f64, i64


def inner(a, i):
    return [a, i]


@gradc.export
def outer(x: f64, n: i64) -> f64:
    return inner(x, n)
"""


def test_compile_error_in_runtime_mode_hides_compiler_frames(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(MODULE)
    child = run_python("import m; m.outer(1.0, 2)", cwd=tmp_path, env={"GRADC_CACHE_DIR": "c"})
    assert child.returncode == 1
    err = child.stderr
    frames = [line for line in err.splitlines() if line.lstrip().startswith('File "')]
    assert all("gradc/compiler" not in f and "/compiler/" not in f for f in frames), err
    assert len(frames) <= 3, err  # the caller's, then ExportedFunction.__call__/compiled
    tail = err.rstrip().splitlines()[-5:]
    assert tail[0].endswith("m.py:6:12: error: a list literal is not supported in compiled code")
    assert tail[1:3] == ["    return [a, i]", "           ^^^^^^"]
    assert tail[3].startswith("note: in inner(a: f64, i: i64), called from outer at ")
    assert tail[3].endswith("m.py:11")
    assert tail[4].startswith("help: for an array")
    assert not list((tmp_path / "c").glob("*.gradc"))  # nothing written
