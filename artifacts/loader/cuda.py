"""Loading the CUDA kernels of an artifact into this process: ``gradc.load(path, target="cuda")``.

::

    lib = gradc.load("build/kernels.gradc", target="cuda")   # picks a variant per kernel
    lib.saxpy[blocks, 256](2.0, x_dev, y_dev, out_dev)       # CuPy / PyTorch / Numba arrays
    lib.saxpy(2.0, x_dev, y_dev, out_dev, grid=blocks, block=256, stream=s)
    lib.synchronize()        # a device-side IndexError arrives here, with file:line

For each kernel of the manifest's ``cuda`` section, :func:`~.cuda_select.select_variant`
chooses the cubin or PTX for the device (a ``RuntimeWarning`` once per library when the
driver must JIT-compile PTX), the file's sha256 is verified, and the module is loaded on
the device's primary context through a :class:`~.cuda_driver.Driver` (a cubin only once
its parameter layout, as ptxas recorded it, is the kernel ABI's for the manifest's
signature: ``gradc.artifacts.abi.cubin``) (ctypes on
``libcuda`` unless one is given). Arguments are packed by :mod:`.cuda_args`; launches are
asynchronous. :meth:`CudaLibrary.synchronize` waits for the device, then reads every
kernel module's device error record (docs/abi.md "CUDA kernels"): the first raiser's
exception is raised, with the note ``raised by compiled MODULE.NAME at FILE:LINE (CUDA)``,
and the record is cleared.

Imports no compiler code, no llvmlite and no click (``tests/test_layering.py``).
"""

from __future__ import annotations

import os
import struct
import warnings
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gradc.artifacts.abi.codes import EXCEPTION_CLASSES
from gradc.artifacts.abi.cubin import check_param_layout
from gradc.artifacts.abi.cuda import (
    DEVICE_ERROR_BYTES,
    DEVICE_ERROR_FORMAT,
    DEVICE_ERROR_SYMBOL,
    MESSAGE_MAX_BYTES,
)
from gradc.artifacts.cuda_manifest import CudaKernelEntry
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.cuda_args import pack_arguments
from gradc.artifacts.loader.cuda_driver import DeviceFacts, Driver, DriverError, open_driver
from gradc.artifacts.loader.cuda_select import select_variant
from gradc.artifacts.loader.exceptions import format_message

__all__ = ["CudaKernel", "CudaLibrary", "DriverError", "Modules", "load"]

Dims = tuple[int, int, int]


def load(path: str | os.PathLike[str], *, driver: Driver | None = None) -> CudaLibrary:
    """Load the CUDA kernels of the artifact directory ``path``.

    Raises:
        ArtifactError: no artifact, no ``cuda`` section (built without ``--target
            cuda``), a damaged file, or no variant fits the device (the message names the
            device, the driver and the variants).
        DriverError: no CUDA driver or GPU (an ``ArtifactError``), or a driver call failed.
    """
    from gradc.artifacts.store import read_blob, read_manifest

    art = Path(path)
    manifest = read_manifest(art)
    if manifest.cuda is None:
        raise ArtifactError(
            f"{art} holds no CUDA kernels: build it with `gradc build --target cuda`"
        )
    drv = driver if driver is not None else open_driver()
    device = drv.facts()
    kernels: dict[str, CudaKernel] = {}
    jit: list[str] = []
    modules = Modules(drv)
    try:
        for entry in manifest.cuda.kernels:
            choice = select_variant(entry, device)
            image = read_blob(art, choice.variant.file)
            if not choice.jit:  # never call a cubin with a layout it does not have
                check_param_layout(image, entry.symbol, entry.params)
            if choice.jit:
                jit.append(entry.name)
                image += b"\0"
            module = modules.load(image)
            record, _ = drv.global_address(module, DEVICE_ERROR_SYMBOL)
            function = drv.function(module, entry.symbol)
            kernels[entry.name] = CudaKernel(drv, manifest.module, entry, function, record)
            kernels[entry.name].modules = modules
    except BaseException:
        modules.close()
        raise
    if jit:
        warnings.warn(
            f"gradc: {art} has no cubin for {device.name} (sm_{device.cc[0]}{device.cc[1]}): "
            f"the driver JIT-compiles the PTX of {', '.join(jit)}",
            RuntimeWarning,
            stacklevel=2,
        )
    return CudaLibrary(art, drv, device, kernels, modules)


class Modules:
    """The modules one :func:`load` loaded: unloaded (``cuModuleUnload``) by
    :meth:`close`, or when neither the library nor any of its kernels is referenced any
    more (garbage collection; not at interpreter exit, when the driver tears the context
    down itself)."""

    def __init__(self, driver: Driver) -> None:
        self._driver = driver
        self.handles: list[Any] = []
        self._finalizer = weakref.finalize(self, _unload, driver, self.handles)
        self._finalizer.atexit = False

    def load(self, image: bytes) -> Any:
        """Load ``image`` (:meth:`Driver.load_module`); its handle."""
        handle = self._driver.load_module(image)
        self.handles.append(handle)
        return handle

    @property
    def closed(self) -> bool:
        """The modules are unloaded."""
        return not self._finalizer.alive

    def close(self) -> None:
        """Unload every module now (once)."""
        self._finalizer()


def _unload(driver: Driver, handles: list[Any]) -> None:
    while handles:
        driver.unload_module(handles.pop())


