"""A CUDA driver without a GPU, for the loader's tests: device facts as given, modules
and launches recorded, device memory a dict of byte arrays."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gradc.artifacts.loader.cuda_driver import DeviceFacts


@dataclass
class Launch:
    """One recorded ``cuLaunchKernel``."""

    function: tuple[int, str]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    raw: bytes
    sizes: list[int]
    stream: int


@dataclass
class FakeDriver:
    """Implements ``gradc.artifacts.loader.cuda_driver.Driver``."""

    device: DeviceFacts
    images: list[bytes] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    synced_streams: list[int] = field(default_factory=list)
    memory: dict[int, bytearray] = field(default_factory=dict)
    unloaded: list[int] = field(default_factory=list)

    def facts(self) -> DeviceFacts:
        return self.device

    def load_module(self, image: bytes) -> Any:
        self.images.append(image)
        return len(self.images) - 1

    def unload_module(self, module: Any) -> None:
        assert module not in self.unloaded, f"module {module} unloaded twice"
        self.unloaded.append(module)

    def function(self, module: Any, name: str) -> Any:
        return (module, name)

    def global_address(self, module: Any, name: str) -> tuple[int, int]:
        address = 0x10000 * (module + 1)
        self.memory.setdefault(address, bytearray(56))
        return address, 56

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        params: Sequence[ctypes._SimpleCData[Any]],
        stream: int,
    ) -> None:
        raw = b"".join(bytes(p) for p in params)
        sizes = [ctypes.sizeof(p) for p in params]
        self.launches.append(Launch(function, grid, block, raw, sizes, stream))

    def synchronize(self) -> None:
        pass

    def stream_synchronize(self, stream: int) -> None:
        self.synced_streams.append(stream)

    def _find(self, address: int) -> tuple[bytearray, int]:
        for base, buf in self.memory.items():
            if base <= address < base + len(buf):
                return buf, address - base
        raise AssertionError(f"no fake device memory at {address:#x}")

    def read(self, address: int, size: int) -> bytes:
        buf, at = self._find(address)
        return bytes(buf[at : at + size]).ljust(size, b"\0")

    def write(self, address: int, data: bytes) -> None:
        buf, at = self._find(address)
        buf[at : at + len(data)] = data


class DeviceArray:
    """An object with ``__cuda_array_interface__`` v3 over a made-up device address."""

    def __init__(
        self,
        shape: tuple[int, ...],
        typestr: str = "<f8",
        *,
        address: int = 0x7F0000001000,
        strides: tuple[int, ...] | None = None,
        readonly: bool = False,
        stream: int | None = None,
    ) -> None:
        self.__cuda_array_interface__ = {
            "version": 3,
            "shape": shape,
            "typestr": typestr,
            "data": (address, readonly),
            "strides": strides,
            "stream": stream,
        }
