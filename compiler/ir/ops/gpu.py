"""GPU operations of ``@gradc.kernel`` bodies (``gradc.cuda``): atomics and the barrier.

Thread indices are no operations: a kernel's IR function takes them as its first
parameters (``compiler/frontend/kernels.py``), so every target reads them as values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.ops.checks import front_end_only
from gradc.compiler.ir.types import I1, I64, NONE, PointerType


@final
@dataclass(eq=False, slots=True)
class AtomicAddItem(Instruction):
    """``cuda.atomic_add(value, indices, item)`` as the front end reads it: the array
    element ``value[indices]`` gets ``item`` added atomically; the result is the old
    element. Inference makes it an ``elemaddr`` (Python indexing, IndexError out of
    bounds) and an :class:`AtomicAdd`."""

    OPNAME: ClassVar[str] = "atomicadditem"
    OPERANDS: ClassVar[tuple[str, ...]] = ("value", "indices", "item")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    value: Value
    indices: tuple[Value, ...]
    item: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)


@final
@dataclass(eq=False, slots=True)
class AtomicAdd(Instruction):
    """``*pointer += value`` as one indivisible read-modify-write (CUDA's ``atomicAdd``,
    LLVM's ``atomicrmw add``/``fadd``, monotonic order); the result is the old value.
    Integers wrap."""

    OPNAME: ClassVar[str] = "atomicadd"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "value")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    pointer: Value
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A pointer to a number (not ``bool``), a value of its pointee type, result the
        pointee type."""
        t = self.pointer.type
        if not isinstance(t, PointerType):
            return f"atomicadd on {ctx.show(self.pointer)} of non-pointer type {t}"
        if t.pointee == I1:
            return "atomicadd on a bool element"
        if self.value.type != t.pointee:
            return f"atomicadd of {ctx.show(self.value)}: {self.value.type} through {t}"
        if self.type != t.pointee:
            return f"atomicadd result type is {self.type}, expected {t.pointee}"
        return None


@final
@dataclass(eq=False, slots=True)
class SyncThreads(Instruction):
    """``cuda.syncthreads()``: every thread of the block waits here until all have
    arrived, and their earlier writes to memory are visible to each other (CUDA's
    ``__syncthreads``). ``dims`` is the block's shape (``ntid.x``, ``.y``, ``.z``): a
    sequential grid loop (the CPU build, the interpreter) cannot wait for the block's
    other threads, so there it raises RuntimeError unless the block has one thread
    (:data:`SEQUENTIAL_BARRIER`), as ``gradc.cuda``'s simulator does."""

    OPNAME: ClassVar[str] = "syncthreads"
    OPERANDS: ClassVar[tuple[str, ...]] = ("dims",)
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    dims: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Three ``i64`` operands, result ``none``."""
        if len(self.dims) != 3 or any(v.type != I64 for v in self.dims):
            return "syncthreads takes the block's three i64 dimensions"
        if self.type != NONE:
            return f"syncthreads result type is {self.type}, expected none"
        return None


#: The RuntimeError of a barrier in a sequential run with more than one thread per block.
SEQUENTIAL_BARRIER = (
    "cuda.syncthreads() cannot run in a sequential grid loop with more than one thread per "
    "block; run the kernel on a GPU"
)
