"""Derivative kernels (docs/ad.md "Kernels"; passes/ad/kernels.py): the CPU build, its
threads run in a shuffled order, of each ``gradc.grad`` (reverse) and ``gradc.jvp``
(forward) kernel of tests/cuda/kernels_ad_corpus.py equals central differences of the
kernel, and the two modes agree (``<seed, J·t> == <Jᵀ·seed, t>``, with every float
parameter shadowed); their PTX adds shared adjoints atomically and private ones
without; the calling convention is checked, and what is refused is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cuda import kernels_ad_corpus as corpus

CORPUS = Path(__file__).parent / "kernels_ad_corpus.py"
_BUILT: dict[str, Any] = {}


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The corpus's CPU build with its threads in a shuffled order."""
    if "lib" not in _BUILT:
        import gradc
        from gradc.compiler.options import CompilerOptions
        from tests.shared_builds import shared_artifact

        out = shared_artifact(CORPUS, CompilerOptions(shuffle_threads=True), tmp_path_factory)
        _BUILT["lib"], _BUILT["art"] = gradc.load(out), out
    return _BUILT["lib"]


def _draw(spec: tuple[Any, ...], rng: np.random.Generator) -> Any:
    if spec[0] == "s":
        return float(rng.uniform(0.5, 1.5))
    if spec[0] == "i":
        return rng.integers(0, spec[2], spec[1])
    return rng.uniform(-1.0, 1.0, spec[1])


def _launch(lib: Any, name: str, args: list[Any]) -> None:
    kernel = name.removeprefix("d_x_").removeprefix("d_").removeprefix("t_")
    grid, block = corpus.CASES[kernel][1]
    g = (*grid, *(1,) * (3 - len(grid)))
    b = (*block, *(1,) * (3 - len(block)))
    getattr(lib, name)(*g, *b, *args)


def _run(lib: Any, name: str, values: list[Any]) -> list[Any]:
    """The kernel on copies of ``values``; the float parameters' final states."""
    args = [np.array(v) if isinstance(v, np.ndarray) else v for v in values]
    _launch(lib, name, args)
    return args


def _floats(name: str) -> list[int]:
    return [k for k, s in enumerate(corpus.CASES[name][0]) if s[0] != "i"]


@pytest.mark.parametrize("name", sorted(corpus.CASES))
def test_kernel_derivatives(lib: Any, name: str) -> None:
    specs = corpus.CASES[name][0]
    rng = np.random.default_rng(sorted(corpus.CASES).index(name))
    values = [_draw(s, rng) for s in specs]
    floats = _floats(name)
    tangents = {k: _draw(specs[k], rng) for k in floats}
    seeds = {k: rng.uniform(-1.0, 1.0, specs[k][1]) for k in floats if specs[k][0] == "v"}
    # forward: each float parameter followed by its tangent (arrays: written in place)
    fwd: list[Any] = []
    for k, v in enumerate(values):
        fwd.append(np.array(v) if isinstance(v, np.ndarray) else v)
        if k in floats:
            t = tangents[k]
            fwd.append(np.array(t) if isinstance(t, np.ndarray) else t)
    _launch(lib, "t_" + name, fwd)
    final_t = {k: fwd[k + 1 + sum(1 for j in floats if j < k)] for k in floats}
    # central differences of the kernel along the tangents
    h = 1e-6
    plus = _run(
        lib, name, [v + h * tangents[k] if k in floats else v for k, v in enumerate(values)]
    )
    minus = _run(
        lib, name, [v - h * tangents[k] if k in floats else v for k, v in enumerate(values)]
    )
    for k in floats:
        if specs[k][0] == "v":
            fd = (plus[k] - minus[k]) / (2 * h)
            np.testing.assert_allclose(final_t[k], fd, rtol=1e-6, atol=1e-7, err_msg=f"{name}:{k}")
    # reverse: each float parameter followed by its shadow (scalars: 1-element arrays)
    rev: list[Any] = []
    for k, v in enumerate(values):
        rev.append(np.array(v) if isinstance(v, np.ndarray) else v)
        if k in floats:
            rev.append(np.array(seeds[k]) if k in seeds else np.zeros(1))
    _launch(lib, "d_" + name, rev)
    adjoint = {k: rev[k + 1 + sum(1 for j in floats if j < k)] for k in floats}
    left = sum(float(np.sum(seeds[k] * final_t[k])) for k in seeds)
    right = sum(float(np.sum(adjoint[k] * tangents[k])) for k in floats)
    assert left == pytest.approx(right, rel=1e-12, abs=1e-12)