class CudaKernel:
    """One loaded kernel: launch it as ``k[grid, block](*args)`` or
    ``k(*args, grid=..., block=..., stream=...)`` (``grid``, ``block``: an int or 1 to 3
    ints; ``stream``: 0 for the default stream, an int handle, or a CuPy, PyTorch or pycuda
    stream object)."""

    def __init__(
        self, driver: Driver, module: str, entry: CudaKernelEntry, function: Any, record: int
    ) -> None:
        self._driver = driver
        self._module = module
        self.entry = entry
        self._function = function
        self._record = record
        self.modules: Modules | None = None

    def __repr__(self) -> str:
        args = ", ".join(f"{n}: {t}" for n, t in self.entry.params)
        return f"<gradc CUDA kernel {self._module}.{self.entry.name}({args})>"

    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]:
        if not isinstance(config, tuple) or len(config) not in (2, 3):
            raise TypeError("a kernel launch is written kernel[grid, block](...)")
        grid, block = config[0], config[1]
        stream = config[2] if len(config) == 3 else 0

        def launch(*args: Any) -> None:
            self(*args, grid=grid, block=block, stream=stream)

        return launch

    def __call__(self, *args: Any, grid: Any = None, block: Any = None, stream: Any = 0) -> None:
        if grid is None or block is None:
            raise TypeError(
                f"kernel '{self.entry.name}' needs grid= and block= (or kernel[grid, block](...))"
            )
        if self.modules is not None and self.modules.closed:
            raise ArtifactError(f"kernel '{self.entry.name}' is unloaded: its library was closed")
        g, b = _dims(grid, "grid"), _dims(block, "block")
        packed = pack_arguments(self.entry.name, self.entry.params, self.entry.writes, args)
        handle = _stream_handle(stream)
        for s in sorted(packed.streams - {handle}):
            self._driver.stream_synchronize(s)
        self._driver.launch(self._function, g, b, packed.params, handle)

    def raise_recorded(self) -> None:
        """Raise (and clear) the exception a thread of this kernel recorded, if any."""
        raw = self._driver.read(self._record, DEVICE_ERROR_BYTES)
        claimed, kind, site, _done, message_at, *data = struct.unpack(DEVICE_ERROR_FORMAT, raw)
        if not claimed:
            return
        self._driver.write(self._record, bytes(DEVICE_ERROR_BYTES))
        message = format_message(_read_message(self._driver, message_at), list(data))
        cls = EXCEPTION_CLASSES.get(kind)
        exc = cls(message) if cls is not None else RuntimeError(f"{message} (error kind {kind})")
        where = self.entry.site(site)
        if where is not None and where[1] > 0:
            exc.add_note(
                f"raised by compiled {self._module}.{self.entry.name} at "
                f"{where[0]}:{where[1]} (CUDA)"
            )
        raise exc


class CudaLibrary:
    """The CUDA kernels of one artifact, by name (``lib.saxpy``), and
    :meth:`synchronize`.

    Attributes:
        path: the artifact directory.
        device: the device's facts (:class:`~.cuda_driver.DeviceFacts`).
    """

    def __init__(
        self,
        path: Path,
        driver: Driver,
        device: DeviceFacts,
        kernels: dict[str, CudaKernel],
        modules: Modules,
    ) -> None:
        self.path = path
        self.device = device
        self._driver = driver
        self._kernels = kernels
        self._modules = modules

    def close(self) -> None:
        """Wait for the device, then unload the kernels' modules (``cuModuleUnload``); a
        launch afterwards raises ArtifactError. Also done when the library and its
        kernels are garbage collected, and by ``with gradc.load(...) as lib:``."""
        if not self._modules.closed:
            self._driver.synchronize()
        self._modules.close()

    def __enter__(self) -> CudaLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> CudaKernel:
        kernels = self.__dict__.get("_kernels", {})
        if name in kernels:
            return kernels[name]  # type: ignore[no-any-return]
        raise AttributeError(
            f"no CUDA kernel {name!r} in {self.__dict__.get('path')}; kernels: "
            f"{', '.join(kernels) or '(none)'}"
        )

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._kernels})

    def names(self) -> list[str]:
        """The kernels, in source order."""
        return list(self._kernels)

    def synchronize(self) -> None:
        """Wait for the device; raise the first exception a kernel thread recorded.

        Raises:
            the recorded exception (``IndexError``, ``ValueError``, ...), with a note
            naming the kernel and the raise site's file:line; DriverError when the device
            itself failed.
        """
        self._driver.synchronize()
        for kernel in self._kernels.values():
            kernel.raise_recorded()


def _dims(value: int | Sequence[int], what: str) -> Dims:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d >= 1 for d in dims):
        raise ValueError(f"{what} must be a positive int or 1 to 3 positive ints, got {value!r}")
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]


def _stream_handle(stream: Any) -> int:
    """The ``CUstream`` of ``stream``: an int, or CuPy's ``.ptr``, PyTorch's
    ``.cuda_stream``, pycuda's ``.handle``."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("ptr", "cuda_stream", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(
        f"stream must be an int handle or a CUDA stream object, not {type(stream).__name__}"
    )


def _read_message(driver: Driver, address: int) -> str:
    """The NUL-terminated message at device ``address`` (at most MESSAGE_MAX_BYTES), read
    in small pieces so that no read runs far past the string's module."""
    out = b""
    while address and len(out) < MESSAGE_MAX_BYTES:
        try:
            piece = driver.read(address + len(out), 16)
        except DriverError:
            piece = driver.read(address + len(out), 1)
        end = piece.find(b"\0")
        if end >= 0:
            return (out + piece[:end]).decode("utf-8", "replace")
        out += piece
    return out.decode("utf-8", "replace")
