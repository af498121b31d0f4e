"""The critical path of one ``gradc build -j N`` (issue #13): where its wall time goes.

    python benchmarks/trace_parallel_build.py              # 32 exports, -j 2
    python benchmarks/trace_parallel_build.py --exports 64 --jobs 4
    python benchmarks/trace_parallel_build.py --rounds 5   # -j 1 vs -j 2, CPU medians

Builds the module of ``bench_parallel_build.py`` cold, in a fresh process, with time stamps
(``time.perf_counter``, shared by the processes, and each process's CPU seconds) taken
around the build's stages, the workers' warm-up, each task and the write, and prints:
the build process's serial part (start to the tasks going out, and after the last task
comes back), when each process (the build process runs tasks too) was ready, its tasks'
total, and the critical path in CPU seconds: the serial parts plus the parallel part's CPU
shared evenly by the processes, the wall time an idle machine would take (waits for I/O
and the last task's tail aside). CPU
seconds say more than wall on a loaded machine; ``--rounds`` compares the critical path
with a ``-j 1`` build's CPU time, interleaved. A benchmark, not a test: it asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
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
from gradc.__main__ import run
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
    run()  # the `gradc` command's entry (the cyclic collector off for a build)
except SystemExit as exc:
    if exc.code:
        raise
rec("end")
"""


def traced_build(exports: int, jobs: int) -> list[list[str]]:
    """The trace lines (pid, event, wall, CPU) of one cold ``gradc build -j jobs`` of a
    module of ``exports`` exports, in a fresh process (the runtime object cache warm)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GRADC_CACHE_DIR"] = str(Path(tmp) / "cache")  # the runtime's, warm:
        (Path(tmp) / "warm.py").write_text(module_source(1))
        cmd = [sys.executable, "-c", _TRACED]
        warm = [*cmd, os.devnull, "build", str(Path(tmp) / "warm.py")]
        subprocess.run(warm, check=True, capture_output=True)
        (Path(tmp) / "many.py").write_text(module_source(exports))
        log = Path(tmp) / "trace.log"
        build = ["build", str(Path(tmp) / "many.py"), "-o", str(Path(tmp) / "out")]
        subprocess.run([*cmd, str(log), *build, "-j", str(jobs)], check=True, capture_output=True)
        return [line.split() for line in log.read_text().splitlines()]


def critical_path(lines: list[list[str]], jobs: int, show: bool) -> float:
    """The CPU seconds on the critical path of the traced ``-j jobs`` build ``lines``
    (the build process's serial parts, plus the CPU of the parallel part, the tasks and
    this process's work beside them, divided by ``jobs``: the processes take tasks as
    they finish one): its wall time on an idle machine of ``jobs`` cores, less waits for
    I/O and the last task's tail. Prints the details with ``show``."""
    parent = lines[0][0]
    events: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for pid, event, wall, cpu in lines:
        events[pid].append((event, float(wall), float(cpu)))
    mine = {e: (w, c) for e, w, c in events[parent]}
    # -j N lowers and emits in tasks of the lower stage (before: the emit stage's, with
    # the build process waiting); -j 1 lowers, then emits, serially
    out = mine.get("share<", mine.get("stage:lower>", (0.0, 0.0)))
    back = mine.get("stage:emit<", mine.get("stage:lower<", out))
    end = mine["end"]
    parallel = [back[1] - out[1]]  # this process's CPU while the tasks ran (its own included)
    rows = []
    for pid, got in events.items():
        tasks = [(w, c) for e, w, c in got if e in ("task>", "task<")]
        cpu = sum(tasks[i + 1][1] - tasks[i][1] for i in range(0, len(tasks), 2))
        if pid != parent and tasks:  # its tasks and its work between them (results out)
            parallel.append(tasks[-1][1] - tasks[0][1])
        ready = next((w for e, w, _ in got if e == "warm<"), None)
        rows.append((pid, ready, tasks, cpu))
    # the processes take tasks as they finish one: on ``jobs`` cores of their own they
    # would share the work evenly (to a task), whatever share other load here left them
    path = out[1] + sum(parallel) / jobs + (end[1] - back[1])
    if not show:
        return path
    for event, (wall, cpu) in mine.items():
        if event.startswith("stage:") and event.endswith(">"):
            stop = mine[event[:-1] + "<"]
            print(f"  {event[6:-1]:8s} wall {stop[0] - wall:6.3f} s  CPU {stop[1] - cpu:6.3f} s")
    print(f"build process: serial until the tasks go out {out[0]:.3f} s wall, {out[1]:.3f} s "
          f"CPU; after they come back {end[0] - back[0]:.3f} s wall, "
          f"{end[1] - back[1]:.3f} s CPU; total CPU {end[1]:.3f} s")  # fmt: skip
    for pid, ready, tasks, cpu in rows:
        who = "build process" if pid == parent else f"worker {pid}"
        first = tasks[0][0] if tasks else float("nan")
        last = tasks[-1][0] if tasks else float("nan")
        print(f"{who}: ready at {ready if ready is None else round(ready, 3)} s, "
              f"first task at {first:.3f} s, {len(tasks) // 2} tasks, {cpu:.3f} s CPU, "
              f"last ends at {last:.3f} s")  # fmt: skip
    print(f"critical path {path:.3f} s CPU (serial parts + the tasks' CPU shared evenly)")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exports", type=int, default=32)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--rounds", type=int, default=1, help="with more than 1: -j 1 and -j N interleaved, "
        "the medians of the -j 1 CPU and of the critical path, and their ratio"
    )  # fmt: skip
    args = parser.parse_args()
    load = os.getloadavg()[0]
    if args.rounds == 1:
        critical_path(traced_build(args.exports, args.jobs), args.jobs, show=True)
    else:
        one, many = [], []
        for _ in range(args.rounds):
            one.append(critical_path(traced_build(args.exports, 1), 1, show=False))
            many.append(critical_path(traced_build(args.exports, args.jobs), args.jobs, False))
        a, b = statistics.median(one), statistics.median(many)
        print(f"-j 1 CPU {' '.join(f'{x:.3f}' for x in one)} s; -j {args.jobs} critical "
              f"path {' '.join(f'{x:.3f}' for x in many)} s; ratio of the medians "
              f"{a / b:.2f}x, of the minima (the runs other load disturbed least) "
              f"{min(one) / min(many):.2f}x: an idle machine's wall ratio, I/O waits "
              f"aside")  # fmt: skip
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
