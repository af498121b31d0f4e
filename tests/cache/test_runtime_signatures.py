"""Runtime mode with several signatures: ``import m`` in plain Python compiles every
signature of ``@gradc.export([...])`` and its derivative, and the calls dispatch on the
argument types as a built artifact's do (tests/loader/test_signatures.py). Oracle: the
plain Python function (``py_func``) and the analytic derivative."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import run_python

MODULE = """\
import gradc


@gradc.export(["f64(f64)", "i64(i64)"], fastmath=True)
def cube(x):
    return x * x * x


d_cube = gradc.grad(cube)
"""

CHILD = """
import json
import numpy as np
import rtsig
print(json.dumps({
    "float": rtsig.cube(1.5), "int": rtsig.cube(3), "py": rtsig.cube.py_func(1.5),
    "grad": rtsig.d_cube(2.0), "grad_int": rtsig.d_cube(2),
}))
"""


def test_runtime_mode_dispatches_among_signatures(tmp_path: Path) -> None:
    (tmp_path / "rtsig.py").write_text(MODULE)
    proc = run_python(CHILD, cwd=tmp_path, env={"GRADC_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["float"] == out["py"] == 1.5**3
    assert out["int"] == 27 and isinstance(out["int"], int)
    assert out["grad"] == out["grad_int"] == 12.0
