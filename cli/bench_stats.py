"""``gradc bench``'s figures: a report row, and the statistics of in-process timings.

In-process figures are ``pyperf`` benchmarks of per-call times: the loop count is
calibrated like ``timeit``'s ``autorange`` to a budget in seconds, then a few timed loops
are summarised by their median and standard deviation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Row:
    """One line of the report (times in seconds per call or per process; None where not
    measured).

    ``baseline`` is plain CPython; ``peers`` maps a peer name (``numba``, ``jax``) to its
    time; ``baseline_plain`` is True when the baseline was timed on a plain Python
    function (gradc inert). Run rows name their ``export``; a derivative's run row names
    its primal in ``derivative_of`` and gives ``per_primal`` = derivative ÷ primal time.
    """

    kind: str  # "compile", "warm", "call", "run"
    what: str
    gradc: float | None
    baseline: float | None
    baseline_what: str
    note: str = ""
    stdev: float | None = None
    baseline_plain: bool = False
    export: str = ""
    peers: dict[str, float | None] = field(default_factory=dict)
    derivative_of: str = ""
    per_primal: float | None = None

    @property
    def ratio(self) -> float | None:
        """gradc ÷ CPython (below 1: gradc is faster); None if either is missing."""
        if self.gradc is None or not self.baseline:
            return None
        return self.gradc / self.baseline


def short_error(exc: BaseException, limit: int = 120) -> str:
    """``TypeName: first line of the message``, cut to ``limit`` characters (never whole
    array reprs in a table cell)."""
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    if len(message) > limit:
        message = message[: limit - 1] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


@dataclass(frozen=True)
class Stats:
    """Median and standard deviation (seconds) of a set of timings, from ``pyperf``."""

    median: float
    stdev: float | None


def stats(values: Sequence[float], name: str) -> Stats:
    """``pyperf``'s median and standard deviation of ``values`` (seconds, all > 0)."""
    import pyperf

    values = [max(v, 1e-12) for v in values]  # pyperf refuses zero
    run = pyperf.Run(values, metadata={"name": name, "unit": "second"}, collect_metadata=False)
    b = pyperf.Benchmark([run])
    return Stats(b.median(), b.stdev() if len(values) > 1 else None)


def per_call_stats(
    fn: Callable[..., Any], args: Sequence[Any], budget: float, samples: int = 5
) -> Stats:
    """Seconds per call of ``fn(*args)``: ``samples`` timed loops of a loop count
    calibrated to take ``budget`` seconds, summarised by :func:`stats`.

    The loop spells the arguments out (``fn(a0, a1)``) so that it adds no unpacking to
    what is measured.
    """
    import timeit

    names = [f"a{i}" for i in range(len(args))]
    namespace: dict[str, Any] = {"fn": fn, **dict(zip(names, args))}
    timer = timeit.Timer(f"fn({', '.join(names)})", globals=namespace)
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget or number >= 10**8:
            break
        number = max(number * 2, int(number * budget / max(elapsed, 1e-9) * 1.1))
    values = [t / number for t in timer.repeat(max(2, samples), number)]
    return stats(values, getattr(fn, "__name__", "call"))


def per_call(fn: Callable[..., Any], args: Sequence[Any], budget: float) -> float:
    """Median seconds per call of ``fn(*args)`` (:func:`per_call_stats`)."""
    return per_call_stats(fn, args, budget).median
