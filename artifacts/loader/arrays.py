"""Arrays at the C ABI: descriptors, owned results and borrowed results (docs/abi.md
"Arrays", ``gradc.artifacts.abi.layout``).

An array argument is passed as a borrowed descriptor of the NumPy array's memory. An owned
array result (``meminfo`` not NULL) becomes a NumPy array whose ``.base`` is an
:class:`ArrayOwner` that calls ``gradc_rt1_decref`` when NumPy drops it; the owner keeps
the runtime (and the JIT) alive, so results outlive their library. A borrowed result
(``meminfo`` NULL: the export returned one of its arguments) becomes a view into that
argument's memory (its ``.base`` is the argument, or the array owning its memory as
NumPy's own views have it), read-only when the argument is.

numpy is imported only when a signature has arrays.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

from gradc.artifacts.abi.layout import DESCRIPTOR_FIELDS, descriptor_bytes
from gradc.artifacts.abi.types import Array
from gradc.artifacts.loader.convert import CType, same
from gradc.artifacts.loader.linking import Runtime, linked_runtime

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ArrayOwner", "array_ctype", "descriptor"]


class ArrayOwner:
    """The ``.base`` of an array returned by compiled code: owns one reference to its block.

    NumPy reads ``__array_interface__`` once when it makes the array; when the array (and
    every view of it) is gone, the owner is collected and releases the block with
    ``gradc_rt1_decref``.
    """

    __slots__ = ("__array_interface__", "_meminfo", "_runtime")

    def __init__(self, runtime: Runtime, meminfo: int, interface: dict[str, Any]) -> None:
        self._runtime = runtime
        self._meminfo = meminfo
        self.__array_interface__ = interface

    def __del__(self) -> None:
        meminfo, self._meminfo = self._meminfo, 0
        if meminfo:
            self._runtime.decref(meminfo)

    def __repr__(self) -> str:
        return f"<gradc.ArrayOwner of block {self._meminfo:#x}>"


def descriptor(ndim: int) -> Any:
    """The ctypes Structure ``gradc_array_N`` of docs/abi.md."""
    cached = _DESCRIPTORS.get(ndim)
    if cached is None:
        ctypes_of = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64 * ndim, ctypes.c_int64 * ndim)
        fields = tuple(zip(DESCRIPTOR_FIELDS, ctypes_of, strict=True))
        cached = type(f"gradc_array_{ndim}", (ctypes.Structure,), {"_fields_": fields})
        assert ctypes.sizeof(cached) == descriptor_bytes(ndim)
        _DESCRIPTORS[ndim] = cached
    return cached


_DESCRIPTORS: dict[int, Any] = {}


def array_ctype(t: Array, text: str) -> CType:
    """An array: a pointer to a borrowed ``gradc_array_N`` as a parameter, the descriptor by
    value as a result (docs/abi.md "Arrays"); messages spell the type ``text``."""
    import numpy as np

    ndim, layout = t.ndim, t.layout
    desc = descriptor(ndim)
    want = np.dtype(t.numpy_dtype)
    typestr = want.str
    itemsize = want.itemsize

    def convert(v: Any) -> Any:
        if not isinstance(v, np.ndarray):
            raise TypeError(f"must be {text} (a numpy array), got {type(v).__name__}")
        if v.dtype != want or v.ndim != ndim:
            raise TypeError(f"must be {text} ({want}, {ndim}-d), got {v.dtype}, {v.ndim}-d")
        if layout == "C" and not v.flags.c_contiguous:
            raise ValueError(f"must be C-contiguous ({text}); pass np.ascontiguousarray(...)")
        if layout == "F" and not v.flags.f_contiguous:
            raise ValueError(f"must be Fortran-contiguous ({text}); pass np.asfortranarray(...)")
        d = desc()
        d.data = v.ctypes.data
        d.shape[:] = v.shape
        d.strides[:] = v.strides
        return d

    def to_numpy(d: Any, args: Sequence[Any]) -> Any:
        data = d.data or 0
        meminfo = d.meminfo
        shape = tuple(d.shape)
        strides = tuple(d.strides)
        if meminfo:
            rt = linked_runtime()
            if rt is None:  # cannot happen: owned blocks come from the runtime
                raise RuntimeError("compiled code returned an owned array but no runtime is linked")
            interface = {
                "version": 3,
                "shape": shape,
                "typestr": typestr,
                "data": (data, False),
                "strides": strides,
            }
            return np.asarray(ArrayOwner(rt, meminfo, interface))
        return _borrowed_view(np, data, shape, strides, want, itemsize, args, text)

    return CType(text, desc, convert, same, scalar=False, array_result=to_numpy,
                 param_ctype=ctypes.POINTER(desc))  # fmt: skip


def _extent(data: int, shape: Sequence[int], strides: Sequence[int], itemsize: int) -> range:
    """Bytes spanned by an array: ``range(lo, hi)`` (empty for an array of no elements)."""
    if 0 in shape:
        return range(data, data)
    lo = hi = data
    for n, st in zip(shape, strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return range(lo, hi + itemsize)


def _borrowed_view(
    np: Any,
    data: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: Any,
    itemsize: int,
    args: Sequence[Any],
    text: str,
) -> Any:
    """A view of the argument array whose memory holds a borrowed result."""
    span = _extent(data, shape, strides, itemsize)
    for a in args:
        if not isinstance(a, np.ndarray) or a.dtype != dtype:
            continue
        addr = a.ctypes.data
        if (addr, tuple(a.shape), tuple(a.strides)) == (data, shape, strides):
            view = a.view()
            break
        if not span:
            continue
        have = _extent(addr, a.shape, a.strides, a.itemsize)
        if not (have.start <= span.start and span.stop <= have.stop):
            continue
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        root_span = _extent(root.ctypes.data, root.shape, root.strides, root.itemsize)
        if root.flags.c_contiguous or root.flags.f_contiguous:
            offset = data - root_span.start
            view = np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
        else:
            interface = {
                "version": 3,
                "shape": shape,
                "typestr": dtype.str,
                "data": (data, not a.flags.writeable),
                "strides": strides,
            }
            view = np.asarray(_Borrowed(a, interface))
        break
    else:
        if not span:
            return np.ndarray(shape, dtype)  # no elements: nothing to share
        raise RuntimeError(
            f"compiled code returned a borrowed {text} array that lies in no argument"
        )
    if not a.flags.writeable and view.flags.writeable:
        view.flags.writeable = False
    return view


class _Borrowed:
    """Base of a view into an argument that NumPy cannot re-slice: keeps the argument."""

    __slots__ = ("__array_interface__", "array")

    def __init__(self, array: Any, interface: dict[str, Any]) -> None:
        self.array = array
        self.__array_interface__ = interface
