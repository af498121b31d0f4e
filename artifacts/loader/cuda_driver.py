"""The CUDA driver as the loader uses it: a small interface and its ctypes backend.

:class:`Driver` is everything ``gradc.artifacts.loader.cuda`` needs of CUDA: the device's
facts, modules loaded from images, kernel launches, and a few copies. :class:`LibCuda`
implements it with ctypes on ``libcuda.so.1`` (no dependency; ~1 ms to open), on the
device's *primary* context, the one CuPy, PyTorch and Numba use, so their pointers are
valid in our kernels. Tests implement the same interface without a GPU.

PTX ISA support by driver (CUDA's release notes: a driver of CUDA ``X.Y`` JIT-compiles
PTX up to the ISA of the toolkit ``X.Y``): :func:`max_ptx_isa`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gradc.artifacts.errors import ArtifactError

__all__ = ["DeviceFacts", "Driver", "DriverError", "LibCuda", "max_ptx_isa", "open_driver"]


class DriverError(ArtifactError):
    """A CUDA driver call failed, or there is no driver or device (the message says which
    call, its ``CUresult`` name and what was missing)."""


@dataclass(frozen=True)
class DeviceFacts:
    """What variant selection needs to know of the device and driver.

    Attributes:
        name: the device's name (``"NVIDIA H200"``).
        cc: its compute capability, ``(9, 0)`` for ``sm_90``.
        driver: the driver's CUDA version as ``cuDriverGetVersion`` gives it (13000: 13.0).
    """

    name: str
    cc: tuple[int, int]
    driver: int

    @property
    def driver_text(self) -> str:
        """``"13.0"``."""
        return f"{self.driver // 1000}.{self.driver % 1000 // 10}"


#: (driver CUDA version, highest PTX ISA it JIT-compiles), ascending (CUDA release notes).
_PTX_ISA = (
    (11000, (7, 0)), (11010, (7, 1)), (11020, (7, 2)), (11030, (7, 3)), (11040, (7, 4)),
    (11050, (7, 5)), (11060, (7, 6)), (11070, (7, 7)), (11080, (7, 8)), (12000, (8, 0)),
    (12010, (8, 1)), (12020, (8, 2)), (12030, (8, 3)), (12040, (8, 4)), (12050, (8, 5)),
    (12070, (8, 6)), (12080, (8, 7)), (12090, (8, 8)), (13000, (9, 0)),
)  # fmt: skip


def max_ptx_isa(driver: int) -> tuple[int, int]:
    """The highest PTX ISA a driver of CUDA version ``driver`` (``cuDriverGetVersion``)
    compiles; ``(0, 0)`` below CUDA 11. A driver newer than the table gets its last row."""
    best = (0, 0)
    for version, isa in _PTX_ISA:
        if driver >= version:
            best = isa
    return best


class Driver(Protocol):
    """The driver calls the CUDA loader makes (all on the device's primary context)."""

    def facts(self) -> DeviceFacts:
        """The device and the driver."""
        ...

    def load_module(self, image: bytes) -> Any:
        """Load a cubin or NUL-terminated PTX (JIT-compiled by the driver); a handle."""
        ...

    def unload_module(self, module: Any) -> None:
        """``cuModuleUnload``: free a module :meth:`load_module` loaded."""
        ...

    def function(self, module: Any, name: str) -> Any:
        """The kernel ``name`` of ``module``."""
        ...

    def global_address(self, module: Any, name: str) -> tuple[int, int]:
        """(device address, size) of global ``name`` of ``module``."""
        ...

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: Sequence[ctypes._SimpleCData[Any]],
        stream: int,
    ) -> None:
        """``cuLaunchKernel``: each parameter's bytes by address, no shared memory."""
        ...

    def synchronize(self) -> None:
        """Wait for all work of the context."""
        ...

    def stream_synchronize(self, stream: int) -> None:
        """Wait for the work on ``stream``."""
        ...

    def read(self, address: int, size: int) -> bytes:
        """Copy ``size`` bytes from device address ``address``."""
        ...

    def write(self, address: int, data: bytes) -> None:
        """Copy ``data`` to device address ``address``."""
        ...


