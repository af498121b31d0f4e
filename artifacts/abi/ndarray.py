"""What an array fast-call wrapper reads of a NumPy array, and the names it imports
(docs/abi.md "Fast call path").

A wrapper reads an ``np.ndarray`` argument's fields the way NumPy's own ``PyArray_DATA``,
``PyArray_NDIM``, ``PyArray_DIMS``, ``PyArray_STRIDES``, ``PyArray_DESCR`` and
``PyArray_FLAGS`` macros do: at fixed offsets of NumPy's ``PyArrayObject_fields`` (64-bit
CPython with the GIL; the layout is NumPy's ABI, the same in NumPy 1.7 to 2.x). The loader
checks these offsets on a probe array before it imports any of :data:`NUMPY_SYMBOLS`
(``gradc.artifacts.loader.numpy_api``): where they do not hold, array wrappers do not link
and the artifact takes the ctypes path.

The buffer protocol (``PyObject_GetBuffer``) would give the same facts, but NumPy formats
and compares a format string on every export (about 100 ns an array here, more than the
whole call should cost), so it is not used.

Names a wrapper object leaves undefined and the loader resolves in the running process:

=============================== ========================================================
``gradcnp_ndarray``             the ``np.ndarray`` type object
``gradcnp_dtype_<T>``           the canonical ``np.dtype`` of gradc element type ``T``
``gradcnp_NewFromDescr``        NumPy C-API ``PyArray_NewFromDescr`` (``_ARRAY_API[94]``)
``gradcnp_SetBaseObject``       NumPy C-API ``PyArray_SetBaseObject`` (``_ARRAY_API[282]``)
``gradcnp_ArrayOwner``          ``gradc.artifacts.loader.arrays.ArrayOwner``
``gradcnp_runtime``             the process's linked runtime (``loader.linking.Runtime``)
=============================== ========================================================

Imports only the standard library.
"""

from __future__ import annotations

__all__ = [
    "ARRAY_API_SLOTS",
    "FIELD_OFFSETS",
    "NPY_ARRAY_C_CONTIGUOUS",
    "NPY_ARRAY_F_CONTIGUOUS",
    "NPY_ARRAY_WRITEABLE",
    "NUMPY_SYMBOLS",
    "OB_TYPE_OFFSET",
    "dtype_symbol",
]

#: Byte offset of ``ob_type`` in every CPython object (64-bit, GIL build).
OB_TYPE_OFFSET = 8

#: Byte offsets in ``PyArrayObject_fields`` (64-bit): ``int`` for ``nd`` and ``flags``,
#: pointers (``npy_intp *`` for ``dimensions`` and ``strides``) for the others.
FIELD_OFFSETS: dict[str, int] = {
    "data": 16,
    "nd": 24,
    "dimensions": 32,
    "strides": 40,
    "descr": 56,
    "flags": 64,
}

#: ``PyArray_FLAGS`` bits (NumPy's ``ndarraytypes.h``).
NPY_ARRAY_C_CONTIGUOUS = 0x0001
NPY_ARRAY_F_CONTIGUOUS = 0x0002
NPY_ARRAY_WRITEABLE = 0x0400

#: Slots of NumPy's C-API table (the ``_ARRAY_API`` capsule) the loader reads.
ARRAY_API_SLOTS: dict[str, int] = {"gradcnp_NewFromDescr": 94, "gradcnp_SetBaseObject": 282}

_ELEMENTS = ("f64", "f32", "i64", "i32", "bool")


def dtype_symbol(element: str) -> str:
    """The symbol of the canonical ``np.dtype`` of gradc element type ``element`` (``"f64"``)."""
    if element not in _ELEMENTS:
        raise ValueError(f"no array element type {element!r}")
    return f"gradcnp_dtype_{element}"


#: Every name an array wrapper may leave undefined besides CPython's (see the table above).
NUMPY_SYMBOLS: tuple[str, ...] = (
    "gradcnp_ndarray",
    *(dtype_symbol(e) for e in _ELEMENTS),
    *ARRAY_API_SLOTS,
    "gradcnp_ArrayOwner",
    "gradcnp_runtime",
)
