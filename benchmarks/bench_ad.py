"""Cost of derivatives: gradient time / objective time (and JVP time / objective time).

    python benchmarks/bench_ad.py                 # full sizes (tens of seconds)
    python benchmarks/bench_ad.py --quick         # small sizes, a smoke test
    python benchmarks/bench_ad.py --help

Workloads (compiled by gradc together with their derivative exports, timed here):

- ``gmm d10 K25``: ADBench's GMM objective (examples/gmm.py) on gmm/1k/gmm_d10_K25.txt
  (n = 1000 points; ``--quick``: gmm/1k/gmm_d2_K5.txt), gradient with respect to
  alphas, means and icf (1650 values), JVP along alphas;
- ``recurrence``: ``h = tanh(w·h + u·x[i])`` over n steps summing h² (default 10^6) — a
  long loop-carried chain, every step on the tape; gradient with respect to x, w, u;
- ``matvec-sum``: ``sum(sin(A @ x))`` with explicit loops and a temporary for ``A @ x``
  (default 1000 × 1000); gradient with respect to A and x.

Each time is the median of ``--repeat`` runs of N back-to-back calls (N chosen so a run
lasts about ``--min-run`` seconds), per call. The runs of a workload's objective, gradient
and JVP are interleaved (one run of each per round), and each ratio is the median of the
per-round ratios, so that a change of machine load between measurements (the machine is
shared) moves the ratio less than the times. ``--clock cpu`` (the default) measures the
process's CPU time (``time.process_time``), which does not count the time the process
waits for a core while other programs run; ``--clock wall`` measures wall time. The target of the AD work is a gradient
within 3× of the objective. When a module's derivative exports fail to build, its
primal exports are built alone so the objective is still timed, and the row shows the
build error (the script then exits with status 1, as it does when a ratio misses the
target).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TARGET_RATIO = 3.0

KERNELS = """\
import math

import numpy as np

import gradc
from gradc import f64


@gradc.export
def recurrence(x: f64[:], w: f64, u: f64) -> f64:
    h = 0.0
    s = 0.0
    for i in range(len(x)):
        h = math.tanh(w * h + u * x[i])
        s += h * h
    return s


@gradc.export
def matvec_sum(A: f64[:, :], x: f64[:]) -> f64:
    m, n = A.shape
    y = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        y[i] = acc
    s = 0.0
    for i in range(m):
        s += math.sin(y[i])
    return s