def test_calling_convention(lib: Any) -> None:
    # d_x_saxpy = gradc.grad(saxpy, wrt="x"): (a, x, d_x, y, out, d_out), d_out the seed
    rng = np.random.default_rng(7)
    a, x, y = 1.5, rng.uniform(-1, 1, 37), rng.uniform(-1, 1, 37)
    out, seed, d_x = np.zeros(37), rng.uniform(-1, 1, 37), np.zeros(37)
    d_out = seed.copy()
    _launch(lib, "d_x_saxpy", [a, x, d_x, y, out, d_out])
    np.testing.assert_allclose(d_x, a * seed, rtol=1e-15)
    assert not d_out.any()  # the seed is consumed where the kernel writes (Enzyme)
    np.testing.assert_allclose(out, a * x + np.sin(y), rtol=1e-15)
    with pytest.raises(ValueError, match="shadow 'd_x' must have the shape of 'x'"):
        _launch(lib, "d_x_saxpy", [a, x, np.zeros(3), y, out, d_out])
    d_a = np.zeros(2)
    with pytest.raises(ValueError, match="'d_a' of float parameter 'a' must have one element"):
        _launch(lib, "d_saxpy", [a, d_a, x, d_x, y, d_x, out, d_out])
    # the stub (gradc build writes it beside the artifact) shows the convention
    from gradc.artifacts.store import read_manifest
    from gradc.artifacts.stubs import stub_text

    stub = stub_text(read_manifest(_BUILT["art"]))
    assert (
        "def d_x_saxpy(grid_x: int, grid_y: int, grid_z: int, block_x: int, block_y: int, "
        "block_z: int, a: float, x: NDArray[np.float64], d_x: NDArray[np.float64], "
        "y: NDArray[np.float64], out: NDArray[np.float64], d_out: NDArray[np.float64]) -> None"
    ) in stub
    assert "a: float, d_a: NDArray[np.float64], x:" in stub  # d_saxpy: d_a an array
    assert "a: float, d_a: float, x:" in stub  # t_saxpy: d_a a float tangent
    # a private shadow index needs a launch whose y and z extents are 1
    with pytest.raises(ValueError, match=r"cuda.grid\(1\) without atomics"):
        lib.d_x_saxpy(5, 2, 1, 8, 1, 1, a, x, d_x, y, out, d_out)


class _Device(np.ndarray):
    """A host array standing in for a CuPy one (``.get()``)."""

    def get(self) -> np.ndarray:
        return np.array(self)


class _FakeCupy:
    @staticmethod
    def asarray(a: np.ndarray) -> _Device:
        return np.array(a).view(_Device)


class _GridLaunch:
    """``lib.k[grid, block](...)`` run by the CPU build's grid loop."""

    def __init__(self, lib: Any) -> None:
        self._lib = lib

    def synchronize(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._lib, name)

        class Launch:
            def __getitem__(self, config: tuple[Any, Any]) -> Any:
                return lambda *args: fn(*config[0], *config[1], *args)

        return Launch()


def test_gpu_check_harness_on_the_cpu(lib: Any) -> None:
    # gpu_check_ad.check_derivatives' own code, with the CPU build in the GPU's place
    from tests.cuda import gpu_check_ad

    line = gpu_check_ad.check_derivatives(_BUILT["art"], _GridLaunch(lib), _FakeCupy())
    assert line.startswith("30 derivative kernels equal the CPU build")


def test_shared_memory_refused(lib: Any) -> None:
    # a shadow in another's memory would take thread i's plain store of d_x[i] and thread
    # i - 1's atomic add to d_x[i] at once on the GPU (the CPU grid loop hides the race)
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-1, 1, 37), rng.uniform(-1, 1, 37)
    out, d_out, d_a = np.zeros(37), np.ones(37), np.zeros(1)
    d = np.zeros(2 * 37)
    with pytest.raises(ValueError, match="shadows 'd_x' and 'd_out' share memory"):
        _launch(lib, "d_stencil", [x, d[:37], out, d[30:67]])
    with pytest.raises(ValueError, match="shadows 'd_x' and 'd_y' share memory"):
        _launch(lib, "d_saxpy", [1.5, d_a, x, d[:37], y, d[:37], out, d_out])
    with pytest.raises(ValueError, match="shadow 'd_x' shares memory with argument 'x'"):
        _launch(lib, "d_stencil", [x, x, out, d_out])
    with pytest.raises(ValueError, match="tangents 'd_x' and 'd_out' share memory"):
        _launch(lib, "t_stencil", [x, d[:37], out, d[:37]])
    with pytest.raises(ValueError, match="'x' and 'out' share memory and kernel 'saxpy'"):
        _launch(lib, "d_x_saxpy", [1.5, x, d[:37], y, x, d_out])
    # apart: two halves of one buffer, every other element of another (fresh arrays: a
    # refused launch of the shuffled grid loop ran threads before its first)
    d, d_out = np.zeros(2 * 37), np.ones(37)
    _launch(lib, "d_saxpy", [1.5, d_a, x, d[:37], y, d[37:], out, d_out])
    np.testing.assert_allclose(d[37:], np.cos(y), rtol=1e-15)
    e = np.zeros(2 * 37)
    e[1::2] = 1.0
    _launch(lib, "d_stencil", [x, e[::2], out, e[1::2]])
    assert not e[1::2][1:-1].any() and e[::2].any()  # seeds consumed, adjoints added


