"""Models in the style of autograd's examples and of small NumPy ML code: an L2-penalised
logistic regression, a tanh network's log posterior with log-softmax outputs, a
recurrent network unrolled over time, a Gaussian mixture's log-likelihood, a neural ODE
by Euler steps, Black-Scholes through ``math.erf``, a Gaussian-process negative log
marginal likelihood, SVM hinge, Huber and Poisson losses, an Adam update in place,
batch and layer normalisation, scaled dot-product attention.

Written for gradc's differential tests (never copied from those projects).
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

L2_VAR = 0.1

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "l2_logreg": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "tanh_log_posterior": {
        "W1": ("d", "h"),
        "b1": ("h",),
        "W2": ("h", "c"),
        "b2": ("c",),
        "inputs": ("n", "d"),
        "targets": ("n", "c"),
    },
    "rnn_loss": {"Wx": ("d", "h"), "Wh": ("h", "h"), "b": ("h",), "xs": ("t", "d")},
    "gmm_loglik": {"x": ("n",), "log_weights": ("k",), "means": ("k",), "log_stds": ("k",)},
    "neural_ode": {"y0": ("d",), "W": ("d", "d"), "b": ("d",)},
    "gp_nll": {"X": ("n", "d"), "y": ("n",)},
    "svm_loss": {"w": ("d",), "X": ("n", "d"), "y": ("n",)},
    "huber": {"residual": ("n",)},
    "poisson_nll": {"w": ("d",), "X": ("n", "d"), "counts": ("n",)},
    "adam_update": {"params": ("n",), "grads": ("n",), "m": ("n",), "v": ("n",)},
    "batchnorm": {"x": ("n", "d"), "gamma": ("d",), "beta": ("d",)},
    "layernorm": {"x": ("n", "d"), "gamma": ("d",), "beta": ("d",)},
    "attention": {"Q": ("n", "d"), "K": ("m", "d"), "V": ("m", "e")},
}

DIMS = {
    "tanh_log_posterior": {"c": (1, 4)},
    "gmm_loglik": {"k": (1, 4)},
    "gp_nll": {"n": (1, 5)},
    "attention": {"m": (1, 5), "d": (1, 4)},
    "layernorm": {"d": (1, 5)},
}

ELEMENTS = {
    "gmm_loglik": {"log_stds": (-1.0, 1.0)},
    "neural_ode": {"W": (-1.0, 1.0)},
    "gp_nll": {"X": (-2.0, 2.0)},
    "poisson_nll": {"w": (-1.0, 1.0), "X": (-1.0, 1.0), "counts": (0.0, 10.0)},
    "l2_logreg": {"y": (-1.0, 1.0)},
}

DOMAINS = {
    "neural_ode": {"dt": (0.01, 0.2), "steps": (0, 4)},
    "bs_call": {"S": (5.0, 50.0), "K": (5.0, 50.0), "T": (0.1, 2.0), "r": (0.0, 0.1)},
    "gp_nll": {"log_ls": (-1.0, 1.0), "log_var": (-1.0, 1.0), "noise": (0.1, 1.0)},
    "huber": {"delta": (0.1, 5.0)},
    "adam_update": {"t": (0, 5)},
    "batchnorm": {"eps": (1e-5, 1e-3)},
    "layernorm": {"eps": (1e-5, 1e-3)},
}
DOMAINS["bs_call"]["sigma"] = (0.05, 0.5)

RAISES = {}

MUTATES = {"adam_update": ("params", "m", "v")}

ULP = {"bs_call"}

SUMMED = {"l2_logreg", "tanh_log_posterior", "rnn_loss", "gmm_loglik", "neural_ode", "gp_nll"}
SUMMED |= {"svm_loss", "huber", "poisson_nll", "batchnorm", "layernorm", "attention"}
SUMMED |= {"adam_update"}


@gradc.export
def l2_logreg(w: f64[:], X: f64[:, :], y: f64[:], lam: f64) -> f64:
    margins = y * (X @ w)
    return np.sum(np.log1p(np.exp(-margins))) + 0.5 * lam * np.dot(w, w)


def logsumexp_rows(x):
    m = x.max(axis=1, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))


def neural_net_predict(W1, b1, W2, b2, inputs):
    outputs = np.dot(inputs, W1) + b1
    inputs = np.tanh(outputs)
    outputs = np.dot(inputs, W2) + b2
    return outputs - logsumexp_rows(outputs)


@gradc.export
def tanh_log_posterior(
    W1: f64[:, :], b1: f64[:], W2: f64[:, :], b2: f64[:], inputs: f64[:, :], targets: f64[:, :]
) -> f64:
    log_prior = -L2_VAR * (np.sum(W1**2) + np.sum(b1**2) + np.sum(W2**2) + np.sum(b2**2))
    log_lik = np.sum(neural_net_predict(W1, b1, W2, b2, inputs) * targets)
    return log_prior + log_lik


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


def ode_func(y, W, b):
    return np.tanh(y @ W + b)


@gradc.export
def neural_ode(y0: f64[:], W: f64[:, :], b: f64[:], dt: f64, steps: i64) -> f64[:]:
    y = y0.copy()
    for _ in range(steps):
        y = y + dt * ode_func(y, W, b)
    return y


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@gradc.export
def bs_call(S: f64, K: f64, T: f64, r: f64, sigma: f64) -> f64:
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def rbf_kernel(X, lengthscale, variance):
    sq = np.sum(X**2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    return variance * np.exp(-0.5 * d2 / lengthscale**2)


@gradc.export
def gp_nll(X: f64[:, :], y: f64[:], log_ls: f64, log_var: f64, noise: f64) -> f64:
    K = rbf_kernel(X, np.exp(log_ls), np.exp(log_var)) + noise * np.eye(X.shape[0])
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + 0.5 * np.log(np.linalg.det(K)) + 0.5 * len(y) * np.log(2 * np.pi)


@gradc.export
def svm_loss(w: f64[:], b: f64, X: f64[:, :], y: f64[:], C: f64 = 1.0) -> f64:
    margins = 1.0 - y * (X @ w + b)
    return 0.5 * w @ w + C * np.sum(np.maximum(0.0, margins))


@gradc.export
def huber(residual: f64[:], delta: f64 = 1.0) -> f64:
    a = np.abs(residual)
    return np.sum(np.where(a <= delta, 0.5 * residual**2, delta * (a - 0.5 * delta)))


@gradc.export
def poisson_nll(w: f64[:], X: f64[:, :], counts: f64[:]) -> f64:
    eta = X @ w
    return np.sum(np.exp(eta) - counts * eta)


@gradc.export
def adam_update(
    params: f64[:],
    grads: f64[:],
    m: f64[:],
    v: f64[:],
    t: i64,
    lr: f64 = 1e-3,
    b1: f64 = 0.9,
    b2: f64 = 0.999,
    eps: f64 = 1e-8,
) -> None:
    m[:] = b1 * m + (1 - b1) * grads
    v[:] = b2 * v + (1 - b2) * grads**2
    mhat = m / (1 - b1 ** (t + 1))
    vhat = v / (1 - b2 ** (t + 1))
    params -= lr * mhat / (np.sqrt(vhat) + eps)


@gradc.export
def batchnorm(x: f64[:, :], gamma: f64[:], beta: f64[:], eps: f64 = 1e-5) -> f64[:, :]:
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    return gamma * xhat + beta


@gradc.export
def layernorm(x: f64[:, :], gamma: f64[:], beta: f64[:], eps: f64 = 1e-5) -> f64[:, :]:
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


@gradc.export
def attention(Q: f64[:, :], K: f64[:, :], V: f64[:, :]) -> f64[:, :]:
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    scores = scores - scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)
    return w @ V
