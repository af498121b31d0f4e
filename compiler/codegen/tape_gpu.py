"""The reverse-mode tape of CUDA code: per thread, in local memory, never allocated.

A derivative kernel (``passes/ad/kernels.py``) runs each thread's forward sweep and then
its reverse sweep, so a thread's tape lives only within the thread. On the GPU,
``tapenew`` is the thread's own header and a buffer of :data:`GPU_TAPE_BYTES` bytes, both
stack slots of the function (PTX local memory: the driver's per-thread slices of one
preallocated area; no device ``malloc``), laid out as the CPU runtime's header
(:mod:`.tape`), so pushes and pops are lowered exactly as on the CPU. ``tapefree`` does
nothing. Where a thread would need more (a long loop taped per iteration), the growth
that the CPU's runtime would do raises ``MemoryError`` instead (a device error record,
raised at ``synchronize()`` with the line; :data:`GPU_TAPE_FULL`), as does a push of an
array reference, which no kernel derivative makes (kernels have no local arrays).
"""

from __future__ import annotations

import llvmlite.ir as ll

from gradc.compiler.codegen.tape import TapeLowering, tape_header_type, tape_type
from gradc.compiler.ir import ops
from gradc.compiler.ir.types import TAPE

__all__ = ["GPU_TAPE_BYTES", "GPU_TAPE_FULL", "GpuTapeLowering"]

#: Bytes of one thread's tape on the GPU (256 entries of 8 bytes).
GPU_TAPE_BYTES = 2048

#: The MemoryError of a thread whose tape would outgrow :data:`GPU_TAPE_BYTES`.
GPU_TAPE_FULL = (
    f"the reverse sweep of this derivative kernel needs more than the {GPU_TAPE_BYTES} "
    "bytes of tape a GPU thread has (a loop taped per iteration); run it in the CPU build"
)

_I64 = ll.IntType(64)


class GpuTapeLowering(TapeLowering):
    """:class:`.tape.TapeLowering` with the tape in the thread's local memory."""

    def _new(self, inst: ops.TapeNew) -> ll.Value:
        if inst.type != TAPE:
            raise self.fl.ice(f"tapenew typed {inst.type}")
        pro = self.fl.prologue
        header = pro.alloca(tape_header_type(), name="tape")
        # i64 elements: the buffer is 8-byte aligned like every entry in it
        buf = pro.alloca(ll.ArrayType(_I64, GPU_TAPE_BYTES // 8), name="tape.buf")
        b = self.b
        fields = header.type.pointee.elements
        values = [
            b.bitcast(buf, fields[0]),
            ll.Constant(_I64, 0),
            ll.Constant(_I64, GPU_TAPE_BYTES),
            ll.Constant(fields[3], None),
            ll.Constant(_I64, 0),
            ll.Constant(_I64, 0),
        ]
        for k, v in enumerate(values):
            at = b.gep(header, [ll.Constant(ll.IntType(32), 0), ll.Constant(ll.IntType(32), k)])
            b.store(v, at, align=8)
        tape = b.bitcast(header, tape_type())
        if self._registers is not None and inst is self._registered_value:
            self._fill(b, tape)
        return tape

    def _grow(self, fn: ll.Function, tape: ll.Value, need: ll.Value) -> None:
        """No growth on the GPU: MemoryError (:data:`GPU_TAPE_FULL`)."""
        self.fl.raise_if(ll.Constant(ll.IntType(1), 1), "MemoryError", GPU_TAPE_FULL)

    def free_value(self, tape: ll.Value) -> None:
        """Nothing to free: the tape is the thread's stack slots."""
