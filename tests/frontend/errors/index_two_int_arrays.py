# ruff: noqa
# expect-message: indexing with an integer array among several indices (a[rows, cols], a[idx, j]) is not supported: gather in a loop
import gradc
import numpy as np
from gradc import f64, i64


@gradc.export
def nll(logp: f64[:, :], labels: i64[:]) -> f64:
    return -np.mean(logp[np.arange(logp.shape[0]), labels])  # error-here
