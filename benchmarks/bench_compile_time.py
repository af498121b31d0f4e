"""Compile time of gradients against function size (issue #18, class 8).

    python benchmarks/bench_compile_time.py                   # N = 25 .. 400, 1000 lines
    python benchmarks/bench_compile_time.py --quick           # small sizes, a smoke test
    python benchmarks/bench_compile_time.py --sizes 50 100 --lines 0 --clock wall

Generated modules, each compiled with ``gradc.grad`` (the phases of
``gradc.compiler.driver.build_module``, as ``gradc build --timings`` prints them):

- ``ifs N``: ``f(x, y)`` made of N sequential statements
  ``if x > k*0.1: s = s + math.sin(x * k) * y`` / ``else: s = s - y / (x * x + k)``, the
  gradient with respect to x and y. Before the fix its AD phase took 3.4 s at N = 25,
  66 s at N = 50 and more than 10 minutes at N = 100 (SSA phi cleanup rescanning the
  function for every removed phi, and phis placed for every adjoint on every join).
- ``mixed L``: an L-line function mixing those branches with straight-line math,
  ``for`` loops with a run-time trip count and array reads, the gradient with respect
  to its float scalars and the array.

For each module the table shows every phase's time, the total, and the growth exponent
of the AD phase and of the total against the previous size (1.0 is linear, 2.0
quadratic). ``--clock cpu`` (the default) times each phase in this process's CPU time
(the driver's phase clock is pointed at ``time.process_time``), which does not count the
time spent waiting for a core on a shared machine; ``--clock wall`` keeps the driver's
wall clock. A benchmark, not a test: it asserts nothing about time. Figures and what the
build does for large functions: docs/compile_time.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import types
from pathlib import Path

PHASES = ("parse", "infer", "ad", "passes", "lower", "emit")


def ifs_source(n: int) -> str:
    """The module of ``ifs n``: ``f(x, y)`` of ``n`` sequential if/else statements and
    ``d_f = gradc.grad(f, wrt=("x", "y"))``."""
    lines = [
        "import math",
        "",
        "import gradc",
        "from gradc import f64",
        "",
        "",
        "@gradc.export",
        "def f(x: f64, y: f64) -> f64:",
        "    s = 0.0",
    ]
    for k in range(1, n + 1):
        lines += [
            f"    if x > {k} * 0.1:",
            f"        s = s + math.sin(x * {k}) * y",
            "    else:",
            f"        s = s - y / (x * x + {k})",
        ]
    lines += ["    return s", "", "", 'd_f = gradc.grad(f, wrt=("x", "y"))', ""]
    return "\n".join(lines)


def mixed_source(n_lines: int) -> str:
    """The module of ``mixed n_lines``: ``f(x, y, a, n)`` whose body has about
    ``n_lines`` lines (branches, straight-line math, loops of ``n`` iterations, reads of
    ``a``, of length at least 3) and ``d_f = gradc.grad(f, wrt=("x", "y", "a"))``."""
    body = ["    s = 0.0", "    t = y"]
    k = 0
    while len(body) < n_lines - 1:
        k += 1
        kind = k % 4
        if kind == 0:
            body += [
                f"    if x > {k} * 0.01:",
                f"        s = s + math.sin(x * {k}) * t",
                "    else:",
                f"        s = s - y / (x * x + {k})",
            ]
        elif kind == 1:
            body += [
                f"    t = math.exp(-x * {k} * 0.001) * y + t * 0.5",
                f"    s = s + t * a[{k % 3}]",
            ]
        elif kind == 2:
            body += [
                "    for i in range(n):",
                f"        s = s + math.cos(x + i * {k}) * a[i % 3] * 0.1",
            ]
        else:
            body += [f"    s = s * 0.9 + math.tanh(t - {k} * 0.01) * x"]
    lines = [
        "import math",
        "",
        "import gradc",
        "from gradc import f64, i64",
        "",
        "",
        "@gradc.export",
        "def f(x: f64, y: f64, a: f64[:], n: i64) -> f64:",
        *body,
        "    return s",
        "",
        "",
        'd_f = gradc.grad(f, wrt=("x", "y", "a"))',
        "",
    ]
    return "\n".join(lines)


def build_timings(source: str, clock: str = "cpu") -> dict[str, float]:
    """Compile ``source`` (a module's text) with the default options; the phase times in
    seconds (``total`` included). Raises what ``build_module`` raises."""
    import gradc.compiler.driver as driver
    import gradc.compiler.pipeline as pipeline
    from gradc.compiler.options import CompilerOptions

    saved = pipeline.time
    if clock == "cpu":  # the stage runner's timer reads time.perf_counter
        pipeline.time = types.SimpleNamespace(perf_counter=time.process_time)  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "generated.py"
            path.write_text(source)
            start = time.process_time() if clock == "cpu" else time.perf_counter()
            out = driver.build_module(path, CompilerOptions())
            end = time.process_time() if clock == "cpu" else time.perf_counter()
    finally:
        pipeline.time = saved
    timings = dict(out.timings)
    timings["total"] = end - start
    return timings


def _exponent(t0: float, t1: float, n0: int, n1: int) -> str:
    if t0 <= 0 or t1 <= 0 or n0 == n1:
        return "-"
    return f"{math.log(t1 / t0) / math.log(n1 / n0):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[25, 50, 100, 200, 400])
    parser.add_argument("--lines", type=int, nargs="*", default=[1000], help="mixed sizes")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--quick", action="store_true", help="sizes 10 20 40, mixed 100")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.lines = [10, 20, 40], [100]
    runs = [("ifs", n, ifs_source(n)) for n in args.sizes]
    runs += [("mixed", n, mixed_source(n)) for n in args.lines]
    header = f"{'module':<12}" + "".join(f"{p:>9}" for p in (*PHASES, "total"))
    print(f"compile phases, seconds of {args.clock} time (gradc.grad included)")
    print(header + f"{'ad exp':>8}{'tot exp':>8}")
    previous: dict[str, tuple[int, dict[str, float]]] = {}
    for kind, n, source in runs:
        name = f"{kind} {n}"
        try:
            t = build_timings(source, args.clock)
        except Exception as exc:  # report and go on with the other sizes
            print(f"{name:<12} failed: {type(exc).__name__}: {exc}")
            continue
        row = f"{name:<12}" + "".join(f"{t.get(p, 0.0):>9.2f}" for p in (*PHASES, "total"))
        if kind in previous:
            n0, t0 = previous[kind]
            row += f"{_exponent(t0['ad'], t['ad'], n0, n):>8}"
            row += f"{_exponent(t0['total'], t['total'], n0, n):>8}"
        print(row, flush=True)
        previous[kind] = (n, t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
