"""``np.linalg.inv``, ``np.linalg.solve`` and ``np.linalg.det`` (compiler/ir/ops/solve.py,
passes/arrays/solve.py) against NumPy's LAPACK: well-conditioned matrices (the drawn
elements plus ``100·I``, strictly diagonally dominant), so both results agree to
rounding (SUMMED); int matrices computed in float64; NumPy's errors for a matrix that is
not square, a right-hand side of another length and a singular matrix (LinAlgError,
a ValueError: gradc raises ValueError with its message). Also ``@``/``np.matmul`` of
operands of more than 2 axes (compiler/ir/ops/batched.py): batch axes broadcast (size 1
stretched), 1-D and 2-D operands mixed in, ints and bools, NumPy's core mismatch error;
and ``np.einsum`` of its supported subscripts (compiler/frontend/einsum.py) in every dtype
einsum keeps (int32 and bool sums stay int32 and bool). And ``np.linalg.cholesky``
(passes/arrays/cholesky.py) of matrices and stacks, from the lower triangle only, int
input as float64, float32 kept, NumPy's errors for a matrix that is not positive
definite or not square: inputs well inside or well outside the positive definite
matrices (at the border, a singular positive semi-definite matrix such as all elements
equal, whether the last pivot rounds to <= 0 depends on the order of LAPACK's sums).
"""

import numpy as np

import gradc
from gradc import f32, f64, i32, i64

#: the compiled tests run with -m slow; reorder_core.py covers each operation by default
SLOW = True
SHAPES = {
    "inverse": {"a": ("n", "n")},
    "solved": {"a": ("n", "n"), "b": ("n",), "c": ("n", "k")},
    "int_inverse": {"k": ("n", "n")},
    "solve_f32": {"x": ("n", "n"), "y": ("n",)},
    "not_square": {"a": ("m", "n")},
    "rhs_mismatch": {"a": ("n", "n"), "b": ("m",)},
    "singular": {"a": ("n", "n")},
    "batched": {"a": ("b", "n", "k"), "c": (1, "k", "m"), "w": ("k", "m"), "v": ("k",)},
    "batched_ints": {"i": ("b", "n", "k"), "j": ("b", "k", "n"), "t": ("b", "n", "n")},
    "batched_mismatch": {"a": ("b", "n", "k"), "c": ("b", "m", "n")},
    "einsums": {"A": ("n", "n"), "x": ("n",), "B": ("n", "m"), "T": ("b", "n", "n")},
    "einsum_dtypes": {"k": ("n", "n"), "c": ("n", "n")},
    "einsum_mismatch": {"A": ("m", "n"), "B": ("m", "n")},
    "factor_spd": {"A": ("n", "p")},
    "factor_stack": {"A": ("b", "n", "p")},
    "factor_not_pd": {"A": ("n", "n")},
    "factor_not_square": {"A": ("n", "p")},
    "factor_f32": {"A": ("n", "n")},
    "factor_int": {"A": ("n", "n")},
    "logdet_solve": {"A": ("n", "n"), "y": ("n",)},
}
SUMMED = {
    "inverse",
    "solved",
    "int_inverse",
    "solve_f32",
    "not_square",
    "rhs_mismatch",
    "batched",
    "batched_mismatch",
    "einsums",
    "einsum_mismatch",
    "factor_spd",
    "factor_stack",
    "factor_f32",
    "factor_int",
    "logdet_solve",
}
RAISES = {
    "not_square": "ValueError",
    "rhs_mismatch": "ValueError",
    "singular": "ValueError",
    "batched_mismatch": "ValueError",
    "einsum_mismatch": "ValueError",
    "factor_not_pd": "ValueError",
    "factor_not_square": "ValueError",
}
ELEMENTS = {
    "factor_int": {"A": (-3, 3)},
}


@gradc.export
def inverse(a: f64[:, :]) -> tuple[f64[:, :], f64]:
    w = a + 100.0 * np.eye(a.shape[0])
    return np.linalg.inv(w) * 100.0, np.linalg.det(w / 100.0)


@gradc.export
def solved(a: f64[:, :], b: f64[:], c: f64[:, :]) -> tuple[f64[:], f64[:, :]]:
    w = a.T + 100.0 * np.eye(a.shape[0])
    return np.linalg.solve(w, b) * 100.0, np.linalg.solve(a=w, b=c) * 100.0


@gradc.export
def int_inverse(k: i64[:, :]) -> tuple[f64[:, :], f64]:
    w = k + 200 * np.eye(k.shape[0], dtype=np.int64)
    return np.linalg.inv(w) * 200.0, np.linalg.det(w) / 200.0 ** k.shape[0]


