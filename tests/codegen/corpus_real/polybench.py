"""PolyBench kernels in the whole-array style of NPBench: matrix products, stencils with
slices, in-place updates of arguments, covariance and correlation, LU and Cholesky.

Written for gradc's differential tests (never copied): each function is what a NumPy
user writes; products through ``@`` are summed in another order than NumPy's BLAS, so
those exports compare within SUM_TOLERANCE (SUMMED).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "gemm": {"C": ("m", "n"), "A": ("m", "k"), "B": ("k", "n")},
    "atax": {"A": ("m", "n"), "x": ("n",)},
    "bicg": {"A": ("m", "n"), "p": ("n",), "r": ("m",)},
    "gesummv": {"A": ("n", "n"), "B": ("n", "n"), "x": ("n",)},
    "mvt": {"x1": ("n",), "x2": ("n",), "y_1": ("n",), "y_2": ("n",), "A": ("n", "n")},
    "k2mm": {"A": ("i", "k"), "B": ("k", "j"), "C": ("j", "l"), "D": ("i", "l")},
    "jacobi_1d": {"A": ("n",), "B": ("n",)},
    "jacobi_2d": {"A": ("n", "n"), "B": ("n", "n")},
    "heat_3d": {"A": ("n", "n", "n"), "B": ("n", "n", "n")},
    "seidel_2d": {"A": ("n", "n")},
    "syrk": {"C": ("n", "n"), "A": ("n", "m")},
    "lu": {"A0": ("n", "n")},
    "cholesky": {"M": ("n", "n")},
    "doitgen": {"A": ("r", "q", "p"), "C4": ("p", "p")},
    "floyd_warshall": {"path": ("n", "n")},
    "covariance": {"data": ("n", "m")},
    "correlation": {"data": ("n", "m")},
}

DIMS = {
    "covariance": {"n": (1, 6)},
    "correlation": {"n": (1, 6)},
}

ELEMENTS = {}

DOMAINS = {
    "jacobi_1d": {"TSTEPS": (0, 4)},
    "jacobi_2d": {"TSTEPS": (0, 4)},
    "heat_3d": {"TSTEPS": (0, 3)},
    "seidel_2d": {"TSTEPS": (0, 3)},
    "covariance": {"float_n": (2.0, 50.0)},
    "correlation": {"float_n": (1.0, 50.0)},
}

RAISES = {}

MUTATES = {
    "gemm": ("C",),
    "mvt": ("x1", "x2"),
    "k2mm": ("D",),
    "jacobi_1d": ("A", "B"),
    "jacobi_2d": ("A", "B"),
    "heat_3d": ("A", "B"),
    "seidel_2d": ("A",),
    "syrk": ("C",),
    "doitgen": ("A",),
    "floyd_warshall": ("path",),
}

ULP = set()

SUMMED = {"gemm", "atax", "bicg", "gesummv", "mvt", "k2mm", "lu", "cholesky", "doitgen"}
SUMMED |= {"covariance", "correlation"}


@gradc.export
def gemm(alpha: f64, beta: f64, C: f64[:, :], A: f64[:, :], B: f64[:, :]) -> None:
    C[:] = alpha * A @ B + beta * C


@gradc.export
def atax(A: f64[:, :], x: f64[:]) -> f64[:]:
    return (A @ x) @ A


@gradc.export
def bicg(A: f64[:, :], p: f64[:], r: f64[:]) -> tuple[f64[:], f64[:]]:
    return r @ A, A @ p


@gradc.export
def gesummv(alpha: f64, beta: f64, A: f64[:, :], B: f64[:, :], x: f64[:]) -> f64[:]:
    return alpha * A @ x + beta * B @ x


@gradc.export
def mvt(x1: f64[:], x2: f64[:], y_1: f64[:], y_2: f64[:], A: f64[:, :]) -> None:
    x1 += A @ y_1
    x2 += y_2 @ A


@gradc.export
def k2mm(alpha: f64, beta: f64, A: f64[:, :], B: f64[:, :], C: f64[:, :], D: f64[:, :]) -> None:
    D[:] = alpha * A @ B @ C + beta * D


@gradc.export
def jacobi_1d(TSTEPS: i64, A: f64[:], B: f64[:]) -> None:
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


@gradc.export
def jacobi_2d(TSTEPS: i64, A: f64[:, :], B: f64[:, :]) -> None:
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (
            A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]
        )
        A[1:-1, 1:-1] = 0.2 * (
            B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]
        )


@gradc.export
def heat_3d(TSTEPS: i64, A: f64[:, :, :], B: f64[:, :, :]) -> None:
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, 0:-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, 0:-2])
            + B[1:-1, 1:-1, 1:-1]
        )


@gradc.export
def seidel_2d(TSTEPS: i64, A: f64[:, :]) -> None:
    N = A.shape[0]
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (
                A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:]
                + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:]
            )  # fmt: skip
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


@gradc.export
def syrk(alpha: f64, beta: f64, C: f64[:, :], A: f64[:, :]) -> None:
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += alpha * A[i, k] * A[: i + 1, k]


@gradc.export
def lu(A0: f64[:, :]) -> f64[:, :]:
    N = A0.shape[0]
    A = A0 + 100.0 * N * np.eye(N)  # diagonally dominant: no pivoting needed
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return A


@gradc.export
def cholesky(M: f64[:, :]) -> f64[:, :]:
    n = M.shape[0]
    A = M @ M.T + n * np.eye(n)  # symmetric positive definite
    if n == 0:
        return A
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    for i in range(n):
        A[i, i + 1 :] = 0.0
    return A


@gradc.export
def doitgen(A: f64[:, :, :], C4: f64[:, :]) -> None:
    for r in range(A.shape[0]):
        A[r] = A[r] @ C4


@gradc.export
def floyd_warshall(path: f64[:, :]) -> None:
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, path[:, k : k + 1] + path[k : k + 1, :])


@gradc.export
def covariance(float_n: f64, data: f64[:, :]) -> f64[:, :]:
    M = data.shape[1]
    mean = np.mean(data, axis=0)
    data = data - mean
    cov = np.zeros((M, M), dtype=np.float64)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


@gradc.export
def correlation(float_n: f64, data: f64[:, :]) -> f64[:, :]:
    M = data.shape[1]
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev = np.where(stddev <= 0.1, 1.0, stddev)  # NPBench: stddev[stddev <= 0.1] = 1.0
    data = (data - mean) / (np.sqrt(float_n) * stddev)
    corr = np.eye(M, dtype=np.float64)
    for i in range(M - 1):
        corr[i + 1 : M, i] = corr[i, i + 1 : M] = data[:, i] @ data[:, i + 1 : M]
    return corr
