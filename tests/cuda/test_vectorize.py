"""``@gradc.vectorize``: the CPU build of a vectorised function's kernel, run by
``gradc.broadcast_call`` over NumPy-broadcast arrays (hypothesis-drawn shapes and layouts),
equals NumPy and the plain-Python form; CUDA views carry the broadcast as stride 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradc
from gradc.vectorized import _CudaView
from tests.cuda import kernels_corpus as corpus

CORPUS = Path(__file__).parent / "kernels_corpus.py"


def _layout(a: np.ndarray, how: str) -> np.ndarray:
    if a.ndim == 0:
        return a
    if how == "F":
        return np.asfortranarray(a)
    if how == "reversed":
        return a[(slice(None, None, -1),) * a.ndim]
    if how == "strided":
        return np.repeat(a, 2, axis=-1)[..., ::2]
    return a


@settings(max_examples=25, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=5),
    how=st.sampled_from(["C", "F", "reversed", "strided"]),
    seed=st.integers(0, 2**16),
)
def test_huber_broadcasts_like_numpy(lib: Any, shapes: Any, how: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = _layout(rng.uniform(-3, 3, shapes.input_shapes[0]), how)
    delta = rng.uniform(0.1, 2, shapes.input_shapes[1])
    out = np.full(shapes.result_shape, np.nan)
    gradc.broadcast_call(lib.huber, r, delta, out=out)
    a = np.abs(r)
    expected = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=0)
    assert np.array_equal(out, corpus.huber(r, delta))
    plain = np.full(shapes.result_shape, np.nan)
    gradc.broadcast_call(corpus.huber, r, delta, out=plain)
    assert np.array_equal(out, plain)


def test_mixed_dtypes_and_errors(lib: Any) -> None:
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    k = np.array([[1], [0], [3]])
    out = np.zeros((3, 4), np.float32)
    gradc.broadcast_call(lib.scaled_sin, x, k, out=out)
    assert np.array_equal(out, corpus.scaled_sin(x, k))
    assert corpus.scaled_sin(x, k).dtype == np.float32
    with pytest.raises(ValueError, match="shape mismatch"):  # NumPy's own
        gradc.broadcast_call(lib.huber, np.zeros(3), np.zeros(4), out=np.zeros(3))
    with pytest.raises(ValueError, match="do not broadcast to out's shape"):
        gradc.broadcast_call(lib.huber, np.zeros((2, 3)), 1.0, out=np.zeros(3))
    with pytest.raises(ValueError, match="at most 4 axes"):
        gradc.broadcast_call(lib.huber, np.zeros((1,) * 5), 1.0, out=np.zeros((1,) * 5))
    with pytest.raises(ValueError, match="invalid vectorize signature"):
        gradc.vectorize("f64(f64, float)")(lambda a, b: a)


def test_cuda_views_broadcast_with_zero_strides() -> None:
    class Dev:
        def __init__(self, shape: tuple[int, ...], strides: Any) -> None:
            self.__cuda_array_interface__ = {
                "shape": shape, "strides": strides, "typestr": "<f8",
                "data": (4096, False), "version": 3,
            }  # fmt: skip

    c_order = _CudaView(Dev((3, 1), None).__cuda_array_interface__, (2, 3, 4))
    assert c_order.__cuda_array_interface__["shape"] == (1, 2, 3, 4)
    assert c_order.__cuda_array_interface__["strides"] == (0, 0, 8, 0)
    strided = _CudaView(Dev((4,), (16,)).__cuda_array_interface__, (4,))
    assert strided.__cuda_array_interface__["strides"] == (0, 0, 0, 16)
    with pytest.raises(TypeError, match="device arrays"):
        gradc.broadcast_call(_Launchable(), np.zeros(2), out=np.zeros(2))


class _Launchable:
    def __getitem__(self, config: Any) -> Any:
        raise AssertionError("not launched")
