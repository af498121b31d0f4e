"""Loading and calling an artifact needs neither llvmlite nor (for scalar exports) numpy:
a fresh process where importing them fails loads and calls artifacts correctly and
imports neither, nor the modules of :data:`SLOW` (issue 13; start-up time:
benchmarks/bench_startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ARRAYS = """\
import gradc
from gradc import f64


@gradc.export
def total(a: f64[:]) -> f64:
    s = 0.0
    for x in a:
        s += x
    return s
"""

CHILD = """\
import json, sys
for blocked in {blocked!r}:
    sys.modules[blocked] = None  # import fails
import gradc
lib = gradc.load(sys.argv[1])
{call}
loaded = sorted(m for m, v in sys.modules.items() if v is not None and (
    m.split(".")[0] in ("llvmlite", "numpy", "click") or m.startswith("gradc.compiler")))
slow = sorted(m for m in {slow!r} if sys.modules.get(m) is not None)
print(json.dumps({{"result": result, "fast": lib.is_fast({name!r}), "loaded": loaded,
                  "slow": slow}}))
"""

#: Modules the load path keeps out for start-up time (benchmarks/bench_startup.py): the
#: writer's store, the CUDA manifest section, runtime mode, the manifest's dataclasses
#: (the loader reads ``gradc.artifacts.manifest_records``), and ``typing``,
#: ``dataclasses`` and ``inspect`` (numpy imports them, so only a scalar artifact's
#: process is checked for them).
SLOW = (
    "typing",
    "dataclasses",
    "inspect",
    "gradc.runtime_mode",
    "gradc.artifacts.store",
    "gradc.artifacts.cuda_manifest",
    "gradc.artifacts.manifest",
)


def _build(source: Path, out: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "gradc", "build", str(source), "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )


def _child(artifact: Path, blocked: tuple[str, ...], call: str, name: str) -> dict[str, object]:
    code = CHILD.format(blocked=blocked, call=call, name=name, slow=SLOW)
    run = subprocess.run(
        [sys.executable, "-c", code, str(artifact)], capture_output=True, text=True, cwd=REPO
    )
    assert run.returncode == 0, run.stderr
    out: dict[str, object] = json.loads(run.stdout)
    return out


def test_scalar_artifact_without_llvmlite_or_numpy(tmp_path: Path) -> None:
    art = tmp_path / "scalars.gradc"
    _build(REPO / "examples" / "scalars.py", art)
    got = _child(
        art, ("llvmlite", "numpy"), "result = lib.hypot_clamped(3.0, 4.0)", "hypot_clamped"
    )
    assert got == {"result": 5.0, "fast": True, "loaded": [], "slow": []}


@pytest.mark.slow
def test_array_artifact_without_llvmlite(tmp_path: Path) -> None:
    src = tmp_path / "arrays_mod.py"
    src.write_text(ARRAYS)
    art = tmp_path / "arrays_mod.gradc"
    _build(src, art)
    call = "import numpy as np\nresult = lib.total(np.arange(5.0))"
    got = _child(art, ("llvmlite",), call, "total")
    assert got["result"] == 10.0 and got["fast"] is True
    loaded = got["loaded"]
    assert isinstance(loaded, list) and not [m for m in loaded if not m.startswith("numpy")]
    slow = got["slow"]
    assert isinstance(slow, list)
    assert not [m for m in slow if m not in ("typing", "dataclasses", "inspect")]
