"""A generated package of realistic modules for the distributed-build tests and
``benchmarks/build_all.py``: each module has ``size`` groups of exports (a scalar energy
with a helper, a loop over an array, a weighted least-squares loss) and a gradient of
each of the first and last, so a module of size ``s`` has ``5 s`` exports."""

from __future__ import annotations

from pathlib import Path

HEAD = """\
import numpy as np

import gradc
from gradc import f64, i64


def _poly(x: f64, c: f64) -> f64:
    return ((c * x + 1.0) * x - 0.5) * x + np.sin(c * x)
"""

GROUP = """

@gradc.export
def energy{k}_{g}(x: f64, y: f64) -> f64:
    return _poly(x, {k}.{g}5) + 3.0 * y * y * x - np.log(1.0 + x * x)


@gradc.export
def smooth{k}_{g}(a: f64[:], n: i64) -> f64:
    s = 0.0
    for i in range(1, a.shape[0] - 1):
        s += 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1] + n * {g}.0
    return s


@gradc.export
def loss{k}_{g}(w: f64[:], x: f64[:], y: f64) -> f64:
    r = 0.0
    for i in range(w.shape[0]):
        d = w[i] * x[i] - y + {k}.0
        r += d * d * (1.0 + 0.{g} * i)
    return r


d_energy{k}_{g} = gradc.grad(energy{k}_{g}, wrt="x")
d_loss{k}_{g} = gradc.grad(loss{k}_{g}, wrt="w")
"""


def module_text(k: int, size: int) -> str:
    """Module ``k``'s source with ``size`` export groups."""
    return HEAD + "".join(GROUP.format(k=k, g=g) for g in range(size))


def write_package(root: Path, n: int, size: int = 1) -> Path:
    """``root/pkg`` with ``n`` modules (every other one in ``pkg/sub``) of ``size`` export
    groups each, and an ``__init__.py`` without gradc (not a module to build)."""
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for k in range(n):
        folder = pkg / "sub" if k % 2 else pkg
        (folder / f"m{k:02d}.py").write_text(module_text(k, size))
    (pkg / "__init__.py").write_text("")
    return pkg


def files(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file under ``root`` (lock files left out)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }
