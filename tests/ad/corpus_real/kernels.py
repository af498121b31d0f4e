"""Real numeric Python differentiated (issue 11's new-user trial; the same functions as
tests/codegen/corpus_real/): autograd-style losses (logistic regression, a tanh layer
with ``@``, softmax cross-entropy through log-sum-exp), dpbench's Black-Scholes,
pairwise distances, nbody's energy, a Jacobi stencil and a gemm objective, NPBench's
softmax and arc distance, standardisation; PolyBench's LU, Cholesky (log-determinant),
Gauss-Seidel, doitgen and covariance on local copies, a moving average by ``np.cumsum``,
``np.var``/``np.cumprod``, reversed and strided views, an in-place heat step, min-max
normalisation, a k-means energy through ``np.argmin`` labels. Functions that return
arrays in the codegen corpus are reduced by ``np.sum`` here, as a user differentiates
them.

Compiling their derivatives takes 3-9 s each: tests/ad/test_ad_real.py marks this
module slow. Written for gradc's tests, never copied.
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "logistic_loss": {"weights": ("d",), "inputs": ("n", "d"), "targets": ("n",)},
    "nn_loss": {"W1": (2, 2), "b1": (2,), "W2": (2, 1), "b2": (1,), "x": (3, 2), "y": (3, 1)},
    "softmax_xent": {"logits": ("n", "c"), "labels": ("n", "c")},
    "black_scholes_total": {"price": ("n",), "strike": ("n",), "t": ("n",)},
    "pairwise_energy": {"X1": ("m", 2), "X2": ("n", 2)},
    "nbody_energy": {"pos": ("n", 3), "vel": ("n", 2), "mass": ("n",)},
    "jacobi_energy": {"A": ("n",)},
    "gemm_energy": {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n")},
    "softmax_entropy": {"x": ("m", "n")},
    "arc_distance_total": {"theta_1": ("n",), "phi_1": ("n",), "theta_2": ("n",), "phi_2": ("n",)},
    "standardize_energy": {"data": ("n",)},
    "lu_energy": {"A0": ("n", "n")},
    "cholesky_logdet": {"M": ("n", "n")},
    "seidel_energy": {"A0": ("n", "n")},
    "moving_avg_energy": {"a": ("n",)},
    "var_cumsum": {"x": ("n",)},
    "doitgen_energy": {"A0": (2, 2, 2), "C4": (2, 2)},
    "reversed_views": {"x": ("n",)},
    "heat_inplace_energy": {"u0": ("n",)},
    "softmax_rows_none": {"x": (2, 3)},
    "covariance_energy": {"data0": (3, 2)},
    "minmax_norm_energy": {"data": ("n",)},
    "kmeans_energy": {"X": (3, 2), "C": (2, 2)},
}

DIMS = {
    "logistic_loss": {"d": (1, 3), "n": (1, 3)},
    "softmax_xent": {"n": (1, 2), "c": (1, 3)},
    "black_scholes_total": {"n": (1, 3)},
    "pairwise_energy": {"m": (1, 3), "n": (1, 3)},
    "nbody_energy": {"n": (2, 2)},
    "jacobi_energy": {"n": (3, 6)},
    "gemm_energy": {"m": (1, 2), "k": (1, 3), "n": (1, 2)},
    "softmax_entropy": {"m": (1, 2), "n": (1, 3)},
    "arc_distance_total": {"n": (1, 2)},
    "standardize_energy": {"n": (2, 5)},
    "lu_energy": {"n": (1, 3)},
    "cholesky_logdet": {"n": (1, 3)},
    "seidel_energy": {"n": (3, 3)},
    "moving_avg_energy": {"n": (3, 6)},
    "var_cumsum": {"n": (2, 5)},
    "reversed_views": {"n": (2, 6)},
    "heat_inplace_energy": {"n": (3, 6)},
    "minmax_norm_energy": {"n": (2, 5)},
}

DOMAINS = {
    "logistic_loss": {"weights": (-1.0, 1.0), "inputs": (-1.0, 1.0), "targets": (0.1, 0.9)},
    "black_scholes_total": {
        "price": (5.0, 20.0),
        "strike": (5.0, 20.0),
        "t": (0.2, 2.0),
        "rate": (0.01, 0.1),
        "vol": (0.1, 0.5),
    },
    "nbody_energy": {"mass": (0.5, 2.0)},
    "jacobi_energy": {"steps": (0, 3)},
    "arc_distance_total": {
        "theta_1": (-1.0, 1.0),
        "phi_1": (-1.0, 1.0),
        "theta_2": (-1.0, 1.0),
        "phi_2": (-1.0, 1.0),
    },
    "heat_inplace_energy": {"r": (0.1, 0.4)},
}

KINKS = {
    "pairwise_energy": lambda X1, X2: _pair_gaps(X1, X2),
    "nbody_energy": lambda pos, vel, mass: (np.sum((pos[1] - pos[0]) ** 2),),
    "standardize_energy": lambda data: (np.std(data),),
    "arc_distance_total": lambda theta_1, phi_1, theta_2, phi_2: _arc_temps(
        theta_1, phi_1, theta_2, phi_2
    ),
    "minmax_norm_energy": lambda data: _mm(data),
    "var_cumsum": lambda x: (np.std(x),),  # np.std at a constant x: sqrt at 0
    "kmeans_energy": lambda X, C: _km(X, C),
}


def _arc_temps(theta_1, phi_1, theta_2, phi_2):
    temp = (
        np.sin((theta_2 - theta_1) / 2) ** 2
        + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    )
    return (*temp, *(1 - temp))


def _gaps(v):
    s = np.sort(v)
    return tuple(s[-1] - s[:-1])


def _pair_gaps(X1, X2):
    D = -2.0 * X1 @ X2.T + np.sum(X1 * X1, axis=1)[:, None] + np.sum(X2 * X2, axis=1)[None, :]
    return tuple(D.ravel())


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


@gradc.export
def logistic_loss(weights: f64[:], inputs: f64[:, :], targets: f64[:]) -> f64:
    preds = sigmoid(inputs @ weights)
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities))


@gradc.export
def nn_loss(
    W1: f64[:, :], b1: f64[:], W2: f64[:, :], b2: f64[:], x: f64[:, :], y: f64[:, :]
) -> f64:
    h = np.tanh(x @ W1 + b1)
    pred = h @ W2 + b2
    return np.mean((pred - y) ** 2)


def logsumexp(x):
    m = np.max(x, axis=1, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))


@gradc.export
def softmax_xent(logits: f64[:, :], labels: f64[:, :]) -> f64:
    return -np.mean(np.sum(labels * (logits - logsumexp(logits)), axis=1))


@gradc.export
def black_scholes_total(price: f64[:], strike: f64[:], t: f64[:], rate: f64, vol: f64) -> f64:
    a = np.log(price / strike)
    b = -rate * t
    z = t * vol * vol * 2
    c = 0.25 * z
    y = 1.0 / np.sqrt(z)
    d1 = 0.5 + 0.5 * np.tanh((a - b + c) * y * 0.7978845608)
    d2 = 0.5 + 0.5 * np.tanh((a - b - c) * y * 0.7978845608)
    return np.sum(price * d1 - np.exp(b) * strike * d2)


@gradc.export
def pairwise_energy(X1: f64[:, :], X2: f64[:, :]) -> f64:
    sqX = np.sum(X1 * X1, axis=1)
    sqY = np.sum(X2 * X2, axis=1)
    D = -2.0 * X1 @ X2.T + sqX[:, np.newaxis] + sqY[np.newaxis, :]
    return np.sum(np.sqrt(D))


@gradc.export
def nbody_energy(pos: f64[:, :], vel: f64[:, :], mass: f64[:]) -> f64:
    e = 0.5 * np.sum(mass * np.sum(vel**2, axis=1))
    n = len(mass)
    for i in range(n):
        d = pos[i + 1 :] - pos[i]
        r = np.sqrt(np.sum(d * d, axis=1))
        e -= np.sum(mass[i] * mass[i + 1 :] / r)
    return e


@gradc.export
def jacobi_energy(A: f64[:], steps: i64) -> f64:
    A = A.copy()
    B = np.zeros_like(A)
    for t in range(steps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return np.sum(A * A)


@gradc.export
def gemm_energy(alpha: f64, beta: f64, A: f64[:, :], B: f64[:, :], C: f64[:, :]) -> f64:
    D = alpha * A @ B + beta * C
    return np.sum(D * D)


@gradc.export
def softmax_entropy(x: f64[:, :]) -> f64:
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    p = tmp_out / np.sum(tmp_out, axis=-1, keepdims=True)
    return -np.sum(p * np.log(p))


@gradc.export
def arc_distance_total(theta_1: f64[:], phi_1: f64[:], theta_2: f64[:], phi_2: f64[:]) -> f64:
    temp = (
        np.sin((theta_2 - theta_1) / 2) ** 2
        + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    )
    return np.sum(2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))


@gradc.export
def standardize_energy(data: f64[:]) -> f64:
    z = (data - np.mean(data)) / np.std(data)
    return np.sum(z * z * z)


def _mm(data):
    s = np.sort(data)
    return (s[1] - s[0], s[-1] - s[-2])


def _km(X, C):
    d = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
    return tuple(d[:, 0] - d[:, 1])


@gradc.export
def lu_energy(A0: f64[:, :]) -> f64:
    N = A0.shape[0]
    A = A0 + 10.0 * np.eye(N)
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return np.sum(A * A)


@gradc.export
def cholesky_logdet(M: f64[:, :]) -> f64:
    n = M.shape[0]
    A = M @ M.T + n * np.eye(n)
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    s = 0.0
    for i in range(n):
        s += 2.0 * np.log(A[i, i])
    return s


@gradc.export
def seidel_energy(A0: f64[:, :]) -> f64:
    A = A0.copy()
    N = A.shape[0]
    for i in range(1, N - 1):
        A[i, 1:-1] += A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:]
        for j in range(1, N - 1):
            A[i, j] += A[i, j - 1]
            A[i, j] /= 9.0
    return np.sum(A**2)


@gradc.export
def moving_avg_energy(a: f64[:]) -> f64:
    n = 2
    ret = np.cumsum(a)
    ret[n:] = ret[n:] - ret[:-n]
    m = ret[n - 1 :] / n
    return np.sum(m * m * m)


@gradc.export
def var_cumsum(x: f64[:]) -> f64:
    return np.var(x, ddof=1) + np.std(x) * np.cumsum(x)[-1] + np.cumprod(x)[-1]


@gradc.export
def doitgen_energy(A0: f64[:, :, :], C4: f64[:, :]) -> f64:
    A = A0.copy()
    for r in range(A.shape[0]):
        A[r] = A[r] @ C4
    return np.sum(np.sin(A))


@gradc.export
def reversed_views(x: f64[:]) -> f64:
    y = x[::-1] * x[::2].sum() + x[1::2].prod()
    return np.sum(y[::-2] ** 3)


@gradc.export
def heat_inplace_energy(u0: f64[:], r: f64) -> f64:
    u = u0.copy()
    for t in range(3):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u * u)


@gradc.export
def softmax_rows_none(x: f64[:, :]) -> f64:
    e = np.exp(x - x.max(axis=1)[:, None])
    p = e / e.sum(axis=1)[:, None]
    return np.sum(p * np.arange(3.0))


@gradc.export
def covariance_energy(data0: f64[:, :]) -> f64:
    data = data0 - np.mean(data0, axis=0)
    M = data.shape[1]
    cov = np.zeros((M, M))
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / 2.0
    return np.sum(cov * cov)


@gradc.export
def minmax_norm_energy(data: f64[:]) -> f64:
    z = (data - data.min()) / (data.max() - data.min())
    return np.sum(np.exp(z) * data)


@gradc.export
def kmeans_energy(X: f64[:, :], C: f64[:, :]) -> f64:
    dist = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
    labels = np.argmin(dist, axis=1)
    e = 0.0
    for i in range(X.shape[0]):
        e += np.sum((X[i] - C[labels[i]]) ** 2)
    return e


d_logistic_loss = gradc.grad(logistic_loss, wrt=("weights", "inputs", "targets"))

t_logistic_loss = gradc.jvp(logistic_loss, wrt=("weights", "inputs", "targets"))

d_nn_loss = gradc.grad(nn_loss, wrt=("W1", "b1", "W2", "b2", "x", "y"))

t_nn_loss = gradc.jvp(nn_loss, wrt=("W1", "b1", "W2", "b2", "x", "y"))

d_softmax_xent = gradc.grad(softmax_xent, wrt=("logits", "labels"))

t_softmax_xent = gradc.jvp(softmax_xent, wrt=("logits", "labels"))

d_black_scholes_total = gradc.grad(black_scholes_total, wrt=("price", "strike", "t", "rate", "vol"))

t_black_scholes_total = gradc.jvp(black_scholes_total, wrt=("price", "strike", "t", "rate", "vol"))

d_pairwise_energy = gradc.grad(pairwise_energy, wrt=("X1", "X2"))

t_pairwise_energy = gradc.jvp(pairwise_energy, wrt=("X1", "X2"))

d_nbody_energy = gradc.grad(nbody_energy, wrt=("pos", "vel", "mass"))

t_nbody_energy = gradc.jvp(nbody_energy, wrt=("pos", "vel", "mass"))

d_jacobi_energy = gradc.grad(jacobi_energy, wrt=("A",))

t_jacobi_energy = gradc.jvp(jacobi_energy, wrt=("A",))

d_gemm_energy = gradc.grad(gemm_energy, wrt=("alpha", "beta", "A", "B", "C"))

t_gemm_energy = gradc.jvp(gemm_energy, wrt=("alpha", "beta", "A", "B", "C"))

d_softmax_entropy = gradc.grad(softmax_entropy, wrt=("x",))

t_softmax_entropy = gradc.jvp(softmax_entropy, wrt=("x",))

d_arc_distance_total = gradc.grad(arc_distance_total, wrt=("theta_1", "phi_1", "theta_2", "phi_2"))

t_arc_distance_total = gradc.jvp(arc_distance_total, wrt=("theta_1", "phi_1", "theta_2", "phi_2"))

d_standardize_energy = gradc.grad(standardize_energy, wrt=("data",))

t_standardize_energy = gradc.jvp(standardize_energy, wrt=("data",))
d_lu_energy = gradc.grad(lu_energy, wrt=("A0",))
t_lu_energy = gradc.jvp(lu_energy, wrt=("A0",))
d_cholesky_logdet = gradc.grad(cholesky_logdet, wrt=("M",))
t_cholesky_logdet = gradc.jvp(cholesky_logdet, wrt=("M",))
d_seidel_energy = gradc.grad(seidel_energy, wrt=("A0",))
t_seidel_energy = gradc.jvp(seidel_energy, wrt=("A0",))
d_moving_avg_energy = gradc.grad(moving_avg_energy, wrt=("a",))
t_moving_avg_energy = gradc.jvp(moving_avg_energy, wrt=("a",))
d_var_cumsum = gradc.grad(var_cumsum, wrt=("x",))
t_var_cumsum = gradc.jvp(var_cumsum, wrt=("x",))
d_doitgen_energy = gradc.grad(doitgen_energy, wrt=("A0", "C4"))
t_doitgen_energy = gradc.jvp(doitgen_energy, wrt=("A0", "C4"))
d_reversed_views = gradc.grad(reversed_views, wrt=("x",))
t_reversed_views = gradc.jvp(reversed_views, wrt=("x",))
d_heat_inplace_energy = gradc.grad(heat_inplace_energy, wrt=("u0", "r"))
t_heat_inplace_energy = gradc.jvp(heat_inplace_energy, wrt=("u0", "r"))
d_softmax_rows_none = gradc.grad(softmax_rows_none, wrt=("x",))
t_softmax_rows_none = gradc.jvp(softmax_rows_none, wrt=("x",))
d_covariance_energy = gradc.grad(covariance_energy, wrt=("data0",))
t_covariance_energy = gradc.jvp(covariance_energy, wrt=("data0",))
d_minmax_norm_energy = gradc.grad(minmax_norm_energy, wrt=("data",))
t_minmax_norm_energy = gradc.jvp(minmax_norm_energy, wrt=("data",))
d_kmeans_energy = gradc.grad(kmeans_energy, wrt=("X", "C"))
t_kmeans_energy = gradc.jvp(kmeans_energy, wrt=("X", "C"))
