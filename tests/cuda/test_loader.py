"""The CUDA loader without a GPU: variant selection against a fake driver, argument
packing (checked against the parameter layout ptxas recorded in each cubin), launch
syntax, and device errors raised at synchronize() with file:line."""

from __future__ import annotations

import ctypes
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest

from gradc.artifacts.abi.cubin import abi_param_layout, check_param_layout, cubin_param_layout
from gradc.artifacts.abi.cuda import DEVICE_ERROR_FORMAT
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader import cuda as cuda_loader
from gradc.artifacts.loader.cuda_args import pack_arguments
from gradc.artifacts.loader.cuda_driver import DeviceFacts, max_ptx_isa
from gradc.artifacts.store import read_manifest
from tests.cuda.fake_driver import DeviceArray, FakeDriver

H200 = DeviceFacts("NVIDIA H200", (9, 0), 13000)


def _load(art: Path, device: DeviceFacts) -> tuple[cuda_loader.CudaLibrary, FakeDriver]:
    driver = FakeDriver(device)
    return cuda_loader.load(art, driver=driver), driver


@pytest.mark.parametrize(
    ("device", "kind", "arch"),
    [
        (H200, "cubin", "sm_90"),  # exact
        (DeviceFacts("A100", (8, 0), 12040), "cubin", "sm_80"),  # exact
        (DeviceFacts("RTX A6000", (8, 6), 12040), "cubin", "sm_80"),  # same major, lower minor
        (DeviceFacts("B200", (10, 0), 13000), "ptx", "sm_80"),  # JIT of the PTX
    ],
)
def test_variant_selection(cuda_artifact: Path, device: DeviceFacts, kind: str, arch: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib, driver = _load(cuda_artifact, device)
    manifest = read_manifest(cuda_artifact)
    assert manifest.cuda is not None
    for name, image in zip(lib.names(), driver.images, strict=True):
        chosen = next(
            v for v in manifest.cuda.kernel(name).variants if (v.kind, v.arch) == (kind, arch)
        )
        expected = (cuda_artifact / chosen.file).read_bytes()
        assert image == (expected + b"\0" if kind == "ptx" else expected)
    jit = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(jit) == (1 if kind == "ptx" else 0)
    if jit:
        assert "JIT-compiles the PTX of saxpy, math_mix" in str(jit[0].message)


@pytest.mark.parametrize(
    ("device", "why"),
    [
        (DeviceFacts("Tesla T4", (7, 5), 13000), "sm_75"),  # PTX for sm_80 cannot run there
        (DeviceFacts("B200", (10, 0), 10020), "PTX ISA up to 0.0"),  # driver too old for ISA 7.0
    ],
)
def test_nothing_fits(cuda_artifact: Path, device: DeviceFacts, why: str) -> None:
    with pytest.raises(ArtifactError) as info:
        _load(cuda_artifact, device)
    message = str(info.value)
    assert why in message and device.name in message and "driver CUDA" in message
    assert "ptx (sm_80, ISA 7.0), sm_80 cubin, sm_90 cubin" in message


def test_max_ptx_isa() -> None:
    assert max_ptx_isa(13000) == (9, 0) and max_ptx_isa(12040) == (8, 4)
    assert max_ptx_isa(11080) == (7, 8) and max_ptx_isa(99000) == (9, 0)


def _sample_args(params: tuple[tuple[str, str], ...]) -> list[object]:
    typestrs = {"f64": "<f8", "f32": "<f4", "i64": "<i8", "i32": "<i4"}
    out: list[object] = []
    for _, t in params:
        if "[" in t:
            ndim = t.count(":")
            out.append(DeviceArray((3,) * ndim, typestrs[t.split("[")[0]]))
        else:
            out.append({"f64": 1.5, "f32": 2.5, "i64": 7, "i32": 3, "bool": True}[t])
    return out


def test_packing_matches_the_cubins_parameter_layout(cuda_artifact: Path) -> None:
    manifest = read_manifest(cuda_artifact)
    assert manifest.cuda is not None
    for k in manifest.cuda.kernels:
        packed = pack_arguments(k.name, k.params, k.writes, _sample_args(k.params))
        offsets, at = [], 0
        for p in packed.params:
            size = ctypes.sizeof(p)
            at = -(-at // size) * size  # natural alignment, as the PTX .param space
            offsets.append((at, size))
            at += size
        assert abi_param_layout(k.params) == offsets
        for v in k.variants[1:]:  # as ptxas recorded it in .nv.info
            cubin = (cuda_artifact / v.file).read_bytes()
            assert cubin_param_layout(cubin, k.symbol) == offsets, k.name


def test_a_cubin_with_another_layout_is_refused(cuda_artifact: Path) -> None:
    manifest = read_manifest(cuda_artifact)
    assert manifest.cuda is not None
    k = manifest.cuda.kernel("saxpy")
    cubin = (cuda_artifact / k.variants[2].file).read_bytes()
    check_param_layout(cubin, k.symbol, k.params)
    wrong = (("a", "f32"), *k.params[1:])
    with pytest.raises(ArtifactError, match=r"the cubin's parameters \(offset, size\)"):
        check_param_layout(cubin, k.symbol, wrong)
    with pytest.raises(ArtifactError, match="not a little-endian ELF64 cubin"):
        check_param_layout(b"garbage", k.symbol, k.params)


def test_launch_syntax_and_argument_bytes(cuda_artifact: Path) -> None:
    lib, driver = _load(cuda_artifact, H200)
    x = DeviceArray((100,), address=0x1000, stream=7)
    y = DeviceArray((100,), address=0x2000, strides=(-8,))
    out = DeviceArray((100,), address=0x3000)
    lib.saxpy[4, 32](2, x, y, out)
    lib.saxpy(0.5, x, y, out, grid=(2, 3), block=64, stream=type("S", (), {"ptr": 9})())
    first, second = driver.launches
    assert first.function[1] == lib.saxpy.entry.symbol
    assert (first.grid, first.block, first.stream) == ((4, 1, 1), (32, 1, 1), 0)
    assert first.raw == struct.pack(
        "<dQqqQqqQqq", 2.0, 0x1000, 100, 8, 0x2000, 100, -8, 0x3000, 100, 8
    )
    assert (second.grid, second.block, second.stream) == ((2, 3, 1), (64, 1, 1), 9)
    assert driver.synced_streams == [7, 7]  # x's producer stream, before each launch


def test_arguments_are_checked(cuda_artifact: Path) -> None:
    lib, _ = _load(cuda_artifact, H200)
    x = DeviceArray((10,))
    with pytest.raises(TypeError, match="argument 'x' of kernel 'saxpy' is a host array"):
        lib.saxpy[1, 32](1.0, np.zeros(10), x, x)
    with pytest.raises(TypeError, match="argument 'y' has typestr '<f4'"):
        lib.saxpy[1, 32](1.0, x, DeviceArray((10,), "<f4"), x)
    with pytest.raises(ValueError, match="argument 'out' is read-only but kernel 'saxpy' writes"):
        lib.saxpy[1, 32](1.0, x, x, DeviceArray((10,), readonly=True))
    with pytest.raises(TypeError, match="argument 'a' must be a float, not str"):
        lib.saxpy[1, 32]("1", x, x, x)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        lib.saxpy[1, 32](1.0, x, x)
    with pytest.raises(ValueError, match="block must be a positive int"):
        lib.saxpy[1, 0](1.0, x, x, x)
    with pytest.raises(TypeError, match="needs grid= and block="):
        lib.saxpy(1.0, x, x, x)
    with pytest.raises(AttributeError, match="no CUDA kernel 'nope'"):
        lib.nope  # noqa: B018


def test_device_error_arrives_at_synchronize(cuda_artifact: Path) -> None:
    lib, driver = _load(cuda_artifact, H200)
    kernel = lib.out_of_bounds
    sites = kernel.entry.sites
    source = Path(__file__).parent / "kernels_corpus.py"
    line = next(i for i, t in enumerate(source.read_text().splitlines(), 1) if "x[i] = 1.0" in t)
    site = next(k for k, s in enumerate(sites, 1) if s[1] == line)
    message = b"index {0} is out of bounds for axis {1} with size {2}\0"
    driver.memory[0x900000] = bytearray(message)
    record = struct.pack(DEVICE_ERROR_FORMAT, 1, 5, site, 1, 0x900000, 7, 0, 5, 1)
    driver.write(kernel._record, record)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5") as info:
        lib.synchronize()
    assert info.value.__notes__ == [
        f"raised by compiled kernels_corpus.out_of_bounds at kernels_corpus.py:{line} (CUDA)"
    ]
    lib.synchronize()  # the record was cleared


def test_no_driver_is_a_clear_error(cuda_artifact: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes.util

    import gradc

    monkeypatch.setattr(ctypes.util, "find_library", lambda name: "libcuda-missing.so.1")
    with pytest.raises(ArtifactError, match="cannot load the CUDA driver library"):
        gradc.load(cuda_artifact, target="cuda")
    with pytest.raises(ValueError, match="target must be 'cpu' or 'cuda'"):
        gradc.load(cuda_artifact, target="tpu")  # type: ignore[call-overload]


def test_cuda_load_imports_no_compiler_llvmlite_or_click(cuda_artifact: Path) -> None:
    """The CUDA load path (to where the driver is opened) imports no compiler code,
    llvmlite, click or numpy."""
    import subprocess
    import sys

    code = (
        "import sys, gradc\n"
        "from gradc.artifacts.loader import cuda\n"
        "class NoGpu:\n"
        "    def facts(self): raise RuntimeError('stop')\n"
        f"try:\n    cuda.load({str(cuda_artifact)!r}, driver=NoGpu())\n"
        "except RuntimeError:\n    pass\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'llvmlite', 'click') or m.startswith(('gradc.compiler', 'gradc.cli')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_modules_are_unloaded_on_close_and_collection(cuda_artifact: Path) -> None:
    import gc

    lib, driver = _load(cuda_artifact, H200)
    n = len(driver.images)
    saxpy = lib.saxpy
    del lib
    gc.collect()
    assert driver.unloaded == []  # a kernel still holds the modules
    del saxpy
    gc.collect()
    assert sorted(driver.unloaded) == list(range(n))
    with _load(cuda_artifact, H200)[0] as lib2:
        kernel = lib2.saxpy
    driver2 = lib2._driver
    assert isinstance(driver2, FakeDriver) and sorted(driver2.unloaded) == list(range(n))
    lib2.close()  # once only (the fake driver refuses a second unload)
    x = DeviceArray((4,))
    with pytest.raises(ArtifactError, match="'saxpy' is unloaded: its library was closed"):
        kernel[1, 4](1.0, x, x, x)


def test_modules_are_unloaded_when_loading_fails(
    cuda_artifact: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = FakeDriver(H200)
    calls = iter(range(100))

    def failing(module: int, name: str) -> tuple[int, str]:
        if next(calls) == 2:
            raise ArtifactError("no such function")
        return (module, name)

    monkeypatch.setattr(driver, "function", failing)
    with pytest.raises(ArtifactError, match="no such function"):
        cuda_loader.load(cuda_artifact, driver=driver)
    assert sorted(driver.unloaded) == [0, 1, 2]
