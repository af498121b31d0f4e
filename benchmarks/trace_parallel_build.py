"""The critical path of one ``gradc build -j N`` (issue #13): where its wall time goes.

    python benchmarks/trace_parallel_build.py              # 32 exports, -j 2
    python benchmarks/trace_parallel_build.py --exports 64 --jobs 4

Builds the module of ``bench_parallel_build.py`` cold, in a fresh process, with time stamps
(``time.perf_counter``, shared by the processes, and each process's CPU seconds) taken
around the build's stages, the workers' warm-up, each task and the write, and prints:
the build process's serial part (start to the tasks going out, and after the last task
comes back), when each worker was ready, its tasks' total, and the tail (the last worker
finishing after the first). CPU seconds say more than wall on a loaded machine. A
benchmark, not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_parallel_build import module_source

# gradc's CLI with time stamps: "pid event wall cpu" lines appended to the file argv[1]
_TRACED = """
import os, sys, time
T0, LOG = time.perf_counter(), sys.argv.pop(1)
def rec(event):
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} {event} {time.perf_counter() - T0} {time.process_time()}\\n")
from gradc.cli.main import cli
import gradc.compiler.backend as backend, gradc.compiler.driver as driver
import gradc.compiler.warm_pool as warm_pool
rec("imported")
def around(owner, name, label):
    real = getattr(owner, name, None)
    if real is None:  # an older gradc (no warm workers)
        return
    def traced(*args, **kwargs):
        rec(label + ">"); result = real(*args, **kwargs); rec(label + "<"); return result
    traced.__name__ = traced.__qualname__ = f"traced_{label}"  # pickled by this name
    globals()[traced.__name__] = traced
    setattr(owner, name, traced)
real_run_stages = driver.run_stages
def run_stages(stages, state):
    for stage in stages:
        rec(f"stage:{stage.name}>"); real_run_stages((stage,), state); rec(f"stage:{stage.name}<")
driver.run_stages = run_stages
around(warm_pool, "warm_up", "warm")
import gradc.compiler.emit_pool as emit_pool
around(backend if hasattr(backend, "lower_and_emit") else emit_pool,
       "lower_and_emit" if hasattr(backend, "lower_and_emit") else "_run_forked", "task")
around(backend, "_shared_with_pool", "share")
around(driver, "build_module", "build")
try:
    cli(sys.argv[1:], prog_name="gradc")
except SystemExit as exc:
    if exc.code:
        raise
rec("end")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exports", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GRADC_CACHE_DIR"] = str(Path(tmp) / "cache")  # the runtime's, warm:
        (Path(tmp) / "warm.py").write_text(module_source(1))
        cmd = [sys.executable, "-c", _TRACED]
        subprocess.run([*cmd, os.devnull, "build", str(Path(tmp) / "warm.py")], check=True)
        (Path(tmp) / "many.py").write_text(module_source(args.exports))
        log = Path(tmp) / "trace.log"
        build = ["build", str(Path(tmp) / "many.py"), "-o", str(Path(tmp) / "out")]
        subprocess.run([*cmd, str(log), *build, "-j", str(args.jobs)], check=True)
        lines = [line.split() for line in log.read_text().splitlines()]
    parent = lines[0][0]
    events: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for pid, event, wall, cpu in lines:
        events[pid].append((event, float(wall), float(cpu)))
    mine = {e: (w, c) for e, w, c in events.pop(parent)}
    for event, (wall, cpu) in mine.items():
        if event.startswith("stage:") and event.endswith(">"):
            end = mine[event[:-1] + "<"]
            print(f"  {event[6:-1]:8s} wall {end[0] - wall:6.3f} s  CPU {end[1] - cpu:6.3f} s")
    out = mine.get("share<", mine.get("stage:emit>", (0.0, 0.0)))
    back = mine.get("stage:emit<", out)
    print(f"build process: serial until the tasks go out {out[0]:.3f} s wall, {out[1]:.3f} s "
          f"CPU; after they come back {mine['end'][0] - back[0]:.3f} s wall, "
          f"{mine['end'][1] - back[1]:.3f} s CPU; total CPU {mine['end'][1]:.3f} s")  # fmt: skip
    ends = []
    for pid, rows in events.items():
        ready = next((w for e, w, _ in rows if e == "warm<"), None)
        tasks = [(w, c) for e, w, c in rows if e in ("task>", "task<")]
        cpu = sum(tasks[i + 1][1] - tasks[i][1] for i in range(0, len(tasks), 2))
        ends.append(tasks[-1][0] if tasks else 0.0)
        first = tasks[0][0] if tasks else float("nan")
        print(f"worker {pid}: ready at {ready if ready is None else round(ready, 3)} s, "
              f"first task at {first:.3f} s, {len(tasks) // 2} tasks, {cpu:.3f} s CPU, "
              f"last ends at {ends[-1]:.3f} s")  # fmt: skip
    if ends:
        print(f"tail (last worker done after the first): {max(ends) - min(ends):.3f} s; "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
