"""Kernel arguments as docs/abi.md "CUDA kernels" lays them out, from Python values.

Scalars convert as the CPU loader's do (an ``int`` for a float parameter is converted;
a ``bool`` is no number; integers are range-checked). Arrays come through the
``__cuda_array_interface__`` protocol (version 3; CuPy, PyTorch, Numba, pycuda's
``GPUArray`` all offer it): its ``typestr`` must be the parameter's dtype, its ``shape``
its rank, its ``strides`` (``None``: C order) fit the annotation's layout, a read-only
array is refused for a parameter the kernel writes, and a ``mask`` is refused. Host arrays
(NumPy) are refused with a ``TypeError`` saying so: the kernel would read host memory.
"""

from __future__ import annotations

import ctypes
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gradc.artifacts.abi.types import Array, parse_type

__all__ = ["Packed", "pack_arguments"]

#: ``__cuda_array_interface__`` typestrs (little-endian) by gradc dtype.
TYPESTRS = {"f64": "<f8", "f32": "<f4", "i64": "<i8", "i32": "<i4", "bool": "|b1"}
_ITEMSIZE = {"f64": 8, "f32": 4, "i64": 8, "i32": 4, "bool": 1}
_INT_RANGE = {"i64": 63, "i32": 31}


@dataclass
class Packed:
    """The packed arguments: one ctypes value per PTX parameter, in order, and the
    streams the arrays' producers named (``__cuda_array_interface__`` v3 ``stream``)."""

    params: list[ctypes._SimpleCData[Any]] = field(default_factory=list)
    streams: set[int] = field(default_factory=set)

    def raw(self) -> bytes:
        """The parameters' bytes, concatenated (what ``struct.pack`` of
        ``kernel_param_format`` gives)."""
        return b"".join(bytes(p) for p in self.params)


def pack_arguments(
    kernel: str, params: Sequence[tuple[str, str]], writes: Sequence[str], args: Sequence[Any]
) -> Packed:
    """Pack ``args`` for ``kernel`` whose parameters are ``params`` ((name, type) pairs).

    Raises:
        TypeError: a wrong number of arguments, a value of the wrong kind, a host array,
            an array of the wrong dtype or rank, or one with a mask.
        ValueError: an array of the wrong layout, a read-only array the kernel writes,
            an integer out of range.
    """
    if len(args) != len(params):
        raise TypeError(f"kernel '{kernel}' takes {len(params)} arguments ({len(args)} given)")
    packed = Packed()
    for (name, type_text), arg in zip(params, args, strict=True):
        t = parse_type(type_text)
        if isinstance(t, Array):
            _array(packed, kernel, name, t, arg, name in writes)
        else:
            packed.params.append(_scalar(name, type_text, arg))
    return packed


def _scalar(name: str, t: str, arg: Any) -> ctypes._SimpleCData[Any]:
    if t in ("f64", "f32"):
        if isinstance(arg, bool) or (
            not isinstance(arg, int | float) and not hasattr(arg, "__float__")
        ):
            raise TypeError(f"argument '{name}' must be a float, not {type(arg).__name__}")
        return ctypes.c_double(float(arg)) if t == "f64" else ctypes.c_float(float(arg))
    if t == "bool":
        if type(arg).__name__ not in ("bool", "bool_"):
            raise TypeError(f"argument '{name}' must be a bool, not {type(arg).__name__}")
        return ctypes.c_uint8(1 if arg else 0)
    if isinstance(arg, bool):
        raise TypeError(f"argument '{name}' must be an int, not bool")
    try:
        value = operator.index(arg)
    except TypeError:
        raise TypeError(f"argument '{name}' must be an int, not {type(arg).__name__}") from None
    bits = _INT_RANGE[t]
    if not -(1 << bits) <= value < 1 << bits:
        raise ValueError(f"argument '{name}' = {value} does not fit in {t}")
    return ctypes.c_int64(value) if t == "i64" else ctypes.c_int32(value)


def _array(packed: Packed, kernel: str, name: str, t: Array, arg: Any, writes: bool) -> None:
    cai = getattr(arg, "__cuda_array_interface__", None)
    if not isinstance(cai, dict):
        if hasattr(arg, "__array_interface__") or hasattr(arg, "__array__"):
            raise TypeError(
                f"argument '{name}' of kernel '{kernel}' is a host array "
                f"({type(arg).__module__}.{type(arg).__name__}); pass a device array (CuPy, "
                "PyTorch, Numba, pycuda) that has __cuda_array_interface__"
            )
        raise TypeError(
            f"argument '{name}' of kernel '{kernel}' must be a device array with "
            f"__cuda_array_interface__, not {type(arg).__name__}"
        )
    dtype = t.dtype
    if cai.get("typestr") != TYPESTRS[dtype]:
        raise TypeError(
            f"argument '{name}' has typestr {cai.get('typestr')!r}; the kernel takes {t} "
            f"({TYPESTRS[dtype]!r})"
        )
    shape = tuple(int(d) for d in cai["shape"])
    if len(shape) != t.ndim:
        raise TypeError(f"argument '{name}' has {len(shape)} dimension(s); the kernel takes {t}")
    if cai.get("mask") is not None:
        raise TypeError(f"argument '{name}' is a masked array; kernels take unmasked arrays")
    strides = cai.get("strides")
    itemsize = _ITEMSIZE[dtype]
    strides = _c_strides(shape, itemsize) if strides is None else tuple(int(s) for s in strides)
    _check_layout(name, t, shape, strides, itemsize)
    pointer, readonly = cai["data"]
    if readonly and writes:
        raise ValueError(f"argument '{name}' is read-only but kernel '{kernel}' writes it")
    stream = cai.get("stream")
    if stream is not None:
        packed.streams.add(int(stream))
    packed.params.append(ctypes.c_uint64(int(pointer or 0)))
    packed.params.extend(ctypes.c_int64(d) for d in (*shape, *strides))


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    out, step = [], itemsize
    for d in reversed(shape):
        out.append(step)
        step *= max(d, 1)
    return tuple(reversed(out))


def _check_layout(
    name: str, t: Array, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int
) -> None:
    if t.layout == "A":
        return
    axes = range(t.ndim - 1, -1, -1) if t.layout == "C" else range(t.ndim)
    step = itemsize
    for k in axes:
        if shape[k] > 1 and strides[k] != step:
            order = "C-contiguous" if t.layout == "C" else "Fortran-contiguous"
            raise ValueError(f"argument '{name}' must be {order} (the kernel takes {t})")
        step *= shape[k]
