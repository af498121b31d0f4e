"""Exception kinds of the error record: the one table (docs/abi.md "Error record").

Compiled code reports an exception by filling ``gradc_error.kind`` with the code of its
class and returning that code as the status; the loader raises the class of the code.
The IR's ``raise`` instruction names the class (``gradc.compiler.ir.ops.EXCEPTION_KINDS``
is this table), the code generator writes the code, the loader reads it back.

This module imports only the standard library: ``gradc.compiler.ir`` may import it
(pyproject.toml, contract ``ir-standalone``).
"""

from __future__ import annotations

import builtins

__all__ = ["EXCEPTION_CLASSES", "EXCEPTION_CODES", "exception_class"]

#: Exception class name -> error-record kind (docs/abi.md), in code order.
EXCEPTION_CODES: dict[str, int] = {
    "ValueError": 1,
    "ZeroDivisionError": 2,
    "AssertionError": 3,
    "OverflowError": 4,
    "IndexError": 5,
    "TypeError": 6,
    "MemoryError": 7,
    "RuntimeError": 8,
}

#: Error-record kind -> the Python exception class it raises.
EXCEPTION_CLASSES: dict[int, type[Exception]] = {
    code: getattr(builtins, name) for name, code in EXCEPTION_CODES.items()
}


def exception_class(name: str) -> type[Exception]:
    """The builtin exception class called ``name`` (a key of :data:`EXCEPTION_CODES`).

    Raises:
        KeyError: ``name`` is not an exception kind of the ABI.
    """
    return EXCEPTION_CLASSES[EXCEPTION_CODES[name]]
