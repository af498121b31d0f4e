"""The GPU checks of the CUDA target, as one script: ``python tests/cuda/gpu_check.py``.

Run on a machine with an NVIDIA GPU, CuPy and the CUDA toolkit (ptxas, libdevice); the
same checks run as ``pytest -m gpu tests/cuda/test_gpu.py``. Each check prints one line;
the exit status is 1 when one failed. Without a GPU or CuPy the script says so and
exits 0 (nothing to check). The corpus (``kernels_corpus.py``) is built for the device's
own arch and sm_80.

Checks: forward kernels vs NumPy (max ulp), shared memory and a vectorised function vs the
CPU build, cubin vs PTX-JIT results (bitwise), a cubin
of another major arch refused by the driver, a device IndexError raised at synchronize()
with file:line, CuPy interop (its stream honoured), load time (ms), launch overhead (µs),
and elementwise kernels' bandwidth (saxpy, a vectorised function over 2**26 elements) as a
fraction of a device-to-device copy; derivative kernels vs the CPU build and an
elementwise gradient kernel's bandwidth (``gpu_check_ad.py``).
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

try:
    from tests.cuda import gpu_check_ad
except ImportError:  # run as a script: python tests/cuda/gpu_check.py
    import gpu_check_ad  # type: ignore[no-redef]

HERE = Path(__file__).parent
CORPUS = HERE / "kernels_corpus.py"


def ulps(a: Any, b: Any) -> int:
    """The largest distance in units in the last place between float arrays ``a``, ``b``."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0:
        return 0
    ia = a.view(np.int64 if a.dtype == np.float64 else np.int32).astype(np.int64)
    ib = b.view(np.int64 if b.dtype == np.float64 else np.int32).astype(np.int64)
    return int(np.max(np.abs(ia - ib)))


