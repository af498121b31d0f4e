"""The runtime's kept block (compiler/codegen/runtime.py): a freed block of 4 MiB to
256 MiB is handed to the next allocation it fits (capacity in [request, 2 * request]), so
a function returning a big array, called in a loop, reuses its last result's memory; one
that does not fit is freed and a fresh block allocated. Values, the ``live`` and
``allocated`` counters and NumPy's view of the result are as for a fresh block.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

SOURCE = """\
import gradc
from gradc import f64


@gradc.export
def scaled(x: f64[:], s: f64) -> f64[:]:
    return x * s
"""

BIG = 1 << 20  # f64 elements: 8 MiB, above the 4 MiB threshold


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("blocks") / "blocks_module.py"
    path.write_text(SOURCE)
    return compile_module(path)


def test_a_freed_big_result_is_reused_by_the_next_call(lib: Any) -> None:
    import gradc

    x = np.arange(BIG, dtype=np.float64)
    first = lib.scaled(x, 2.0)
    address = first.ctypes.data
    del first
    gc.collect()
    before = gradc.runtime_stats()
    second = lib.scaled(x, 3.0)
    after = gradc.runtime_stats()
    assert second.ctypes.data == address
    assert after["allocated"] == before["allocated"] + 1
    assert after["live"] == before["live"] + 1
    np.testing.assert_array_equal(second, x * 3.0)


def test_a_kept_block_that_does_not_fit_is_not_reused(lib: Any) -> None:
    x = np.arange(BIG, dtype=np.float64)
    first = lib.scaled(x, 2.0)
    address = first.ctypes.data
    del first
    gc.collect()
    bigger = np.arange(3 * BIG, dtype=np.float64)  # more than the kept capacity
    y = lib.scaled(bigger, 0.5)
    assert y.ctypes.data != address
    np.testing.assert_array_equal(y, bigger * 0.5)
    kept = y.ctypes.data
    del y
    gc.collect()
    small = np.arange(BIG // 4, dtype=np.float64)  # under 4 MiB: the kept block stays
    z = lib.scaled(small, 4.0)
    np.testing.assert_array_equal(z, small * 4.0)
    del z
    gc.collect()
    # the kept block is now the 24 MiB one: a 12 MiB request reuses it
    mid = np.arange(3 * BIG // 2, dtype=np.float64)
    w = lib.scaled(mid, 1.5)
    assert w.ctypes.data == kept
    np.testing.assert_array_equal(w, mid * 1.5)


def test_results_alive_at_once_never_share_a_block(lib: Any) -> None:
    x = np.arange(BIG, dtype=np.float64)
    results = [lib.scaled(x, float(k)) for k in range(4)]
    assert len({r.ctypes.data for r in results}) == 4
    for k, r in enumerate(results):
        np.testing.assert_array_equal(r, x * float(k))
