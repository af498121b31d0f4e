"""Many modules: sequential vs a Dask LocalCluster (``gradc build-all --executor local:N``).

Writes N generated modules (three exports each, one with a gradient) into a temporary
folder, builds them sequentially and on ``local:W``, checks that the artifacts are
byte-identical, and prints both times, the cluster's start-up and the per-task overhead
(an empty task's round trip through the cluster)::

    python benchmarks/build_all.py [N=40] [W=2]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from gradc.artifacts.store import write_artifact
from gradc.cli.distributed import ModuleTask, build_all, toolchain
from gradc.compiler.options import CompilerOptions

MODULE = """\
import gradc
from gradc import f64, i64


@gradc.export
def poly{k}(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s = s * x + {k}.0 + i
    return s


@gradc.export
def energy{k}(x: f64, y: f64) -> f64:
    return (x - {k}.0) * (x - {k}.0) + 3.0 * y * y * x


d_energy{k} = gradc.grad(energy{k}, wrt="x")
"""


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def main(n: int = 40, workers: int = 2) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "pkg"
        src.mkdir()
        for k in range(n):
            (src / f"m{k:02d}.py").write_text(MODULE.format(k=k))
        mine = toolchain()
        outs = {}
        for executor in ("sequential", f"local:{workers}"):
            out = Path(tmp) / executor.replace(":", "-")
            tasks = [
                ModuleTask(p, out / f"{p.stem}.gradc", CompilerOptions(), mine)
                for p in sorted(src.glob("*.py"))
            ]
            wall = time.perf_counter()
            results, times = build_all(tasks, executor)
            for t, r in zip(tasks, results, strict=True):
                write_artifact(t.output, r.build)
            wall = time.perf_counter() - wall
            outs[executor] = files(out)
            print(
                f"{executor:<12} {n} modules: {wall:6.2f} s in all "
                f"(start-up {times['start']:.2f} s, tasks {times['build']:.2f} s)"
            )
        assert outs["sequential"] == outs[f"local:{workers}"], "artifacts differ"
        print("artifacts byte-identical")
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            client.gather(client.map(abs, range(10), pure=False))  # warm up
            t = time.perf_counter()
            client.gather(client.map(abs, range(-200, 0), pure=False))
            print(f"per-task overhead: {(time.perf_counter() - t) / 200 * 1e3:.2f} ms")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
