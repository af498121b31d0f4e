"""Machine-learning code in the style of autograd's examples, Numba's docs and
TheAlgorithms: the issue's gaussian_loss, logistic regression (loss, Numba's gradient
iterations, a linear-regression step), a tanh layer with ``@``, softmax cross-entropy
through log-sum-exp, activations, mean squared error.

Written for gradc's differential tests (never copied from those projects).
"""

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "gaussian_loss": {"x": ("n",), "w": ("m", "n")},
    "logistic_loss": {"weights": ("d",), "inputs": ("n", "d"), "targets": ("n",)},
    "nn_loss": {
        "W1": ("d", "h"),
        "b1": ("h",),
        "W2": ("h", "o"),
        "b2": ("o",),
        "x": ("n", "d"),
        "y": ("n", "o"),
    },
    "softmax_xent": {"logits": ("n", "c"), "labels": ("n", "c")},
    "numba_logreg": {"Y": ("n",), "X": ("n", "d"), "w": ("d",)},
    "linreg_step": {"data_x": ("m", "n"), "data_y": ("m",), "theta": ("n",)},
    "activations": {"vector": ("n",)},
    "mse": {"labels": ("n",), "predictions": ("n",)},
}

DIMS = {
    "gaussian_loss": {"n": (2, 6), "m": (2, 6)},
    "nn_loss": {"n": (1, 6)},
    "softmax_xent": {"n": (1, 6), "c": (1, 6)},
    "linreg_step": {"m": (1, 6)},
    "mse": {"n": (1, 6)},
}

ELEMENTS = {
    "logistic_loss": {"weights": (-1.0, 1.0), "inputs": (-1.0, 1.0), "targets": (0.0, 1.0)},
    "numba_logreg": {"Y": (-1.0, 1.0), "X": (-1.0, 1.0), "w": (-1.0, 1.0)},
}

DOMAINS = {
    "gaussian_loss": {"sigma": (0.5, 3.0)},
    "numba_logreg": {"iterations": (0, 3)},
}

RAISES = {}

MUTATES = {}

ULP = {"activations"}

SUMMED = {"gaussian_loss", "logistic_loss", "nn_loss", "softmax_xent", "numba_logreg"}
SUMMED |= {"linreg_step", "mse"}


@gradc.export
def gaussian_loss(x: f64[:], mu: f64, sigma: f64, w: f64[:, :]) -> f64:
    z = (x - mu) / sigma
    p = np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))
    h = np.tanh(w @ p)
    return np.sum(h[1:] - h[:-1]) + p.max()


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


def logistic_predictions(weights, inputs):
    return sigmoid(inputs @ weights)


@gradc.export
def logistic_loss(weights: f64[:], inputs: f64[:, :], targets: f64[:]) -> f64:
    preds = logistic_predictions(weights, inputs)
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
def numba_logreg(Y: f64[:], X: f64[:, :], w: f64[:], iterations: i64) -> f64[:]:
    w = w.copy()
    for i in range(iterations):
        w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)
    return w


@gradc.export
def linreg_step(data_x: f64[:, :], data_y: f64[:], theta: f64[:], alpha: f64) -> f64[:]:
    len_data = data_x.shape[0]
    prod = np.dot(theta, data_x.transpose())
    prod -= data_y.transpose()
    sum_grad = np.dot(prod, data_x)
    theta = theta - (alpha / len_data) * sum_grad
    return theta


@gradc.export
def activations(vector: f64[:], alpha: f64) -> f64[:]:
    relu = np.maximum(0, vector)
    elu = np.where(vector > 0, vector, alpha * (np.exp(vector) - 1))
    softplus = np.log(1 + np.exp(vector))
    return relu + elu + softplus


@gradc.export
def mse(labels: f64[:], predictions: f64[:]) -> f64:
    return np.sum((labels - predictions) ** 2) / len(labels)
