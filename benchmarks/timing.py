"""The timing loop the benchmarks share (imported as ``timing``: a benchmark runs as
``python benchmarks/bench_x.py``, so this folder is on ``sys.path``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def time_runs(fn: Callable[[], Any], repeat: int, min_run: float) -> tuple[list[float], int]:
    """Seconds per call of ``fn()`` (already warmed up) in each of ``repeat`` runs, and the
    calls per run: as many as take ``min_run`` seconds (at most 2**20)."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_run or number >= 1 << 20:
            break
        number = max(number * 2, int(number * min_run / max(elapsed, 1e-9)))
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return runs, number


def median_time(fn: Callable[[], Any], repeat: int, min_run: float) -> float:
    """Median seconds per call of ``fn()`` over :func:`time_runs`."""
    return statistics.median(time_runs(fn, repeat, min_run)[0])
