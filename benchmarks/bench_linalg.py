"""Matrix products compiled by gradc (loop nests of its own, passes/arrays/linalg.py) vs
NumPy's BLAS on one thread.

    python benchmarks/bench_linalg.py            # A @ x 2000², A @ B 500²
    python benchmarks/bench_linalg.py --quick    # small sizes, a smoke test
    python benchmarks/bench_linalg.py --cpu x86-64   # the baseline (SSE2) code only

NumPy is limited to one thread: ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``/
``MKL_NUM_THREADS`` are set to 1 here before NumPy is imported (gradc's loops are
single-threaded). Each workload's gradc and NumPy runs are interleaved (one run of each
per round, a run being N back-to-back calls lasting about ``--min-run`` seconds); the
figure is the median of the per-round ratios gradc / NumPy (CPU time of this process),
so that a change of load on the shared machine moves it less than the times. The goal
of issue 11 is a ratio <= 2. Inputs are C-contiguous f64 arrays of standard normal
values; the results are checked against NumPy's before timing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy loads its BLAS

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

SOURCE = """\
import numpy as np
import gradc
from gradc import f64


@gradc.export
def matvec(a: f64[:, ::1], x: f64[::1]) -> f64[:]:
    return a @ x


@gradc.export
def matmul(a: f64[:, ::1], b: f64[:, ::1]) -> f64[:, :]:
    return a @ b
"""


def _run(fn: Callable[[], Any], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls


def _calls(fn: Callable[[], Any], min_run: float) -> int:
    calls = 1
    while _run(fn, calls) * calls < min_run and calls < 1 << 20:
        calls *= 2
    return calls


def compare(
    name: str, ours: Callable[[], Any], numpy: Callable[[], Any], args: Any
) -> dict[str, Any]:
    """One workload: per-call times (medians) and the median per-round ratio."""
    mine = _calls(ours, args.min_run)
    theirs = _calls(numpy, args.min_run)
    times_ours, times_numpy, ratios = [], [], []
    for _ in range(args.repeat):
        t_ours, t_numpy = _run(ours, mine), _run(numpy, theirs)
        times_ours.append(t_ours)
        times_numpy.append(t_numpy)
        ratios.append(t_ours / t_numpy)
    return {
        "workload": name,
        "gradc_ms": 1e3 * statistics.median(times_ours),
        "numpy_ms": 1e3 * statistics.median(times_numpy),
        "ratio": statistics.median(ratios),
    }


def main(argv: list[str] | None = None) -> int:
    """Build the kernels, check them, time them; print one row per workload."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--repeat", type=int, default=7, help="rounds per workload")
    parser.add_argument("--min-run", type=float, default=0.2, help="seconds per run")
    parser.add_argument("--cpu", help="gradc build --cpu (default: the default variants)")
    args = parser.parse_args(argv)
    import gradc

    n_mv, n_mm = (200, 50) if args.quick else (2000, 500)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n_mv, n_mv))
    x = rng.standard_normal(n_mv)
    p = rng.standard_normal((n_mm, n_mm))
    q = rng.standard_normal((n_mm, n_mm))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "linalg_kernels.py"
        path.write_text(SOURCE)
        out = str(Path(tmp) / "out")
        subprocess.run(
            [sys.executable, "-m", "gradc", "build", str(path), "-o", out]
            + (["--cpu", args.cpu] if args.cpu else []),
            check=True,
            capture_output=True,
        )
        lib = gradc.load(out)
        np.testing.assert_allclose(lib.matvec(a, x), a @ x, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(lib.matmul(p, q), p @ q, rtol=1e-9, atol=1e-9)
        rows = [
            compare(f"A @ x {n_mv}²", lambda: lib.matvec(a, x), lambda: a @ x, args),
            compare(f"A @ B {n_mm}²", lambda: lib.matmul(p, q), lambda: p @ q, args),
        ]
    print(f"{'workload':<16}{'gradc ms':>10}{'numpy ms':>10}{'ratio':>8}")
    for r in rows:
        print(f"{r['workload']:<16}{r['gradc_ms']:>10.3f}{r['numpy_ms']:>10.3f}{r['ratio']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
