"""Augmented assignment to array elements: ``a[i] op= v`` for every arithmetic operator
on f64 arrays (+ - * / // % **) and i64 arrays (+ - * // % **), on 2-D and 3-D elements,
through negative indices, on f32 and i32 arrays, on freshly allocated arrays, and out of
bounds.

Divisors come from domains that exclude zero (NumPy scalars divide by zero with a warning
where Python raises). ``**`` uses exponent 2 (exactly rounded) so the module stays exact.
"""

import numpy as np

import gradc
from gradc import f32, f64, i32, i64

SHAPES = {
    "aug_add_f64": {"a": ("n",)},
    "aug_sub_f64": {"a": ("n",)},
    "aug_mul_f64": {"a": ("n",)},
    "aug_div_f64": {"a": ("n",)},
    "aug_floordiv_f64": {"a": ("n",)},
    "aug_mod_f64": {"a": ("n",)},
    "aug_pow_f64": {"a": ("n",)},
    "aug_add_i64": {"a": ("n",)},
    "aug_sub_i64": {"a": ("n",)},
    "aug_mul_i64": {"a": ("n",)},
    "aug_floordiv_i64": {"a": ("n",)},
    "aug_mod_i64": {"a": ("n",)},
    "aug_pow_i64": {"a": ("n",)},
    "aug_chain_2d": {"A": ("m", "n")},
    "aug_chain_3d_i64": {"T": ("p", "q", "r")},
    "aug_negative_index": {"a": ("n",)},
    "aug_f32": {"a": ("n",)},
    "aug_i32": {"a": ("n",)},
    "aug_at": {"a": ("n",)},
    "aug_at_2d_i64": {"A": ("m", "n")},
    "aug_from_other": {"a": ("n",), "b": ("n",)},
}

ELEMENTS = {
    "aug_pow_i64": {"a": (-40, 40)},
}

DIMS = {}

DOMAINS = {
    "aug_div_f64": {"d": (0.25, 8.0)},
    "aug_floordiv_f64": {"d": (0.25, 4.0)},
    "aug_mod_f64": {"d": (0.25, 4.0)},
    "aug_floordiv_i64": {"d": (1, 7)},
    "aug_mod_i64": {"d": (1, 7)},
    "aug_on_new_i64": {"n": (0, 6)},
    "aug_on_new_f64": {"m": (0, 5), "n": (0, 5)},
    "aug_at": {"i": (-8, 8)},
    "aug_at_2d_i64": {"i": (-7, 7), "j": (-7, 7)},
    "aug_chain_3d_i64": {"v": (-50, 50)},
}

RAISES = {
    "aug_at": "IndexError",
    "aug_at_2d_i64": "IndexError",
}

MUTATES = {
    "aug_add_f64": ("a",),
    "aug_sub_f64": ("a",),
    "aug_mul_f64": ("a",),
    "aug_div_f64": ("a",),
    "aug_floordiv_f64": ("a",),
    "aug_mod_f64": ("a",),
    "aug_pow_f64": ("a",),
    "aug_add_i64": ("a",),
    "aug_sub_i64": ("a",),
    "aug_mul_i64": ("a",),
    "aug_floordiv_i64": ("a",),
    "aug_mod_i64": ("a",),
    "aug_pow_i64": ("a",),
    "aug_chain_2d": ("A",),
    "aug_chain_3d_i64": ("T",),
    "aug_negative_index": ("a",),
    "aug_f32": ("a",),
    "aug_i32": ("a",),
    "aug_at": ("a",),
    "aug_at_2d_i64": ("A",),
    "aug_from_other": ("a",),
}

ULP = set()


@gradc.export
def aug_add_f64(a: f64[:], v: f64) -> None:
    for i in range(len(a)):
        a[i] += v


@gradc.export
def aug_sub_f64(a: f64[:], v: f64) -> None:
    for i in range(len(a)):
        a[i] -= v * i


@gradc.export
def aug_mul_f64(a: f64[:], v: f64) -> None:
    for i in range(len(a)):
        a[i] *= v


@gradc.export
def aug_div_f64(a: f64[:], d: f64) -> None:
    for i in range(len(a)):
        a[i] /= d


@gradc.export
def aug_floordiv_f64(a: f64[:], d: f64) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] //= d
        else:
            a[i] //= -d


@gradc.export
def aug_mod_f64(a: f64[:], d: f64) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] %= d
        else:
            a[i] %= -d


@gradc.export
def aug_pow_f64(a: f64[:]) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] **= 2.0
        else:
            a[i] **= 2


@gradc.export
def aug_add_i64(a: i64[:], v: i64) -> None:
    for i in range(len(a)):
        a[i] += v


@gradc.export
def aug_sub_i64(a: i64[:], v: i64) -> None:
    for i in range(len(a)):
        a[i] -= v * i


@gradc.export
def aug_mul_i64(a: i64[:], v: i64) -> None:
    for i in range(len(a)):
        a[i] *= v


@gradc.export
def aug_floordiv_i64(a: i64[:], d: i64) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] //= d
        else:
            a[i] //= -d


@gradc.export
def aug_mod_i64(a: i64[:], d: i64) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] %= d
        else:
            a[i] %= -d


@gradc.export
def aug_pow_i64(a: i64[:]) -> None:
    for i in range(len(a)):
        if i % 2 == 0:
            a[i] **= 2
        else:
            a[i] **= 3


@gradc.export
def aug_chain_2d(A: f64[:, :], v: f64) -> None:
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] += v
            A[i, j] *= 0.5
            A[i, j] -= i
            A[i, j] **= 2
            A[i, j] /= 4.0
            A[i, j] //= 0.75
            A[i, j] %= 3.5


@gradc.export
def aug_chain_3d_i64(T: i64[:, :, :], v: i64) -> None:
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                T[i, j, k] += v
                T[i, j, k] *= 3
                T[i, j, k] //= 2
                T[i, j, k] %= 97
                T[i, j, k] -= j - k
                T[i, j, k] **= 2


@gradc.export
def aug_negative_index(a: f64[:], v: f64) -> None:
    for k in range(1, len(a) + 1):
        a[-k] += v * k


@gradc.export
def aug_on_new_i64(n: i64) -> i64[:]:
    out = np.ones(n, dtype=np.int64)
    for i in range(n):
        out[i] += i
        out[i] *= 2
        out[i] **= 2
        out[i] -= 1
        out[i] //= 3
        out[i] %= 5
    return out


@gradc.export
def aug_on_new_f64(m: i64, n: i64) -> f64[:, :]:
    out = np.full((m, n), 1.5)
    for i in range(m):
        for j in range(n):
            out[i, j] += i
            out[i, j] *= j - 2.5
            out[i, j] /= 2.0
    return out


@gradc.export
def aug_f32(a: f32[:], s: f32) -> None:
    for i in range(len(a)):
        a[i] *= s
        a[i] += s


@gradc.export
def aug_i32(a: i32[:], v: i32) -> None:
    for i in range(len(a)):
        a[i] += v
        a[i] *= 2
        a[i] -= i


@gradc.export
def aug_at(a: f64[:], i: i64, v: f64) -> None:
    a[i] += v


@gradc.export
def aug_at_2d_i64(A: i64[:, :], i: i64, j: i64) -> None:
    A[i, j] *= 2
    A[i, j] += 1


@gradc.export
def aug_from_other(a: f64[:], b: f64[:]) -> None:
    for i in range(len(a)):
        a[i] += b[i] * b[-1 - i]
        a[i] -= b[i]
