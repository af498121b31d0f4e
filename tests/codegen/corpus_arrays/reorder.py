"""``np.diag``, ``np.tril``/``np.triu``, ``np.roll``, ``np.sort``/``np.argsort`` and
``np.median`` (compiler/ir/ops/reorder.py, passes/arrays/reorder.py and sort.py), and
``min``/``max`` with ``initial=`` (compiler/frontend/array_reductions.py): every
dtype, run-time ``k`` and shifts, NaNs sorted last (``"any"`` elements), ints with ties
(``argsort`` by NumPy's stable order, the one gradc's sort gives).
"""

import numpy as np

import gradc
from gradc import f32, f64, i64

#: the compiled tests run with -m slow; reorder_core.py covers each operation by default
SLOW = True
SHAPES = {
    "diag_both": {"a": ("m", "n"), "v": ("n",)},
    "triangles": {"a": ("m", "n"), "t": ("p", "m", "n")},
    "rolled": {"a": ("m", "n"), "v": ("n",)},
    "sorted_floats": {"a": ("m", "n")},
    "sorted_ints": {"k": ("m", "n"), "b": ("n",)},
    "sorted_f32": {"x": ("n",)},
    "medians": {"a": ("m", "n"), "k": ("n",)},
    "extrema_initial": {"a": ("m", "n"), "k": ("m", "n")},
}
DIMS = {"triangles": {"p": (0, 3)}}
ELEMENTS = {
    "sorted_floats": {"a": "any"},
    "medians": {"a": "any"},
    "extrema_initial": {"a": "any"},
}
DOMAINS = {
    "diag_both": {"d": (-7, 7)},
    "triangles": {"d": (-7, 7)},
    "rolled": {"s": (-15, 15)},
}


@gradc.export
def diag_both(a: f64[:, :], v: f64[:], d: i64) -> tuple[f64[:, :], f64[:], f64[:], i64[:]]:
    w = np.diag(v, d)
    return w, np.diag(a, d), np.diag(a.T, k=-d), np.diag(np.diag(v).astype(np.int64))


@gradc.export
def triangles(
    a: f64[:, :], t: f64[:, :, :], d: i64
) -> tuple[f64[:, :], f64[:, :], f64[:, :, :], "bool[:, :]"]:
    return np.tril(a, d), np.triu(a, k=-d), np.tril(t), np.triu(a > 0.0, d)


@gradc.export
def rolled(a: f64[:, :], v: f64[:], s: i64) -> tuple[f64[:, :], f64[:, :], f64[:, :], f64[:]]:
    return np.roll(a, s, axis=1), np.roll(a, -s, axis=0), np.roll(a, s), np.roll(v[::-1], s)


@gradc.export
def sorted_floats(a: f64[:, :]) -> tuple[f64[:, :], i64[:, :], f64[:], i64[:]]:
    return (
        np.sort(a),
        np.argsort(a, kind="stable"),
        np.sort(a, axis=None),
        np.argsort(a.T, axis=None, kind="stable"),
    )


@gradc.export
def sorted_ints(k: i64[:, :], b: "bool[:]") -> tuple[i64[:, :], i64[:, :], "bool[:]", i64[:]]:
    return (
        np.sort(k, axis=1),
        np.argsort(k, axis=-1, kind="stable"),
        np.sort(b),
        np.argsort(b, kind="stable"),
    )


@gradc.export
def sorted_f32(x: f32[:], s: f32) -> tuple[f32[:], f32]:
    return np.sort(x), np.median(np.concatenate((x, np.full(1, s, dtype=np.float32))))


# every median of a non-empty row (NumPy warns on an empty one: tests/codegen/test_reorder.py)
@gradc.export
def medians(a: f64[:, :], k: i64[:], s: f64) -> tuple[f64, f64[:], f64, f64]:
    n = a.shape[1]
    c = np.concatenate((a, np.full((a.shape[0], 1), s)), axis=1)
    d = np.concatenate((c, np.full((1, n + 1), s)), axis=0)
    return (
        np.median(d),
        np.median(c, axis=1),
        np.median(np.concatenate((k, np.full(1, 3)))),
        np.median(d[0]),
    )


@gradc.export
def extrema_initial(
    a: f64[:, :], k: i64[:, :], s: f64
) -> tuple[f64, f64[:], f64[:, :], i64, i64[:], "bool"]:
    return (
        np.max(a, initial=s),
        a.max(axis=1, initial=s),
        np.min(a, axis=0, keepdims=True, initial=-s),
        np.max(k, initial=2.7),
        k.min(axis=-1, initial=-3),
        np.amax(a > 0.0, initial=False),
    )
