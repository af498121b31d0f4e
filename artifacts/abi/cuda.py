"""The CUDA kernel ABI (docs/abi.md "CUDA kernels"): parameters and the device error record.

A kernel export ``k`` of the CUDA target is one ``.entry`` per PTX/cubin whose parameters
are the kernel's own, flattened, in order:

========  ===========================================================================
type      PTX parameters
========  ===========================================================================
``f64``   ``.f64`` (``double``)          ``f32``: ``.f32``; ``i64``: ``.u64``;
                                          ``i32``: ``.u32``; ``bool``: ``.u8`` (0 or 1)
array N   ``.u64`` data (device address of element ``[0, ..., 0]``), then ``N`` ``.u64``
          shape, then ``N`` ``.u64`` strides in **bytes** (NumPy's and
          ``__cuda_array_interface__``'s unit; may be negative or zero)
========  ===========================================================================

Every module (one per kernel and variant) defines the global
:data:`DEVICE_ERROR_SYMBOL`, the device error record, zero when no thread has raised::

    struct {
        int32_t claimed;    /* 0: empty; the first raiser sets 1 by compare-and-swap */
        int32_t kind;       /* exception code (gradc.artifacts.abi.codes) */
        int32_t site;       /* raise site in the kernel's site table (1-based) */
        int32_t done;       /* 1 once kind..data are written (after a fence) */
        int64_t message;    /* device address of the NUL-terminated UTF-8 message */
        int64_t data[4];    /* as the host error record's data (docs/abi.md) */
    };                      /* 56 bytes */

A thread that raises leaves the kernel at once; only the first raiser's record is kept
(never ``trap``, which would destroy the context). The loader reads the record at
``synchronize()``, raises it as the Python exception with the raise site's file:line, and
zeroes it.

Imports only the standard library.
"""

from __future__ import annotations

import struct

__all__ = [
    "DEVICE_ERROR_BYTES",
    "DEVICE_ERROR_FORMAT",
    "DEVICE_ERROR_SYMBOL",
    "MESSAGE_MAX_BYTES",
    "SCALAR_PARAM_FORMATS",
    "kernel_param_format",
]

#: Name of the device error record global in every kernel module.
DEVICE_ERROR_SYMBOL = "__gradc_error"

#: ``struct`` format of the device error record (little-endian, no padding).
DEVICE_ERROR_FORMAT = "<iiiiq4q"

#: Its size in bytes.
DEVICE_ERROR_BYTES = struct.calcsize(DEVICE_ERROR_FORMAT)

#: The loader reads at most this many bytes of a message.
MESSAGE_MAX_BYTES = 1024

#: ``struct`` codes of scalar kernel parameters by gradc type name.
SCALAR_PARAM_FORMATS = {"f64": "d", "f32": "f", "i64": "q", "i32": "i", "bool": "B"}


def kernel_param_format(kind: str, ndim: int = 0) -> str:
    """The ``struct`` codes of one parameter: a scalar of gradc type ``kind``, or an array
    (``kind == "array"``) of rank ``ndim`` (``"Q"`` then ``2 * ndim`` ``"q"``).

    Raises:
        ValueError: an unknown scalar type, or an array of rank < 1.
    """
    if kind == "array":
        if ndim < 1:
            raise ValueError(f"an array parameter has rank >= 1, got {ndim}")
        return "Q" + "q" * (2 * ndim)
    try:
        return SCALAR_PARAM_FORMATS[kind]
    except KeyError:
        raise ValueError(f"no kernel parameter of type {kind!r}") from None