class ForcePtx:
    """A driver that hides the device's arch, so that selection falls back to the PTX."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver

    def facts(self) -> Any:
        real = self._driver.facts()
        return dataclasses.replace(real, cc=(99, 0))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)


def build(out: Path, arch: str) -> Path:
    """The corpus built for ``arch`` and sm_80 into ``out``."""
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    archs = tuple(sorted({"sm_80", arch}))
    build_artifact(CORPUS, out, CompilerOptions(opt_level=3, cuda_archs=archs))
    return out


def check_forward(lib: Any, cp: Any) -> str:
    """Each forward kernel vs NumPy on 1e5 elements: the largest error in ulps."""
    rng = np.random.default_rng(1)
    n = 100_000
    x, y = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)
    out = cp.zeros(n)
    lib.saxpy[(n + 255) // 256, 256](2.0, cp.asarray(x), cp.asarray(y), out)
    lib.synchronize()
    u1 = ulps(out.get(), 2.0 * x + np.sin(y))
    mixed = cp.zeros(n)
    lib.math_mix[(n + 255) // 256, 256](cp.asarray(x), mixed)
    lib.synchronize()
    v = x
    ref = (
        np.exp(-v * v)
        + np.cos(v) * np.log(1.0 + v * v)
        + np.sqrt(np.abs(v))
        + np.tanh(v)
        + np.arctan2(v, 2.0)
        + np.abs(v) ** 0.5 * 0.25
        + np.abs(v) ** 1.5
    )
    u2 = ulps(mixed.get(), ref)
    counts = cp.zeros(16, dtype=cp.int64)
    xi = rng.integers(0, 16, n)
    lib.histogram[(n + 255) // 256, 256](cp.asarray(xi), counts)
    lib.synchronize()
    assert np.array_equal(counts.get(), np.bincount(xi, minlength=16)), "histogram"
    blocks = cp.arange(1024, dtype=cp.float64)
    lib.block_reverse[8, 128](blocks, cp.zeros(1024))
    lib.synchronize()
    expected = np.arange(1024.0).reshape(8, 128)[:, ::-1].ravel()
    assert np.array_equal(blocks.get(), expected), "block_reverse (syncthreads)"
    assert u1 <= 4 and u2 <= 64, f"saxpy {u1} ulp, math_mix {u2} ulp"
    return f"forward vs NumPy: saxpy {u1} ulp, math_mix {u2} ulp, histogram and barrier exact"


def check_shared_and_vectorize(art: Path, lib: Any, cp: Any) -> str:
    """Shared memory with barriers (a block tree sum) and a vectorised function run by
    ``gradc.broadcast_call`` on CuPy arrays vs the CPU build of the same artifact."""
    import gradc

    cpu = gradc.load(art)
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 8 * 1000 - 5)
    sums, ref = cp.zeros(1000), np.zeros(1000)
    lib.block_sum_shared[1000, 8](cp.asarray(x), sums)
    cpu.block_sum_shared(1000, 1, 1, 8, 1, 1, x, ref)
    lib.synchronize()
    assert np.array_equal(sums.get(), ref), "block_sum_shared: GPU and CPU build differ"
    r, delta = rng.uniform(-3, 3, (300, 200)), rng.uniform(0.1, 2, 200)
    out, expected = cp.zeros((300, 200)), np.zeros((300, 200))
    gradc.broadcast_call(lib.huber, cp.asarray(r), cp.asarray(delta), out=out)
    gradc.broadcast_call(cpu.huber, r, delta, out=expected)
    lib.synchronize()
    u = ulps(out.get(), expected)
    assert u <= 1, f"huber: {u} ulp from the CPU build"
    return f"shared-memory block sums exact, vectorised huber (broadcast) {u} ulp vs the CPU build"


def check_ptx_jit(art: Path, lib: Any, cp: Any) -> str:
    """The PTX (JIT by the driver) computes what the cubin computes, bit for bit."""
    import warnings

    from gradc.artifacts.loader.cuda import load
    from gradc.artifacts.loader.cuda_driver import open_driver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jit = load(art, driver=ForcePtx(open_driver()))  # type: ignore[arg-type]
    x = cp.asarray(np.linspace(-5, 5, 4096))
    a, b = cp.zeros(4096), cp.zeros(4096)
    lib.math_mix[16, 256](x, a)
    jit.math_mix[16, 256](x, b)
    lib.synchronize()
    assert bool((a == b).all()), "cubin and PTX-JIT results differ"
    return "cubin and PTX-JIT results identical"


def check_wrong_arch(art: Path) -> str:
    """A cubin of another major arch is refused by the driver (never run)."""
    from gradc.artifacts.loader.cuda_driver import DriverError, open_driver
    from gradc.artifacts.store import read_manifest

    driver = open_driver()
    major = driver.facts().cc[0]
    cuda = read_manifest(art).cuda
    assert cuda is not None
    other = [
        v for v in cuda.kernels[0].variants if v.kind == "cubin" and int(v.arch[3:-1]) != major
    ]
    if not other:
        return "wrong-arch cubin: skipped (no cubin of another major arch)"
    try:
        driver.load_module((art / other[0].file).read_bytes())
    except DriverError as exc:
        return f"wrong-arch cubin ({other[0].arch}) refused: {exc}"
    raise AssertionError(f"the driver loaded a {other[0].arch} cubin")


def check_device_error(lib: Any, cp: Any) -> str:
    """An out-of-bounds write raises IndexError at synchronize(), with file:line."""
    x = cp.zeros(5)
    lib.out_of_bounds[2, 4](x)
    try:
        lib.synchronize()
    except IndexError as exc:
        note = " ".join(getattr(exc, "__notes__", []))
        assert "out of bounds for axis 0 with size 5" in str(exc), str(exc)
        assert "kernels_corpus.py:" in note, note
        lib.synchronize()  # cleared
        return f"device IndexError at synchronize(): {exc} [{note}]"
    raise AssertionError("no IndexError")


def check_stream(lib: Any, cp: Any) -> str:
    """A launch on a CuPy stream, its arrays produced on it."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.arange(1000, dtype=cp.float64)
        out = cp.zeros(1000)
    lib.grid_stride(1000, x, out, grid=4, block=128, stream=s)
    s.synchronize()
    lib.synchronize()
    assert bool((out == x * x).all()), "stream launch"
    return "CuPy arrays and stream: ok"


