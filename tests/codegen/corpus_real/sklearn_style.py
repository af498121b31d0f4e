"""Helpers in the style of scikit-learn's utilities and metrics: row norms, squared
Euclidean distances by the ``XX + YY - 2 X Y^T`` expansion, the RBF kernel, min-max and
standard scaling with zero-range columns, degree-2 polynomial features, one-hot labels,
R^2, clipped log-loss, a confusion matrix, accuracy as the mean of a bool array, a
row-wise softmax in place, a stable log-sigmoid, Manhattan distances, a 1-nearest-
neighbour prediction. Numba-style signature strings on some of them.

Written for gradc's differential tests (never copied from scikit-learn).
"""

import numpy as np

import gradc
from gradc import f64, i64

EPS = 1e-15

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "row_norms": {"X": ("n", "d")},
    "euclidean_distances": {"X": ("n", "d"), "Y": ("m", "d")},
    "rbf_kernel": {"X": ("n", "d"), "Y": ("m", "d")},
    "minmax_scale": {"X": ("n", "d")},
    "standard_scale": {"X": ("n", "d")},
    "poly2_features": {"X": ("n", "d")},
    "one_hot": {"labels": ("n",)},
    "r2_score": {"y_true": ("n",), "y_pred": ("n",)},
    "log_loss": {"y_true": ("n",), "y_prob": ("n",)},
    "confusion_matrix": {"y_true": ("n",), "y_pred": ("n",)},
    "accuracy": {"y_true": ("n",), "y_pred": ("n",)},
    "softmax_inplace": {"X": ("n", "d")},
    "log_logistic": {"x": ("n",)},
    "manhattan_distances": {"X": ("n", "d"), "Y": ("m", "d")},
    "nn1_predict": {"X_train": ("m", "d"), "y_train": ("m",), "X": ("n", "d")},
}

DIMS = {
    "softmax_inplace": {"d": (1, 5)},
    "nn1_predict": {"m": (1, 5)},
    "log_loss": {"n": (1, 6)},
}

ELEMENTS = {
    "one_hot": {"labels": (0, 3)},
    "log_loss": {"y_true": (0.0, 1.0), "y_prob": (0.0, 1.0)},
    "confusion_matrix": {"y_true": (0, 2), "y_pred": (0, 2)},
    "accuracy": {"y_true": (0, 2), "y_pred": (0, 2)},
    "nn1_predict": {"y_train": (0, 3)},
}

DOMAINS = {"rbf_kernel": {"gamma": (0.01, 1.0)}, "one_hot": {"n_classes": (4, 5)}}
DOMAINS["confusion_matrix"] = {"n_classes": (3, 4)}

RAISES = {"minmax_scale": "ValueError"}  # X.min(axis=0) of no rows

MUTATES = {"softmax_inplace": ("X",)}

ULP = {"log_logistic", "rbf_kernel"}

SUMMED = {"row_norms", "euclidean_distances", "rbf_kernel", "standard_scale", "r2_score"}
SUMMED |= {"log_loss", "softmax_inplace", "manhattan_distances", "nn1_predict"}


@gradc.export("f64[:](f64[:, :])")
def row_norms(X):
    return np.sqrt((X * X).sum(axis=1))


@gradc.export
def euclidean_distances(X: f64[:, :], Y: f64[:, :]) -> f64[:, :]:
    XX = (X * X).sum(axis=1)[:, np.newaxis]
    YY = (Y * Y).sum(axis=1)[np.newaxis, :]
    distances = -2 * X @ Y.T
    distances += XX
    distances += YY
    distances = np.maximum(distances, 0)
    return np.sqrt(distances)


@gradc.export
def rbf_kernel(X: f64[:, :], Y: f64[:, :], gamma: f64 = 0.5) -> f64[:, :]:
    d = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    return np.exp(-gamma * d)


@gradc.export
def minmax_scale(X: f64[:, :]) -> f64[:, :]:
    data_min = X.min(axis=0)
    data_range = X.max(axis=0) - data_min
    data_range = np.where(data_range == 0.0, 1.0, data_range)
    return (X - data_min) / data_range


@gradc.export
def standard_scale(X: f64[:, :]) -> f64[:, :]:
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0.0] = 1.0
    return (X - mean) / scale


@gradc.export
def poly2_features(X: f64[:, :]) -> f64[:, :]:
    n, d = X.shape
    out = np.empty((n, 1 + d + d * (d + 1) // 2))
    out[:, 0] = 1.0
    out[:, 1 : d + 1] = X
    col = d + 1
    for i in range(d):
        for j in range(i, d):
            out[:, col] = X[:, i] * X[:, j]
            col += 1
    return out


@gradc.export
def one_hot(labels: i64[:], n_classes: i64) -> f64[:, :]:
    Y = np.zeros((labels.shape[0], n_classes))
    for i, c in enumerate(labels):
        Y[i, c] = 1.0
    return Y


@gradc.export
def r2_score(y_true: f64[:], y_pred: f64[:]) -> f64:
    numerator = ((y_true - y_pred) ** 2).sum()
    denominator = ((y_true - y_true.mean()) ** 2).sum()
    if denominator == 0.0:
        return 1.0 if numerator == 0.0 else 0.0
    return 1.0 - numerator / denominator


@gradc.export
def log_loss(y_true: f64[:], y_prob: f64[:]) -> f64:
    p = np.clip(y_prob, EPS, 1 - EPS)
    return -np.mean(y_true * np.log(p) + (1 - y_true) * np.log(1 - p))


@gradc.export("i64[:, :](i64[:], i64[:], i64)")
def confusion_matrix(y_true, y_pred, n_classes):
    cm = np.zeros((n_classes, n_classes), dtype=np.int64)
    for t, p in zip(y_true, y_pred):
        cm[t, p] += 1
    return cm


@gradc.export
def accuracy(y_true: i64[:], y_pred: i64[:]) -> f64:
    return np.mean(y_true == y_pred)


@gradc.export("void(f64[:, :])")
def softmax_inplace(X):
    max_prob = np.max(X, axis=1).reshape((-1, 1))
    X -= max_prob
    X[:] = np.exp(X)
    sum_prob = np.sum(X, axis=1).reshape((-1, 1))
    X /= sum_prob


@gradc.export
def log_logistic(x: f64[:]) -> f64[:]:
    return np.where(x > 0, -np.log1p(np.exp(-x)), x - np.log1p(np.exp(x)))


@gradc.export
def manhattan_distances(X: f64[:, :], Y: f64[:, :]) -> f64[:, :]:
    return np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=-1)


@gradc.export
def nn1_predict(X_train: f64[:, :], y_train: i64[:], X: f64[:, :]) -> i64[:]:
    d = ((X[:, None, :] - X_train[None, :, :]) ** 2).sum(axis=2)
    return y_train[np.argmin(d, axis=1)]
