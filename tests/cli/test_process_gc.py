"""The ``gradc`` process runs without the cyclic garbage collector and skips its passes
at exit (compiler/gc_pause.py, issue 13: they cost ~8 % of a scalar build's
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


def test_gradc_command_runs_without_collector() -> None:
    """``python -m gradc`` (and the console script, the same ``run``) turns it off
    before the command line's imports."""
    child = (
        "import gc, sys\n"
        "import gradc.cli.main as m\n"
        "m.cli = lambda **_: print('enabled:', gc.isenabled())\n"
        "from gradc.__main__ import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["enabled: False"]
