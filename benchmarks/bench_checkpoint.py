"""``@gradc.checkpoint``: the recomputation's time cost and the tape it saves, same run.

One source (``SOURCE``): a loop of ``--n`` steps (default 10**5) calling a helper with
many intermediates, built twice — as written and without its ``@gradc.checkpoint`` line
(docs/ad.md "Checkpointing") — like ``gradc build`` (``compiler.driver.build_artifact``). For
each build a fresh Python process loads it, calls the primal and the gradient once to
warm up, measures the growth of its resident memory over one gradient call of ``--n``
steps (the runtime keeps a freed tape's buffer up to 256 MiB for the next call, so the
growth is the tape's peak; compiler/codegen/runtime.py) and times the primal and the
gradient (median of ``--repeat`` runs of N calls, N chosen so a run lasts ``--min-run``
seconds). Both gradients must be equal (a difference is reported, not timed).

    python benchmarks/bench_checkpoint.py [--n 100000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = """\
import math

import gradc
from gradc import f64, i64


@gradc.checkpoint
def heavy(x, c):
    a = x
    for k in range(12):
        a = math.sin(a * c + 0.1 * k) + 0.5 * math.cos(a)
    return x + 0.001 * a


@gradc.export
def run(x: f64, c: f64, n: i64) -> f64:
    for _ in range(n):
        x = heavy(x, c)
    return x


d_run = gradc.grad(run, wrt=("x", "c"))
"""

#: run in a fresh process: argv = artifact, n, repeat, min_run; prints one JSON object
MEASURE = """\
import json, resource, statistics, sys, time
import gradc
lib = gradc.load(sys.argv[1])
n, repeat, min_run = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()
def median_time(fn):
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_run or number >= 1 << 20:
            break
        number = max(number * 2, int(number * min_run / max(elapsed, 1e-9)))
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)
lib.run(0.5, 1.1, 10)
lib.d_run(0.5, 1.1, 10)
before = resident()
gradient = lib.d_run(0.5, 1.1, n)
tape = resident() - before
print(json.dumps({
    "tape_bytes": tape,
    "gradient": repr(gradient),
    "primal_s": median_time(lambda: lib.run(0.5, 1.1, n)),
    "gradient_s": median_time(lambda: lib.d_run(0.5, 1.1, n)),
}))
"""


def build(workdir: Path, text: str) -> Path:
    """The artifact of ``text`` in ``workdir``."""
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    workdir.mkdir()
    source = workdir / "bench_checkpoint_kernels.py"
    source.write_text(text)
    out = workdir / "bench_checkpoint_kernels.gradc"
    build_artifact(source, out, CompilerOptions())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**5)
    p.add_argument("--quick", action="store_true", help="n = 10**4, short runs")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-run", type=float, default=0.2)
    args = p.parse_args(argv)
    n, min_run = (10**4, 0.05) if args.quick else (args.n, args.min_run)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in (
            ("plain", SOURCE.replace("@gradc.checkpoint\n", "")),
            ("checkpoint", SOURCE),
        ):
            out = build(Path(tmp) / label, text)
            argv_child = [str(out), str(n), str(args.repeat), str(min_run)]
            proc = subprocess.run(
                [sys.executable, "-c", MEASURE, *argv_child], capture_output=True, text=True
            )
            if proc.returncode != 0:
                print(f"{label}: the measuring process failed:\n{proc.stderr}")
                return 1
            results[label] = json.loads(proc.stdout)
    plain, ckpt = results["plain"], results["checkpoint"]
    if plain["gradient"] != ckpt["gradient"]:
        print(f"gradients differ: plain {plain['gradient']}, checkpoint {ckpt['gradient']}")
        return 1
    print(f"n = {n} steps, python {sys.version.split()[0]}")
    print(
        f"{'build':<11} {'tape MiB':>9} {'primal ms':>10} {'gradient ms':>12} {'grad/primal':>12}"
    )
    for label, r in results.items():
        print(
            f"{label:<11} {r['tape_bytes'] / 2**20:>9.2f} {r['primal_s'] * 1e3:>10.3f} "
            f"{r['gradient_s'] * 1e3:>12.3f} {r['gradient_s'] / r['primal_s']:>12.2f}"
        )
    if ckpt["tape_bytes"] > 0:
        print(f"tape plain/checkpoint: {plain['tape_bytes'] / ckpt['tape_bytes']:.1f}x")
    else:  # it fit in memory the process already had resident
        print("tape plain/checkpoint: the checkpointed tape is below the measurement's resolution")
    print(f"gradient time checkpoint/plain: {ckpt['gradient_s'] / plain['gradient_s']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
