"""Exports of tests/codegen/test_reorder_edges.py (compiled once for the file)."""

import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def median_of(x: f64[:]) -> f64:
    return np.median(x)


@gradc.export
def medians_of_rows(a: f64[:, :]) -> f64[:]:
    return np.median(a, axis=-1)


@gradc.export
def sort_and_argsort(x: f64[:]) -> tuple[f64[:], i64[:]]:
    return np.sort(x), np.argsort(x, kind="stable")


@gradc.export
def argsort_ints(k: i64[:]) -> i64[:]:
    return np.argsort(k, kind="stable")


@gradc.export
def max_initial(x: f64[:], s: f64) -> f64:
    return np.max(x, initial=s)


@gradc.export
def inverse_of(a: f64[:, :]) -> f64[:, :]:
    return np.linalg.inv(a)


@gradc.export
def determinant_of(a: f64[:, :]) -> f64:
    return np.linalg.det(a)
