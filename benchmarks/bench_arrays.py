"""Array benchmarks: gradc vs NumPy (vectorised) vs Numba (@njit of the same loops).

Kernels (the loop source below is what gradc compiles and Numba jits):

* ``matvec``: ``y = A @ x`` for a C-ordered float64 matrix (default 2000 x 2000), two
  nested loops with a scalar accumulator; NumPy runs ``A @ x`` (BLAS dgemv).
* ``stencil3``: 1-D 3-point stencil ``0.25*a[i-1] + 0.5*a[i] + 0.25*a[i+1]`` into a new
  array (default n = 10**6); NumPy runs the same expression on slices.

gradc: the source is written to a temporary directory, compiled with the driver
(``build_module``), stored with ``write_artifact`` and loaded with ``gradc.load`` — the
same steps as ``gradc build``. Numba: the same file imported as plain Python (the gradc
decorators are inert), each function wrapped in ``numba.njit``; compilation happens in
the warm-up call and is not timed.

Every implementation is warmed up, checked against NumPy, then timed with
``time.perf_counter``: ``--repeat`` runs of ``number`` calls each (``number`` chosen so a
run takes about ``--min-run`` seconds); the table shows the median time per call and the
ratios gradc/numba and gradc/numpy (below 1: gradc is faster).

Run ``python benchmarks/bench_arrays.py --help`` for the options; see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import time_runs  # benchmarks/timing.py

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def matvec(A: f64[:, :], x: f64[:]) -> f64[:]:
    m, n = A.shape
    y = np.zeros(m)
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


@gradc.export
def stencil3(a: f64[:]) -> f64[:]:
    n = len(a)
    out = np.empty(n)
    if n > 0:
        out[0] = a[0]
        out[n - 1] = a[n - 1]
    for i in range(1, n - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]
    return out
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matvec-n", type=int, default=2000, help="matrix order (default 2000)")
    p.add_argument("--stencil-n", type=int, default=10**6, help="stencil length (10**6)")
    p.add_argument("--repeat", type=int, default=7, help="timed runs per implementation (7)")
    p.add_argument(
        "--min-run", type=float, default=0.2, help="seconds per timed run, roughly (0.2)"
    )
    p.add_argument("--quick", action="store_true", help="small sizes, 3 repeats (smoke test)")
    p.add_argument("--cpu", default=None, help="gradc target CPU (default: gradc's default)")
    p.add_argument("--opt-level", type=int, default=None, help="gradc -O level (default 2)")
    p.add_argument(
        "--no-boundscheck", action="store_true", help="build gradc without bounds checks"
    )
    p.add_argument("--no-numba", action="store_true", help="skip Numba even if importable")
    p.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="set OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/MKL_NUM_THREADS before NumPy loads",
    )
    p.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = p.parse_args(argv)
    if args.quick:
        args.matvec_n = min(args.matvec_n, 300)
        args.stencil_n = min(args.stencil_n, 10**5)
        args.repeat = min(args.repeat, 3)
        args.min_run = min(args.min_run, 0.05)
    return args


# ------------------------------------------------------------------------- timing


def time_call(fn: Callable[[], Any], repeat: int, min_run: float) -> dict[str, float]:
    """Median/min seconds per call of ``fn()`` (already warmed up)."""
    runs, number = time_runs(fn, repeat, min_run)
    return {"median": statistics.median(runs), "min": min(runs), "number": number}


# ------------------------------------------------------------------------- implementations


def build_gradc(workdir: Path, source: Path, args: argparse.Namespace) -> tuple[Any, str]:
    """Compile ``source`` like ``gradc build`` and load it; (library, note)."""
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    kwargs: dict[str, Any] = {}
    if args.cpu is not None:
        kwargs["cpu"] = args.cpu
    if args.opt_level is not None:
        kwargs["opt_level"] = args.opt_level
    if args.no_boundscheck:
        kwargs["boundscheck"] = False
    options = CompilerOptions(**kwargs)
    start = time.perf_counter()
    output = build_module(source, options)
    out_dir = workdir / "bench_kernels.gradc"
    write_artifact(out_dir, output)
    lib = gradc.load(out_dir)
    note = (
        f"built in {time.perf_counter() - start:.2f} s "
        f"(-O{options.opt_level}, cpu={options.cpu}, boundscheck={options.boundscheck})"
    )
    return lib, note


def import_plain(source: Path) -> Any:
    """``source`` imported as plain Python: ``@gradc.export`` returns the functions
    themselves (``GRADC_PLAIN_PYTHON``), so that Numba can compile them."""
    import os

    from gradc.runtime_mode import PLAIN_PYTHON_ENV

    spec = importlib.util.spec_from_file_location("bench_kernels_plain", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    os.environ[PLAIN_PYTHON_ENV] = "1"
    try:
        spec.loader.exec_module(module)
    finally:
        del os.environ[PLAIN_PYTHON_ENV]
    return module


def numpy_stencil3(a: Any) -> Any:
    import numpy as np

    out = np.empty_like(a)
    if len(a) > 0:
        out[0] = a[0]
        out[-1] = a[-1]
    out[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    return out


# ------------------------------------------------------------------------- main


def environment() -> dict[str, str]:
    import numpy as np

    env = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or "?",
        "cpus": str(os.cpu_count()),
    }
    for var in (
        "OPENBLAS_CORETYPE",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
    ):
        env[var] = os.environ.get(var, "(unset)")
    try:
        import llvmlite

        env["llvmlite"] = llvmlite.__version__
    except ImportError:
        pass
    return env


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.blas_threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.blas_threads)
    import numpy as np  # after the thread settings

    rng = np.random.default_rng(20240601)
    n = args.matvec_n
    A = rng.standard_normal((n, n))
    x = rng.standard_normal(n)
    a = rng.standard_normal(args.stencil_n)

    kernels = {
        "matvec": {
            "size": f"{n}x{n}",
            "args": (A, x),
            "numpy": lambda: A @ x,
            "reference": A @ x,
            "rtol": 1e-12 * n,
        },
        "stencil3": {
            "size": f"n={args.stencil_n:.0e}".replace("e+0", "e"),
            "args": (a,),
            "numpy": lambda: numpy_stencil3(a),
            "reference": numpy_stencil3(a),
            "rtol": 1e-15,
        },
    }

    notes: list[str] = []
    impls: dict[str, dict[str, Callable[..., Any]]] = {"numpy": {}}
    with tempfile.TemporaryDirectory(prefix="gradc-bench-") as tmp:
        workdir = Path(tmp)
        source = workdir / "bench_kernels.py"
        source.write_text(SOURCE)

        try:
            lib, note = build_gradc(workdir, source, args)
            impls["gradc"] = {name: getattr(lib, name) for name in kernels}
            notes.append(f"gradc: {note}")
        except Exception as exc:  # report and go on with the others
            first = str(exc).splitlines()[0] if str(exc) else ""
            notes.append(f"gradc: not available ({type(exc).__name__}: {first})")

        if not args.no_numba:
            try:
                import numba

                plain = import_plain(source)
                impls["numba"] = {name: numba.njit(getattr(plain, name)) for name in kernels}
                notes.append(f"numba {numba.__version__}: @njit (defaults), compile not timed")
            except ImportError:
                notes.append("numba: not installed")

        results: dict[str, dict[str, Any]] = {}
        for kname, k in kernels.items():
            results[kname] = {"size": k["size"]}
            for impl in ("gradc", "numpy", "numba"):
                if impl == "numpy":
                    call = k["numpy"]
                elif impl in impls:
                    fn = impls[impl][kname]
                    call_args = k["args"]

                    def call(fn: Callable[..., Any] = fn, call_args: Any = call_args) -> Any:
                        return fn(*call_args)
                else:
                    continue
                try:
                    got = call()  # warm-up (Numba compiles here)
                    got = call()
                    ok = np.allclose(got, k["reference"], rtol=k["rtol"], atol=1e-12)
                    if not ok:
                        err = float(np.max(np.abs(got - k["reference"])))
                        notes.append(f"{impl} {kname}: WRONG RESULT (max abs error {err:.3g})")
                        continue
                    results[kname][impl] = time_call(call, args.repeat, args.min_run)
                except Exception as exc:
                    notes.append(f"{impl} {kname}: failed ({type(exc).__name__}: {exc})")

    print_report(results, notes, environment(), args)
    if args.json is not None:
        payload = {"results": results, "notes": notes, "environment": environment()}
        args.json.write_text(json.dumps(payload, indent=2))
    return 0


def _ms(result: dict[str, float] | None) -> str:
    return f"{result['median'] * 1e3:10.3f}" if result else f"{'n/a':>10}"


def _ratio(num: dict[str, float] | None, den: dict[str, float] | None) -> str:
    if not num or not den:
        return f"{'n/a':>11}"
    return f"{num['median'] / den['median']:11.2f}"


def print_report(
    results: dict[str, dict[str, Any]],
    notes: list[str],
    env: dict[str, str],
    args: argparse.Namespace,
) -> None:
    print("environment: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    for note in notes:
        print(note)
    print(f"median of {args.repeat} runs, milliseconds per call")
    print()
    header = (
        f"{'kernel':<10} {'size':<11} {'gradc ms':>10} {'numpy ms':>10} {'numba ms':>10} "
        f"{'gradc/numba':>11} {'gradc/numpy':>11}"
    )
    print(header)
    print("-" * len(header))
    for kname, r in results.items():
        g, n, b = r.get("gradc"), r.get("numpy"), r.get("numba")
        print(
            f"{kname:<10} {r['size']:<11} {_ms(g)} {_ms(n)} {_ms(b)} {_ratio(g, b)} {_ratio(g, n)}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
