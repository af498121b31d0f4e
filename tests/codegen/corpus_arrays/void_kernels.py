"""In-place kernels without a result: ``-> None``, Numba's ``void(...)`` signature string,
``return None`` and bare ``return`` (early exits), helpers whose every return is None.
"""

import gradc
from gradc import f64, i64

SHAPES = {
    "scale_return_none": {"a": ("n",)},
    "void_signature": {"a": ("n",)},
    "bare_return_early": {"a": ("n",)},
    "helper_returns_none": {"A": ("m", "n")},
    "clip_in_place": {"a": ("n",)},
}
MUTATES = {
    "scale_return_none": ("a",),
    "void_signature": ("a",),
    "bare_return_early": ("a",),
    "helper_returns_none": ("A",),
    "clip_in_place": ("a",),
}


@gradc.export
def scale_return_none(a: f64[:], s: f64) -> None:
    for i in range(len(a)):
        a[i] *= s
    return None


@gradc.export("void(f64[:], f64)")
def void_signature(a, v):
    for i in range(len(a)):
        a[i] = a[i] - v


@gradc.export
def bare_return_early(a: i64[:], k: i64) -> None:
    # stops at the first element above k: a bare return from inside a loop
    for i in range(len(a)):
        if a[i] > k:
            return
        a[i] = a[i] * 2 + k


def _fill_row(A, i, v):
    if i >= A.shape[0]:
        return None
    for j in range(A.shape[1]):
        A[i, j] = v + j
    return


@gradc.export
def helper_returns_none(A: f64[:, :], v: f64):
    for i in range(0, A.shape[0] + 1, 2):
        _fill_row(A, i, v)


def _clip1(a, i, lo, hi):
    if a[i] < lo:
        a[i] = lo
        return
    if a[i] > hi:
        a[i] = hi


@gradc.export("void(f64[:], f64, f64)")
def clip_in_place(a, lo, hi):
    for i in range(len(a)):
        _clip1(a, i, lo, hi)
