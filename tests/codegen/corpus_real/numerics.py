"""Numerical methods in the style of TheAlgorithms and pyperformance: Newton-Raphson and
the secant method with the function passed to a helper, bisection, Simpson's and the
trapezoidal rule on ``np.linspace``, Runge-Kutta 4 and Heun steps of an ODE, Fibonacci
by integer matrix powers, Gaussian elimination with partial pivoting, power iteration,
the Jacobi iteration, a determinant by elimination, the sieve of Eratosthenes, Pascal's
triangle, a Householder QR, Doolittle's LU, pyperformance's spectral norm.

Written for gradc's differential tests (never copied from those projects).
"""

import numpy as np

import gradc
from gradc import f64, i64

TOLERANCE = 1e-12

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "gaussian_elimination": {"A0": ("n", "n"), "b0": ("n",)},
    "power_iteration": {"A0": ("n", "n"), "v0": ("n",)},
    "jacobi_iteration": {"A0": ("n", "n"), "b": ("n",)},
    "determinant": {"A0": ("n", "n")},
    "qr_householder": {"A": ("m", "n")},
    "lu_doolittle": {"table": ("n", "m")},
}

DIMS = {
    "gaussian_elimination": {"n": (1, 5)},
    "power_iteration": {"n": (1, 5)},
    "qr_householder": {"m": (1, 5), "n": (1, 4)},
}

ELEMENTS = {"power_iteration": {"v0": (1.0, 2.0)}}

DOMAINS = {
    "newton": {"max_iter": (0, 60)},
    "secant": {"x0": (1.0, 3.0), "x1": (3.5, 5.0)},
    "bisection": {"a": (-10.0, 3.0), "b": (3.5, 10.0)},
    "simpson": {"a": (-3.0, 0.0), "b": (0.0, 3.0), "n": (1, 40)},
    "trapezoid": {"n": (2, 40)},
    "rk4": {"h": (0.05, 1.0), "x_end": (0.0, 3.0)},
    "heun": {"h": (0.05, 1.0), "x_end": (0.0, 3.0)},
    "fib_matrix": {"n": (0, 60)},
    "jacobi_iteration": {"iterations": (0, 6)},
    "sieve": {"n": (0, 60)},
    "pascal": {"rows": (0, 12)},
    "spectral_norm": {"n": (1, 8), "iters": (1, 4)},
}

RAISES = {
    "newton": "ZeroDivisionError",  # f'(x) == 0
    "bisection": "ValueError",
    "gaussian_elimination": "ValueError",
    "lu_doolittle": "ValueError",
}

MUTATES = {}

ULP = {"rk4", "heun", "bisection", "newton", "secant"}

SUMMED = {"simpson", "trapezoid", "gaussian_elimination", "power_iteration"}
SUMMED |= {"jacobi_iteration", "determinant", "qr_householder", "lu_doolittle", "spectral_norm"}


def f_poly(x):
    return x * x * x - 2.0 * x - 5.0


def df_poly(x):
    return 3.0 * x * x - 2.0


def newton_raphson(f, df, x0, tol, max_iter):
    x = x0
    for _ in range(max_iter):
        step = f(x) / df(x)
        x -= step
        if abs(step) < tol:
            break
    return x


@gradc.export
def newton(x0: f64, max_iter: i64 = 50) -> f64:
    return newton_raphson(f_poly, df_poly, x0, TOLERANCE, max_iter)


def secant_method(f, x0, x1, iterations):
    for _ in range(iterations):
        f0 = f(x0)
        f1 = f(x1)
        if f1 == f0:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
    return x1


@gradc.export
def secant(x0: f64, x1: f64) -> f64:
    return secant_method(f_poly, x0, x1, 30)


def equation(x):
    return 10.0 - x * x


@gradc.export
def bisection(a: f64, b: f64) -> f64:
    if equation(a) * equation(b) >= 0:
        raise ValueError("Wrong space!")
    c = a
    while (b - a) >= 1e-10:
        c = (a + b) / 2
        if equation(c) == 0.0:
            break
        if equation(c) * equation(a) < 0:
            b = c
        else:
            a = c
    return c


@gradc.export
def simpson(a: f64, b: f64, n: i64 = 100) -> f64:
    if n % 2:
        n += 1
    x = np.linspace(a, b, n + 1)
    y = np.exp(-x * x)
    h = (b - a) / n
    return h / 3.0 * (y[0] + y[-1] + 4.0 * y[1:-1:2].sum() + 2.0 * y[2:-1:2].sum())


@gradc.export
def trapezoid(n: i64) -> f64:
    x = np.linspace(0.0, np.pi, n)
    y = np.sin(x) ** 2
    return np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0)


def ode(x, y):
    return -2.0 * x * y + np.cos(x)


def runge_kutta(f, y0, x0, h, x_end):
    n = int(np.ceil((x_end - x0) / h))
    y = np.zeros(n + 1)
    y[0] = y0
    x = x0
    for k in range(n):
        k1 = f(x, y[k])
        k2 = f(x + 0.5 * h, y[k] + 0.5 * h * k1)
        k3 = f(x + 0.5 * h, y[k] + 0.5 * h * k2)
        k4 = f(x + h, y[k] + h * k3)
        y[k + 1] = y[k] + (h / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)
        x += h
    return y


@gradc.export
def rk4(y0: f64, h: f64, x_end: f64) -> f64[:]:
    return runge_kutta(ode, y0, 0.0, h, x_end)


