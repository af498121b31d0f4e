"""Forward mode with a vector width: ``gradc.jvp(f, width=8)`` (one sweep, 8 tangents)
against 8 calls of ``gradc.jvp(f)``, and ``gradc.jacfwd(f, width=8)`` against
``gradc.jacfwd(f)``, same run.

``SOURCE`` holds a scalar loop function (``--n`` steps of a helper with transcendental
calls, default 10**4) and an array function (``tanh(A @ x)`` plus a cumulative sum, ``x``
of length ``--m``, ``A`` of shape ``(m, m)``, default 64), built once like ``gradc
build`` (``compiler.driver.build_artifact``). Each timing is the median of ``--repeat``
runs of N repetitions (N chosen so a run lasts ``--min-run`` seconds). The 8 lanes must
equal the 8 separate calls exactly (a difference is reported, not timed).

    python benchmarks/bench_jvp_width.py [--n 10000] [--m 64] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from timing import median_time  # benchmarks/timing.py

SOURCE = """\
import math

import numpy as np

import gradc
from gradc import f64, i64


def step(s, c):
    return s + 0.01 * math.sin(c * s) * math.exp(-s * s)


@gradc.export
def loop(x: f64, c: f64, n: i64) -> f64:
    s = x
    for _ in range(n):
        s = step(s, c)
    return s * c


@gradc.export
def field(x: f64[:], a: f64[:, :], c: f64) -> f64[:]:
    y = np.tanh(a @ x) * c
    return y + np.cumsum(np.sin(x))[: y.shape[0]]


t_loop = gradc.jvp(loop, wrt=("x", "c"))
t8_loop = gradc.jvp(loop, wrt=("x", "c"), width=8)
t_field = gradc.jvp(field, wrt="x")
t8_field = gradc.jvp(field, wrt="x", width=8)
jf_field = gradc.jacfwd(field, wrt="x")
jf8_field = gradc.jacfwd(field, wrt="x", width=8)
"""


def main(argv: list[str] | None = None) -> int:
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**4)
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--quick", action="store_true", help="n = 1000, m = 16, short runs")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-run", type=float, default=0.2)
    args = p.parse_args(argv)
    n, m, min_run = (1000, 16, 0.05) if args.quick else (args.n, args.m, args.min_run)
    rng = np.random.default_rng(0)
    x, a, c = rng.normal(size=m), rng.normal(size=(m, m)) / m, 0.7
    dx, dc, dxs = rng.normal(size=8), rng.normal(size=8), rng.normal(size=(8, m))
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "bench_jvp_width_kernels.py"
        source.write_text(SOURCE)
        out = Path(tmp) / "bench_jvp_width_kernels.gradc"
        build_artifact(source, out, CompilerOptions())
        lib = gradc.load(out)
        cases = {
            "scalar loop jvp": (
                lambda: lib.t8_loop(0.3, 1.5, n, dx, dc),
                lambda: [lib.t_loop(0.3, 1.5, n, dx[k], dc[k]) for k in range(8)],
                lambda r8, r1: list(r8[1]) == [t for _, t in r1],
            ),
            "array jvp": (
                lambda: lib.t8_field(x, a, c, dxs),
                lambda: [lib.t_field(x, a, c, dxs[k]) for k in range(8)],
                lambda r8, r1: all(np.array_equal(r8[1][k], r1[k][1]) for k in range(8)),
            ),
            "array jacfwd": (
                lambda: lib.jf8_field(x, a, c),
                lambda: lib.jf_field(x, a, c),
                lambda r8, r1: bool(np.array_equal(r8, r1)),
            ),
        }
        print(f"n = {n} steps, m = {m}, width 8, python {sys.version.split()[0]}")
        print(f"{'case':<17} {'width 8 ms':>11} {'8 x width 1 ms':>15} {'ratio':>7}")
        for label, (wide, narrow, same) in cases.items():
            if not same(wide(), narrow()):
                print(f"{label}: the width-8 result differs from the width-1 results")
                return 1
            t8 = median_time(wide, args.repeat, min_run)
            t1 = median_time(narrow, args.repeat, min_run)
            print(f"{label:<17} {t8 * 1e3:>11.3f} {t1 * 1e3:>15.3f} {t8 / t1:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
