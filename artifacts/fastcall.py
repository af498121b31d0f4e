"""The contract between fast-call wrapper objects and the loader (docs/abi.md "Fast call
path"), shared by the code generator (``gradc.compiler.codegen.pywrapper``, which emits
wrappers) and the loader (``gradc.artifacts.loader.cpu``, which resolves their symbols),
so the two lists cannot drift apart; and the split of the manifest's type strings
(``tuple[f64,tuple[i64,f64]]``) both sides parse.
"""

from __future__ import annotations

#: CPython functions a wrapper may call (all in the stable ABI).
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


#: ``ml_flags`` of a wrapper's ``PyMethodDef``: ``METH_FASTCALL | METH_KEYWORDS``.
METH_FASTCALL_KEYWORDS = 0x0080 | 0x0002


def split_top_level(inner: str) -> list[str]:
    """Split ``"f64,tuple[i64,f64],bool"`` at its top-level commas (empty parts dropped)."""
    parts: list[str] = []
    depth = start = 0
    for i, ch in enumerate(inner):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return [p for p in parts if p]
