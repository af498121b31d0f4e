"""The ``gradc build`` process runs without the cyclic garbage collector and skips its
passes at exit (compiler/gc_pause.py, issue 13: they cost ~8 % of a scalar build's
instructions)."""

from __future__ import annotations

import subprocess
import sys

# The check registered before collector_off_for_process runs after its handler (atexit
# runs handlers in reverse order): the objects alive at exit are frozen by then.
CHILD = """\
import atexit, gc
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from gradc.compiler.gc_pause import collector_off_for_process
collector_off_for_process()
print("enabled:", gc.isenabled())
"""


def test_collector_off_for_process() -> None:
    """Off at once; at exit, the objects alive are frozen before later checks run."""
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["enabled: False", "frozen at exit: True"]


def _collector_in_command(*argv: str) -> str:
    child = (
        "import gc, sys\n"
        "import gradc.cli.main as m\n"
        "m.cli = lambda **_: print('enabled:', gc.isenabled())\n"
        f"sys.argv = ['gradc', *{list(argv)!r}]\n"
        "from gradc.__main__ import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_gradc_build_runs_without_collector() -> None:
    """``gradc build`` (``python -m gradc`` and the console script, the same ``run``)
    turns it off before the command line's imports; the other commands (``bench`` runs
    for minutes) keep it."""
    assert _collector_in_command("build", "m.py") == "enabled: False"
    assert _collector_in_command("bench") == "enabled: True"
    assert _collector_in_command() == "enabled: True"