@gradc.export
def heun(y0: f64, h: f64, x_end: f64) -> f64[:]:
    n = int(np.ceil(x_end / h))
    y = np.zeros((n + 1,))
    y[0] = y0
    x = 0.0
    for k in range(n):
        y_pred = y[k] + h * ode(x, y[k])
        y[k + 1] = y[k] + (h / 2) * (ode(x, y[k]) + ode(x + h, y_pred))
        x += h
    return y


@gradc.export
def fib_matrix(n: i64) -> i64:
    result = np.eye(2, dtype=np.int64)
    base = np.array([[1, 1], [1, 0]], dtype=np.int64)
    while n > 0:
        if n & 1:
            result = result @ base
        base = base @ base
        n >>= 1
    return result[0, 1]


@gradc.export
def gaussian_elimination(A0: f64[:, :], b0: f64[:]) -> f64[:]:
    n = A0.shape[0]
    A = np.hstack((A0, b0[:, None]))
    for i in range(n):
        p = i + np.argmax(np.abs(A[i:, i]))
        if p != i:
            tmp = A[i].copy()
            A[i] = A[p]
            A[p] = tmp
        if A[i, i] == 0.0:
            raise ValueError("matrix is singular")
        factors = A[i + 1 :, i] / A[i, i]
        A[i + 1 :] -= factors[:, None] * A[i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (A[i, -1] - A[i, i + 1 : n] @ x[i + 1 :]) / A[i, i]
    return x


@gradc.export
def power_iteration(A0: f64[:, :], v0: f64[:], iterations: i64 = 20) -> tuple[f64, f64[:]]:
    A = A0 + A0.T
    v = v0 / np.linalg.norm(v0)
    lam = 0.0
    for _ in range(iterations):
        w = A @ v
        nrm = np.linalg.norm(w)
        if nrm == 0.0:
            break
        v = w / nrm
        lam = v @ A @ v
    return lam, v


@gradc.export
def jacobi_iteration(A0: f64[:, :], b: f64[:], iterations: i64) -> f64[:]:
    n = A0.shape[0]
    A = A0 + 10.0 * n * np.eye(n)
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros_like(b)
    for _ in range(iterations):
        x = (b - R @ x) / D
    return x


@gradc.export
def determinant(A0: f64[:, :]) -> f64:
    A = A0.copy()
    n = A.shape[0]
    det = 1.0
    for i in range(n):
        p = i + np.argmax(np.abs(A[i:, i]))
        if A[p, i] == 0.0:
            return 0.0
        if p != i:
            tmp = A[i].copy()
            A[i] = A[p]
            A[p] = tmp
            det = -det
        det *= A[i, i]
        A[i + 1 :] -= np.outer(A[i + 1 :, i] / A[i, i], A[i])
    return det


@gradc.export
def sieve(n: i64) -> i64[:]:
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    for i in range(2, int(np.sqrt(n)) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = False
    return np.arange(n + 1)[is_prime]


@gradc.export
def pascal(rows: i64) -> i64[:, :]:
    table = np.zeros((rows, rows), dtype=np.int64)
    for i in range(rows):
        table[i, 0] = 1
        table[i, 1 : i + 1] = table[i - 1, :i] + table[i - 1, 1 : i + 1]
    return table


@gradc.export
def qr_householder(A: f64[:, :]) -> tuple[f64[:, :], f64[:, :]]:
    m, n = A.shape
    t = min(m, n)
    Q = np.eye(m)
    R = A.copy()
    for k in range(t - 1):
        x = R[k:, k : k + 1]
        e1 = np.zeros_like(x)
        e1[0] = 1.0
        alpha = np.linalg.norm(x)
        v = x + np.sign(x[0]) * alpha * e1
        v /= np.linalg.norm(v)
        Q_k = np.eye(m)
        Q_k[k:, k:] -= 2.0 * v @ v.T
        Q = Q @ Q_k.T
        R = Q_k @ R
    return Q, R


@gradc.export
def lu_doolittle(table: f64[:, :]) -> tuple[f64[:, :], f64[:, :]]:
    rows, columns = np.shape(table)
    if rows != columns:
        raise ValueError(
            f"'table' has to be of square shaped array but got a {rows}x{columns} array"
        )
    A = table + 100.0 * rows * np.eye(rows)
    lower = np.zeros((rows, columns))
    upper = np.zeros((rows, columns))
    for i in range(columns):
        for j in range(i):
            total = np.sum(lower[i, :i] * upper[:i, j])
            lower[i][j] = (A[i][j] - total) / upper[j][j]
        lower[i][i] = 1
        for j in range(i, columns):
            total = np.sum(lower[i, :i] * upper[:i, j])
            upper[i][j] = A[i][j] - total
    return lower, upper


def eval_A(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)


def eval_times_u(u):
    n = len(u)
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += eval_A(i, j) * u[j]
        out[i] = s
    return out


def eval_AtA_times_u(u):
    n = len(u)
    v = eval_times_u(u)
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += eval_A(j, i) * v[j]
        out[i] = s
    return out


@gradc.export
def spectral_norm(n: i64, iters: i64) -> f64:
    u = np.ones(n)
    v = u
    for _ in range(iters):
        v = eval_AtA_times_u(u)
        u = eval_AtA_times_u(v)
    return np.sqrt(np.dot(u, v) / np.dot(v, v))