def timings(art: Path, lib: Any, cp: Any) -> str:
    """Load time, launch overhead, and elementwise bandwidth vs a device copy."""
    from gradc.artifacts.loader.cuda import load

    t = time.perf_counter()
    load(art)
    load_ms = (time.perf_counter() - t) * 1e3
    x = cp.zeros(1)
    n_calls = 2000
    lib.out_of_bounds[1, 1](x)
    lib.synchronize()
    t = time.perf_counter()
    for _ in range(n_calls):
        lib.out_of_bounds[1, 1](x)
    launch_us = (time.perf_counter() - t) / n_calls * 1e6
    lib.synchronize()
    n = 1 << 26
    a, b, c = cp.ones(n), cp.ones(n), cp.empty(n)
    grid = (n + 255) // 256

    def run(fn: Callable[[], None], reps: int = 10) -> float:
        fn()
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        cp.cuda.Device().synchronize()
        return (time.perf_counter() - start) / reps

    import gradc

    saxpy = run(lambda: lib.saxpy[grid, 256](2.0, a, b, c))
    huber = run(lambda: gradc.broadcast_call(lib.huber, a, b, out=c))
    copy = run(lambda: c.__setitem__(slice(None), a))
    # saxpy and huber move 3 arrays, the copy 2: compare bytes per second
    fraction = (3 * n * 8 / saxpy) / (2 * n * 8 / copy)
    vectorised = (3 * n * 8 / huber) / (2 * n * 8 / copy)
    return (
        f"load {load_ms:.1f} ms, launch {launch_us:.1f} µs (ctypes driver), saxpy bandwidth "
        f"{fraction:.0%} of a device-to-device copy ({3 * n * 8 / saxpy / 1e9:.0f} GB/s), "
        f"vectorised huber {vectorised:.0%}"
    )


def main() -> int:
    """Run every check; 0 when all passed (or nothing could run), 1 otherwise."""
    try:
        import cupy as cp

        from gradc.artifacts.loader.cuda_driver import open_driver

        facts = open_driver().facts()
    except Exception as exc:  # no CuPy, no driver, no GPU: nothing to check here
        print(f"gpu_check: skipped ({type(exc).__name__}: {exc})")
        return 0
    import gradc

    arch = f"sm_{facts.cc[0]}{facts.cc[1]}"
    print(f"gpu_check: {facts.name} ({arch}), driver CUDA {facts.driver_text}")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        art = build(Path(tmp) / "kernels.gradc", arch)
        lib = gradc.load(art, target="cuda")
        ad_art = gpu_check_ad.build(Path(tmp) / "kernels_ad.gradc", arch)
        ad_lib = gradc.load(ad_art, target="cuda")
        for name, check in [
            ("forward", lambda: check_forward(lib, cp)),
            ("shared-vectorize", lambda: check_shared_and_vectorize(art, lib, cp)),
            ("ptx-jit", lambda: check_ptx_jit(art, lib, cp)),
            ("wrong-arch", lambda: check_wrong_arch(art)),
            ("device-error", lambda: check_device_error(lib, cp)),
            ("stream", lambda: check_stream(lib, cp)),
            ("timings", lambda: timings(art, lib, cp)),
            ("derivatives", lambda: gpu_check_ad.check_derivatives(ad_art, ad_lib, cp)),
            ("gradient-bandwidth", lambda: gpu_check_ad.gradient_bandwidth(ad_lib, cp)),
        ]:
            try:
                print(f"  {name}: {check()}")
            except Exception as exc:
                failed += 1
                print(f"  {name}: FAILED {type(exc).__name__}: {exc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
