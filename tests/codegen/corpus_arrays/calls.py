"""Arrays across calls: helpers that write into an array argument, helpers that return a
new array or a scalar computed from one, exports calling exports, tuples of arrays as
results (also through helpers), scalars computed from temporary arrays, arrays reassigned
in loops and branches, buffers swapped with ``a, b = b, a``, early returns, breaks and
exceptions while temporaries are alive (the leak test runs every export of this module).

No math functions here: every float result must match CPython+NumPy bit for bit.
"""

import numpy as np

import gradc
from gradc import boolean, f64, i64

SHAPES = {
    "quadrupled": {"a": ("n",)},
    "sum_of_doubled": {"a": ("n",)},
    "apply": {"A": ("n", "n"), "x": ("n",)},
    "apply_twice": {"A": ("n", "n"), "x": ("n",)},
    "accumulate_into": {"acc": ("n",), "x": ("n",)},
    "split_signs": {"a": ("n",)},
    "copy_sum_ones": {"a": ("n",)},
    "spread": {"a": ("n",), "b": ("n",)},
    "variance": {"a": ("n",)},
    "median": {"a": ("n",)},
    "sorted_copy": {"a": ("n",)},
    "conditional_alloc": {"a": ("n",)},
    "first_negative_square": {"a": ("n",)},
    "count_until_zero": {"a": ("n",)},
    "raise_with_temp": {"a": ("n",)},
    "nested_helpers_3d": {"T": ("p", "q", "r")},
    "swap_and_bump": {"a": ("n",), "b": ("k",)},
    "doubled_in_loop": {"a": ("n",)},
    "checked_dot": {"a": ("n",), "b": ("k",)},
    "fill_rows_via_helper": {"A": ("m", "n")},
    "mask_count_via_helper": {"a": ("n",)},
    "tuple_in_loop": {"a": ("n",)},
}

ELEMENTS = {
    "count_until_zero": {"a": (-3, 3)},
}

DIMS = {}

DOMAINS = {
    "filled": {"n": (0, 6)},
    "identity": {"n": (0, 6)},
    "realloc_in_loop": {"n": (0, 6), "steps": (0, 6)},
    "doubled_in_loop": {"steps": (0, 5)},
    "raise_with_temp": {"i": (-8, 8)},
    "tuple_in_loop": {"steps": (0, 4)},
}

RAISES = {
    "variance": "ZeroDivisionError",  # empty array
    "median": "IndexError",  # empty array
    "raise_with_temp": "IndexError",
    "checked_dot": "AssertionError",  # lengths differ
}

MUTATES = {
    "accumulate_into": ("acc",),
    "fill_rows_via_helper": ("A",),
}

ULP = set()


# ---------------------------------------------------------------- helpers (not exported)


def _fill(out, v):
    for i in range(len(out)):
        out[i] = v


def _doubled(a):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = a[i] * 2.0
    return out


def _sum(a):
    s = 0.0
    for v in a:
        s += v
    return s


def _add_inplace(acc, x):
    for i in range(len(acc)):
        acc[i] += x[i]


def _min_max_arrays(a, b):
    lo = np.empty(len(a))
    hi = np.empty(len(a))
    for i in range(len(a)):
        if a[i] < b[i]:
            lo[i] = a[i]
            hi[i] = b[i]
        else:
            lo[i] = b[i]
            hi[i] = a[i]
    return lo, hi


def _scale3(T, s):
    out = np.zeros((T.shape[0], T.shape[1], T.shape[2]))
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                out[i, j, k] = T[i, j, k] * s
    return out


def _sum3(T):
    s = 0.0
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                s += T[i, j, k]
    return s


def _check_same_length(a, b):
    assert len(a) == len(b), "length mismatch"


def _fill_row(A, i, v):
    for j in range(A.shape[1]):
        A[i, j] = v + j


def _count_true(m):
    c = 0
    for v in m:
        if v:
            c += 1
    return c


def _insertion_sort(a):
    for i in range(1, len(a)):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


# ---------------------------------------------------------------- exports


@gradc.export
def filled(n: i64, v: f64) -> f64[:]:
    out = np.empty(n)
    _fill(out, v)
    return out


@gradc.export
def quadrupled(a: f64[:]) -> f64[:]:
    return _doubled(_doubled(a))


@gradc.export
def sum_of_doubled(a: f64[:]) -> f64:
    return _sum(_doubled(a))


