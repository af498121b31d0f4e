"""Lowering of a kernel for CUDA: its per-thread function and a ``ptx_kernel`` entry.

The per-thread function ``k.thread`` (``compiler/infer/kernels.py``) is lowered by the
ordinary lowering (``ModuleLowering`` with ``gpu`` set: every math call becomes a
libdevice ``__nv_*`` call, ``syncthreads`` a barrier), with internal linkage; the entry
of docs/abi.md "CUDA kernels" reads the special registers, rebuilds each array's
descriptor from its flattened parameters, calls it, and on a nonzero status publishes
the error record::

    define ptx_kernel void @gradc_k_<key16>(double %a, ptr %x.data, i64 %x.shape0,
                                            i64 %x.stride0, ...) {
      %tid.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()   ; ... 12 registers, zext
      %status = call i32 @gradc_k_<key16>.thread(i64 %tid.x, ..., double %a, ptr %x.desc,
                                                 ptr %out, ptr %err)
      %raised = icmp ne i32 %status, 0
      br i1 %raised, label %publish, label %done
    publish:                                   ; first raiser wins: claimed 0 -> 1
      %won = cmpxchg ptr @__gradc_error, i32 0, i32 1 monotonic monotonic
      ... copy kind, site, message, data; fence; store done = 1
    }

Nothing of the compiling process enters the module: names come from the IR and the
entry symbol (docs/abi.md), the error record is a zero-initialised global.
"""

from __future__ import annotations

from collections.abc import Iterator

from llvmlite import ir as ll

from gradc.artifacts.abi.cuda import DEVICE_ERROR_SYMBOL
from gradc.artifacts.abi.layout import ERROR_DATA_WORDS
from gradc.compiler.codegen.lltypes import param_type, value_type
from gradc.compiler.codegen.lower import ModuleLowering
from gradc.compiler.codegen.sites import site_numbers
from gradc.compiler.frontend.kernels import THREAD_PARAMS
from gradc.compiler.infer.kernels import thread_function
from gradc.compiler.ir.core import Function, Module
from gradc.compiler.ir.types import ArrayType
from gradc.compiler.options import CompilerOptions

__all__ = ["NVPTX_TRIPLE", "lower_kernel"]

#: The LLVM target triple of CUDA code.
NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()


def lower_kernel(module: Module, kernel: str, symbol: str, options: CompilerOptions) -> ll.Module:
    """The LLVM module (triple :data:`NVPTX_TRIPLE`) of kernel export ``kernel``.

    Args:
        module: typed, verified IR holding ``kernel``'s per-thread function.
        kernel: the kernel's IR name.
        symbol: the entry's symbol (docs/abi.md: ``gradc_<NAME>_<key16>``).
        options: as for the CPU lowering (``fastmath``, ``boundscheck``).

    Raises:
        CompileError: an operation the GPU cannot run, at its line.
    """
    thread = thread_function(kernel)
    ml = ModuleLowering(module, options, site_numbers(module, thread))
    ml.gpu = True
    llmod = ml.run(thread, f"{symbol}.thread")
    llmod.triple = NVPTX_TRIPLE
    body = ml.functions[thread]
    body.linkage = "internal"
    _entry(ml, module.functions[thread], body, symbol)
    return llmod


def _entry(ml: ModuleLowering, func: Function, body: ll.Function, symbol: str) -> None:
    own = func.params[len(THREAD_PARAMS) :]
    flat: list[ll.Type] = []
    for p in own:
        if isinstance(p.type, ArrayType):
            flat += [_I8P] + [_I64] * (2 * p.type.ndim)
        else:
            flat.append(param_type(p.type))
    entry = ll.Function(ml.llmod, ll.FunctionType(ll.VoidType(), flat), name=symbol)
    entry.calling_convention = "ptx_kernel"
    entry.attributes.add("nounwind")
    b = ll.IRBuilder(entry.append_basic_block("entry"))
    args: list[ll.Value] = [_register(ml, b, name) for name in THREAD_PARAMS]
    it = iter(entry.args)
    for p in own:
        name = p.name or f"arg{p.index}"
        if not isinstance(p.type, ArrayType):
            arg = next(it)
            arg.name = name
            args.append(arg)
            continue
        args.append(_descriptor(b, p.type, name, it))
    out = b.alloca(_I8, name="out")
    err = b.alloca(ml.error_type, name="err")
    status = b.call(body, [*args, out, err], name="status")
    publish = entry.append_basic_block("publish")
    done = entry.append_basic_block("done")
    b.cbranch(b.icmp_signed("!=", status, ll.Constant(_I32, 0)), publish, done)
    b.position_at_end(publish)
    _publish(ml, b, err, done)
    b.position_at_end(done)
    b.ret_void()


def _register(ml: ModuleLowering, b: ll.IRBuilder, name: str) -> ll.Value:
    """Special register ``name`` (``"tid.x"``) as ``i64``."""
    fn = ml.declare(f"llvm.nvvm.read.ptx.sreg.{name}", _I32, [])
    return b.zext(b.call(fn, []), _I64, name=name)


def _descriptor(b: ll.IRBuilder, t: ArrayType, name: str, it: Iterator[ll.Argument]) -> ll.Value:
    """A stack descriptor (docs/abi.md "Arrays", ``meminfo`` NULL: borrowed) of the next
    ``1 + 2 * ndim`` entry parameters; its address, as the per-thread function takes it."""
    desc_type = value_type(t)
    desc = ll.Constant(desc_type, None)
    data = next(it)
    data.name = f"{name}.data"
    desc = b.insert_value(desc, data, 0)
    desc = b.insert_value(desc, ll.Constant(_I8P, None), 1)
    for field, what in ((2, "shape"), (3, "stride")):
        for k in range(t.ndim):
            v = next(it)
            v.name = f"{name}.{what}{k}"
            desc = b.insert_value(desc, v, [field, k])
    slot = b.alloca(desc_type, name=f"{name}.desc")
    b.store(desc, slot)
    return slot


def _publish(ml: ModuleLowering, b: ll.IRBuilder, err: ll.Value, done: ll.Block) -> None:
    """Copy ``*err`` into the device error record if this thread claims it first."""
    record_type = ll.LiteralStructType(
        [_I32, _I32, _I32, _I32, _I64, ll.ArrayType(_I64, ERROR_DATA_WORDS)]
    )
    record = ll.GlobalVariable(ml.llmod, record_type, name=DEVICE_ERROR_SYMBOL)
    record.initializer = ll.Constant(record_type, None)
    record.align = 8
    zero = ll.Constant(_I32, 0)

    def field(k: int) -> ll.Value:
        return b.gep(record, [zero, ll.Constant(_I32, k)], inbounds=True)

    claim = b.cmpxchg(field(0), zero, ll.Constant(_I32, 1), "monotonic", "monotonic")
    won = b.extract_value(claim, 1, name="won")
    write = b.append_basic_block("publish.write")
    b.cbranch(won, write, done)
    b.position_at_end(write)
    kind = b.load(b.gep(err, [zero, zero], inbounds=True))
    site = b.load(b.gep(err, [zero, ll.Constant(_I32, 1)], inbounds=True))
    message = b.load(b.gep(err, [zero, ll.Constant(_I32, 2)], inbounds=True))
    b.store(kind, field(1))
    b.store(site, field(2))
    b.store(b.ptrtoint(message, _I64), field(4))
    data = b.load(b.gep(err, [zero, ll.Constant(_I32, 3)], inbounds=True))
    b.store(data, field(5))
    b.fence("release")
    b.store(ll.Constant(_I32, 1), field(3))
    b.branch(done)
