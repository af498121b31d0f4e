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
the table gives the median and the minimum wall time and the median CPU time (user +
system, less sensitive to a loaded machine) in milliseconds, then issue 13's targets
(scalar ≤ 1.5 × pass + 10 ms, array ≤ numpy + 10 ms, from medians of the same run) with
each figure's ratio to ``pass`` and to ``numpy``, and the load average it ran under.

Bytecode is written and used, as for an installed package, even where the environment
sets ``PYTHONDONTWRITEBYTECODE``: the children write it under a temporary
``PYTHONPYCACHEPREFIX`` during the warm-up (every command alike, ``pass`` included).
``python benchmarks/bench_startup.py [--runs N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def _time(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one fresh process running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
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
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        times, cpu = _measure(commands, env, args.runs, args.warmup)
    report = _report(times, cpu)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    _print(report, list(commands))


def _measure(
    commands: dict[str, str], env: dict[str, str], runs: int, warmup: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU milliseconds of ``runs`` fresh processes per command, interleaved."""
    for code in commands.values():
        for _ in range(warmup):
            _time(code, env)
    times: dict[str, list[float]] = {k: [] for k in commands}
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(runs):
        for name, code in commands.items():
            wall, used = _time(code, env)
            times[name].append(wall * 1e3)
            cpu[name].append(used * 1e3)
    return times, cpu


def _report(times: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict[str, object]:
    """Medians, minima, targets and ratios of one run (milliseconds)."""
    median = {k: statistics.median(v) for k, v in times.items()}
    return {
        "median_ms": median,
        "min_ms": {k: min(v) for k, v in times.items()},
        "cpu_median_ms": {k: statistics.median(v) for k, v in cpu.items()},
        "over_pass": {k: v / median["pass"] for k, v in median.items()},
        "over_numpy": {k: v / median["numpy"] for k, v in median.items()},
        "scalar_target_ms": 1.5 * median["pass"] + 10,
        "array_target_ms": median["numpy"] + 10,
        "runs": len(times["pass"]),
        "load_average": os.getloadavg(),
    }


def _print(report: dict[str, Any], names: list[str]) -> None:
    """The table and the two targets, each with its verdict."""
    median, low, cpu = report["median_ms"], report["min_ms"], report["cpu_median_ms"]
    head = f"{'command':<18}{'median ms':>10}{'min ms':>10}{'cpu ms':>10}"
    print(f"{head}{'/ pass':>9}{'/ numpy':>9}")
    for k in names:
        row = f"{k:<18}{median[k]:>10.1f}{low[k]:>10.1f}{cpu[k]:>10.1f}"
        print(f"{row}{report['over_pass'][k]:>9.2f}{report['over_numpy'][k]:>9.2f}")
    for label, name, target in (
        ("scalar <= 1.5 x pass + 10 ms", "scalar", report["scalar_target_ms"]),
        ("array <= numpy + 10 ms", "array", report["array_target_ms"]),
    ):
        verdict = "met" if median[name] <= target else "missed"
        print(f"{label}: {median[name]:.1f} vs {target:.1f} ms: {verdict}")
    load = ", ".join(f"{x:.2f}" for x in report["load_average"])
    print(f"medians of {report['runs']} fresh processes each; load average {load}")


if __name__ == "__main__":
    main()