def test_seed_of_private_write_needs_one_thread_per_element(lib: Any) -> None:
    # d_a_saxpy reads no shadowed array, but each thread consumes d_out[i] with a plain
    # load and store: two threads of one i (a y extent) would both take the seed on the
    # GPU
    rng = np.random.default_rng(4)
    x, y, out, d_out = rng.uniform(-1, 1, 37), rng.uniform(-1, 1, 37), np.zeros(37), np.ones(37)
    d_a = np.zeros(1)
    with pytest.raises(ValueError, match=r"cuda.grid\(1\) without atomics"):
        lib.d_a_saxpy(5, 1, 1, 8, 2, 1, 1.5, d_a, x, y, out, d_out)
    lib.d_a_saxpy(5, 1, 1, 8, 1, 1, 1.5, d_a, x, y, out, d_out)
    assert d_a[0] == pytest.approx(np.sum(x), rel=1e-13)
    assert not d_out.any()
    # one element for all: the plain stores of thread-indexed adjoints would race
    from numpy.lib.stride_tricks import as_strided

    d_x = as_strided(np.zeros(1), (37,), (0,))
    with pytest.raises(ValueError, match="elements of shadow 'd_x' share memory"):
        lib.d_x_saxpy(5, 1, 1, 8, 1, 1, 1.5, x, d_x, y, out, d_out)
    # a shared read's adjoints are added atomically: one element may take them all
    d_x = as_strided(np.zeros(1), (37,), (0,))
    seed = rng.uniform(-1, 1, 37)
    _launch(lib, "d_stencil", [x, d_x, out, seed.copy()])
    s = seed[1:-1]
    assert d_x[0] == pytest.approx(np.sum(s) * 2 - np.sum(4 * x[1:-1] * s), rel=1e-12)


def test_grid2_thread_indexed(lib: Any) -> None:
    # m[i, j] and out[i, j] by cuda.grid(2)'s components are thread-indexed (no atomic),
    # so the derivative refuses a z extent; v[i] is a row's, added atomically, and does
    # not refuse the 2-d launch (tests/cuda/test_kernel_ad_cuda.py counts the atomics)
    rng = np.random.default_rng(5)
    m, v, out = rng.uniform(-1, 1, (5, 6)), rng.uniform(-1, 1, 5), np.zeros((5, 6))
    d_m, d_v, seed = np.zeros((5, 6)), np.zeros(5), rng.uniform(-1, 1, (5, 6))
    with pytest.raises(ValueError, match=r"cuda.grid\(2\) without atomics.* of 1 in z\n"):
        lib.d_row_scale(2, 3, 1, 3, 2, 2, m, d_m, v, d_v, out, seed.copy())
    lib.d_row_scale(2, 3, 1, 3, 2, 1, m, d_m, v, d_v, out, seed.copy())
    np.testing.assert_allclose(d_v, np.sum(seed * m * m, axis=1), rtol=1e-13)
    np.testing.assert_allclose(d_m, 2 * seed * m * v[:, None], rtol=1e-13)


def test_atomic_add_keeps_the_seed(lib: Any) -> None:
    # out[0] += x[i]²: d_x[i] += 2 x[i] d_out[0], and d_out stays (an accumulation does
    # not overwrite out[0]'s old value); the histogram's bins likewise
    rng = np.random.default_rng(6)
    x, w, idx = rng.uniform(-1, 1, 37), rng.uniform(-1, 1, 37), rng.integers(0, 7, 37)
    out, d_x, d_out = np.array([0.25]), np.zeros(37), np.array([-1.5])
    _launch(lib, "d_sum_squares", [x, d_x, out, d_out])
    np.testing.assert_allclose(d_x, 2 * x * -1.5, rtol=1e-15)
    assert d_out[0] == -1.5 and out[0] == pytest.approx(0.25 + np.sum(x * x), rel=1e-13)
    h, seed = np.zeros(7), rng.uniform(-1, 1, 7)
    d_x, d_w, d_h = np.zeros(37), np.zeros(37), seed.copy()
    _launch(lib, "d_histogram", [x, d_x, w, d_w, idx, h, d_h])
    np.testing.assert_allclose(d_x, w * seed[idx], rtol=1e-15)
    np.testing.assert_allclose(d_w, x * seed[idx], rtol=1e-15)
    np.testing.assert_array_equal(d_h, seed)
    np.testing.assert_allclose(h, np.bincount(idx, w * x, minlength=7), rtol=1e-13)
