"""Symbol names and versions of the calling convention (docs/abi.md).

Entry symbols, fast-call wrapper symbols, ABI-description symbols, the runtime's
functions, and the CPython functions a wrapper may call: the code generator defines or
declares them, the loader exports, links and imports them by these names.

Imports only the standard library.
"""

from __future__ import annotations

__all__ = [
    "ABI_VERSION",
    "DESCRIPTION_PREFIX",
    "ENTRY_PREFIX",
    "METH_FASTCALL_KEYWORDS",
    "PYTHON_API_DATA",
    "PYTHON_API_FUNCTIONS",
    "RAISE_ATTRIBUTE",
    "RESULT_ATTRIBUTE",
    "RUNTIME_ABI",
    "RUNTIME_ALLOC",
    "RUNTIME_ALLOCATED",
    "RUNTIME_ARRAY_SYMBOLS",
    "RUNTIME_DECREF",
    "RUNTIME_INCREF",
    "RUNTIME_LIBRARY",
    "RUNTIME_LIVE",
    "RUNTIME_PREFIXES",
    "RUNTIME_SYMBOLS",
    "RUNTIME_TAPE_FREE",
    "RUNTIME_TAPE_GROW",
    "RUNTIME_TAPE_GROW_REFS",
    "RUNTIME_TAPE_NEW",
    "WRAPPER_PREFIX",
    "description_symbol",
    "entry_symbol",
    "wrapper_symbol",
]

#: Calling-convention version (2: every object carries its ABI description,
#: ``gradc.artifacts.abi.description``; version-1 objects carry none and are refused).
ABI_VERSION = 2

#: Name of the runtime ABI (docs/abi.md "Runtime functions"): ``rt2`` since array
#: references on a tape are released by ``gradc_rt2_tape_free``.
RUNTIME_ABI = "rt2"

#: Name of the image the loader links the process's runtime into; artifacts resolve against it.
RUNTIME_LIBRARY = f"gradc_{RUNTIME_ABI}"

# The array functions keep their rt1 names and contract in rt2; the tape functions are rt2.
RUNTIME_ALLOC = "gradc_rt1_alloc"
RUNTIME_INCREF = "gradc_rt1_incref"
RUNTIME_DECREF = "gradc_rt1_decref"
RUNTIME_LIVE = "gradc_rt1_live"
RUNTIME_ALLOCATED = "gradc_rt1_allocated"
RUNTIME_TAPE_NEW = "gradc_rt2_tape_new"
RUNTIME_TAPE_GROW = "gradc_rt2_tape_grow"
RUNTIME_TAPE_GROW_REFS = "gradc_rt2_tape_grow_refs"
RUNTIME_TAPE_FREE = "gradc_rt2_tape_free"

#: The array functions and the block counters (what the loader exports).
RUNTIME_ARRAY_SYMBOLS = (
    RUNTIME_ALLOC,
    RUNTIME_INCREF,
    RUNTIME_DECREF,
    RUNTIME_LIVE,
    RUNTIME_ALLOCATED,
)

#: Every symbol the runtime object defines (all with external linkage).
RUNTIME_SYMBOLS = (
    *RUNTIME_ARRAY_SYMBOLS,
    RUNTIME_TAPE_NEW,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_GROW_REFS,
    RUNTIME_TAPE_FREE,
)

#: Prefixes of the runtime's symbols (an artifact object may leave them undefined).
RUNTIME_PREFIXES = ("gradc_rt1_", "gradc_rt2_")

#: Prefix of entry symbols: ``gradc_<NAME>_<key16>``.
ENTRY_PREFIX = "gradc_"

#: Prefix of fast-call wrapper symbols: entry ``gradc_f_<key16>``, wrapper ``gradcpy_f_<key16>``.
WRAPPER_PREFIX = "gradcpy_"

#: Prefix of the ABI description of ``SYMBOL``: ``__gradc_abi_SYMBOL``.
DESCRIPTION_PREFIX = "__gradc_abi_"

#: Attribute of a wrapper's ``self`` called on an error: ``self._gradc_raise(status, err)``.
RAISE_ATTRIBUTE = "_gradc_raise"

#: Attribute of a wrapper's ``self`` that reads a result holding a borrowed array:
#: ``self._gradc_result(address_of_out, *args)``.
RESULT_ATTRIBUTE = "_gradc_result"

#: ``ml_flags`` of a wrapper's ``PyMethodDef``: ``METH_FASTCALL | METH_KEYWORDS``.
METH_FASTCALL_KEYWORDS = 0x0080 | 0x0002

#: CPython functions a wrapper may call (all in the stable ABI), resolved by the loader
#: from the running interpreter.
PYTHON_API_FUNCTIONS: tuple[str, ...] = (
    "PyBool_FromLong",
    "PyErr_Clear",
    "PyErr_Occurred",
    "PyFloat_AsDouble",
    "PyFloat_FromDouble",
    "PyLong_AsLongLong",
    "PyLong_FromLongLong",
    "PyLong_FromVoidPtr",
    "PyObject_GetAttrString",
    "PyObject_Vectorcall",
    "PyTuple_New",
    "PyTuple_SetItem",
    "Py_DecRef",
    "Py_IncRef",
)

#: CPython data a wrapper may refer to, and the objects they are (the singletons; their
#: address is their ``id``).
PYTHON_API_DATA: dict[str, object] = {
    "_Py_FalseStruct": False,
    "_Py_NoneStruct": None,
    "_Py_TrueStruct": True,
}


def entry_symbol(export: str, key: str) -> str:
    """The C-ABI entry symbol of ``export`` with cache key ``key``: ``gradc_<export>_<key16>``."""
    return f"{ENTRY_PREFIX}{export}_{key[:16]}"


def wrapper_symbol(symbol: str) -> str:
    """The fast-call wrapper symbol of entry ``symbol``: ``gradc_f_<k>`` -> ``gradcpy_f_<k>``.

    Raises:
        ValueError: ``symbol`` is not an entry symbol (does not start with ``gradc_``).
    """
    if not symbol.startswith(ENTRY_PREFIX):
        raise ValueError(f"not a gradc entry symbol: {symbol!r}")
    return WRAPPER_PREFIX + symbol[len(ENTRY_PREFIX) :]


def description_symbol(symbol: str) -> str:
    """The symbol of ``symbol``'s ABI description: ``__gradc_abi_<symbol>``."""
    return DESCRIPTION_PREFIX + symbol
