"""NumPy's functions on float32 scalars that gradc computes exactly (in f64, rounded:
sqrt is correctly rounded, the others exact; the transcendental ones, within an ulp:
tests/codegen/test_float32_math.py), against NumPy's float32 loops on the same float32
inputs, bit for bit. The differential corpus passes Python floats, so NumPy would
compute those in float64: hence this test."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

#: name -> (its NumPy function, the number of operands)
FUNCTIONS: dict[str, tuple[Callable[..., Any], int]] = {
    "sqrt": (np.sqrt, 1),
    "fabs": (np.fabs, 1),
    "abs": (np.abs, 1),
    "floor": (np.floor, 1),
    "ceil": (np.ceil, 1),
    "trunc": (np.trunc, 1),
    "square": (np.square, 1),
    "reciprocal": (np.reciprocal, 1),
    "sign": (np.sign, 1),
    "copysign": (np.copysign, 2),
    "minimum": (np.minimum, 2),
    "maximum": (np.maximum, 2),
    "fmin": (np.fmin, 2),
    "fmax": (np.fmax, 2),
}

SOURCE = "import gradc\nimport numpy as np\nfrom gradc import f32\n" + "".join(
    textwrap.dedent(f"""

    @gradc.export
    def {name}_f(x: f32, y: f32) -> f32:
        return np.{name}({", ".join(["x", "y"][:arity])})
    """)
    for name, (_, arity) in FUNCTIONS.items()
)

F32 = st.floats(width=32)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, compile_module: Callable[[Path], Any]) -> Any:
    path = tmp_path_factory.mktemp("np_f32") / "np_f32.py"
    path.write_text(SOURCE)
    return compile_module(path)


def _same_bits(expected: np.float32, actual: float) -> bool:
    if math.isnan(expected):
        return math.isnan(actual)
    return float(expected) == actual and math.copysign(1.0, expected) == math.copysign(1.0, actual)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_matches_numpy_float32(library: Any, name: str) -> None:
    fn, arity = FUNCTIONS[name]
    compiled = getattr(library, f"{name}_f")

    @settings(max_examples=60, deadline=None)
    @given(x=F32, y=F32)
    def check(x: float, y: float) -> None:
        args = (np.float32(x), np.float32(y))[:arity]
        with np.errstate(all="ignore"):
            expected = fn(*args)
        assert expected.dtype == np.float32
        actual = compiled(x, y)
        assert _same_bits(expected, actual), f"np.{name}{args}: {expected!r}, gradc {actual!r}"

    check()
