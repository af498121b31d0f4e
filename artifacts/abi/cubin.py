"""The parameter layout of a kernel as ``ptxas`` recorded it in a cubin, and as the kernel
ABI (docs/abi.md "CUDA kernels") says it must be.

A cubin is an ELF64 file; ptxas writes, in section ``.nv.info.<entry>``, one
``EIATTR_KPARAM_INFO`` record per parameter (format ``EIFMT_SVAL``: a 16-bit size, then
``uint32 index, uint16 ordinal, uint16 offset, uint32 flags`` with the parameter's size
in bytes in ``flags`` bits 18..31); records of the other formats take 4 bytes. The build compares :func:`cubin_param_layout` with
:func:`abi_param_layout` for every cubin (a build error when they differ) and the loader
does again before it loads one, so a kernel is never called with a layout it does not
have. Imports only the standard library.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from gradc.artifacts.abi.cuda import kernel_param_format
from gradc.artifacts.abi.types import Array, parse_type
from gradc.artifacts.errors import ArtifactError

__all__ = ["abi_param_layout", "check_param_layout", "cubin_param_layout"]

_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL, _EIFMT_SVAL = 0x01, 0x02, 0x03, 0x04
_EIATTR_KPARAM_INFO = 0x17


def _sections(data: bytes) -> dict[str, bytes]:
    """Section name -> bytes of a little-endian ELF64 file (bounds-checked)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ArtifactError("not a little-endian ELF64 cubin")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize != 64 or shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        raise ArtifactError("cubin section headers lie outside the file")
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    for h in headers:
        if h[1] != 8 and h[4] + h[5] > len(data):  # not NOBITS: its bytes must be there
            raise ArtifactError("a cubin section lies outside the file")
    names = headers[shstrndx]
    out = {}
    for h in headers:
        start = names[4] + h[0]
        end = data.find(b"\0", start, names[4] + names[5])
        if end < 0:
            raise ArtifactError("unterminated cubin section name")
        out[data[start:end].decode("utf-8", "replace")] = data[h[4] : h[4] + h[5]]
    return out


def cubin_param_layout(cubin: bytes, symbol: str) -> list[tuple[int, int]]:
    """(offset, size) in bytes of each parameter of entry ``symbol``, in order.

    Raises:
        ArtifactError: not a cubin, no ``.nv.info.<symbol>``, or malformed records.
    """
    info = _sections(cubin).get(f".nv.info.{symbol}")
    if info is None:
        raise ArtifactError(f"the cubin has no .nv.info section for kernel {symbol}")
    found: dict[int, tuple[int, int]] = {}
    at = 0
    while at + 2 <= len(info):
        fmt, attr = info[at], info[at + 1]
        if fmt == _EIFMT_SVAL:
            if at + 4 > len(info):
                raise ArtifactError("truncated .nv.info record")
            (size,) = struct.unpack_from("<H", info, at + 2)
            if attr == _EIATTR_KPARAM_INFO:
                if size < 12 or at + 16 > len(info):
                    raise ArtifactError("truncated EIATTR_KPARAM_INFO record")
                _, ordinal, offset, flags = struct.unpack_from("<IHHI", info, at + 4)
                found[ordinal] = (offset, flags >> 18 & 0x3FFF)
            at += 4 + size
        elif fmt in (_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL):  # 4 bytes, value or not
            at += 4
        else:
            raise ArtifactError(f"unknown .nv.info record format {fmt:#x}")
    if sorted(found) != list(range(len(found))):
        raise ArtifactError(f"kernel {symbol}: parameter ordinals {sorted(found)} have gaps")
    return [found[k] for k in range(len(found))]


def abi_param_layout(params: Sequence[tuple[str, str]]) -> list[tuple[int, int]]:
    """(offset, size) of each PTX parameter the kernel ABI gives ``params`` ((name, gradc
    type) pairs): the flattened parameters of ``kernel_param_format``, each aligned to
    its size (PTX's ``.param`` space)."""
    codes = ""
    for _, text in params:
        t = parse_type(text)
        codes += (
            kernel_param_format("array", t.ndim)
            if isinstance(t, Array)
            else (kernel_param_format(text))
        )
    out, at = [], 0
    for code in codes:
        size = struct.calcsize(code)
        at = -(-at // size) * size
        out.append((at, size))
        at += size
    return out


def check_param_layout(cubin: bytes, symbol: str, params: Sequence[tuple[str, str]]) -> None:
    """Refuse a cubin whose entry ``symbol`` does not take ``params`` as the ABI says.

    Raises:
        ArtifactError: the layouts differ (both are in the message), or the cubin is
            malformed.
    """
    have, want = cubin_param_layout(cubin, symbol), abi_param_layout(params)
    if have != want:
        raise ArtifactError(
            f"kernel {symbol}: the cubin's parameters (offset, size) {have} are not the "
            f"kernel ABI's {want} for {', '.join(t for _, t in params) or '()'}"
        )
