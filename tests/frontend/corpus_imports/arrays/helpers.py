import numpy as np


def sumsq(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return s


def scaled(a, k):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i] * k
    return out
