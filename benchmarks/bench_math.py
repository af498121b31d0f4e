"""NumPy's math functions on whole arrays, gradc vs NumPy (and Numba's ``@njit`` when
installed): ``np.exp``/``np.log``/``np.sin`` of float32 and float64 arrays and
``np.sum(np.log(x))``, 10^6 elements (issue 11).

    python benchmarks/bench_math.py             # 10^6 elements, 9 rounds
    python benchmarks/bench_math.py --quick     # 10^4, a smoke test

gradc computes a float32 function in float64 and rounds (compiler/ir/numpy_math.py);
``exp`` and ``log`` are inline (compiler/codegen/vexp.py, vlog.py), so their loops
vectorise, ``sin`` is a libm call per element. Each row: the median CPU time per call
over interleaved rounds and the median of the per-round ratios NumPy / gradc (> 1:
gradc faster). The load average is printed.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import Any

import numpy as np
from bench_elementwise import build
from timing import interleaved_rounds, load_note, numba_njit

CASES = [
    ("exp", "f32"), ("exp", "f64"), ("log", "f32"), ("log", "f64"),
    ("sin", "f32"), ("sin", "f64"), ("sumlog", "f64"), ("sumlog", "f32"),
]  # fmt: skip


def _source() -> str:
    lines = ["import numpy as np", "import gradc", "from gradc import f32, f64", ""]
    for fn, t in CASES:
        result, body = (t, "np.sum(np.log(x))") if fn == "sumlog" else (f"{t}[:]", f"np.{fn}(x)")
        lines += [
            "",
            "@gradc.export",
            f"def {fn}_{t}(x: {t}[:]) -> {result}:",
            f"    return {body}",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one row per case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 elements")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds")
    args = parser.parse_args(argv)
    n = 10**4 if args.quick else 10**6
    njit = numba_njit()
    print(f"n = {n}; {load_note()}" + ("" if njit else "; Numba is not installed"))
    print(f"{'case':>12} {'gradc ms':>9} {'numpy ms':>9} {'numba ms':>9} {'np/gradc':>9}")
    source = _source()
    plain_module: dict[str, Any] = {}  # the same source, run by NumPy
    exec(source.replace("@gradc.export", ""), plain_module)
    for fn, t in CASES:
        compiled = build(source, f"{fn}_{t}", None)
        dtype = np.float32 if t == "f32" else np.float64
        x = np.random.default_rng(0).uniform(0.01, 50.0, n).astype(dtype)

        plain = plain_module[f"{fn}_{t}"]
        fns = {"gradc": partial(compiled, x), "numpy": partial(plain, x)}
        if njit is not None:
            fns["numba"] = partial(njit(plain), x)
        for f in fns.values():
            f()
        times, ratios = interleaved_rounds(fns, args.repeat)
        nb = f"{times['numba'] * 1e3:>9.3f}" if "numba" in times else f"{'-':>9}"
        print(
            f"{fn + '_' + t:>12} {times['gradc'] * 1e3:>9.3f} {times['numpy'] * 1e3:>9.3f} "
            f"{nb} {ratios['numpy']:>9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
