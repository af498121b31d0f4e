"""Cache keys: exactly what changes the code (DESIGN.md §5), and nothing else.

Oracles: the object bytes (a key that stays must give the same object; a change that
must matter gives a new result when called), the line CPython would report, and keys
computed in other processes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gradc
from gradc.compiler.keys import merkle_hashes

from .helpers import MODULE, build_ok, objects, run_python


def _write(tmp_path: Path, text: str, name: str = "m.py") -> Path:
    src = tmp_path / name
    src.write_text(text)
    return src


def test_module_constant_change_rebuilds_and_changes_the_result(tmp_path: Path) -> None:
    src = _write(tmp_path, MODULE)
    out = tmp_path / "m.gradc"
    _, before = build_ok(src, out)
    assert gradc.load(out).f(3.0, 2.0) == 3.0
    src.write_text(MODULE.replace("SCALE = 2.0", "SCALE = 5.0"))
    _, after = build_ok(src, out)
    assert after.entry("f").key != before.entry("f").key
    assert after.entry("f").sha256 != before.entry("f").sha256
    assert after.entry("g").key == before.entry("g").key  # g does not read SCALE
    assert gradc.load(out).f(3.0, 2.0) == 7.5


def test_comment_docstring_and_line_shift_do_not_rebuild(tmp_path: Path) -> None:
    src = _write(tmp_path, MODULE)
    out = tmp_path / "m.gradc"
    _, before = build_ok(src, out)
    old_objects = {rel.name: rel.read_bytes() for rel in (out / "objects").iterdir()}
    edited = '"""A docstring added above everything."""\n# and a comment\n\n' + MODULE.replace(
        "def helper(x: f64, y: f64) -> f64:\n    return x / y",
        'def helper(x: f64, y: f64) -> f64:\n    """Divide."""\n\n'
        "    # the division below raises\n    return (x /\n            y)",
    )
    src.write_text(edited)
    r, after = build_ok(src, out, "--explain")
    assert r.output.splitlines()[:3] == ["hit   f", "hit   g", "hit   total"], r.output
    assert [e.key for e in after.entries] == [e.key for e in before.entries]
    assert objects(after) == objects(before)
    assert {p.name: p.read_bytes() for p in (out / "objects").iterdir()} == old_objects
    # the object is the old one, yet the error names the division's new line
    with pytest.raises(ZeroDivisionError, match="float division by zero") as info:
        gradc.load(out).f(1.0, 0.0)
    line = edited.splitlines().index("    return (x /") + 1
    assert info.value.__notes__ == [f"raised by compiled m.f at m.py:{line}"]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["-O3"], "options.opt_level"),
        (["--fastmath"], "options.fastmath"),
        (["--no-boundscheck"], "options.boundscheck"),
    ],
)
def test_codegen_options_change_the_key(tmp_path: Path, args: list[str], field: str) -> None:
    src = _write(tmp_path, MODULE)
    _, base = build_ok(src, tmp_path / "a.gradc")
    _, other = build_ok(src, tmp_path / "b.gradc", *args)
    for name in ("f", "g"):
        a, b = base.entry(name), other.entry(name)
        assert a.key != b.key
        changed = {k for k in a.key_components if a.key_components[k] != b.key_components[k]}
        assert changed == {field}


def test_output_path_and_verbosity_do_not_change_the_key(tmp_path: Path) -> None:
    src = _write(tmp_path, MODULE)
    _, a = build_ok(src, tmp_path / "a.gradc")
    _, b = build_ok(src, tmp_path / "elsewhere" / "b.gradc", "-v", "--timings", "--explain")
    assert [e.key for e in a.entries] == [e.key for e in b.entries]
    assert objects(a) == objects(b)


def test_callee_change_changes_callers_only() -> None:
    texts = {"f": "F", "helper": "H", "g": "G", "unrelated": "U", "rec": "R"}
    calls = {"f": ["helper"], "g": ["unrelated"], "helper": [], "unrelated": [], "rec": ["rec"]}
    before = merkle_hashes(texts, calls)
    after = merkle_hashes({**texts, "helper": "H2"}, calls)
    assert {n for n in texts if before[n] != after[n]} == {"f", "helper"}
    # recursion: a self-call terminates and still depends on the text
    assert merkle_hashes({**texts, "rec": "R2"}, calls)["rec"] != before["rec"]


def test_mutually_recursive_functions_hash_together() -> None:
    texts = {"even": "E", "odd": "O", "top": "T"}
    calls = {"even": ["odd"], "odd": ["even"], "top": ["even"]}
    before = merkle_hashes(texts, calls)
    after = merkle_hashes({**texts, "odd": "O2"}, calls)
    assert all(before[n] != after[n] for n in texts)
    assert before["even"] != before["odd"]


_KEYS = """
import hashlib, json, sys
from pathlib import Path
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions
out = build_module(Path(sys.argv[1]), CompilerOptions())
print(json.dumps({
    e.name: [e.key, hashlib.sha256(e.object_code).hexdigest(), e.sites] for e in out.entries
}))
"""


def _keys(cwd: Path, path: str, seed: str) -> dict[str, list[object]]:
    proc = run_python(_KEYS, path, cwd=cwd, env={"PYTHONHASHSEED": seed})
    assert proc.returncode == 0, proc.stderr
    keys: dict[str, list[object]] = json.loads(proc.stdout)
    return keys


def test_keys_identical_across_hash_seeds_and_working_directories(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    _write(project, MODULE)
    runs = [
        _keys(project, "m.py", "0"),
        _keys(project, "m.py", "12345"),
        _keys(project / "sub", "../m.py", "7"),
        _keys(tmp_path, str((project / "m.py").resolve()), "random"),
    ]
    assert all(r == runs[0] for r in runs[1:]), runs
    assert set(runs[0]) == {"f", "g", "total"}
