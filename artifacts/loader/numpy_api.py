"""Addresses, in this process, of what array fast-call wrappers import by name
(``gradc.artifacts.abi.ndarray``): NumPy's array type, dtypes and two C-API functions,
the :class:`~.arrays.ArrayOwner` class and the linked runtime.

Resolved at load time, never written into an object. Before it hands any of them out,
:func:`numpy_symbols` checks on probe arrays that NumPy's ``PyArrayObject`` fields lie
where a wrapper reads them; where they do not (a NumPy of another layout, a free-threaded
CPython), it returns nothing, array wrappers fail to link, and the loader keeps the
artifact on the ctypes path.
"""

from __future__ import annotations

import ctypes
import sys

from gradc.artifacts.abi.ndarray import (
    ARRAY_API_SLOTS,
    FIELD_OFFSETS,
    NPY_ARRAY_C_CONTIGUOUS,
    NPY_ARRAY_F_CONTIGUOUS,
    NPY_ARRAY_WRITEABLE,
    OB_TYPE_OFFSET,
    dtype_symbol,
)
from gradc.artifacts.abi.types import NUMPY_DTYPES
from gradc.artifacts.loader.linking import Runtime

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["layout_holds", "numpy_symbols"]


def _word(address: int, offset: int) -> int:
    return ctypes.c_int64.from_address(address + offset).value


def _int(address: int, offset: int) -> int:
    return ctypes.c_int32.from_address(address + offset).value


def _probe(np: Any, a: Any) -> bool:
    """Whether the fields of array ``a`` read at :data:`FIELD_OFFSETS` are ``a``'s."""
    at = id(a)
    nd = a.ndim
    flags = _int(at, FIELD_OFFSETS["flags"])
    dims = _word(at, FIELD_OFFSETS["dimensions"])
    strides = _word(at, FIELD_OFFSETS["strides"])
    return (
        _word(at, OB_TYPE_OFFSET) == id(type(a))
        and _word(at, FIELD_OFFSETS["data"]) == a.ctypes.data
        and _int(at, FIELD_OFFSETS["nd"]) == nd
        and _word(at, FIELD_OFFSETS["descr"]) == id(a.dtype)
        and tuple(_word(dims, 8 * k) for k in range(nd)) == a.shape
        and tuple(_word(strides, 8 * k) for k in range(nd)) == a.strides
        and bool(flags & NPY_ARRAY_C_CONTIGUOUS) == a.flags.c_contiguous
        and bool(flags & NPY_ARRAY_F_CONTIGUOUS) == a.flags.f_contiguous
        and bool(flags & NPY_ARRAY_WRITEABLE) == a.flags.writeable
    )


def layout_holds() -> bool:
    """Whether NumPy arrays in this process have the field layout wrappers read."""
    if sys.maxsize != 2**63 - 1 or getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False
    import numpy as np

    base = np.arange(24.0).reshape(4, 6)
    frozen = np.asfortranarray(base)
    frozen.flags.writeable = False
    probes = (base, base[::-2, 1::3], frozen, np.zeros(3, np.int32), np.ones((2, 0, 1), bool))
    return all(_probe(np, a) for a in probes)


def _array_api(np: Any) -> dict[str, int]:
    """Addresses of the NumPy C-API functions of :data:`ARRAY_API_SLOTS`."""
    import importlib

    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # NumPy 1.x
        umath = importlib.import_module("numpy.core._multiarray_umath")
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = (ctypes.py_object, ctypes.c_char_p)
    table = get(umath._ARRAY_API, None)
    pointers = (ctypes.c_void_p * (max(ARRAY_API_SLOTS.values()) + 1)).from_address(table)
    return {name: pointers[slot] or 0 for name, slot in ARRAY_API_SLOTS.items()}


_cache: dict[str, int] = {}
#: the result of :func:`layout_holds` in this process (probed once, at the first load)
_layout: list[bool] = []


def numpy_symbols(runtime: Runtime | None) -> dict[str, int]:
    """Name -> address of every ``gradc.artifacts.abi.ndarray.NUMPY_SYMBOLS`` entry; empty
    when NumPy's layout is not the one wrappers read (without ``gradcnp_runtime`` while
    no runtime is linked: only wrappers of array results use it)."""
    if not _layout:
        _layout.append(layout_holds())
    if not _layout[0]:
        return {}
    if not _cache:
        import numpy as np

        from gradc.artifacts.loader.arrays import ArrayOwner

        found = {dtype_symbol(e): id(np.dtype(name)) for e, name in NUMPY_DTYPES.items()}
        found["gradcnp_ndarray"] = id(np.ndarray)
        found["gradcnp_ArrayOwner"] = id(ArrayOwner)
        found.update(_array_api(np))
        _cache.update(found)
    if runtime is None:
        return dict(_cache)
    return {**_cache, "gradcnp_runtime": id(runtime)}