d_recurrence = gradc.grad(recurrence, wrt=("x", "w", "u"))
t_recurrence = gradc.jvp(recurrence, wrt=("x", "w", "u"))
d_matvec_sum = gradc.grad(matvec_sum, wrt=("A", "x"))
t_matvec_sum = gradc.jvp(matvec_sum, wrt=("A", "x"))
"""

_DECLARATION = re.compile(r"^\w+\s*=\s*gradc\.(grad|value_and_grad|jvp|vjp)\(")


class PartialBuild:
    """The primal exports of a module whose derivative exports failed to build; the
    derivative exports raise that build error."""

    def __init__(self, lib: Any, error: Exception) -> None:
        self.lib = lib
        self.error = error

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("d_", "t_", "vg_")):
            raise self.error
        return getattr(self.lib, name)


def build(source: Path, out_dir: Path, options: Any) -> Any:
    """Compile ``source`` as ``gradc build`` does (driver, artifact store) and load it;
    on failure, build its primal exports alone (a :class:`PartialBuild`)."""
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module

    out = out_dir / f"{source.stem}.gradc"
    try:
        write_artifact(out, build_module(source, options))
        return gradc.load(out)
    except Exception as exc:
        primal_dir = out_dir / "primal"
        primal_dir.mkdir(exist_ok=True)
        primal = primal_dir / source.name
        lines = source.read_text().splitlines()
        primal.write_text("\n".join(ln for ln in lines if not _DECLARATION.match(ln)) + "\n")
        out = primal_dir / f"{source.stem}.gradc"
        write_artifact(out, build_module(primal, options))
        return PartialBuild(gradc.load(out), exc)


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def interleaved_times(
    fns: dict[str, Callable[[], Any]],
    repeat: int,
    min_run: float,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, list[float]]:
    """Seconds per call of each of ``fns``, one sample per round for each, over
    ``repeat`` rounds; a sample is a run of N calls lasting about ``min_run`` (by
    ``clock``)."""
    numbers = {}
    for kind, fn in fns.items():
        fn()  # warm up (first-call costs, page faults)
        start = clock()
        fn()
        once = max(clock() - start, 1e-7)
        numbers[kind] = max(1, int(min_run / once))
    samples: dict[str, list[float]] = {kind: [] for kind in fns}
    for _ in range(repeat):
        for kind, fn in fns.items():
            number = numbers[kind]
            start = clock()
            for _ in range(number):
                fn()
            samples[kind].append((clock() - start) / number)
    return samples


Workload = Callable[[], dict[str, Callable[[], Any]]]


def workloads(tmp: Path, options: Any, quick: bool) -> list[tuple[str, Workload]]:
    """(name, setup) pairs; setup builds and returns the callables to time."""
    cache: dict[str, Any] = {}

    def kernels() -> Any:
        if "lib" not in cache:
            src = tmp / "ad_kernels.py"
            src.write_text(KERNELS)
            cache["lib"] = build(src, tmp, options)
        return cache["lib"]

    gmm_file = "gmm_d2_K5.txt" if quick else "gmm_d10_K25.txt"

    def gmm() -> dict[str, Callable[[], Any]]:
        sys.path.insert(0, str(EXAMPLES))
        from gmm_io import DATA, read_gmm_instance

        lib = build(EXAMPLES / "gmm.py", tmp, options)
        args = read_gmm_instance(DATA / "gmm" / "1k" / gmm_file)
        v = np.random.default_rng(0).standard_normal(args[0].shape)
        return {
            "objective": lambda: lib.gmm_objective(*args),
            "gradient": lambda: lib.d_gmm(*args),
            "jvp": lambda: lib.t_gmm(*args, v),
        }

    n_rec = 10_000 if quick else 1_000_000

    def recurrence() -> dict[str, Callable[[], Any]]:
        k = kernels()
        rng = np.random.default_rng(1)
        x = rng.standard_normal(n_rec)
        dx = rng.standard_normal(x.shape)
        return {
            "objective": lambda: k.recurrence(x, 0.7, 0.3),
            "gradient": lambda: k.d_recurrence(x, 0.7, 0.3),
            "jvp": lambda: k.t_recurrence(x, 0.7, 0.3, dx, 1.0, 1.0),
        }

    n_mv = 100 if quick else 1000

    def matvec() -> dict[str, Callable[[], Any]]:
        k = kernels()
        rng = np.random.default_rng(2)
        A = rng.standard_normal((n_mv, n_mv)) / np.sqrt(n_mv)
        x = rng.standard_normal(n_mv)
        dA = rng.standard_normal(A.shape)
        dx = rng.standard_normal(x.shape)
        return {
            "objective": lambda: k.matvec_sum(A, x),
            "gradient": lambda: k.d_matvec_sum(A, x),
            "jvp": lambda: k.t_matvec_sum(A, x, dA, dx),
        }

    return [
        (f"gmm {gmm_file.removeprefix('gmm_').removesuffix('.txt')}", gmm),
        (f"recurrence n={n_rec}", recurrence),
        (f"matvec-sum {n_mv}x{n_mv}", matvec),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="gradient/objective time ratios of gradc")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per measurement")
    parser.add_argument("--min-run", type=float, default=0.1, help="seconds per timed run")
    parser.add_argument("--cpu", default=None, help="target CPU (e.g. native)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="process CPU time or wall time"
    )
    parser.add_argument("--no-boundscheck", action="store_true", help="build without index checks")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat, args.min_run = min(args.repeat, 3), min(args.min_run, 0.02)

    from gradc.compiler.options import CompilerOptions

    kwargs: dict[str, Any] = {"boundscheck": not args.no_boundscheck}
    if args.cpu:
        kwargs["cpu"] = args.cpu
    options = CompilerOptions(**kwargs)

    clock = CLOCKS[args.clock]
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench_ad_") as tmpdir:
        for name, setup in workloads(Path(tmpdir), options, args.quick):
            row: dict[str, Any] = {"workload": name}
            samples: dict[str, list[float]] = {}
            try:
                fns = setup()
                try:
                    samples = interleaved_times(fns, args.repeat, args.min_run, clock)
                except Exception:
                    # a failing derivative export: time the objective alone, then report
                    samples = interleaved_times(
                        {"objective": fns["objective"]}, args.repeat, args.min_run, clock
                    )
                    for fn in fns.values():
                        fn()  # raises the derivative export's error
            except Exception as exc:
                text = str(exc).strip()
                row["error"] = f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"
            for kind, times in samples.items():
                row[kind] = statistics.median(times)
            for kind, key in (("gradient", "grad/obj"), ("jvp", "jvp/obj")):
                if kind in samples:
                    row[key] = statistics.median(
                        t / o for t, o in zip(samples[kind], samples["objective"])
                    )
            results.append(row)

    print(
        f"median of {args.repeat} runs per call; target: gradient <= {TARGET_RATIO:g}x objective"
        f" (cpu={options.cpu}, boundscheck={options.boundscheck}, clock={args.clock})"
    )
    header = ("workload", "objective ms", "gradient ms", "grad/obj", "jvp ms", "jvp/obj", "")
    table = [header]
    failed = False
    for r in results:

        def ms(key: str, r: dict[str, Any] = r) -> str:
            return f"{r[key] * 1e3:.3f}" if key in r else "—"

        def ratio(key: str, r: dict[str, Any] = r) -> str:
            return f"{r[key]:.2f}x" if key in r else "—"

        ok = r.get("grad/obj", np.inf) <= TARGET_RATIO
        failed |= not ok
        note = "ok" if ok else ("miss" if "grad/obj" in r else "error (below)")
        table.append(
            (r["workload"], ms("objective"), ms("gradient"), ratio("grad/obj"), ms("jvp"),
             ratio("jvp/obj"), note)
        )  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    table.insert(1, tuple("-" * w for w in widths))
    for row in table:
        cells = [
            c.ljust(w) if i in (0, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        ]
        print("  ".join(cells).rstrip())
    for r in results:
        if "error" in r:
            print(f"\n{r['workload']}: {r['error']}")
    if args.json is not None:
        args.json.write_text(json.dumps({"target": TARGET_RATIO, "results": results}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
