"""Fused whole-array code vs NumPy: ``y = a*x + b*np.exp(-x*x)`` (issue 11).

    python benchmarks/bench_elementwise.py            # 10^6 and 10^7 elements
    python benchmarks/bench_elementwise.py --quick    # 10^5, a smoke test

gradc compiles the expression into one loop that allocates only ``y`` (``lower-arrays``
fuses the chain); NumPy evaluates it operator by operator, with a temporary array per
operator. Each row gives the median time per call of each over ``--repeat`` interleaved
runs (CPU time), and the ratio NumPy / gradc as the median of the per-round ratios, so
that load changes on a shared machine move the ratio less than the times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def chain(x: f64[:], a: f64, b: f64) -> f64[:]:
    return a * x + b * np.exp(-x * x)
"""


def numpy_chain(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """The same source, run by NumPy."""
    return a * x + b * np.exp(-x * x)


def _build() -> Callable[..., np.ndarray]:
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    tmp = Path(tempfile.mkdtemp(prefix="gradc_bench_ew_"))
    src = tmp / "bench_ew.py"
    src.write_text(SOURCE)
    out = tmp / "bench_ew.gradc"
    build_artifact(src, out, CompilerOptions())
    return gradc.load(out).chain  # type: ignore[no-any-return]


def _time(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one row per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 elements only")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved rounds")
    args = parser.parse_args(argv)
    compiled = _build()
    sizes = [10**5] if args.quick else [10**6, 10**7]
    print(f"{'n':>10} {'numpy ms':>10} {'gradc ms':>10} {'numpy/gradc':>12}")
    for n in sizes:
        x = np.linspace(-3.0, 3.0, n)
        np.testing.assert_allclose(compiled(x, 1.5, -0.25), numpy_chain(x, 1.5, -0.25), atol=1e-14)
        t_np, t_gc, ratios = [], [], []
        for _ in range(args.repeat):
            a = _time(lambda x=x: numpy_chain(x, 1.5, -0.25))
            g = _time(lambda x=x: compiled(x, 1.5, -0.25))
            t_np.append(a)
            t_gc.append(g)
            ratios.append(a / g if g > 0 else float("inf"))
        print(
            f"{n:>10} {statistics.median(t_np) * 1e3:>10.2f} "
            f"{statistics.median(t_gc) * 1e3:>10.2f} {statistics.median(ratios):>12.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