def open_driver() -> LibCuda:
    """The ctypes driver on device 0's primary context.

    Raises:
        DriverError: no ``libcuda`` (no NVIDIA driver installed), no device, or the
            driver refused to initialise (its error name).
    """
    name = ctypes.util.find_library("cuda") or "libcuda.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        raise DriverError(
            f"cannot load the CUDA driver library ({name}: {exc}); loading with "
            "target='cuda' needs an NVIDIA driver and a GPU"
        ) from None
    return LibCuda(lib)


class LibCuda:
    """:class:`Driver` over ``libcuda`` with ctypes (device 0, its primary context)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        self._check("cuInit", 0)
        count = ctypes.c_int()
        self._check("cuDeviceGetCount", ctypes.byref(count))
        if count.value < 1:
            raise DriverError("the CUDA driver found no GPU (cuDeviceGetCount is 0)")
        self._device = ctypes.c_int()
        self._check("cuDeviceGet", ctypes.byref(self._device), 0)
        self._context = ctypes.c_void_p()
        self._check("cuDevicePrimaryCtxRetain", ctypes.byref(self._context), self._device)
        self._check("cuCtxSetCurrent", self._context)

    def _check(self, fn: str, *args: Any) -> None:
        result = getattr(self._lib, fn)(*args)
        if result != 0:
            name = ctypes.c_char_p()
            self._lib.cuGetErrorName(result, ctypes.byref(name))
            what = name.value.decode() if name.value else f"CUresult {result}"
            raise DriverError(f"{fn} failed: {what}")

    def facts(self) -> DeviceFacts:
        """The device's name and compute capability, the driver's version."""
        major, minor, version = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self._check("cuDeviceGetAttribute", ctypes.byref(major), 75, self._device)
        self._check("cuDeviceGetAttribute", ctypes.byref(minor), 76, self._device)
        self._check("cuDriverGetVersion", ctypes.byref(version))
        name = ctypes.create_string_buffer(256)
        self._check("cuDeviceGetName", name, 256, self._device)
        return DeviceFacts(name.value.decode(), (major.value, minor.value), version.value)

    def load_module(self, image: bytes) -> Any:
        """``cuModuleLoadData`` (on the primary context)."""
        self._check("cuCtxSetCurrent", self._context)
        module = ctypes.c_void_p()
        self._check("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(image))
        return module

    def unload_module(self, module: Any) -> None:
        """``cuModuleUnload`` (on the primary context)."""
        self._check("cuCtxSetCurrent", self._context)
        self._check("cuModuleUnload", module)

    def function(self, module: Any, name: str) -> Any:
        """``cuModuleGetFunction``."""
        fn = ctypes.c_void_p()
        self._check("cuModuleGetFunction", ctypes.byref(fn), module, name.encode())
        return fn

    def global_address(self, module: Any, name: str) -> tuple[int, int]:
        """``cuModuleGetGlobal_v2``."""
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        self._check(
            "cuModuleGetGlobal_v2", ctypes.byref(ptr), ctypes.byref(size), module, name.encode()
        )
        return ptr.value, size.value

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: Sequence[ctypes._SimpleCData[Any]],
        stream: int,
    ) -> None:
        """``cuLaunchKernel`` with ``kernelParams`` pointing at each parameter."""
        pointers = (ctypes.c_void_p * max(1, len(params)))(
            *[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in params]
        )
        self._check(
            "cuLaunchKernel",
            function,
            *(ctypes.c_uint(d) for d in grid),
            *(ctypes.c_uint(d) for d in block),
            ctypes.c_uint(0),
            ctypes.c_void_p(stream),
            pointers,
            None,
        )

    def synchronize(self) -> None:
        """``cuCtxSynchronize``."""
        self._check("cuCtxSynchronize")

    def stream_synchronize(self, stream: int) -> None:
        """``cuStreamSynchronize``."""
        self._check("cuStreamSynchronize", ctypes.c_void_p(stream))

    def read(self, address: int, size: int) -> bytes:
        """``cuMemcpyDtoH_v2``."""
        buf = ctypes.create_string_buffer(size)
        self._check("cuMemcpyDtoH_v2", buf, ctypes.c_uint64(address), ctypes.c_size_t(size))
        return buf.raw

    def write(self, address: int, data: bytes) -> None:
        """``cuMemcpyHtoD_v2``."""
        self._check("cuMemcpyHtoD_v2", ctypes.c_uint64(address), data, ctypes.c_size_t(len(data)))
