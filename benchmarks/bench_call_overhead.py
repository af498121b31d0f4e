"""Call overhead of array exports: gradc's fast path vs its ctypes path vs plain Python vs
Numba ``@njit`` (when ``import numba`` works), in one run.

Kernels (the source below; gradc compiles it, Numba jits the same functions, plain
Python runs it with the gradc decorators inert):

* ``one(a)``: ``a[0]`` of a 1-element float64 array;
* ``three(a, b, c)``: ``a[0] + b[0] + c[0]`` of three 1-element arrays;
* ``fresh(a)``: a new 1-element array (an owned array result);
* ``add(x, y)``: two floats (the scalar fast path, for reference).

Each is timed with ``timeit``: ``--repeat`` rounds in which every implementation runs
``--number`` calls in turn; the best round, in nanoseconds per call, the timing loop
included, as for every column. Ratios are of the same run. ``python benchmarks/bench_call_overhead.py [--json]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def one(a: f64[:]) -> f64:
    return a[0]


@gradc.export
def three(a: f64[:], b: f64[:], c: f64[:]) -> f64:
    return a[0] + b[0] + c[0]


@gradc.export
def fresh(a: f64[:]) -> f64[:]:
    out = np.empty(1)
    out[0] = a[0]
    return out


@gradc.export
def add(x: f64, y: f64) -> f64:
    return x + y
"""

CALLS = {"one": "f(a)", "three": "f(a, b, c)", "fresh": "f(a)", "add": "f(1.5, 2.5)"}


def _implementations(folder: Path) -> dict[str, Any]:
    """name -> module-like object with the four functions, per implementation."""
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions
    from gradc.runtime_mode import PLAIN_PYTHON_ENV

    source = folder / "overhead.py"
    source.write_text(SOURCE)
    build_artifact(source, folder / "overhead.gradc", CompilerOptions())
    lib = gradc.load(folder / "overhead.gradc")
    spec = importlib.util.spec_from_file_location("overhead_plain", source)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    os.environ[PLAIN_PYTHON_ENV] = "1"  # the decorators return the functions themselves
    try:
        spec.loader.exec_module(plain)
    finally:
        del os.environ[PLAIN_PYTHON_ENV]
    impls: dict[str, Any] = {
        "gradc": {n: lib[n] for n in CALLS},
        "gradc ctypes": {n: lib.ctypes_function(n) for n in CALLS},
        "python": {n: getattr(plain, n) for n in CALLS},
    }
    try:
        import numba
    except ImportError:
        print("numba not installed: its column is skipped", file=sys.stderr)
    else:
        impls["numba"] = {n: numba.njit(getattr(plain, n)) for n in CALLS}
    return impls


def _timers(fns: dict[str, Callable[..., Any]], call: str) -> dict[str, timeit.Timer]:
    """A warmed-up ``timeit.Timer`` of ``call`` per implementation (Numba compiles here)."""
    import numpy as np

    timers = {}
    for impl, fn in fns.items():
        names = {"f": fn, "a": np.ones(1), "b": np.ones(1), "c": np.ones(1)}
        eval(call, names)
        timers[impl] = timeit.Timer(call, globals=names)
    return timers


def _measure(impls: dict[str, Any], number: int, repeat: int) -> dict[str, dict[str, float]]:
    """kernel -> implementation -> best ns per call; the implementations take turns in
    every round, so a busy machine slows them alike."""
    table: dict[str, dict[str, float]] = {}
    for kernel, call in CALLS.items():
        timers = _timers({impl: fns[kernel] for impl, fns in impls.items()}, call)
        best = dict.fromkeys(timers, float("inf"))
        for _ in range(repeat):
            for impl, timer in timers.items():
                best[impl] = min(best[impl], timer.timeit(number) / number * 1e9)
        table[kernel] = best
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        impls = _implementations(Path(tmp))
        table = _measure(impls, args.number, args.repeat)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    names = list(next(iter(table.values())))
    ratios = [r for r in ("numba", "python", "gradc ctypes") if r in names]
    print(f"{'ns per call':<8}" + "".join(f"{n:>14}" for n in names)
          + "".join(f"{'gradc/' + r.split()[-1]:>16}" for r in ratios))  # fmt: skip
    for kernel, row in table.items():
        cells = "".join(f"{row[n]:>14.1f}" for n in names)
        print(f"{kernel:<8}{cells}" + "".join(f"{row['gradc'] / row[r]:>16.2f}" for r in ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
