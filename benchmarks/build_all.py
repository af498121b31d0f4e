"""Many modules: ``gradc build DIR`` (sequential, this process) vs ``gradc build DIR
--executor local:W`` (a Dask LocalCluster: front end per module, then one task per
(export, CPU variant) and runtime).

Writes N generated modules (``tests/distributed/package.py``: per export group a scalar
energy with a helper, a loop over an array, a least-squares loss, and the gradients of
the first and last: 5 exports) of each size in SIZES export groups into a temporary
folder, builds them both ways, checks that the artifacts are byte-identical and prints
both times, the cluster's start-up, the number of tasks and the per-task overhead (an
empty task's round trip through a warm cluster)::

    python benchmarks/build_all.py [N=40] [W=2] [SIZES=1,4]
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.distributed.package

from gradc.cli.main import cli
from tests.distributed.package import files, write_package


def _build(pkg: Path, out: Path, *args: str) -> tuple[float, str]:
    begin = time.perf_counter()
    r = CliRunner().invoke(cli, ["build", str(pkg), "-o", str(out), *args])
    seconds = time.perf_counter() - begin
    if r.exit_code != 0:
        raise SystemExit(r.output)
    return seconds, r.output


def task_overhead(workers: int, n: int = 400) -> float:
    """Seconds per empty task through a warm LocalCluster of ``workers`` processes."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        client.gather(client.map(abs, range(20), pure=False))  # warm up
        begin = time.perf_counter()
        client.gather(client.map(abs, range(-n, 0), pure=False))
        return (time.perf_counter() - begin) / n


def main(n: int = 40, workers: int = 2, sizes: tuple[int, ...] = (1, 4)) -> None:
    overhead = task_overhead(workers)
    print(f"per-task overhead (empty task, {workers} workers): {overhead * 1e3:.2f} ms")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            pkg = write_package(Path(tmp), n, size)
            seq, _ = _build(pkg, Path(tmp) / "seq")
            dist, text = _build(
                pkg, Path(tmp) / "dist", "--executor", f"local:{workers}", "--timings"
            )
            same = files(Path(tmp) / "seq") == files(Path(tmp) / "dist")
            if not same:
                raise SystemExit("artifacts differ")
            tasks = int(re.search(r"(\d+) objects compiled", text).group(1)) + n  # type: ignore[union-attr]
            start = float(re.search(r"start\s+([\d.]+) ms", text).group(1)) / 1e3  # type: ignore[union-attr]
            print(
                f"{n} modules x {5 * size} exports: sequential {seq:6.2f} s, "
                f"local:{workers} {dist:6.2f} s (cluster start {start:.2f} s, {tasks} tasks, "
                f"{seq / n * 1e3:.0f} ms per module sequentially), ratio {seq / dist:.2f}; "
                "artifacts byte-identical"
            )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        int(args[0]) if args else 40,
        int(args[1]) if len(args) > 1 else 2,
        tuple(int(s) for s in args[2].split(",")) if len(args) > 2 else (1, 4),
    )
