"""The ABI of gradc's objects, in one place (docs/abi.md).

The code generator (``gradc.compiler.codegen``) and the loader
(``gradc.artifacts.loader``) both import these facts instead of restating them:

- :mod:`.codes`: exception kinds of the error record (the one table);
- :mod:`.layout`: the error record, array descriptors and runtime blocks in memory;
- :mod:`.symbols`: calling-convention and runtime ABI versions, symbol names (entries,
  fast-call wrappers, ABI descriptions, runtime functions, CPython API);
- :mod:`.types`: the ABI's types and the one parser of their text form;
- :mod:`.signature`: an export's structured signature (manifest ``signature.types``);
- :mod:`.description`: the ABI description each object carries and its check against
  the manifest (imports msgpack and the manifest; not re-exported here).

This package and its modules other than :mod:`.description` import only the standard
library and :mod:`gradc.artifacts.errors`, so ``gradc.compiler.ir`` may import
:mod:`.codes` (pyproject.toml, contract ``ir-standalone``).
"""

from __future__ import annotations

from gradc.artifacts.abi.codes import EXCEPTION_CLASSES, EXCEPTION_CODES, exception_class
from gradc.artifacts.abi.signature import Signature
from gradc.artifacts.abi.symbols import (
    ABI_VERSION,
    RUNTIME_ABI,
    description_symbol,
    entry_symbol,
    wrapper_symbol,
)
from gradc.artifacts.abi.types import (
    AbiType,
    Array,
    Scalar,
    Tuple,
    TypeStringError,
    parse_type,
)

__all__ = [
    "ABI_VERSION",
    "EXCEPTION_CLASSES",
    "EXCEPTION_CODES",
    "RUNTIME_ABI",
    "AbiType",
    "Array",
    "Scalar",
    "Signature",
    "Tuple",
    "TypeStringError",
    "description_symbol",
    "entry_symbol",
    "exception_class",
    "parse_type",
    "wrapper_symbol",
]