@gradc.export
def apply(A: f64[:, :], x: f64[:]) -> f64[:]:
    n = A.shape[0]
    y = np.zeros(n)
    for i in range(n):
        for j in range(A.shape[1]):
            y[i] += A[i, j] * x[j]
    return y


@gradc.export
def apply_twice(A: f64[:, :], x: f64[:]) -> f64[:]:
    return apply(A, apply(A, x))


@gradc.export
def accumulate_into(acc: f64[:], x: f64[:]) -> None:
    _add_inplace(acc, x)
    _add_inplace(acc, x)


@gradc.export
def split_signs(a: f64[:]) -> tuple[f64[:], f64[:]]:
    pos = np.zeros(len(a))
    neg = np.zeros(len(a))
    for i in range(len(a)):
        if a[i] > 0.0:
            pos[i] = a[i]
        else:
            neg[i] = a[i]
    return pos, neg


@gradc.export
def copy_sum_ones(a: f64[:]):
    c = a.copy()
    return c, _sum(c), np.ones((2, len(a)), dtype=np.int64)


@gradc.export
def spread(a: f64[:], b: f64[:]) -> f64[:]:
    lo, hi = _min_max_arrays(a, b)
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = hi[i] - lo[i]
    return out


@gradc.export
def variance(a: f64[:]) -> f64:
    n = len(a)
    m = _sum(a) / n
    tmp = np.empty(n)
    for i in range(n):
        tmp[i] = (a[i] - m) * (a[i] - m)
    return _sum(tmp) / n


@gradc.export
def median(a: f64[:]) -> f64:
    tmp = a.copy()
    _insertion_sort(tmp)
    return tmp[len(tmp) // 2]


@gradc.export
def sorted_copy(a: i64[:]) -> i64[:]:
    out = a.copy()
    _insertion_sort(out)
    return out


@gradc.export
def realloc_in_loop(n: i64, steps: i64) -> f64:
    y = np.zeros(n)
    for s in range(steps):
        z = np.zeros(n)
        for i in range(n):
            z[i] = y[i] + s
        y = z
    return _sum(y)


@gradc.export
def conditional_alloc(a: f64[:], flag: boolean) -> f64[:]:
    if flag:
        out = a.copy()
    else:
        out = np.zeros(len(a))
    for i in range(len(out)):
        out[i] += 1.0
    return out


@gradc.export
def first_negative_square(a: f64[:]) -> f64:
    tmp = np.empty(len(a))
    for i in range(len(a)):
        tmp[i] = a[i] * a[i]
        if a[i] < 0.0:
            return tmp[i]
    return -1.0


@gradc.export
def count_until_zero(a: i64[:]) -> i64:
    seen = np.zeros(len(a), dtype=np.int64)
    c = 0
    for i in range(len(a)):
        if a[i] == 0:
            break
        seen[i] = 1
        c += seen[i]
    return c


@gradc.export
def raise_with_temp(a: f64[:], i: i64) -> f64:
    tmp = np.zeros(len(a))
    other = a.copy()
    tmp[i] = other[i]
    return _sum(tmp)


@gradc.export
def nested_helpers_3d(T: f64[:, :, :]) -> f64:
    return _sum3(_scale3(T, 2.0))


@gradc.export
def swap_and_bump(a: f64[:], b: f64[:]):
    x = a.copy()
    y = b.copy()
    x, y = y, x
    for i in range(len(x)):
        x[i] += 1.0
    return x, y


@gradc.export
def doubled_in_loop(a: f64[:], steps: i64) -> f64[:]:
    y = a.copy()
    for _ in range(steps):
        y = _doubled(y)
    return y


@gradc.export
def checked_dot(a: f64[:], b: f64[:]) -> f64:
    _check_same_length(a, b)
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@gradc.export
def identity(n: i64) -> f64[:, :]:
    out = np.zeros((n, n))
    for i in range(n):
        out[i, i] = 1.0
    return out


@gradc.export
def fill_rows_via_helper(A: f64[:, :], v: f64) -> None:
    for i in range(A.shape[0]):
        _fill_row(A, i, v * i)


@gradc.export
def mask_count_via_helper(a: f64[:], t: f64) -> i64:
    m = np.zeros(len(a), dtype=np.bool_)
    for i in range(len(a)):
        m[i] = a[i] > t
    return _count_true(m)


@gradc.export
def tuple_in_loop(a: f64[:], steps: i64):
    lo = a.copy()
    hi = a.copy()
    for _ in range(steps):
        lo, hi = _min_max_arrays(_doubled(lo), hi)
    return lo, hi
