"""CPU variants side by side in one run: which of x86-64, x86-64-v3, x86-64-v4 pays.

    python benchmarks/bench_variants.py                       # the three default variants
    python benchmarks/bench_variants.py --cpus x86-64-v3,x86-64-v4 --repeat 15
    python benchmarks/bench_variants.py --quick               # small sizes, a smoke test

Data for the default variant policy (compiler/variant_policy.py, docs/artifacts.md "CPU
variants"): every workload is built once per CPU (``gradc build --cpu C``, one object
each) and the builds are timed interleaved in the same rounds:

- ``gmm objective`` / ``gmm gradient`` / ``gmm value_and_grad``: examples/gmm.py on
  ADBench's gmm/1k/gmm_d10_K25.txt (``--quick``: gmm_d2_K5), loops over rows of d = 10;
- ``elementwise 10^6``: benchmarks/bench_elementwise.py's ``a*x + b*exp(-x*x)``, one fused
  loop that vectorises (``--quick``: 10^5);
- ``stencil 1000²``: benchmarks/bench_stencil.py's 5-point stencil of slices
  (``--quick``: 100²);
- ``matmul 500²``: benchmarks/bench_linalg.py's ``a @ b`` (gradc's tiled loops;
  ``--quick``: 100²);
- ``matvec loops 2000²`` and ``stencil3 loops 10^6``: benchmarks/bench_arrays.py's plain
  loops (``--quick``: 200², 10^5).

The host must support every CPU asked for (the loader refuses a variant it cannot run).
Each figure is the median over ``--repeat`` rounds of the CPU time per call
(``time.process_time``: time waiting for a core on a shared machine does not count);
each ratio is the median of the per-round ratios to the first CPU. The load average is
printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench_arrays import SOURCE as LOOPS
from bench_elementwise import SOURCE as ELEMENTWISE
from bench_linalg import SOURCE as LINALG
from bench_stencil import SOURCE as STENCIL
from timing import load_note

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def built(source: str, stem: str, cpu: str) -> Any:
    """The loaded artifact of ``source`` built by ``gradc build --cpu cpu`` (one object)
    in a fresh folder and build cache."""
    tmp = Path(tempfile.mkdtemp(prefix="gradc_bench_variants_"))
    src = tmp / f"{stem}.py"
    src.write_text(source)
    out = tmp / f"{stem}.gradc"
    command = [sys.executable, "-m", "gradc", "build", str(src), "-o", str(out), "--cpu", cpu]
    env = dict(os.environ, GRADC_CACHE_DIR=str(tmp / "cache"))
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    import gradc

    return gradc.load(out)


def workloads(cpu: str, quick: bool) -> dict[str, Callable[[], Any]]:
    """The timed calls of each workload, built for ``cpu``."""
    sys.path.insert(0, str(EXAMPLES))
    from gmm_io import DATA, read_gmm_instance

    instance = "gmm/1k/gmm_d2_K5.txt" if quick else "gmm/1k/gmm_d10_K25.txt"
    inputs = read_gmm_instance(DATA / instance)
    gmm = built((EXAMPLES / "gmm.py").read_text(), "gmm", cpu)
    chain = built(ELEMENTWISE, "chain", cpu).chain
    stencil = built(STENCIL, "stencil", cpu).stencil
    matmul = built(LINALG, "linalg", cpu).matmul
    loops = built(LOOPS, "loops", cpu)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10**5 if quick else 10**6)
    side = 100 if quick else 1000
    u = rng.standard_normal((side, side))
    m = 100 if quick else 500
    p, q = rng.standard_normal((m, m)), rng.standard_normal((m, m))
    mv = 200 if quick else 2000
    a, v = rng.standard_normal((mv, mv)), rng.standard_normal(mv)
    w = rng.standard_normal(10**5 if quick else 10**6)
    return {
        "gmm objective": lambda: gmm.gmm_objective(*inputs),
        "gmm gradient": lambda: gmm.d_gmm(*inputs),
        "gmm value_and_grad": lambda: gmm.vg_gmm(*inputs),
        f"elementwise {x.size:.0e}": lambda: chain(x, 1.5, -0.5),
        f"stencil {side}x{side}": lambda: stencil(u),
        f"matmul {m}x{m}": lambda: matmul(p, q),
        f"matvec loops {mv}x{mv}": lambda: loops.matvec(a, v),
        f"stencil3 loops {w.size:.0e}": lambda: loops.stencil3(w),
    }


def calls_per_run(fn: Callable[[], Any], min_run: float) -> int:
    """How many back-to-back calls of ``fn`` take about ``min_run`` CPU seconds."""
    fn()
    start = time.process_time()
    fn()
    return max(1, int(min_run / max(time.process_time() - start, 1e-6)))


def main(argv: list[str] | None = None) -> int:
    """Build every workload for every CPU, time them interleaved, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", default="x86-64,x86-64-v3,x86-64-v4")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--min-run", type=float, default=0.05, help="CPU seconds per run")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    args = parser.parse_args(argv)
    cpus = args.cpus.split(",")
    fns = {cpu: workloads(cpu, args.quick) for cpu in cpus}
    names = list(fns[cpus[0]])
    numbers = {name: calls_per_run(fns[cpus[0]][name], args.min_run) for name in names}
    times: dict[tuple[str, str], list[float]] = {(n, c): [] for n in names for c in cpus}
    before = load_note()
    for _ in range(args.repeat):
        for name in names:
            for cpu in cpus:
                fn, number = fns[cpu][name], numbers[name]
                start = time.process_time()
                for _ in range(number):
                    fn()
                times[name, cpu].append((time.process_time() - start) / number)
    print(f"{args.repeat} rounds; load average before/after: {before} / {load_note()}")
    print(f"{'CPU ms per call':24}" + "".join(f"{cpu:>12}" for cpu in cpus))
    for name in names:
        cells = "".join(f"{statistics.median(times[name, c]) * 1e3:12.3f}" for c in cpus)
        print(f"{name:24}{cells}")
    print(f"{'ratio to ' + cpus[0]:24}" + "".join(f"{cpu:>12}" for cpu in cpus))
    for name in names:
        first = times[name, cpus[0]]
        cells = "".join(
            f"{statistics.median(t / f for t, f in zip(times[name, c], first, strict=True)):12.2f}"
            for c in cpus
        )
        print(f"{name:24}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
