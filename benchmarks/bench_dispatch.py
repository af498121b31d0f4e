"""Call overhead of dispatching among several signatures: an export with one signature vs
the same function exported with three (``@gradc.export(["f64(f64, f64)", ...])``), called
with arguments of its first and of its last signature, in one run.

Each call is timed with ``timeit``: ``--repeat`` rounds in which every variant runs
``--number`` calls in turn; the best round, in nanoseconds per call (the timing loop
included, as for every column), and the dispatched call's extra nanoseconds over the
one-signature call. ``python benchmarks/bench_dispatch.py [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Any

SOURCE = """\
import gradc
from gradc import f64


@gradc.export
def one(x: f64, y: f64) -> f64:
    return x * y + x


@gradc.export(["f64(f64, f64)", "f32(f32, f32)", "i64(i64, i64)"])
def many(x, y):
    return x * y + x


@gradc.export
def one_array(a: f64[:]) -> f64:
    return a[0]


@gradc.export(["f64(f64[:])", "f32(f32[:])"])
def many_array(a):
    return a[0]
"""

#: row -> (one-signature call, dispatched call)
CALLS = {
    "f64 scalars": ("one(1.5, 2.5)", "many(1.5, 2.5)"),
    "i64 scalars (last signature)": ("one(1.5, 2.5)", "many(1, 2)"),
    "f64[:] array": ("one_array(a)", "many_array(a)"),
}


def _measure(lib: Any, number: int, repeat: int) -> dict[str, dict[str, float]]:
    import numpy as np

    names = {n: lib[n] for n in ("one", "many", "one_array", "many_array")}
    names["a"] = np.ones(4)
    table = {}
    for row, calls in CALLS.items():
        timers = [timeit.Timer(c, globals=names) for c in calls]
        best = [float("inf")] * len(timers)
        for _ in range(repeat):
            for i, timer in enumerate(timers):
                best[i] = min(best[i], timer.timeit(number) / number * 1e9)
        table[row] = {"one signature": best[0], "dispatched": best[1], "extra": best[1] - best[0]}
    return table


def main(argv: list[str] | None = None) -> int:
    import gradc
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "dispatch.py"
        source.write_text(SOURCE)
        build_artifact(source, Path(tmp) / "dispatch.gradc", CompilerOptions())
        table = _measure(gradc.load(Path(tmp) / "dispatch.gradc"), args.number, args.repeat)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print(f"{'ns per call':<30}{'one signature':>15}{'dispatched':>12}{'extra':>8}")
    for row, r in table.items():
        print(f"{row:<30}{r['one signature']:>15.1f}{r['dispatched']:>12.1f}{r['extra']:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
