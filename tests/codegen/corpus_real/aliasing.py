"""Aliasing and NumPy-semantics traps of real code (issue 11's new-user trial, round 2):
chained assignment of one array to two names, writes through ``.T`` and ``reshape``
views, ``A[:] = A.T`` and ``A += A.T`` (an operand overlapping the target), a row
written from a column, a row swap through a view (NumPy's result: both rows the
second), ``A[:] = A @ A``, int64 wrap-around, float ``%``/``//`` with negative
operands, bool arithmetic, masked assignment, signed zeros of ``np.maximum``, integer
``/`` and ``//``/``%`` by zero.

Written for gradc's differential tests (never copied).
"""

import numpy as np

import gradc
from gradc import f64, i64

# a module of small checks whose constructs other default-run tests cover
SLOW = True

SHAPES = {
    "transpose_write": {"A0": ("n", "n")},
    "assign_transpose": {"A0": ("n", "n")},
    "iadd_transpose": {"A0": ("n", "n")},
    "row_col": {"A0": ("n", "n")},
    "view_swap": {"A0": ("m", "n")},
    "int_wrap": {"a": ("n",)},
    "float_mod": {"a": ("n",), "b": ("n",)},
    "bool_arith": {"x": ("n",)},
    "mask_assign": {"x0": ("n",), "y": ("n",)},
    "reshape_write": {"x0": (6,)},
    "iadd_reversed_2d": {"A0": ("m", "n")},
    "matmul_inplace": {"A0": ("n", "n")},
    "neg_zero": {"x": ("n",)},
    "where_scalar": {"x": ("n",)},
    "divide_int_arrays": {"a": ("n",), "b": ("n",)},
    "floordiv_int_zero": {"a": ("n",), "b": ("n",)},
}

DIMS = {"view_swap": {"m": (2, 5)}, "transpose_write": {"n": (2, 5)}, "row_col": {"n": (1, 5)}}

ELEMENTS = {
    "int_wrap": {"a": (-(2**40), 2**40)},
    "float_mod": {"b": (0.5, 5.0)},
    "divide_int_arrays": {"b": (-3, 3)},
    "floordiv_int_zero": {"b": (-3, 3)},
}

DOMAINS = {"chained": {"n": (1, 6)}}

RAISES = {}

MUTATES = {}

ULP = set()

SUMMED = {"matmul_inplace"}


@gradc.export
def chained(n: i64) -> f64[:]:
    x = y = np.zeros(n)
    x[0] = 1.0
    return y


@gradc.export
def transpose_write(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    b = A.T
    b[0, 1] = 5.0
    return A


@gradc.export
def assign_transpose(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    A[:] = A.T
    return A


@gradc.export
def iadd_transpose(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    A += A.T
    return A


@gradc.export
def row_col(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    A[:, 0] = A[0, :]
    return A


@gradc.export
def view_swap(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    v = A[0]
    A[0] = A[1]
    A[1] = v
    return A


@gradc.export
def int_wrap(a: i64[:]) -> i64[:]:
    return a * a * a * a * a + a**3


@gradc.export
def float_mod(a: f64[:], b: f64[:]) -> f64[:]:
    return np.mod(a, b) + a // b + np.remainder(a, 3.0) + a % -2.5


@gradc.export
def bool_arith(x: f64[:]) -> tuple[i64, f64, i64]:
    m = x > 0
    k = m + m
    return int(k.sum()), float(np.mean(m)), int((m * 3).sum())


@gradc.export
def mask_assign(x0: f64[:], y: f64[:]) -> f64[:]:
    x = x0.copy()
    m = x > y
    x[m] = y[m]
    x[x < -1] = 0.0
    return x


@gradc.export
def reshape_write(x0: f64[:]) -> f64[:]:
    x = x0.copy()
    r = x.reshape(2, -1)
    r[1, 0] = 99.0
    return x


@gradc.export
def iadd_reversed_2d(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    A[1:, :] += A[:-1, ::-1]
    return A


@gradc.export
def matmul_inplace(A0: f64[:, :]) -> f64[:, :]:
    A = A0.copy()
    A[:] = A @ A
    return A


@gradc.export
def neg_zero(x: f64[:]) -> f64[:]:
    return np.maximum(x, -0.0) * 1.0 + np.minimum(-x, 0.0)


@gradc.export
def where_scalar(x: f64[:]) -> f64[:]:
    return np.where(x > 0, 1, x)


@gradc.export
def divide_int_arrays(a: i64[:], b: i64[:]) -> f64[:]:
    return a / b


@gradc.export
def floordiv_int_zero(a: i64[:], b: i64[:]) -> i64[:]:
    return a // b + a % b
