"""Warp-aggregated atomic adds on the GPU (``atomicadd {uniform}``, ``compiler/ir/ops/gpu.py``).

A derivative kernel adds each thread's adjoint of a scalar parameter to one element
(``d_a[0]``, ``passes/ad/kernels.py``). One atomic per thread serialises a warp's 32
adds on one address; instead, where the whole warp is here (``activemask`` is full), the
lanes sum their values in five shuffle steps (``shfl.sync.down``, offsets 16 .. 1: lane
0 ends with the warp's sum) and lane 0 adds it with one atomic. A partial warp (the
grid's last, or threads that diverged) adds per thread, as before::

    mask = activemask()
    if mask == 0xffffffff:
        for o in 16, 8, 4, 2, 1: v += shfl_down(v, o)
        if laneid == 0: atomic_add(p, v)
    else:
        atomic_add(p, v)

64-bit values are shuffled as two 32-bit halves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

__all__ = ["warp_aggregated_add"]

_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_FULL = ll.Constant(_I32, 0xFFFFFFFF)


def warp_aggregated_add(
    fl: FunctionLowering, op: str, pointer: ll.Value, value: ll.Value
) -> ll.Value:
    """Add ``value`` at ``pointer`` (LLVM ``atomicrmw`` ``op``: ``fadd`` or ``add``) as
    the module docstring says; the result is a zero of ``value``'s type (the old element
    is not known to every lane)."""
    b = fl.b
    mask = b.call(fl.ml.declare("llvm.nvvm.activemask", _I32, [], readnone=False), [])
    whole = fl.llfn.append_basic_block(fl.continuation())
    partial = fl.llfn.append_basic_block(fl.continuation())
    lead = fl.llfn.append_basic_block(fl.continuation())
    done = fl.llfn.append_basic_block(fl.continuation())
    b.cbranch(b.icmp_unsigned("==", mask, _FULL), whole, partial)
    b.position_at_end(whole)
    total = value
    for offset in (16, 8, 4, 2, 1):
        other = _shuffle_down(fl, total, offset)
        total = b.fadd(total, other) if op == "fadd" else b.add(total, other)
    lane = b.call(fl.ml.declare("llvm.nvvm.read.ptx.sreg.laneid", _I32, []), [])
    b.cbranch(b.icmp_unsigned("==", lane, ll.Constant(_I32, 0)), lead, done)
    b.position_at_end(lead)
    b.atomic_rmw(op, pointer, total, "monotonic")
    b.branch(done)
    b.position_at_end(partial)
    b.atomic_rmw(op, pointer, value, "monotonic")
    b.branch(done)
    b.position_at_end(done)
    return ll.Constant(value.type, 0)


def _shuffle_down(fl: FunctionLowering, v: ll.Value, offset: int) -> ll.Value:
    """``__shfl_down_sync(0xffffffff, v, offset)`` of a 32- or 64-bit number."""
    b = fl.b
    shfl = fl.ml.declare(
        "llvm.nvvm.shfl.sync.down.i32", _I32, [_I32, _I32, _I32, _I32], readnone=False
    )
    args = (ll.Constant(_I32, offset), ll.Constant(_I32, 0x1F))
    bits = (
        v.type.width
        if isinstance(v.type, ll.IntType)
        else (64 if isinstance(v.type, ll.DoubleType) else 32)
    )
    if bits == 32:
        word = b.bitcast(v, _I32) if v.type != _I32 else v
        moved = b.call(shfl, [_FULL, word, *args])
        return b.bitcast(moved, v.type) if v.type != _I32 else moved
    whole = b.bitcast(v, _I64) if v.type != _I64 else v
    lo = b.call(shfl, [_FULL, b.trunc(whole, _I32), *args])
    hi = b.call(shfl, [_FULL, b.trunc(b.lshr(whole, ll.Constant(_I64, 32)), _I32), *args])
    joined = b.or_(b.zext(lo, _I64), b.shl(b.zext(hi, _I64), ll.Constant(_I64, 32)))
    return b.bitcast(joined, v.type) if v.type != _I64 else joined
