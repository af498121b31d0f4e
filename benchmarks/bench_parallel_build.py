"""``gradc build -j N`` against ``-j 1`` (issue #13): a generated module of 32 exports.

    python benchmarks/bench_parallel_build.py             # -j 1 vs -j 2, 3 rounds
    python benchmarks/bench_parallel_build.py --exports 64 --jobs 4 --rounds 5

Each build runs ``gradc build`` in a fresh process into a fresh directory (a cold build:
nothing to reuse; the runtime object cache warm), rounds interleaved so that a change in
the machine's load hits both. Prints the wall time of each, the ratio of the medians
against the target (>= 1.7x for 32 exports, ``-j 2``, 2 cores), the load average, and
checks that the artifacts are byte-identical.

On a machine whose cores are busy with other work the wall ratio says little (a second
worker finds no idle core), so the CPU times are printed too: the build process's own
(from ``-j 2`` on it runs tasks beside its ``N - 1`` workers) and its workers', and the
CPU the parallel build adds to ``-j 1``'s (forks, sharing the module, results sent back).
``benchmarks/trace_parallel_build.py --rounds 5`` turns CPU times into the critical path
of an idle machine. A benchmark, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def module_source(n: int) -> str:
    """A module of ``n`` exports: a loop over an array with math calls, each different."""
    lines = ["import math", "", "import gradc", "from gradc import f64", ""]
    for k in range(n):
        lines += [
            "",
            "@gradc.export",
            f"def f{k}(x: f64[:], a: f64) -> f64:",
            "    s = 0.0",
            "    for i in range(x.shape[0]):",
            f"        s += math.sin(a * x[i] + {k}.0) * math.exp(-x[i] * x[i]) / (1.0 + a * a)",
            "    return s",
        ]
    return "\n".join(lines) + "\n"


# the `gradc` command (its console script's entry: the cyclic collector off for a build),
# then the CPU seconds of this process and of its (reaped) worker processes
_CLI_WITH_CPU = """
import resource
from gradc.__main__ import run
try:
    run()
except SystemExit as exc:
    if exc.code:
        raise
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime)
"""


def build(module: Path, out: Path, jobs: int) -> tuple[float, float, float]:
    """``gradc build module -o out -j jobs`` in a fresh process: wall seconds, CPU seconds
    of the process, CPU seconds of its workers."""
    start = time.perf_counter()
    cmd = [sys.executable, "-c", _CLI_WITH_CPU, "build", str(module), "-o", str(out)]
    done = subprocess.run([*cmd, "-j", str(jobs)], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    own, workers = done.stdout.split()[-2:]
    return wall, float(own), float(workers)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exports", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GRADC_CACHE_DIR"] = str(Path(tmp) / "cache")  # the runtime's, warm:
        (Path(tmp) / "warm.py").write_text(module_source(1))
        build(Path(tmp) / "warm.py", Path(tmp) / "warm", 1)
        module = Path(tmp) / "many.py"
        module.write_text(module_source(args.exports))
        runs: dict[int, list[tuple[float, float, float]]] = {1: [], args.jobs: []}
        for r in range(args.rounds):
            for jobs in runs:
                runs[jobs].append(build(module, Path(tmp) / f"j{jobs}_{r}", jobs))
        same = tree(Path(tmp) / "j1_0") == tree(Path(tmp) / f"j{args.jobs}_0")
    load_after = os.getloadavg()
    med = {
        jobs: [statistics.median(run[i] for run in rs) for i in range(3)]
        for jobs, rs in runs.items()
    }
    for jobs, rs in runs.items():
        walls = "  ".join(f"{w:.2f}" for w, _, _ in rs)
        print(f"-j {jobs}: wall {walls} s; median CPU: build process "
              f"{med[jobs][1]:.2f} s, workers {med[jobs][2]:.2f} s")  # fmt: skip
    one, many = med[1], med[args.jobs]
    added = many[1] + many[2] - one[1] - one[2]
    print(f"load average {load_before[0]:.1f} -> {load_after[0]:.1f}; {os.cpu_count()} cores")
    print(f"{args.exports} exports: -j 1 / -j {args.jobs} = {one[0] / many[0]:.2f}x wall "
          f"(target >= 1.7x); -j {args.jobs} adds {added:+.2f} s CPU")  # fmt: skip
    print(f"byte-identical: {same}")


if __name__ == "__main__":
    main()
