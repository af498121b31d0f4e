"""The modules of benchmarks/bench_compile_time.py build, and their gradients are right
(finite differences of the plain Python functions): the benchmark times real work.
Compile time itself is the benchmark's business, never asserted here."""

from __future__ import annotations

import importlib.util
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ad.corpus import _harness as H

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_compile_time.py"


def _bench() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("bench_compile_time", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("kind", "size", "args", "wrt"),
    [
        ("ifs", 6, (0.537, 1.3), [0, 1]),
        ("ifs", 6, (-0.7, 0.4), [0, 1]),
        ("mixed", 40, (0.537, 1.3, np.array([0.5, -1.25, 2.0]), 3), [0, 1, 2]),
        ("mixed", 40, (-0.21, 0.8, np.array([1.5, 0.25, -0.5]), 0), [0, 1, 2]),
    ],
)
def test_generated_module_gradient_matches_finite_differences(
    tmp_path: Path,
    compile_module: Callable[[Path], Any],
    kind: str,
    size: int,
    args: tuple[Any, ...],
    wrt: list[int],
) -> None:
    bench = _bench()
    source = bench.ifs_source(size) if kind == "ifs" else bench.mixed_source(size)
    if kind == "mixed":
        body = source.split("-> f64:\n", 1)[1].split("\n    return s", 1)[0]
        assert abs(len(body.splitlines()) - size) <= 4  # about ``size`` lines
    path = tmp_path / f"{kind}{size}.py"
    path.write_text(source)
    lib = compile_module(path)
    plain = H.load_plain(path).f
    value = plain(*H.copy_args(args))
    assert lib.f(*H.copy_args(args)) == pytest.approx(value, rel=1e-12)
    grad = lib.d_f(*H.copy_args(args))
    names = ["x", "y", "a"][: len(wrt)]
    fd = H.fd_gradient(plain, args, wrt)
    H.assert_grad_matches_fd(f"{kind} {size}{args!r}", list(grad), fd, names, value)


def test_build_timings_reports_every_phase() -> None:
    timings = _bench().build_timings(_bench().ifs_source(2))
    assert {"parse", "infer", "ad", "passes", "lower", "emit", "total"} <= set(timings)
    assert all(t >= 0.0 for t in timings.values())