@gradc.export
def solve_f32(x: f32[:, :], y: f32[:]) -> f32[:]:
    w = x + np.eye(x.shape[0], dtype=np.float32) * np.float32(100.0)
    return np.linalg.solve(w, y) * np.float32(100.0)


@gradc.export
def not_square(a: f64[:, :]) -> f64[:, :]:
    return np.linalg.inv(a)


@gradc.export
def rhs_mismatch(a: f64[:, :], b: f64[:]) -> f64[:]:
    return np.linalg.solve(a + 100.0 * np.eye(a.shape[0]), b)


# a zero row stays zero through any elimination order: an exactly zero pivot in LAPACK's
# factorisation and in gradc's (near-singular matrices may differ: docs/arrays_linalg.md)
@gradc.export
def singular(a: f64[:, :]) -> f64[:, :]:
    w = a * 1.0
    if a.shape[0] > 0:
        w[a.shape[0] // 2] = 0.0
    return np.linalg.inv(w)


@gradc.export
def batched(
    a: f64[:, :, :], c: f64[:, :, :], w: f64[:, :], v: f64[:]
) -> tuple[f64[:, :, :], f64[:, :, :], f64[:, :], f64[:, :]]:
    return a @ c, np.matmul(a, w), a @ v, v @ c


@gradc.export
def batched_ints(
    i: i64[:, :, :], j: i64[:, :, :], t: "bool[:, :, :]"
) -> tuple[i64[:, :, :], "bool[:, :, :]"]:
    return i @ j, t @ t


@gradc.export
def batched_mismatch(a: f64[:, :, :], c: f64[:, :, :]) -> f64[:, :, :]:
    return a @ c


@gradc.export
def einsums(
    A: f64[:, :], x: f64[:], B: f64[:, :], T: f64[:, :, :]
) -> tuple[f64[:], f64[:, :], f64, f64[:, :], f64, f64, f64[:, :], f64[:, :, :]]:
    return (
        np.einsum("ij,j->i", A, x),
        np.einsum("ij,jk->ik", A, B),
        np.einsum("i,i->", x, x),
        np.einsum("ij->ji", B),
        np.einsum("ii->", A),
        np.einsum("ij, ij->", B, B),
        np.einsum("i,j->ij", x, B[0] if B.shape[0] > 0 else x),
        np.einsum("bij,bjk->bik", T, T),
    )


@gradc.export
def einsum_dtypes(k: i32[:, :], c: "bool[:, :]") -> tuple[i32, "bool", "bool[:, :]"]:
    return np.einsum("ii->", k), np.einsum("ij,ij->", c, c), np.einsum("ij,jk->ik", c, c)


@gradc.export
def einsum_mismatch(A: f64[:, :], B: f64[:, :]) -> f64[:, :]:
    return np.einsum("ij,jk->ik", A, B) + np.einsum("ii->", A)


@gradc.export
def factor_spd(A: f64[:, :]) -> f64[:, :]:
    # A A^T + n I: positive definite (A's lower triangle differs from its upper)
    n = A.shape[0]
    return np.linalg.cholesky(A @ A.T + n * np.eye(n) + np.tril(A @ A.T))


@gradc.export
def factor_stack(A: f64[:, :, :]) -> f64[:, :, :]:
    n = A.shape[1]
    return np.linalg.cholesky(A @ np.transpose(A, (0, 2, 1)) + n * np.eye(n))


@gradc.export
def factor_not_pd(A: f64[:, :]) -> f64[:, :]:
    return np.linalg.cholesky(A - 100.0 * np.eye(A.shape[0]))


@gradc.export
def factor_not_square(A: f64[:, :]) -> f64[:, :]:
    return np.linalg.cholesky(A)


@gradc.export
def factor_f32(A: f32[:, :]) -> f32[:, :]:
    n = A.shape[0]
    return np.linalg.cholesky(A @ A.T + float(n) * np.eye(n, dtype=np.float32))


@gradc.export
def factor_int(A: i64[:, :]) -> f64[:, :]:
    n = A.shape[0]
    return np.linalg.cholesky(A @ A.T + 10 * n * np.identity(n, np.int64))


@gradc.export
def logdet_solve(A: f64[:, :], y: f64[:]) -> f64:
    n = A.shape[0]
    L = np.linalg.cholesky(A @ A.T + np.eye(n))
    return 2.0 * np.sum(np.log(np.diag(L))) + np.sum(np.linalg.solve(L, y) ** 2)
