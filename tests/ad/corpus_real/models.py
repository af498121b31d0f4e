"""Real numeric Python differentiated, second round of issue 11's new-user trial (the same
functions as tests/codegen/corpus_real/autodiff.py, npbench.py, signals.py,
numerics.py, numba_style.py, sklearn_style.py and idioms_more.py; results that are arrays
there are reduced here as a user differentiates them): autograd-style models (L2
logistic regression, a tanh network's log posterior, an RNN, a Gaussian mixture, a
neural ODE, Black-Scholes through ``math.erf``, a Gaussian-process marginal likelihood
through ``np.linalg.solve``/``det``, hinge, Huber and Poisson losses, batch and layer
norm, attention), NPBench's Levinson-Durbin with ``np.flip``, a triangular solve,
Deriche's filter, the cavity-flow source term, SciPy's Rosenbrock, a windowed power
spectrum, an exponential moving average, a biquad filter, the RBF kernel, a log-loss,
Simpson's rule, ``np.logaddexp``, ``np.trapezoid``, ``np.convolve``, ``np.polyval``/``np.tile``/``np.repeat``,
and NumPy's operator ufuncs called as functions.

Compiling their derivatives takes seconds each: tests/ad/test_ad_real.py marks this
module slow. Written for gradc's tests, never copied.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "l2_logreg": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "logaddexp_logreg": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "tanh_log_posterior": {
        "W1": (2, 2),
        "b1": (2,),
        "W2": (2, 2),
        "b2": (2,),
        "inputs": (2, 2),
        "targets": (2, 2),
    },
    "rnn_loss": {"Wx": (2, 2), "Wh": (2, 2), "b": (2,), "xs": ("t", 2)},
    "gmm_loglik": {"x": ("n",), "log_weights": ("k",), "means": ("k",), "log_stds": ("k",)},
    "neural_ode_total": {"y0": (2,), "W": (2, 2), "b": (2,)},
    "gp_nll": {"X": ("n", 2), "y": ("n",)},
    "svm_loss": {"w": (2,), "X": ("n", 2), "y": ("n",)},
    "huber": {"residual": ("n",)},
    "poisson_nll": {"w": (2,), "X": ("n", 2), "counts": ("n",)},
    "batchnorm_energy": {"x": ("n", 2), "gamma": (2,), "beta": (2,)},
    "layernorm_energy": {"x": (2, "d"), "gamma": ("d",), "beta": ("d",)},
    "attention_energy": {"Q": (2, 2), "K": ("m", 2), "V": ("m", 2)},
    "durbin_total": {"r": ("n",)},
    "trisolv_total": {"L": ("n", "n"), "b": ("n",)},
    "deriche_total": {"imgIn": (3, 3)},
    "build_up_b_total": {"u": (3, 4), "v": (3, 4)},
    "rosen": {"x": ("n",)},
    "power_spectrum_total": {"x": ("n",)},
    "ema_total": {"x": ("n",)},
    "biquad_total": {"x": ("n",), "b": (3,), "a": (3,)},
    "rbf_kernel_total": {"X": ("n", 2), "Y": ("m", 2)},
    "log_loss": {"y_true": ("n",), "y_prob": ("n",)},
    "ufunc_functions_energy": {"a": ("n",), "b": ("n",)},
    "trapezoid_area": {"y": ("n",), "x": ("n",)},
    "convolve_energy": {"x": ("n",), "k": ("m",)},
    "poly_tile_energy": {"x": ("n",)},
}

DIMS = {
    "l2_logreg": {"d": (1, 3), "n": (1, 3)},
    "logaddexp_logreg": {"d": (1, 3), "n": (1, 3)},
    "rnn_loss": {"t": (1, 3)},
    "gmm_loglik": {"n": (1, 3), "k": (1, 3)},
    "gp_nll": {"n": (1, 3)},
    "svm_loss": {"n": (1, 3)},
    "huber": {"n": (1, 4)},
    "poisson_nll": {"n": (1, 3)},
    "batchnorm_energy": {"n": (2, 3)},
    "layernorm_energy": {"d": (2, 3)},
    "attention_energy": {"m": (1, 3)},
    "durbin_total": {"n": (1, 4)},
    "trisolv_total": {"n": (1, 3)},
    "rosen": {"n": (2, 4)},
    "power_spectrum_total": {"n": (2, 5)},
    "ema_total": {"n": (1, 4)},
    "biquad_total": {"n": (1, 4)},
    "rbf_kernel_total": {"n": (1, 3), "m": (1, 3)},
    "log_loss": {"n": (1, 4)},
    "ufunc_functions_energy": {"n": (1, 4)},
    "trapezoid_area": {"n": (1, 4)},
    "convolve_energy": {"n": (1, 4), "m": (1, 3)},
    "poly_tile_energy": {"n": (1, 4)},
}

DOMAINS = {
    "gmm_loglik": {"log_stds": (-1.0, 1.0)},
    "neural_ode_total": {"dt": (0.01, 0.2), "steps": (0, 3)},
    "bs_call": {
        "S": (5.0, 50.0),
        "K": (5.0, 50.0),
        "T": (0.1, 2.0),
        "r": (0.0, 0.1),
        "sigma": (0.05, 0.5),
    },
    "gp_nll": {"log_ls": (-1.0, 1.0), "log_var": (-1.0, 1.0), "noise": (0.1, 1.0)},
    "huber": {"delta": (0.1, 2.0)},
    "poisson_nll": {"w": (-1.0, 1.0), "X": (-1.0, 1.0), "counts": (0.0, 5.0)},
    "batchnorm_energy": {"eps": (1e-3, 1e-1)},
    "layernorm_energy": {"eps": (1e-3, 1e-1)},
    "durbin_total": {"r": (-0.2, 0.2)},
    "trisolv_total": {"L": (1.0, 2.0)},
    "deriche_total": {"alpha": (0.1, 1.0), "imgIn": (0.0, 1.0)},
    "build_up_b_total": {"rho": (0.5, 2.0), "dt": (0.05, 0.2), "dx": (0.2, 1.0), "dy": (0.2, 1.0)},
    "ema_total": {"alpha": (0.0, 1.0)},
    "biquad_total": {"a": (0.1, 0.4)},
    "rbf_kernel_total": {"gamma": (0.1, 1.0)},
    "log_loss": {"y_true": (0.0, 1.0), "y_prob": (0.05, 0.95)},
    "simpson": {"a": (-2.0, 0.0), "b": (0.0, 2.0), "n": (2, 12)},
}

KINKS = {
    "svm_loss": lambda w, b, X, y, C: tuple(1.0 - y * (X @ w + b)),
    "huber": lambda residual, delta: tuple(np.abs(residual) - delta),
}

L2_VAR = 0.1


@gradc.export
def l2_logreg(w: f64[:], X: f64[:, :], y: f64[:], lam: f64) -> f64:
    margins = y * (X @ w)
    return np.sum(np.log1p(np.exp(-margins))) + 0.5 * lam * np.dot(w, w)


@gradc.export
def logaddexp_logreg(w: f64[:], X: f64[:, :], y: f64[:]) -> f64:
    return np.sum(np.logaddexp(0.0, -y * (X @ w))) + np.logaddexp(w[0], 0.5)


def logsumexp_rows(x):
    m = x.max(axis=1, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))


@gradc.export
def tanh_log_posterior(
    W1: f64[:, :], b1: f64[:], W2: f64[:, :], b2: f64[:], inputs: f64[:, :], targets: f64[:, :]
) -> f64:
    log_prior = -L2_VAR * (np.sum(W1**2) + np.sum(b1**2) + np.sum(W2**2) + np.sum(b2**2))
    outputs = np.tanh(np.dot(inputs, W1) + b1)
    outputs = np.dot(outputs, W2) + b2
    return log_prior + np.sum((outputs - logsumexp_rows(outputs)) * targets)


@gradc.export
def rnn_loss(Wx: f64[:, :], Wh: f64[:, :], b: f64[:], xs: f64[:, :]) -> f64:
    h = np.zeros(Wh.shape[0])
    loss = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
        loss += np.sum(h**2)
    return loss


@gradc.export
def gmm_loglik(x: f64[:], log_weights: f64[:], means: f64[:], log_stds: f64[:]) -> f64:
    w = np.exp(log_weights - np.max(log_weights))
    w = w / np.sum(w)
    z = (x[:, None] - means[None, :]) / np.exp(log_stds)[None, :]
    log_comp = -0.5 * z**2 - log_stds - 0.5 * np.log(2 * np.pi) + np.log(w)
    m = np.max(log_comp, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(log_comp - m), axis=1)))


@gradc.export
def neural_ode_total(y0: f64[:], W: f64[:, :], b: f64[:], dt: f64, steps: i64) -> f64:
    y = y0.copy()
    for _ in range(steps):
        y = y + dt * np.tanh(y @ W + b)
    return np.sum(y * y)


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@gradc.export
def bs_call(S: f64, K: f64, T: f64, r: f64, sigma: f64) -> f64:
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


@gradc.export
def gp_nll(X: f64[:, :], y: f64[:], log_ls: f64, log_var: f64, noise: f64) -> f64:
    sq = np.sum(X**2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = np.exp(log_var) * np.exp(-0.5 * d2 / np.exp(log_ls) ** 2) + noise * np.eye(X.shape[0])
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + 0.5 * np.log(np.linalg.det(K))


@gradc.export
def svm_loss(w: f64[:], b: f64, X: f64[:, :], y: f64[:], C: f64) -> f64:
    margins = 1.0 - y * (X @ w + b)
    return 0.5 * w @ w + C * np.sum(np.maximum(0.0, margins))


@gradc.export
def huber(residual: f64[:], delta: f64) -> f64:
    a = np.abs(residual)
    return np.sum(np.where(a <= delta, 0.5 * residual**2, delta * (a - 0.5 * delta)))


@gradc.export
def poisson_nll(w: f64[:], X: f64[:, :], counts: f64[:]) -> f64:
    eta = X @ w
    return np.sum(np.exp(eta) - counts * eta)


@gradc.export
def batchnorm_energy(x: f64[:, :], gamma: f64[:], beta: f64[:], eps: f64) -> f64:
    xhat = (x - np.mean(x, axis=0)) / np.sqrt(np.var(x, axis=0) + eps)
    out = gamma * xhat + beta
    return np.sum(out * out)


@gradc.export
def layernorm_energy(x: f64[:, :], gamma: f64[:], beta: f64[:], eps: f64) -> f64:
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    out = gamma * (x - mu) / np.sqrt(var + eps) + beta
    return np.sum(out**2)


@gradc.export
def attention_energy(Q: f64[:, :], K: f64[:, :], V: f64[:, :]) -> f64:
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)
    return np.sum((w @ V) ** 2)


@gradc.export
def durbin_total(r: f64[:]) -> f64:
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return np.sum(y * y)


@gradc.export
def trisolv_total(L: f64[:, :], b: f64[:]) -> f64:
    x = np.zeros_like(b)
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return np.sum(x * x)


@gradc.export
def deriche_total(alpha: f64, imgIn: f64[:, :]) -> f64:
    k = (1.0 - np.exp(-alpha)) ** 2 / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = k
    a2 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    W = imgIn.shape[1]
    y1 = np.empty_like(imgIn)
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, W):
        y1[:, j] = a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2]
    y2 = np.empty_like(imgIn)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * imgIn[:, -1]
    for j in range(W - 3, -1, -1):
        y2[:, j] = (
            a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] + b1 * y2[:, j + 1] + b2 * y2[:, j + 2]
        )
    out = y1 + y2
    return np.sum(out * out)


@gradc.export
def build_up_b_total(rho: f64, dt: f64, dx: f64, dy: f64, u: f64[:, :], v: f64[:, :]) -> f64:
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = rho * (
        1
        / dt
        * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
        - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
        - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2
    )
    return np.sum(b)


@gradc.export
def rosen(x: f64[:]) -> f64:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


@gradc.export
def power_spectrum_total(x: f64[:]) -> f64:
    N = x.size
    n = np.arange(N)
    w = 0.5 - 0.5 * np.cos(2.0 * np.pi * n / (N - 1))
    xw = x * w
    ang = 2.0 * np.pi * n[:, None] * n[None, :] / N
    re = np.cos(ang) @ xw
    im = -np.sin(ang) @ xw
    return np.sum((re**2 + im**2)[: N // 2 + 1])


@gradc.export
def ema_total(x: f64[:], alpha: f64) -> f64:
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.size):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return np.sum(out * out)


@gradc.export
def biquad_total(x: f64[:], b: f64[:], a: f64[:]) -> f64:
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n, xn in enumerate(x):
        yn = b[0] * xn + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return np.sum(y * y)


@gradc.export
def rbf_kernel_total(X: f64[:, :], Y: f64[:, :], gamma: f64) -> f64:
    d = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-gamma * d))


@gradc.export
def log_loss(y_true: f64[:], y_prob: f64[:]) -> f64:
    p = np.clip(y_prob, 1e-15, 1 - 1e-15)
    return -np.mean(y_true * np.log(p) + (1 - y_true) * np.log(1 - p))


@gradc.export
def simpson(a: f64, b: f64, n: i64) -> f64:
    if n % 2:
        n += 1
    x = np.linspace(a, b, n + 1)
    y = np.exp(-x * x)
    h = (b - a) / n
    return h / 3.0 * (y[0] + y[-1] + 4.0 * y[1:-1:2].sum() + 2.0 * y[2:-1:2].sum())


@gradc.export
def ufunc_functions_energy(a: f64[:], b: f64[:], s: f64) -> f64:
    c = np.subtract(np.multiply(a, b), np.divide(a, 2.0))
    d = np.negative(np.add(c, s))
    return np.sum(np.true_divide(d * d, 3.0))


@gradc.export
def trapezoid_area(y: f64[:], x: f64[:], dx: f64) -> f64:
    return np.trapezoid(y * y, x) + np.trapezoid(np.sin(y), dx=dx)


d_trapezoid_area = gradc.grad(trapezoid_area, wrt=("y", "x", "dx"))
t_trapezoid_area = gradc.jvp(trapezoid_area, wrt=("y", "x", "dx"))
d_l2_logreg = gradc.grad(l2_logreg, wrt=("w", "X", "y", "lam"))
t_l2_logreg = gradc.jvp(l2_logreg, wrt=("w", "X", "y", "lam"))
d_logaddexp_logreg = gradc.grad(logaddexp_logreg, wrt=("w", "X", "y"))
t_logaddexp_logreg = gradc.jvp(logaddexp_logreg, wrt=("w", "X", "y"))
d_tanh_log_posterior = gradc.grad(
    tanh_log_posterior, wrt=("W1", "b1", "W2", "b2", "inputs", "targets")
)
t_tanh_log_posterior = gradc.jvp(
    tanh_log_posterior, wrt=("W1", "b1", "W2", "b2", "inputs", "targets")
)
d_rnn_loss = gradc.grad(rnn_loss, wrt=("Wx", "Wh", "b", "xs"))
t_rnn_loss = gradc.jvp(rnn_loss, wrt=("Wx", "Wh", "b", "xs"))
d_gmm_loglik = gradc.grad(gmm_loglik, wrt=("x", "log_weights", "means", "log_stds"))
t_gmm_loglik = gradc.jvp(gmm_loglik, wrt=("x", "log_weights", "means", "log_stds"))
d_neural_ode_total = gradc.grad(neural_ode_total, wrt=("y0", "W", "b", "dt"))
t_neural_ode_total = gradc.jvp(neural_ode_total, wrt=("y0", "W", "b", "dt"))
d_bs_call = gradc.grad(bs_call, wrt=("S", "K", "T", "r", "sigma"))
t_bs_call = gradc.jvp(bs_call, wrt=("S", "K", "T", "r", "sigma"))
d_gp_nll = gradc.grad(gp_nll, wrt=("X", "y", "log_ls", "log_var", "noise"))
t_gp_nll = gradc.jvp(gp_nll, wrt=("X", "y", "log_ls", "log_var", "noise"))
d_svm_loss = gradc.grad(svm_loss, wrt=("w", "b", "X", "y", "C"))
t_svm_loss = gradc.jvp(svm_loss, wrt=("w", "b", "X", "y", "C"))
d_huber = gradc.grad(huber, wrt=("residual", "delta"))
t_huber = gradc.jvp(huber, wrt=("residual", "delta"))
d_poisson_nll = gradc.grad(poisson_nll, wrt=("w", "X", "counts"))
t_poisson_nll = gradc.jvp(poisson_nll, wrt=("w", "X", "counts"))
d_batchnorm_energy = gradc.grad(batchnorm_energy, wrt=("x", "gamma", "beta", "eps"))
t_batchnorm_energy = gradc.jvp(batchnorm_energy, wrt=("x", "gamma", "beta", "eps"))
d_layernorm_energy = gradc.grad(layernorm_energy, wrt=("x", "gamma", "beta", "eps"))
t_layernorm_energy = gradc.jvp(layernorm_energy, wrt=("x", "gamma", "beta", "eps"))
d_attention_energy = gradc.grad(attention_energy, wrt=("Q", "K", "V"))
t_attention_energy = gradc.jvp(attention_energy, wrt=("Q", "K", "V"))
d_durbin_total = gradc.grad(durbin_total, wrt=("r",))
t_durbin_total = gradc.jvp(durbin_total, wrt=("r",))
d_trisolv_total = gradc.grad(trisolv_total, wrt=("L", "b"))
t_trisolv_total = gradc.jvp(trisolv_total, wrt=("L", "b"))
d_deriche_total = gradc.grad(deriche_total, wrt=("alpha", "imgIn"))
t_deriche_total = gradc.jvp(deriche_total, wrt=("alpha", "imgIn"))
d_build_up_b_total = gradc.grad(build_up_b_total, wrt=("rho", "dt", "dx", "dy", "u", "v"))
t_build_up_b_total = gradc.jvp(build_up_b_total, wrt=("rho", "dt", "dx", "dy", "u", "v"))
d_rosen = gradc.grad(rosen, wrt=("x",))
t_rosen = gradc.jvp(rosen, wrt=("x",))
d_power_spectrum_total = gradc.grad(power_spectrum_total, wrt=("x",))
t_power_spectrum_total = gradc.jvp(power_spectrum_total, wrt=("x",))
d_ema_total = gradc.grad(ema_total, wrt=("x", "alpha"))
t_ema_total = gradc.jvp(ema_total, wrt=("x", "alpha"))
d_biquad_total = gradc.grad(biquad_total, wrt=("x", "b", "a"))
t_biquad_total = gradc.jvp(biquad_total, wrt=("x", "b", "a"))
d_rbf_kernel_total = gradc.grad(rbf_kernel_total, wrt=("X", "Y", "gamma"))
t_rbf_kernel_total = gradc.jvp(rbf_kernel_total, wrt=("X", "Y", "gamma"))
d_log_loss = gradc.grad(log_loss, wrt=("y_true", "y_prob"))
t_log_loss = gradc.jvp(log_loss, wrt=("y_true", "y_prob"))
d_simpson = gradc.grad(simpson, wrt=("a", "b"))
t_simpson = gradc.jvp(simpson, wrt=("a", "b"))
d_ufunc_functions_energy = gradc.grad(ufunc_functions_energy, wrt=("a", "b", "s"))
t_ufunc_functions_energy = gradc.jvp(ufunc_functions_energy, wrt=("a", "b", "s"))


@gradc.export
def convolve_energy(x: f64[:], k: f64[:]) -> f64:
    full = np.convolve(x, k)
    return np.sum(full * full) + np.sum(np.sin(np.convolve(k, x, "same")))


d_convolve_energy = gradc.grad(convolve_energy, wrt=("x", "k"))
t_convolve_energy = gradc.jvp(convolve_energy, wrt=("x", "k"))


@gradc.export
def poly_tile_energy(x: f64[:], s: f64) -> f64:
    y = np.polyval([s, -1.5, 2.0], x)
    return np.sum(np.tile(y, 2) * np.repeat(np.sin(x), 2)) + np.polyval((s, 0.5), s)


d_poly_tile_energy = gradc.grad(poly_tile_energy, wrt=("x", "s"))
t_poly_tile_energy = gradc.jvp(poly_tile_energy, wrt=("x", "s"))
