"""The reference interpreter runs a kernel's grid loop too (the typed IR of the front
end and inference, before any pass), and agrees with the CPU build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir.interp import run_function

CORPUS = Path(__file__).parent / "kernels_corpus.py"


@pytest.fixture(scope="module")
def module() -> Any:
    return infer_module(scan_module(SourceFile.read(CORPUS), "kernels_corpus"))


def test_interpreter_runs_grid_loops(module: Any, compile_module: Any) -> None:
    lib = compile_module(CORPUS)
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-2, 2, 37), rng.uniform(-2, 2, 37)
    ours, theirs = np.zeros(37), np.zeros(37)
    run_function(module, "saxpy", [3, 1, 1, 16, 1, 1, 1.5, x, y, ours])
    lib.saxpy(3, 1, 1, 16, 1, 1, 1.5, x, y, theirs)
    assert np.array_equal(ours, theirs)
    xi = rng.integers(0, 4, 37)
    c1, c2 = np.zeros(4, np.int64), np.zeros(4, np.int64)
    run_function(module, "histogram", [5, 1, 1, 8, 1, 1, xi, c1])
    lib.histogram(5, 1, 1, 8, 1, 1, xi, c2)
    assert np.array_equal(c1, c2) and np.array_equal(c1, np.bincount(xi, minlength=4))
    x5, tmp = np.arange(5.0), np.zeros(5)
    run_function(module, "block_reverse", [1, 1, 1, 5, 1, 1, x5, tmp])
    assert np.array_equal(x5, np.arange(5.0)[::-1])
    with pytest.raises(RuntimeError, match="more than one thread per block"):
        run_function(module, "barrier_tuple", [1, 1, 1, 2, 1, 1, x, y])
    sums, theirs_sums = np.zeros(5), np.zeros(5)  # shared memory: per block, per thread
    run_function(module, "block_sum_shared", [5, 1, 1, 8, 1, 1, x, sums])
    lib.block_sum_shared(5, 1, 1, 8, 1, 1, x, theirs_sums)
    assert np.array_equal(sums, theirs_sums)
    scratch, theirs_scratch = np.zeros(37), np.zeros(37)
    run_function(module, "shared_scratch", [2, 1, 1, 32, 1, 1, x, scratch])
    lib.shared_scratch(2, 1, 1, 32, 1, 1, x, theirs_scratch)
    assert np.array_equal(scratch, theirs_scratch)
    with pytest.raises(ValueError, match="grid and block dimensions must be >= 1"):
        run_function(module, "saxpy", [0, 1, 1, 16, 1, 1, 1.5, x, y, ours])
