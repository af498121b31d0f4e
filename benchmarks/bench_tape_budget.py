"""``--tape-budget``: peak memory and time of a long loop's gradient, segmented or not.

One source (``SOURCE``): a scalar recurrence of ``--n`` steps (default 10**7), built
twice like ``gradc build`` (``compiler.driver.build_artifact``): with ``--tape-budget 0``
(every iteration taped) and with ``--tape-budget 33554432`` (the loop runs in checkpointed
segments of about sqrt(n) iterations; docs/ad.md "Long loops"). Each measurement runs
in a fresh Python process: peak RSS (``VmHWM`` of ``/proc/self/status``; ``getrusage``'s
``ru_maxrss`` would keep the forking process's) of a process
that loads the artifact and calls the primal once, or the gradient once; then, in one
process per build, the times of the primal and the gradient (median of ``--repeat``
runs). Both gradients must agree to 1e-9 relative (the segments add up the adjoint of
a loop-invariant input in another order; a difference is reported, not timed).

    python benchmarks/bench_tape_budget.py [--n 10000000] [--quick]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = """\
import math

import gradc
from gradc import f64, i64


@gradc.export
def run(x: f64, c: f64, n: i64) -> f64:
    s = 0.0
    for _ in range(n):
        a = math.sin(x * c) + 0.5 * x
        x = a - 0.01 * math.tanh(a * a)
        s = s + x * x
    return s + x


d_run = gradc.grad(run, wrt=("x", "c"))
"""

#: argv = artifact, "primal" | "gradient", n: prints the result and the peak RSS (bytes)
#: (Linux) VmHWM, not getrusage's ru_maxrss, which keeps the forking process's peak
PEAK = """\
import json, sys
import gradc
lib = gradc.load(sys.argv[1])
fn = lib.run if sys.argv[2] == "primal" else lib.d_run
result = fn(0.5, 1.1, int(sys.argv[3]))
with open("/proc/self/status") as f:
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) * 1024
print(json.dumps({"result": repr(result), "peak": peak}))
"""

#: argv = artifact, n, repeat: prints the median times of the primal and the gradient
TIMES = """\
import json, statistics, sys, time
import gradc
lib = gradc.load(sys.argv[1])
n, repeat = int(sys.argv[2]), int(sys.argv[3])
def median_time(fn):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(0.5, 1.1, n)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)
print(json.dumps({"primal_s": median_time(lib.run), "gradient_s": median_time(lib.d_run)}))
"""


def build(workdir: Path, budget: int) -> Path:
    """The artifact of ``SOURCE`` built with ``budget``."""
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    workdir.mkdir()
    source = workdir / "bench_tape_budget_kernels.py"
    source.write_text(SOURCE)
    out = workdir / "bench_tape_budget_kernels.gradc"
    build_artifact(source, out, CompilerOptions(tape_budget=budget))
    return out


def child(script: str, *args: str) -> dict[str, object]:
    """Run ``script`` in a fresh Python process; its JSON output."""
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the measuring process failed:\n{proc.stderr}")
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**7)
    p.add_argument("--quick", action="store_true", help="n = 10**6")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    n = 10**6 if args.quick else args.n
    rows: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, budget in (("taped", 0), ("segmented", 32 << 20)):
            out = build(Path(tmp) / label, budget)
            primal = child(PEAK, str(out), "primal", str(n))
            gradient = child(PEAK, str(out), "gradient", str(n))
            times = child(TIMES, str(out), str(n), str(args.repeat))
            rows[label] = {"primal": primal, "gradient": gradient, **times}
    taped, seg = rows["taped"], rows["segmented"]
    a = ast.literal_eval(taped["gradient"]["result"])  # type: ignore[index]
    b = ast.literal_eval(seg["gradient"]["result"])  # type: ignore[index]
    # segments sum the adjoint of a loop-invariant input in another order: rounding only
    if not all(math.isclose(u, v, rel_tol=1e-9) for u, v in zip(a, b, strict=True)):
        print(f"gradients differ: {a} vs {b}")
        return 1
    print(f"n = {n} steps, python {sys.version.split()[0]}")
    print(
        f"{'build':<10} {'primal peak MiB':>16} {'grad peak MiB':>14} {'peak ratio':>11} "
        f"{'primal s':>9} {'grad s':>8} {'grad/primal':>12}"
    )
    for label, r in rows.items():
        pp = r["primal"]["peak"] / 2**20  # type: ignore[index]
        gp = r["gradient"]["peak"] / 2**20  # type: ignore[index]
        ps, gs = float(r["primal_s"]), float(r["gradient_s"])  # type: ignore[arg-type]
        print(
            f"{label:<10} {pp:>16.1f} {gp:>14.1f} {gp / pp:>11.2f} "
            f"{ps:>9.4f} {gs:>8.4f} {gs / ps:>12.2f}"
        )
    ratio = float(seg["gradient_s"]) / float(taped["gradient_s"])  # type: ignore[arg-type]
    print(f"gradient time segmented/taped: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
