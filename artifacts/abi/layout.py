"""Memory layouts of the C ABI (docs/abi.md "Error record", "Arrays").

The code generator builds its LLVM types from these facts and the loader its ctypes
structures; both check their sizes against the ``*_BYTES`` functions and constants here.

Error record (48 bytes)::

    typedef struct {
        int32_t kind;          /* EXCEPTION_CODES (gradc.artifacts.abi.codes) */
        int32_t site;          /* raise site, 1-based; 0 if unknown */
        const char *message;   /* NUL-terminated UTF-8 */
        int64_t data[4];       /* data[TEMPLATE_SLOT] == TEMPLATE_FLAG: a template */
    } gradc_error;

Array descriptor of rank N (``16 + 16 * N`` bytes; strides in bytes)::

    typedef struct {
        char *data; gradc_meminfo *meminfo; int64_t shape[N]; int64_t strides[N];
    } gradc_array_N;

Runtime block: a header of :data:`BLOCK_HEADER_BYTES` (``int64_t refcount, nbytes``, then
padding), followed by the data, aligned to :data:`BLOCK_ALIGN`.

Imports only the standard library.
"""

from __future__ import annotations

__all__ = [
    "BLOCK_ALIGN",
    "BLOCK_HEADER_BYTES",
    "DESCRIPTOR_FIELDS",
    "ERROR_DATA_WORDS",
    "ERROR_RECORD_BYTES",
    "ERROR_RECORD_FIELDS",
    "ERROR_TYPE_NAME",
    "INDEX_ERROR_TEMPLATE",
    "STATUS_OK",
    "TEMPLATE_FLAG",
    "TEMPLATE_FLOATS",
    "TEMPLATE_SLOT",
    "descriptor_bytes",
]

#: Status an entry returns on success; any other value is an exception kind.
STATUS_OK = 0

#: Name of the error record's C struct (and of the LLVM identified type).
ERROR_TYPE_NAME = "gradc_error"

#: Fields of the error record, in order.
ERROR_RECORD_FIELDS = ("kind", "site", "message", "data")

#: Words in the record's ``int64_t data[]``.
ERROR_DATA_WORDS = 4

#: Size of the error record in bytes.
ERROR_RECORD_BYTES = 48

#: ``data[TEMPLATE_SLOT] == TEMPLATE_FLAG``: ``message`` is a ``str.format`` template over
#: ``data[0..2]``.
TEMPLATE_SLOT = 3
TEMPLATE_FLAG = 1

#: ``data[TEMPLATE_SLOT] == TEMPLATE_FLOATS + mask`` (``mask`` < 8): a template whose
#: ``data[i]`` holds the bits of an IEEE double when bit ``i`` of ``mask`` is set (an
#: f-string raise message with float fields), an int otherwise.
TEMPLATE_FLOATS = 16

#: IndexError message of an out-of-bounds index: a template whose fields the loader fills
#: from ``data[0..2]`` (index as written, axis, size of that axis).
INDEX_ERROR_TEMPLATE = "index {0} is out of bounds for axis {1} with size {2}"

#: Fields of an array descriptor, in order (their indices are the LLVM struct indices).
DESCRIPTOR_FIELDS = ("data", "meminfo", "shape", "strides")

#: Bytes before the data in a runtime block (refcount, nbytes, padding to the alignment).
BLOCK_HEADER_BYTES = 64

#: Alignment of a runtime block and of its data.
BLOCK_ALIGN = 64


def descriptor_bytes(ndim: int) -> int:
    """Size of ``gradc_array_N`` for rank ``ndim`` >= 1: two pointers and 2N int64s."""
    return 16 + 16 * ndim
