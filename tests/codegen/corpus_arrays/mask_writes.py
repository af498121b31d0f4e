"""Boolean-mask writes ``a[mask] = v`` and ``a[mask] += v`` (compiler/infer/mask_writes.py,
``maskassign`` in passes/arrays/indexing.py): scalars, arrays of the true count, one
value for all, every dtype; NumPy's IndexError for a mask of another shape and ValueError
for a value array of another length.
"""

import numpy as np

import gradc
from gradc import f32, f64, i64

#: the compiled tests run with -m slow; reorder_core.py covers each operation by default
SLOW = True
SHAPES = {
    "mask_scalars": {"a": ("m", "n")},
    "mask_arrays": {"a": ("m", "n"), "b": ("m", "n")},
    "mask_one_value": {"a": ("m", "n"), "v": (1,)},
    "mask_ints_bools": {"k": ("n",), "c": ("n",)},
    "mask_f32": {"x": ("n",)},
    "mask_count_mismatch": {"x": ("n",), "v": ("p",)},
    "mask_shape_mismatch": {"x": ("n",), "y": ("p",)},
}
MUTATES = {
    "mask_scalars": ("a",),
    "mask_arrays": ("a",),
    "mask_one_value": ("a",),
    "mask_ints_bools": ("k", "c"),
    "mask_f32": ("x",),
    "mask_count_mismatch": ("x",),
    "mask_shape_mismatch": ("x",),
}
SUMMED = {"mask_arrays"}
RAISES = {"mask_count_mismatch": "ValueError", "mask_shape_mismatch": "IndexError"}


@gradc.export
def mask_scalars(a: f64[:, :], s: f64) -> f64[:, :]:
    a[a > s] = s
    a[a < -s] += 1.5
    a.T[a.T == 0.0] -= s
    return a.copy()


@gradc.export
def mask_arrays(a: f64[:, :], b: f64[:, :]) -> f64:
    m = a > 0.0
    a[m] = b[m] * 2.0
    a[~m] += b[~m]
    return np.sum(a)


@gradc.export
def mask_one_value(a: f64[:, :], v: f64[:]) -> None:
    a[a < 0.0] = v


@gradc.export
def mask_ints_bools(k: i64[:], c: "bool[:]", j: i64) -> None:
    k[k > j] = j
    k[c] *= 2
    c[k < 0] = True


@gradc.export
def mask_f32(x: f32[:]) -> f32[:]:
    x[x > 1.0] = x[x > 1.0] * x[x > 1.0]
    return x.copy()


@gradc.export
def mask_count_mismatch(x: f64[:], v: f64[:]) -> None:
    x[x > 0.0] = v


@gradc.export
def mask_shape_mismatch(x: f64[:], y: f64[:]) -> None:
    x[y > 0.0] = 1.0
