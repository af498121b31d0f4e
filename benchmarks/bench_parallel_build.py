"""``gradc build -j N`` against ``-j 1`` (issue #13): a generated module of 32 exports.

    python benchmarks/bench_parallel_build.py             # -j 1 vs -j 2, 3 rounds
    python benchmarks/bench_parallel_build.py --exports 64 --jobs 4 --rounds 5

Each build runs ``gradc build`` in a fresh process into a fresh directory (a cold build:
nothing to reuse), rounds interleaved so that a change in the machine's load hits both.
Prints the wall time of each, the ratio of the medians, and checks that the artifacts are
byte-identical. A benchmark, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
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


def build(module: Path, out: Path, jobs: int) -> float:
    """Wall seconds of ``gradc build module -o out -j jobs`` in a fresh process."""
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "gradc", "build", str(module), "-o", str(out), "-j", str(jobs)]
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exports", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp) / "many.py"
        module.write_text(module_source(args.exports))
        times: dict[int, list[float]] = {1: [], args.jobs: []}
        for r in range(args.rounds):
            for jobs in times:
                times[jobs].append(build(module, Path(tmp) / f"j{jobs}_{r}", jobs))
        same = tree(Path(tmp) / "j1_0") == tree(Path(tmp) / f"j{args.jobs}_0")
        one, many = statistics.median(times[1]), statistics.median(times[args.jobs])
        for jobs, ts in times.items():
            print(f"-j {jobs}: " + "  ".join(f"{t:.2f}" for t in ts) + " s")
        print(f"{args.exports} exports: -j 1 / -j {args.jobs} = {one / many:.2f}x")
        print(f"byte-identical: {same}")


if __name__ == "__main__":
    main()
