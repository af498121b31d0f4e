"""GPU operations of ``@gradc.kernel`` bodies (``gradc.cuda``): atomics and the barrier.

Thread indices are no operations: a kernel's IR function takes them as its first
parameters (``compiler/frontend/kernels.py``), so every target reads them as values.
"""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import front_end_only
from gradc.compiler.ir.types import I1, I64, NONE, ArrayType, PointerType


@final
@operation
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
@operation
class AtomicAdd(Instruction):
    """``*pointer += value`` as one indivisible read-modify-write (CUDA's ``atomicAdd``,
    LLVM's ``atomicrmw add``/``fadd``, monotonic order); the result is the old value.
    Integers wrap.

    ``uniform`` (printed ``{uniform}``; derivative kernels' scalar adjoints,
    ``passes/ad/kernels.py``): every thread adds to the same element and the result is
    not used, so on the GPU a full warp first sums its values by shuffles and one lane
    adds the sum (``compiler/codegen/lower_gpu.py``); the result is then 0.

    ``global_memory`` (printed ``{global_memory}``; derivative kernels' adds into the
    shadows of their array parameters): ``pointer`` addresses CUDA global memory, so the
    GPU lowering casts it to ``addrspace(1)`` and the add is ``atom.global`` (LLVM does
    not always infer the space of a generic pointer). Ignored on the CPU."""

    OPNAME: ClassVar[str] = "atomicadd"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "value")
    FLAGS: ClassVar[tuple[str, ...]] = ("uniform", "global_memory")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    pointer: Value
    value: Value
    uniform: bool = False
    global_memory: bool = False

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
@operation
class SyncThreads(Instruction):
    """``cuda.syncthreads()``: every thread of the block waits here until all have
    arrived, and their earlier writes to memory are visible to each other (CUDA's
    ``__syncthreads``). ``dims`` is the block's shape (``ntid.x``, ``.y``, ``.z``). The
    CPU build and the interpreter run a kernel with barriers block by block in phases
    (``compiler/infer/kernel_phases.py``), so this operation is left only in per-thread
    functions run one thread after another (the CUDA build's, and that of a kernel whose
    phases could not be cut): there it raises RuntimeError unless the block has one
    thread (:data:`SEQUENTIAL_BARRIER`)."""

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


@final
@operation
class SharedArray(Instruction):
    """``cuda.shared_array(shape, dtype)``: the block's shared array of static ``shape``
    (C order, the result type's dtype), uninitialised. Every thread of a block sees the
    same memory; each ``sharedarray`` of a kernel is its own array, the same one however
    often it runs (CUDA's ``__shared__``). On CUDA it is a global in ``addrspace(3)``.

    On the CPU (and in the interpreter) a kernel with barriers runs block by block in
    phases (``compiler/infer/kernel_phases.py``): there each ``sharedarray`` is a
    parameter, one array per block made by the grid loop. Without a barrier the threads
    of a block run one after another and none can read another's shared writes without a
    data race (a race on a GPU too), so each thread gets frame memory of the shape, which
    no valid kernel can tell from the block's. The descriptor is borrowed (``meminfo``
    NULL, no reference count), as an on-stack ``newarray``'s."""

    OPNAME: ClassVar[str] = "sharedarray"
    ATTRS: ClassVar[tuple[str, ...]] = ("shape",)
    shape: tuple[int, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """``shape`` is a non-empty tuple of positive ints."""
        if (
            not isinstance(self.shape, tuple)
            or not self.shape
            or not all(type(d) is int and d >= 1 for d in self.shape)
        ):
            return f"sharedarray shape {self.shape!r} is not a tuple of positive ints"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A C-contiguous array result of rank ``len(shape)``, not of ``bool``."""
        t = self.type
        if not isinstance(t, ArrayType) or t.layout != "C" or t.ndim != len(self.shape):
            return f"sharedarray result type {t} is not a C array of rank {len(self.shape)}"
        if t.dtype == I1:
            return "sharedarray of bool"
        return None
