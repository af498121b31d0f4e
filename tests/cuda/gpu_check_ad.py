"""The GPU checks of derivative kernels (docs/ad.md "Kernels"), run by ``gpu_check.py``
and ``pytest -m gpu``: every ``gradc.grad``/``gradc.jvp`` kernel of
``kernels_ad_corpus.py`` on the GPU vs the CPU build of the same artifact, and an
elementwise gradient kernel's bandwidth as a fraction of a device-to-device copy.

The reverse kernels add shared adjoints with atomics, in an order the GPU chooses: their
results equal the CPU build's to rounding (``rtol`` 1e-12), not bit for bit; libdevice's
math functions differ from libm's by a few ulps, hence the same tolerance for the
forward kernels.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
CORPUS = HERE / "kernels_ad_corpus.py"


def _corpus() -> Any:
    """``kernels_ad_corpus`` imported from its file (this module also runs as a script,
    outside the ``tests`` package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kernels_ad_corpus", CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(out: Path, arch: str) -> Path:
    """The derivative-kernel corpus built for ``arch`` and sm_80 into ``out``."""
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    archs = tuple(sorted({"sm_80", arch}))
    build_artifact(CORPUS, out, CompilerOptions(opt_level=3, cuda_archs=archs))
    return out


def interleaved(name: str, rng: np.random.Generator, kind: str) -> list[Any]:
    """Arguments of ``d_<name>`` (``kind`` ``"d"``) or ``t_<name>`` (``"t"``): each float
    parameter followed by its shadow (a scalar's: a 1-element array in reverse mode, a
    float in forward mode), drawn from ``rng``."""
    corpus = _corpus()
    args: list[Any] = []
    for spec in corpus.CASES[name][0]:
        if spec[0] == "i":
            args.append(rng.integers(0, spec[2], spec[1]))
            continue
        if spec[0] == "s":
            args.append(float(rng.uniform(0.5, 1.5)))
            args.append(np.zeros(1) if kind == "d" else float(rng.uniform(-1, 1)))
            continue
        args += [rng.uniform(-1, 1, spec[1]), rng.uniform(-1, 1, spec[1])]
    return args


def check_derivatives(art: Path, lib: Any, cp: Any) -> str:
    """Each derivative kernel on the GPU vs the CPU build, on the same arguments."""
    import gradc

    corpus = _corpus()
    cpu = gradc.load(art)
    worst = 0.0
    for name in sorted(corpus.CASES):
        grid, block = corpus.CASES[name][1]
        g3 = (*grid, *(1,) * (3 - len(grid)))
        b3 = (*block, *(1,) * (3 - len(block)))
        for kind in ("d", "t"):
            host = interleaved(name, np.random.default_rng(11), kind)
            dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
            getattr(lib, f"{kind}_{name}")[g3, b3](*dev)
            getattr(cpu, f"{kind}_{name}")(*g3, *b3, *host)
            lib.synchronize()
            for h, d in zip(host, dev, strict=True):
                if isinstance(h, np.ndarray) and h.dtype == np.float64:
                    got = d.get()
                    np.testing.assert_allclose(
                        got, h, rtol=1e-12, atol=1e-14, err_msg=f"{kind}_{name}"
                    )
                    scale = np.maximum(np.abs(h), 1e-300)
                    worst = max(worst, float(np.max(np.abs(got - h) / scale, initial=0.0)))
    return (
        f"{2 * len(corpus.CASES)} derivative kernels equal the CPU build "
        f"(largest relative difference {worst:.1e})"
    )


def gradient_bandwidth(lib: Any, cp: Any) -> str:
    """``d_x_saxpy`` (the gradient of ``out = a*x + sin(y)`` with respect to ``x``) over
    2**26 elements: it reads ``x``, ``y``, ``d_out``, ``d_x`` and writes ``out``,
    ``d_out`` and ``d_x`` (7 arrays of 8-byte numbers), a device-to-device copy reads and
    writes one (2): the fraction compares bytes per second, median of 5 runs of 10."""
    n = 1 << 26
    x, y, out = cp.ones(n), cp.ones(n), cp.empty(n)
    d_x, d_out = cp.zeros(n), cp.ones(n)
    grid = (n + 255) // 256

    def median(fn: Any) -> float:
        fn()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(10):
                fn()
            cp.cuda.Device().synchronize()
            times.append((time.perf_counter() - start) / 10)
        return float(np.median(times))

    grad = median(lambda: lib.d_x_saxpy[grid, 256](2.0, x, d_x, y, out, d_out))
    lib.synchronize()
    copy = median(lambda: out.__setitem__(slice(None), x))
    fraction = (7 * n * 8 / grad) / (2 * n * 8 / copy)
    return (
        f"elementwise gradient (d_x_saxpy) bandwidth {fraction:.0%} of a device-to-device "
        f"copy ({7 * n * 8 / grad / 1e9:.0f} GB/s)"
    )
