"""Fused whole-array code vs NumPy and Numba: ``y = a*x + b*np.exp(-x*x)`` (issue 11).

    python benchmarks/bench_elementwise.py            # 10^6 and 10^7 elements
    python benchmarks/bench_elementwise.py --quick    # 10^5, a smoke test
    python benchmarks/bench_elementwise.py --cpu x86-64   # the baseline (SSE2) code only

gradc compiles the expression into one loop that allocates only ``y`` (``lower-arrays``
fuses the chain; ``np.exp`` is inline, so the loop vectorises); NumPy evaluates it
operator by operator, with a temporary array per operator; Numba's ``@njit`` of the same
source fuses the array expression too (its ``exp`` is a libm call per element, unless
Intel's SVML is installed). Each row gives the median CPU time per call of each over
``--repeat`` interleaved rounds, and the ratios NumPy / gradc (goal >= 3) and gradc /
Numba (goal <= 1.1) as the medians of the per-round ratios, so that load changes on a
shared machine move the ratios less than the times. The load average is printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from timing import interleaved_rounds, load_note, numba_njit

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def chain(x: f64[:], a: f64, b: f64) -> f64[:]:
    return a * x + b * np.exp(-x * x)
"""


def numpy_chain(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """The same source, run by NumPy (and compiled by Numba)."""
    return a * x + b * np.exp(-x * x)


def build(source: str, name: str, cpu: str | None) -> Callable[..., np.ndarray]:
    """Export ``name`` of ``source`` built by ``gradc build`` (``--cpu cpu`` when given,
    else the default CPU variants: the loader runs the best one for this host) in a
    fresh build cache, and loaded."""
    import os
    import subprocess

    import gradc

    tmp = Path(tempfile.mkdtemp(prefix="gradc_bench_"))
    src = tmp / f"bench_{name}.py"
    src.write_text(source)
    out = tmp / f"bench_{name}.gradc"
    command = [sys.executable, "-m", "gradc", "build", str(src), "-o", str(out)]
    env = dict(os.environ, GRADC_CACHE_DIR=str(tmp / "cache"))
    cpus = ["--cpu", cpu] if cpu else []
    subprocess.run(command + cpus, check=True, env=env, stdout=subprocess.DEVNULL)
    return getattr(gradc.load(out), name)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one row per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 elements only")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--cpu", help="gradc build --cpu (default: the default variants)")
    args = parser.parse_args(argv)
    compiled = build(SOURCE, "chain", args.cpu)
    njit = numba_njit()
    numba_chain = njit(numpy_chain) if njit is not None else None
    sizes = [10**5] if args.quick else [10**6, 10**7]
    print(f"y = a*x + b*np.exp(-x*x), gradc --cpu {args.cpu or 'default'}; {load_note()}")
    if numba_chain is None:
        print("Numba is not installed: no Numba column")
    print(
        f"{'n':>10} {'gradc ms':>9} {'numpy ms':>9} {'numba ms':>9} {'np/gradc':>9} {'gradc/nb':>9}"
    )
    for n in sizes:
        x = np.linspace(-3.0, 3.0, n)
        expected = numpy_chain(x, 1.5, -0.25)
        np.testing.assert_allclose(compiled(x, 1.5, -0.25), expected, rtol=0.0, atol=1e-15)
        fns = {
            "gradc": lambda x=x: compiled(x, 1.5, -0.25),
            "numpy": lambda x=x: numpy_chain(x, 1.5, -0.25),
        }
        if numba_chain is not None:
            np.testing.assert_allclose(numba_chain(x, 1.5, -0.25), expected, atol=1e-15)
            fns["numba"] = lambda x=x: numba_chain(x, 1.5, -0.25)
        times, ratios = interleaved_rounds(fns, args.repeat)
        nb = f"{times['numba'] * 1e3:>9.2f}" if "numba" in times else f"{'-':>9}"
        vs_nb = f"{1 / ratios['numba']:>9.2f}" if "numba" in ratios else f"{'-':>9}"
        print(
            f"{n:>10} {times['gradc'] * 1e3:>9.2f} {times['numpy'] * 1e3:>9.2f} {nb} "
            f"{ratios['numpy']:>9.2f} {vs_nb}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
