"""``np.convolve``'s ValueErrors for empty operands: NumPy's type and message (the
differential corpus tests/codegen/corpus_real/convolutions.py compares types only)."""

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
