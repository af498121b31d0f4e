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


def interleaved_rounds(
    fns: dict[str, Callable[[], Any]], repeat: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Time each of ``fns`` (already warmed up) once per round, one after another, for
    ``repeat`` rounds (CPU time of this process, so that other processes on a shared
    machine count less). Returns the median seconds per call of each, and for each name
    the median over rounds of its time / the first name's time in that round (a load
    change during a round moves all of that round's times alike, so the ratio less)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.process_time()
            fn()
            times[name].append(time.process_time() - start)
    first = next(iter(fns))
    ratios = {
        name: statistics.median(t / max(f, 1e-12) for t, f in zip(ts, times[first], strict=True))
        for name, ts in times.items()
    }
    return {name: statistics.median(ts) for name, ts in times.items()}, ratios


def numba_njit() -> Callable[..., Any] | None:
    """``numba.njit`` when Numba is installed, else None."""
    try:
        import numba
    except ImportError:
        return None
    return numba.njit  # type: ignore[no-any-return]


def load_note() -> str:
    """``load average 1.23 (2 cores)``: what the machine ran besides the benchmark."""
    import os

    return f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)"
