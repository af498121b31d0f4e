"""NEP 50's promotion compiled (tests/infer/test_nep50.py checks the types): float32
NumPy scalars and arrays with Python floats and ints compute in float32 (the Python
scalar converted first: ``np.float32(0.1) == 0.1`` is True), with NumPy's float64 in
float64; values equal NumPy 2 running the same source on hypothesis-drawn inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

SOURCE = """\
import gradc
import numpy as np
from gradc import f32, f64, i64


@gradc.export
def scalar_ops(x: f32, s: f64, n: i64) -> tuple[f64, f64, f64, f64, bool, bool, f64]:
    return (x * s, x + 0.1, x - n, x + np.float64(s), x == 0.1, x < s, np.minimum(x, s))


@gradc.export
def array_ops(a: f32[:], s: f64, n: i64) -> tuple[f32[:], f32[:], f64[:], bool[:]]:
    return a * s + 0.1, a / n, a + np.float64(s), a == s
"""


def _same(got: Any, want: Any) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if want.ndim:
        return got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    # a float32 result comes back as the (exact) float64 of it: compared as that
    return bool(np.array_equal(got, want.astype(got.dtype), equal_nan=True))


F32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
F64 = st.floats(-1e30, 1e30) | st.sampled_from([0.1, 1 / 3, 2.5, 1e-40])
INT = st.integers(1, 2**40)


@settings(max_examples=40, deadline=None)
@given(x=F32, s=F64, n=INT)
def test_float32_scalars_with_python_scalars(
    source_lib: Any, source_plain: dict[str, Any], x, s, n
) -> None:
    with np.errstate(all="ignore"):
        want = source_plain["scalar_ops"](np.float32(x), s, n)
        got = source_lib.scalar_ops(x, s, n)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert _same(g, w), (k, x, s, n, g, w)


@settings(max_examples=25, deadline=None)
@given(xs=st.lists(F32, max_size=8), s=F64, n=INT)
def test_float32_arrays_with_python_scalars(
    source_lib: Any, source_plain: dict[str, Any], xs, s, n
) -> None:
    a = np.array(xs, np.float32)
    with np.errstate(all="ignore"):
        want = source_plain["array_ops"](a, s, n)
        got = source_lib.array_ops(a, s, n)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert _same(g, w), (k, xs, s, n, g, w)
