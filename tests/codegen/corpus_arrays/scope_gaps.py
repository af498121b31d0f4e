"""Forms of issue #11's scope an audit found missing: integer-array writes ``a[idx] = v``
and ``a[idx] += v`` (compiler/infer/mask_writes.py, passes/arrays/indexing.py: repeated
indices keep the last value, negative ones count from the end, every index checked
before any write) and ``np.vstack`` of 1-D and 2-D arrays together (NumPy's
``atleast_2d``), ``np.transpose(a, axes)``, matrix norms ``np.linalg.norm(a, 1)``/
``np.linalg.norm(a, np.inf)``, against NumPy in every layout.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "index_writes": {"a": ("m", "n"), "idx": ("k",), "v": ("n",)},
    "index_updates": {"x": ("n",), "idx": ("k",), "w": ("k",)},
    "index_write_shapes": {"x": ("n",), "idx": ("k",), "w": ("m",)},
    "vstack_mixed": {"a": ("m", "n"), "v": ("n",)},
    "transposed": {"t": ("p", "m", "n")},
    "matrix_norms": {"a": ("m", "n"), "k": ("m", "n")},
}
SUMMED = {"matrix_norms"}
DIMS = {"index_writes": {"m": (1, 6)}, "index_updates": {"n": (1, 6)}}
ELEMENTS = {"index_writes": {"idx": (-3, 2)}, "index_updates": {"idx": (-3, 2)}}
RAISES = {"index_writes": "IndexError", "index_updates": "IndexError",
          "index_write_shapes": "ValueError"}  # fmt: skip
MUTATES = {"index_writes": ("a",)}


@gradc.export
def index_writes(a: f64[:, :], idx: i64[:], v: f64[:], s: f64) -> f64[:, :]:
    a[idx] = v
    a[idx[::-1]] += s
    b = a * 1.0
    b[idx] = s
    return b


@gradc.export
def index_updates(x: f64[:], idx: i64[:], w: f64[:]) -> tuple[f64[:], i64[:]]:
    y = x * 2.0
    y[idx] += w
    k = np.zeros(x.shape[0], dtype=np.int64)
    k[idx] = 7
    k[idx] -= 1
    return y, k


# w of another length than idx: NumPy's shape mismatch (or any index out of bounds)
@gradc.export
def index_write_shapes(x: f64[:], idx: i64[:], w: f64[:]) -> f64[:]:
    y = x.copy()
    if y.shape[0] > 0:
        y[idx % y.shape[0]] = w
    return y


@gradc.export
def vstack_mixed(a: f64[:, :], v: f64[:]) -> tuple[f64[:, :], f64[:, :]]:
    return np.vstack((a, v)), np.vstack((v[::-1], a, v * 2.0))


@gradc.export
def transposed(t: f64[:, :, :]) -> tuple[f64[:, :, :], f64[:, :, :], f64[:, :, :]]:
    return np.transpose(t) * 1.0, np.transpose(t, (1, 0, 2)) * 2.0, np.transpose(t, axes=[2, 0, 1])


@gradc.export
def matrix_norms(a: f64[:, :], k: i64[:, :]) -> tuple[f64, f64, f64[:, :], f64]:
    return (
        np.linalg.norm(a, 1),
        np.linalg.norm(a.T, ord=np.inf),
        np.linalg.norm(a, np.inf, keepdims=True),
        np.linalg.norm(k, 1),
    )
