"""Start-up: the wall time of a fresh process that loads an artifact and calls it once,
against ``python -c pass`` and ``python -c "import numpy"``, in one run (issue 13).

Commands timed (each a fresh ``python`` started by ``subprocess``, like hyperfine):

* ``pass``: ``python -c pass``;
* ``numpy``: ``python -c "import numpy"``;
* ``scalar``: ``import gradc; gradc.load(A).hypot_clamped(3.0, 4.0)`` for examples/scalars.py;
* ``array``: ``import gradc, numpy; gradc.load(B).total(numpy.ones(3))`` for a one-export
  array module;
* ``scalar+llvmlite``: the scalar command after ``import llvmlite.binding`` (what the
  loader paid before it linked without LLVM), for reference.

The artifacts are built once (``python -m gradc build``) in a temporary directory. Each
command runs ``--warmup`` times untimed, then ``--runs`` times in turn with the others;
the table gives the mean and the minimum wall time and the mean CPU time (user + system,
less sensitive to a loaded machine) in milliseconds, and the targets of issue 13:
scalar ≤ 1.5 × pass + 10 ms, array ≤ numpy + 10 ms (means of the same run).
``python benchmarks/bench_startup.py [--runs N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

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


def _commands(scalar: Path, array: Path) -> dict[str, str]:
    return {
        "pass": "pass",
        "numpy": "import numpy",
        "scalar": f"import gradc; gradc.load({str(scalar)!r}).hypot_clamped(3.0, 4.0)",
        "array": f"import gradc, numpy; gradc.load({str(array)!r}).total(numpy.ones(3))",
        "scalar+llvmlite": (
            f"import llvmlite.binding, gradc; gradc.load({str(scalar)!r}).hypot_clamped(3.0, 4.0)"
        ),
    }


def _time(code: str) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one fresh process running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "startup_arrays.py"
        src.write_text(ARRAYS)
        built = {}
        for name, source in (("scalars", REPO / "examples" / "scalars.py"), ("arrays", src)):
            built[name] = Path(tmp) / f"{name}.gradc"
            cmd = [sys.executable, "-m", "gradc", "build", str(source), "-o", str(built[name])]
            subprocess.run(cmd, check=True, capture_output=True)
        commands = _commands(built["scalars"], built["arrays"])
        for code in commands.values():
            for _ in range(args.warmup):
                _time(code)
        times: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for name, code in commands.items():
                wall, used = _time(code)
                times[name].append(wall * 1e3)
                cpu[name].append(used * 1e3)
    mean = {k: statistics.fmean(v) for k, v in times.items()}
    report = {
        "mean_ms": mean,
        "min_ms": {k: min(v) for k, v in times.items()},
        "cpu_mean_ms": {k: statistics.fmean(v) for k, v in cpu.items()},
        "scalar_target_ms": 1.5 * mean["pass"] + 10,
        "array_target_ms": mean["numpy"] + 10,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'command':<18}{'mean ms':>10}{'min ms':>10}{'cpu ms':>10}")
    for k in commands:
        row = f"{k:<18}{mean[k]:>10.1f}{report['min_ms'][k]:>10.1f}"
        print(f"{row}{report['cpu_mean_ms'][k]:>10.1f}")
    print(f"scalar target (1.5 x pass + 10 ms): {report['scalar_target_ms']:.1f} ms")
    print(f"array target (numpy + 10 ms): {report['array_target_ms']:.1f} ms")


if __name__ == "__main__":
    main()
