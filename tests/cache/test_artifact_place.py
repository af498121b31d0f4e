"""One place for artifacts: ``gradc build m.py`` writes ``build/m.gradc`` beside ``m.py``
from any working directory, runtime mode finds it there; ``gradc cache info|list|clear``
shows and empties the user cache (``GRADC_CACHE_DIR`` in the test's folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradc.cli.cache import human_size
from gradc.cli.main import cli

from .helpers import run_python

MODULE = """\
import gradc
from gradc import f64


@gradc.export
def poly(x: f64) -> f64:
    return 3.0 * x * x - x
"""

CHILD = "import rt; assert rt.poly(2.0) == rt.poly.py_func(2.0); print(rt.poly.artifact)"


def test_build_writes_beside_the_module_and_runtime_mode_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "rt.py").write_text(MODULE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = CliRunner().invoke(cli, ["build", str(Path("..") / "pkg" / "rt.py")])
    assert r.exit_code == 0, r.output
    assert "wrote ../pkg/build/rt.gradc" in r.output
    assert list(elsewhere.iterdir()) == []  # nothing in the working directory

    env = {"GRADC_CACHE_DIR": str(tmp_path / "cache"), "GRADC_LOG": "info", "PYTHONPATH": ".."}
    child = run_python(CHILD.replace("import rt", "from pkg import rt"), cwd=elsewhere, env=env)
    assert child.returncode == 0, child.stderr
    assert f"gradc: hit rt.py: {package / 'build' / 'rt.gradc'}" in child.stderr
    assert "compiled" not in child.stderr and "miss" not in child.stderr
    assert not (tmp_path / "cache").exists()


def test_cache_info_list_clear(tmp_path: Path) -> None:
    (tmp_path / "rt.py").write_text(MODULE)
    (tmp_path / "other.py").write_text(MODULE)
    cache = tmp_path / "cache"
    env = {"GRADC_CACHE_DIR": str(cache)}
    for stem in ("rt", "other"):
        child = run_python(f"import {stem} as rt; rt.poly(2.0)", cwd=tmp_path, env=env)
        assert child.returncode == 0, child.stderr

    runner = CliRunner()
    info = runner.invoke(cli, ["cache", "info"], env=env)
    assert info.exit_code == 0, info.output
    entries = sorted(cache.glob("*.gradc"))
    size = sum(f.stat().st_size for e in entries for f in e.rglob("*") if f.is_file())
    (runtime,) = (cache / "runtime").glob("*.o")  # built once for both modules
    assert info.output.splitlines() == [
        f"cache: {cache}",
        "entries: 2",
        f"size: {human_size(size)}",
        f"runtime objects: 1 ({human_size(runtime.stat().st_size)})",
    ]

    listed = runner.invoke(cli, ["cache", "list"], env=env).output.splitlines()
    assert [line.split()[0] for line in listed] == [e.name for e in entries]
    assert all(line.endswith("  poly") for line in listed)

    cleared = runner.invoke(cli, ["cache", "clear", "rt-*"], env=env)
    assert cleared.output == f"removed 1 entry from {cache}\n"
    assert [p.name for p in sorted(cache.iterdir())] == [
        entries[0].name,
        entries[0].name + ".lock",
        "runtime",  # the runtime objects: kept by a clear with patterns
    ]
    from filelock import FileLock

    with FileLock(str(entries[0].with_name(entries[0].name + ".lock"))):  # "compiling"
        busy = runner.invoke(cli, ["cache", "clear"], env=env)
    assert busy.stdout == f"removed 0 entries from {cache}\n"
    assert f"kept {entries[0].name}: a process is compiling it" in busy.stderr
    assert runner.invoke(cli, ["cache", "clear"], env=env).output.startswith("removed 1 entry")
    assert list(cache.iterdir()) == []
    assert runner.invoke(cli, ["cache", "list"], env=env).output == f"no entries in {cache}\n"


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 999, 1000, 12_345, 2_500_000, 3 * 10**9)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "12.3 kB",
        "2.5 MB",
        "3.0 GB",
    ]


def test_the_suite_never_uses_the_real_cache(tmp_path: Path) -> None:
    """tests/conftest.py points the default cache (and every child's) at a session folder."""
    home = Path(os.environ["XDG_CACHE_HOME"])
    assert home != Path.home() / ".cache" and home.name.startswith("gradc-tests-cache-")
    (tmp_path / "rt.py").write_text(MODULE)
    child = run_python(CHILD, cwd=tmp_path)  # no GRADC_CACHE_DIR: the default folder
    assert child.returncode == 0, child.stderr
    assert Path(child.stdout.strip()).parent == home / "gradc"
