"""gradc._method_cache: ``gradc build`` keeps the methods gradc._dataclass compiles in the
cache; a later process runs them without compiling; a damaged file is an empty cache;
without ``keep_in`` nothing is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Construct a dataclass in a process that keeps its methods in argv[1]; with "no-compile",
# compile() raises, so the process must find the __init__ in the kept file.
_PROGRAM = r"""
import builtins, sys
from pathlib import Path
from gradc import _method_cache
from gradc._dataclass import dataclass
_method_cache.keep_in(Path(sys.argv[1]))
if sys.argv[2] == "no-compile":
    def refuse(*args, **kwargs):
        raise AssertionError("compiled")
    builtins.compile = refuse

@dataclass(frozen=True)
class Probe:
    "A probe."

    alpha: int
    beta: str = "b"

p = Probe(3)
print(p.alpha, p.beta, p == Probe(3), Probe.__init__.__qualname__)
"""


def _run(folder: Path, mode: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM, str(folder), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_methods_kept_between_processes(tmp_path: Path) -> None:
    assert _run(tmp_path, "compile") == "3 b True Probe.__init__"
    (kept,) = tmp_path.glob("dataclass-methods-*.marshal")
    assert _run(tmp_path, "no-compile") == "3 b True Probe.__init__"
    kept.write_bytes(b"\x00damaged")
    assert _run(tmp_path, "compile") == "3 b True Probe.__init__"
    assert _run(tmp_path, "no-compile") == "3 b True Probe.__init__"  # rewritten whole


def test_nothing_written_without_keep_in(tmp_path: Path) -> None:
    program = _PROGRAM.replace("_method_cache.keep_in(Path(sys.argv[1]))", "")
    subprocess.run([sys.executable, "-c", program, str(tmp_path), "compile"], check=True)
    assert list(tmp_path.iterdir()) == []
