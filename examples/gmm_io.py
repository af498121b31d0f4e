"""Readers for ADBench's GMM instances and reference files (plain Python, not compiled).

File format (examples/data/adbench/README.md): ``d k n``, then k alphas, k means (d
values each), k icf rows (d + d(d−1)/2 values each), n points (d values each; one line
standing for all n points in ADBench's "replicate point" files), and ``gamma m``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "adbench"


def read_gmm_instance(
    path: str | Path, replicate_point: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, int]:
    """Read an ADBench GMM file: ``(alphas, means, icf, x, gamma, m)``.

    Arrays are C-contiguous float64: alphas (k,), means (k, d), icf (k, d + d(d−1)/2),
    x (n, d). With ``replicate_point`` the file holds one point that stands for n
    identical ones.

    Raises:
        ValueError: the file is truncated or its sizes are inconsistent.
    """
    tokens = Path(path).read_text().split()
    d, k, n = (int(t) for t in tokens[:3])
    pos = 3

    def take(count: int) -> np.ndarray:
        nonlocal pos
        if pos + count > len(tokens):
            raise ValueError(f"{path}: truncated GMM file ({len(tokens)} numbers)")
        out = np.array([float(t) for t in tokens[pos : pos + count]], dtype=np.float64)
        pos += count
        return out

    icf_size = d + d * (d - 1) // 2
    alphas = take(k)
    means = take(k * d).reshape(k, d)
    icf = take(k * icf_size).reshape(k, icf_size)
    if replicate_point:
        x = np.tile(take(d), (n, 1))
    else:
        x = take(n * d).reshape(n, d)
    gamma = float(take(1)[0])
    m = int(take(1)[0])
    if pos != len(tokens):
        raise ValueError(f"{path}: {len(tokens) - pos} unexpected trailing numbers")
    return alphas, means, icf, np.ascontiguousarray(x), gamma, m


def read_reference(path: str | Path) -> dict[str, Any]:
    """A reference JSON (``objective``, flat ``gradient``: alphas, means, icf row-major)."""
    return dict(json.loads(Path(path).read_text()))


def reference_for(instance: str) -> Path:
    """The reference file of an instance: ``gmm/1k/gmm_d10_K25.txt`` ->
    ``reference/gmm_1k_gmm_d10_K25.json``, ``gmm/test.txt`` -> ``reference/gmm_test.json``."""
    stem = instance.removesuffix(".txt").replace("/", "_")
    return DATA / "reference" / f"{stem}.json"


def flatten_gradient(*parts: np.ndarray) -> np.ndarray:
    """The reference layout: every part row-major, one after the other."""
    return np.concatenate([np.asarray(p, dtype=np.float64).ravel() for p in parts])
