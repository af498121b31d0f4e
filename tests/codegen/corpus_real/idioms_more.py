"""More idioms of real NumPy code (issue 11's new-user trial, second round): ``out=`` of
ufuncs (``np.maximum(D, 0, out=D)``, ``np.exp(X, X)``), NumPy's operator ufuncs called
as functions (``np.add``, ``np.multiply``, ``np.divide``, ``np.less``), ``np.flip``,
``np.count_nonzero``, shapes given as lists, ``x.shape`` held in a variable, negative
axes, in-place updates whose operand overlaps the target (``y[1:] += y[:-1]``,
``y += y[::-1]``), masked in-place scaling, integer ``@``, ``np.linalg.norm(X, axis=1)``,
``max()`` of several values, ``dtype=X.dtype`` of a parameter updated in place,
``np.logaddexp`` (a logistic loss, infinities and NaN among the inputs), ``np.trapezoid``.

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "relu_out": {"D": ("m", "n")},
    "softmax_out": {"X": ("m", "n")},
    "ufunc_functions": {"a": ("n",), "b": ("n",)},
    "flip_axes": {"A": ("m", "n")},
    "count_nonzero_axes": {"A": ("m", "n")},
    "list_shape": {"x": ("m", "n")},
    "shape_variable": {"x": ("m", "n")},
    "negative_axis_max": {"x": ("p", "q", "r")},
    "overlapping_inplace": {"x": ("n",)},
    "masked_scale": {"x": ("n",)},
    "int_matmul": {"a": ("m", "k"), "b": ("k", "n")},
    "row_norms_axis": {"X": ("m", "n")},
    "builtin_max": {"x": ("n",)},
    "inplace_dtype": {"C": ("m", "n")},
    "logaddexp_loss": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "out_overlap": {"E0": ("n",), "X0": ("m", "n")},
    "trapezoid_rules": {"y": ("n",), "x": ("n",), "A": ("m", "n")},
}

DIMS = {"softmax_out": {"n": (1, 6)}, "builtin_max": {"n": (1, 6)}}

ELEMENTS = {"count_nonzero_axes": {"A": (-1.0, 1.0)}, "logaddexp_loss": {"X": "any"}}

DOMAINS = {}

RAISES = {}

MUTATES = {"softmax_out": ("X",), "inplace_dtype": ("C",)}

ULP = {"softmax_out", "out_overlap"}

SUMMED = {"softmax_out", "row_norms_axis", "ufunc_functions", "logaddexp_loss"}
SUMMED |= {"trapezoid_rules"}


@gradc.export
def relu_out(D: f64[:, :]) -> f64[:, :]:
    E = D.copy()
    np.maximum(E, 0, out=E)
    return E


@gradc.export
def softmax_out(X: f64[:, :]) -> None:
    X -= X.max(axis=1)[:, np.newaxis]
    np.exp(X, X)
    X /= X.sum(axis=1)[:, np.newaxis]


@gradc.export
def ufunc_functions(a: f64[:], b: f64[:], s: f64) -> f64[:]:
    c = np.subtract(np.multiply(a, b), np.divide(a, 2.0))
    d = np.negative(np.add(c, s))
    out = np.empty_like(d)
    np.true_divide(d, 3.0, out=out)
    return np.where(np.less(d, 0.0), d, out) + np.floor_divide(a, 3.0) + np.mod(b, 2.5)


@gradc.export
def flip_axes(A: f64[:, :]) -> f64[:, :]:
    return np.flip(A) + 10.0 * np.flip(A, 0) + 100.0 * np.flip(A, axis=-1) + np.flip(A, (0, 1))


@gradc.export
def count_nonzero_axes(A: f64[:, :]) -> tuple[i64, i64[:]]:
    rounded = np.round(A)
    return np.count_nonzero(rounded), np.count_nonzero(A > 0, axis=1)


@gradc.export
def list_shape(x: f64[:, :]) -> f64[:, :]:
    out = np.empty([x.shape[0], x.shape[1]], dtype=x.dtype)
    out[:] = x * 2.0
    return out


@gradc.export
def shape_variable(x: f64[:, :]) -> f64[:, :]:
    shape = x.shape
    y = np.zeros(shape)
    y[:, : shape[1] // 2] = x[:, : shape[1] // 2]
    return y


@gradc.export
def negative_axis_max(x: f64[:, :, :]) -> f64[:, :]:
    return np.abs(x).max(axis=-2, initial=0.0) + x.sum(axis=-2)


@gradc.export
def overlapping_inplace(x: f64[:]) -> tuple[f64[:], f64[:]]:
    y = x.copy()
    y[1:] += y[:-1]
    z = x.copy()
    z += z[::-1]
    return y, z


@gradc.export
def masked_scale(x: f64[:]) -> f64[:]:
    y = x.copy()
    y[y < 0] *= -0.5
    return y


@gradc.export
def int_matmul(a: i64[:, :], b: i64[:, :]) -> i64[:, :]:
    return a @ b + a.sum(axis=1, keepdims=True)


@gradc.export
def row_norms_axis(X: f64[:, :]) -> f64[:]:
    return np.linalg.norm(X, axis=1)


@gradc.export
def builtin_max(x: f64[:], y: f64) -> f64:
    return max(x.max(), y, 0.0) + min(x[0], x[-1])


@gradc.export
def inplace_dtype(C: f64[:, :], beta: f64) -> f64[:]:
    C *= beta
    total = np.zeros(C.shape[1], dtype=C.dtype)
    for i in range(C.shape[0]):
        total += C[i]
    return total


@gradc.export
def logaddexp_loss(w: f64[:], X: f64[:, :], y: f64[:]) -> tuple[f64, f64[:, :]]:
    z = X @ w
    return np.sum(np.logaddexp(0, -y * z)), np.logaddexp(X, X[::-1])


@gradc.export
def out_overlap(E0: f64[:], X0: f64[:, :]) -> tuple[f64[:], f64[:, :]]:
    # out= overlapping an operand: NumPy reads the operand as if copied first
    E = E0.copy()
    np.maximum(E, E[::-1], out=E)
    X = X0.copy()
    np.exp(X[:, ::-1], out=X)
    return E, X


@gradc.export
def trapezoid_rules(y: f64[:], x: f64[:], A: f64[:, :], dx: f64) -> tuple[f64, f64[:], f64[:]]:
    return np.trapezoid(y, x), np.trapezoid(A, x=x), np.trapezoid(A, dx=dx, axis=0)
