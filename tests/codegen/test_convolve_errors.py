"""``np.convolve``'s ValueErrors for empty operands and ``np.column_stack``'s for unequal
lengths: NumPy's type and message (the differential corpora
tests/codegen/corpus_real/convolutions.py and grids_close.py compare types only)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOURCE = """
import numpy as np
import gradc
from gradc import f64

@gradc.export
def conv(a: f64[:], v: f64[:]) -> f64[:]:
    return np.convolve(a, v, "same")

@gradc.export
def columns(a: f64[:], b: f64[:]) -> f64[:, :]:
    return np.column_stack((a, b))
"""


def test_empty_operands(tmp_path: Path, compile_module: Callable[[Path], Any]) -> None:
    path = tmp_path / "conv_empty.py"
    path.write_text(SOURCE, encoding="utf-8")
    lib = compile_module(path)
    one, empty = np.ones(2), np.ones(0)
    for a, v in ((empty, empty), (one, empty), (empty, one)):
        with pytest.raises(ValueError) as expected:
            np.convolve(a, v, "same")
        with pytest.raises(ValueError, match=f"^{expected.value}"):
            lib.conv(a, v)
    assert np.array_equal(lib.conv(one, np.array([3.0])), np.convolve(one, [3.0], "same"))


def test_column_stack_lengths(tmp_path: Path, compile_module: Callable[[Path], Any]) -> None:
    path = tmp_path / "conv_empty.py"
    path.write_text(SOURCE, encoding="utf-8")
    lib = compile_module(path)
    for a, b in ((np.ones(2), np.ones(3)), (np.ones(0), np.ones(1))):
        with pytest.raises(ValueError) as expected:
            np.column_stack((a, b))
        with pytest.raises(ValueError, match=f"^{expected.value}"):
            lib.columns(a, b)
