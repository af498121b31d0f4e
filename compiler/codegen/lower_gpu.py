"""Lowering of the GPU operations of kernel bodies (``compiler/ir/ops/gpu.py``).

``atomicadd`` is LLVM's ``atomicrmw add`` (integers) or ``fadd`` (floats), monotonic, on
every target (for CUDA, through an ``addrspace(1)`` pointer when ``{global_memory}``): the CPU build runs a kernel's threads one after another, where it is the
plain read-add-write. ``syncthreads`` is ``llvm.nvvm.barrier0`` for CUDA
(``ModuleLowering.gpu``); a sequential CPU grid loop cannot wait for the block's other
threads, so there it raises RuntimeError unless the block has one thread.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.array_alloc import frame_array
from gradc.compiler.codegen.arrays import (
    DATA,
    MEMINFO,
    SHAPE,
    STRIDES,
    descriptor_type,
    itemsize,
    memory_type,
)
from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.types import PointerType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower import ModuleLowering
    from gradc.compiler.codegen.lower_function import FunctionLowering

#: LLVM's NVPTX address space of a block's shared memory (CUDA's ``__shared__``).
SHARED_ADDRSPACE = 3

#: LLVM's NVPTX address space of global memory (kernel array parameters).
GLOBAL_ADDRSPACE = 1

#: The barrier of the threads of a block (PTX ``bar.sync 0``).
BARRIER = "llvm.nvvm.barrier0"


@LOWERING.register(ops.AtomicAdd)
def _atomicadd(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.AtomicAdd)
    t = inst.pointer.type
    if not isinstance(t, PointerType) or inst.value.type != t.pointee:
        raise fl.ice(f"atomicadd of {inst.value.type} through {t}")
    op = "fadd" if t.pointee.is_float else "add"
    pointer = fl.value(inst.pointer)
    if inst.global_memory and fl.ml.gpu:
        # generic -> global: ``atom.global`` even where LLVM cannot infer the space
        pointer = fl.b.addrspacecast(pointer, pointer.type.pointee.as_pointer(GLOBAL_ADDRSPACE))
    if inst.uniform and fl.ml.gpu:
        from gradc.compiler.codegen.warp import warp_aggregated_add

        return warp_aggregated_add(fl, op, pointer, fl.value(inst.value))
    return fl.b.atomic_rmw(op, pointer, fl.value(inst.value), "monotonic")


@LOWERING.register(ops.SyncThreads)
def _syncthreads(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    assert isinstance(inst, ops.SyncThreads)
    if fl.ml.gpu:
        fl.b.call(fl.ml.declare(BARRIER, ll.VoidType(), [], readnone=False), [])
    else:
        x, y, z = (fl.value(v) for v in inst.dims)
        threads = fl.b.mul(fl.b.mul(x, y), z)
        many = fl.b.icmp_signed("!=", threads, ll.Constant(threads.type, 1))
        fl.raise_if(many, "RuntimeError", ops.SEQUENTIAL_BARRIER)
    return ll.Constant(ll.IntType(8), 0)


@LOWERING.register(ops.SharedArray)
def _sharedarray(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    """CUDA: a zero-initialised ``[N x T]`` global in ``addrspace(3)`` named after the
    function and the array's position in it (no name of the building process); the CPU
    build: frame memory (``ops.SharedArray`` says why that is the block's array)."""
    assert isinstance(inst, ops.SharedArray)
    at = fl.arrays.array_type(inst.type)
    if not fl.ml.gpu:
        return frame_array(fl, at, inst.shape)[0]
    count = math.prod(inst.shape)
    mem = ll.ArrayType(memory_type(at.dtype), count)
    taken = {g for g in fl.ml.llmod.globals}
    name = next(n for k in range(len(taken) + 1) if (n := f"{fl.llfn.name}.shared{k}") not in taken)
    shared = ll.GlobalVariable(fl.ml.llmod, mem, name=name, addrspace=SHARED_ADDRSPACE)
    shared.linkage = "internal"
    shared.initializer = ll.Constant(mem, None)
    shared.align = 16
    generic = fl.b.addrspacecast(shared, mem.as_pointer())
    data = fl.b.bitcast(generic, ll.IntType(8).as_pointer(), name="shared")
    i64 = ll.IntType(64)
    desc: ll.Value = ll.Constant(descriptor_type(at), ll.Undefined)
    desc = fl.b.insert_value(desc, data, DATA)
    desc = fl.b.insert_value(desc, ll.Constant(ll.IntType(8).as_pointer(), None), MEMINFO)
    step = itemsize(at.dtype)
    for axis in reversed(range(at.ndim)):
        desc = fl.b.insert_value(desc, ll.Constant(i64, inst.shape[axis]), [SHAPE, axis])
        desc = fl.b.insert_value(desc, ll.Constant(i64, step), [STRIDES, axis])
        step *= inst.shape[axis]
    return desc


#: Float intrinsics NVPTX implements itself (instructions, no library call); every other
#: ``llvm.<fn>`` math intrinsic aborts the NVPTX back end or the process, so the GPU
#: lowering calls libdevice instead.
NVPTX_INTRINSICS = frozenset(
    {"fabs", "sqrt", "floor", "ceil", "trunc", "rint", "nearbyint", "round", "copysign"}
    | {"minnum", "maxnum", "minimum", "maximum", "fma", "fmuladd"}
)


def libdevice(ml: ModuleLowering, name: str, ty: ll.Type, nargs: int) -> ll.Function:
    """libdevice's ``__nv_<name>`` (``__nv_<name>f`` on ``float``): CUDA's math library,
    linked into each kernel module before emission (``compiler/codegen/ptx.py``)."""
    suffix = "" if isinstance(ty, ll.DoubleType) else "f"
    return ml.declare(f"__nv_{name}{suffix}", ty, [ty] * nargs)
