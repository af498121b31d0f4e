"""Reduction benchmarks: gradc vs NumPy on the same source, same run.

Kernels (``SOURCE`` below; NumPy runs the very same functions, uncompiled):

* ``fused_sum``: ``np.sum(a * x + b)`` (default n = 10**7). NumPy makes two temporaries
  (``a * x``, then ``+ b``) and sums the second pairwise; gradc fuses the chain into the
  reduction's loop (no temporary) and sums sequentially (passes/arrays/reduce.py).
* ``sum``: ``np.sum(a)``; ``var``: ``np.var(a)`` (two passes in both);
* ``col_sums``: ``np.sum(A, axis=0)`` of a C-ordered ``sqrt(n) x sqrt(n)`` matrix.

gradc compiles the source like ``gradc build`` (``compiler.driver.build_artifact``,
``gradc.load``). Each implementation is warmed up, its result checked against NumPy's
(relative 1e-9: the summation orders differ), then timed with ``time.perf_counter``
(``--repeat`` runs of N calls, N chosen so a run lasts ``--min-run`` seconds). The table
gives the median time per call and gradc/NumPy (below 1: gradc faster).

    python benchmarks/bench_reduce.py [--n 10000000] [--quick] [--cpu native]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from timing import median_time  # benchmarks/timing.py

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def fused_sum(a: f64[:], x: f64[:], b: f64[:]) -> f64:
    return np.sum(a * x + b)


@gradc.export
def sum(a: f64[:]) -> f64:
    return np.sum(a)


@gradc.export
def var(a: f64[:]) -> f64:
    return np.var(a)


@gradc.export
def col_sums(A: f64[:, :]) -> f64[:]:
    return np.sum(A, axis=0)
"""


def build(workdir: Path, cpu: str | None) -> tuple[Any, Any]:
    """(gradc library, plain module) of SOURCE."""
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    source = workdir / "bench_reduce_kernels.py"
    source.write_text(SOURCE)
    options = CompilerOptions(cpu=cpu) if cpu else CompilerOptions()
    out = workdir / "bench_reduce_kernels.gradc"
    build_artifact(source, out, options)
    spec = importlib.util.spec_from_file_location("bench_reduce_plain", source)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    return gradc.load(out), plain


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**7)
    p.add_argument("--quick", action="store_true", help="n = 10**5, short runs")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-run", type=float, default=0.2)
    p.add_argument("--cpu", default=None, help="gradc target CPU (default: gradc's)")
    args = p.parse_args(argv)
    n = 10**5 if args.quick else args.n
    rng = np.random.default_rng(0)
    a, x, b = (rng.uniform(-1.0, 1.0, n) for _ in range(3))
    side = math.isqrt(n)
    A = rng.uniform(-1.0, 1.0, (side, side))
    inputs = {"fused_sum": (a, x, b), "sum": (a,), "var": (a,), "col_sums": (A,)}
    with tempfile.TemporaryDirectory() as tmp:
        lib, plain = build(Path(tmp), args.cpu)
        print(f"n = {n}, numpy {np.__version__}, python {sys.version.split()[0]}")
        print(f"{'kernel':<10} {'numpy ms':>10} {'gradc ms':>10} {'gradc/numpy':>12}")
        for name, call_args in inputs.items():
            compiled, reference = getattr(lib, name), getattr(plain, name)
            expected, got = reference(*call_args), compiled(*call_args)
            if not np.allclose(got, expected, rtol=1e-9, atol=1e-9 * n):
                print(f"{name:<10} wrong result: gradc {got!r}, numpy {expected!r}")
                continue
            t_np = median_time(lambda f=reference, c=call_args: f(*c), args.repeat, args.min_run)
            t_gc = median_time(lambda f=compiled, c=call_args: f(*c), args.repeat, args.min_run)
            print(f"{name:<10} {t_np * 1e3:>10.3f} {t_gc * 1e3:>10.3f} {t_gc / t_np:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
