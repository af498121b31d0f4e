"""A derivative call that raises frees its tape: the error exits of the derivative export
free the tapes the function made (``lifetimes`` lists them in ``unwind``; lowering calls
``gradc_rt2_tape_free``). Checked by memory growth over many raising calls in a fresh
process (the tape is ~3.2 MB per call here, so a leak shows as hundreds of MB)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from gradc.artifacts.store import write_artifact
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

SOURCE = textwrap.dedent(
    """\
    import math

    import gradc
    from gradc import f64, i64


    @gradc.export
    def f(x: f64[:], n: i64) -> f64:
        s = 0.0
        for i in range(len(x)):
            s += math.log(x[i]) * x[i] * x[i]
        return s + x[n]


    d_f = gradc.grad(f, wrt="x")
    """
)

SCRIPT = textwrap.dedent(
    """\
    import resource, sys
    import numpy as np
    import gradc

    lib = gradc.load(sys.argv[1])
    x = np.linspace(1.0, 2.0, 200_000)
    lib.d_f(x, 3)                       # warm: the runtime keeps one freed tape
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(60):
        try:
            lib.d_f(x, 10**9)           # IndexError after the whole forward sweep
        except IndexError:
            pass
        y = x.copy()
        y[-1] = -1.0
        try:
            lib.d_f(y, 3)               # math domain error at the last element
        except ValueError:
            pass
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) // 1024)     # MiB
    """
)


def test_raising_derivative_calls_free_their_tape(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(SOURCE)
    write_artifact(tmp_path / "m.gradc", build_module(source, CompilerOptions()))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "m.gradc")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    growth_mib = int(out.stdout.strip())
    assert growth_mib < 64, f"RSS grew by {growth_mib} MiB over 120 raising calls"
