"""A 5-point stencil written with slices, gradc vs NumPy and Numba (issue 11).

    python benchmarks/bench_stencil.py            # 10^6 and 10^7 elements (square grids)
    python benchmarks/bench_stencil.py --quick    # 10^4, a smoke test
    python benchmarks/bench_stencil.py --cpu x86-64   # the baseline (SSE2) code only

``u[1:-1, 1:-1] * 4 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]``: in gradc
the five slices are views (descriptor arithmetic, no copies) and ``lower-arrays`` fuses
the expression into one loop nest that allocates only the result; NumPy makes a
temporary per operator; Numba's ``@njit`` of the same source fuses the array expression
too. Each row gives the median CPU time per call of each over ``--repeat`` interleaved
rounds and the ratios NumPy / gradc (goal >= 3) and gradc / Numba (goal <= 1.1) as the
medians of the per-round ratios (load changes on a shared machine move the ratios less
than the times). The load average is printed.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from bench_elementwise import build
from timing import interleaved_rounds, load_note, numba_njit

SOURCE = """\
import gradc
from gradc import f64


@gradc.export
def stencil(u: f64[:, :]) -> f64[:, :]:
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]
"""


def numpy_stencil(u: np.ndarray) -> np.ndarray:
    """The same source, run by NumPy (and compiled by Numba)."""
    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one row per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 elements only")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--cpu", help="gradc build --cpu (default: the default variants)")
    args = parser.parse_args(argv)
    compiled = build(SOURCE, "stencil", args.cpu)
    njit = numba_njit()
    numba_stencil = njit(numpy_stencil) if njit is not None else None
    sides = [100] if args.quick else [1000, 3163]
    print(f"5-point stencil of slices, gradc --cpu {args.cpu or 'default'}; {load_note()}")
    if numba_stencil is None:
        print("Numba is not installed: no Numba column")
    print(
        f"{'n':>10} {'gradc ms':>9} {'numpy ms':>9} {'numba ms':>9} {'np/gradc':>9} {'gradc/nb':>9}"
    )
    for side in sides:
        u = np.random.default_rng(0).uniform(-1.0, 1.0, (side, side))
        expected = numpy_stencil(u)
        np.testing.assert_array_equal(compiled(u), expected)
        fns = {"gradc": lambda u=u: compiled(u), "numpy": lambda u=u: numpy_stencil(u)}
        if numba_stencil is not None:
            np.testing.assert_array_equal(numba_stencil(u), expected)
            fns["numba"] = lambda u=u: numba_stencil(u)
        times, ratios = interleaved_rounds(fns, args.repeat)
        nb = f"{times['numba'] * 1e3:>9.2f}" if "numba" in times else f"{'-':>9}"
        vs_nb = f"{1 / ratios['numba']:>9.2f}" if "numba" in ratios else f"{'-':>9}"
        print(
            f"{side * side:>10} {times['gradc'] * 1e3:>9.2f} {times['numpy'] * 1e3:>9.2f} {nb} "
            f"{ratios['numpy']:>9.2f} {vs_nb}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
