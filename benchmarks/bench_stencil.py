"""A 5-point stencil written with slices, gradc vs NumPy (issue 11).

    python benchmarks/bench_stencil.py            # 10^6 and 10^7 elements (square grids)
    python benchmarks/bench_stencil.py --quick    # 10^4, a smoke test

``u[1:-1, 1:-1] * 4 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]``: in gradc
the five slices are views (descriptor arithmetic, no copies) and ``lower-arrays`` fuses
the expression into one loop nest that allocates only the result; NumPy makes a
temporary per operator. Each row gives the median CPU time per call of each over
``--repeat`` interleaved rounds and the ratio NumPy / gradc as the median of the
per-round ratios (load changes on a shared machine move the ratio less than the times).
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
import gradc
from gradc import f64


@gradc.export
def stencil(u: f64[:, :]) -> f64[:, :]:
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]
"""


def numpy_stencil(u: np.ndarray) -> np.ndarray:
    """The same source, run by NumPy."""
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


def _build() -> Callable[..., np.ndarray]:
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    tmp = Path(tempfile.mkdtemp(prefix="gradc_bench_stencil_"))
    src = tmp / "bench_stencil.py"
    src.write_text(SOURCE)
    out = tmp / "bench_stencil.gradc"
    build_artifact(src, out, CompilerOptions())
    return gradc.load(out).stencil  # type: ignore[no-any-return]


def _time(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one row per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 elements only")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved rounds")
    args = parser.parse_args(argv)
    compiled = _build()
    sides = [100] if args.quick else [1000, 3163]
    print(f"{'n':>10} {'numpy ms':>10} {'gradc ms':>10} {'numpy/gradc':>12}")
    for side in sides:
        u = np.random.default_rng(0).uniform(-1.0, 1.0, (side, side))
        np.testing.assert_array_equal(compiled(u), numpy_stencil(u))
        t_np, t_gc, ratios = [], [], []
        for _ in range(args.repeat):
            a = _time(lambda u=u: numpy_stencil(u))
            g = _time(lambda u=u: compiled(u))
            t_np.append(a)
            t_gc.append(g)
            ratios.append(a / g if g > 0 else float("inf"))
        print(
            f"{side * side:>10} {statistics.median(t_np) * 1e3:>10.2f} "
            f"{statistics.median(t_gc) * 1e3:>10.2f} {statistics.median(ratios):>12.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
