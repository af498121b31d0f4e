"""The gradc runtime object: owned array blocks with atomic reference counts.

docs/abi.md "Runtime functions". The loader emits this object once per process, links it
into its own JIT library and lets every artifact library resolve the ``gradc_rt1_*``
symbols against it (artifact objects only declare them)::

    obj = emit_runtime_object(options).object_code
    rt = llvm.JITLibraryBuilder().add_object_img(obj) \\
            .export_symbol("gradc_rt1_live").link(jit, "gradc_rt1")
    lib = llvm.JITLibraryBuilder().add_object_img(artifact_obj) \\
            .add_jit_library("gradc_rt1").export_symbol(entry).link(jit, "artifact_1")

A block is ``posix_memalign(64, 64 + nbytes)``::

    offset 0   int64_t refcount      (atomic)
    offset 8   int64_t nbytes
    offset 64  data, 64-byte aligned

Counts use ``atomicrmw``: increments are ``monotonic``; a decrement is ``release`` and
the thread that drops the last reference runs an ``acquire`` fence before ``free`` (the
usual shared-pointer protocol), so blocks may be shared between threads. ``gradc_rt1_live``
counts blocks allocated and not yet freed (``monotonic``), for leak tests.

The runtime refers to libc only (``posix_memalign``, ``free``), by name.
"""

from __future__ import annotations

from llvmlite import ir as ll

from gradc.compiler.codegen.arrays import (
    HEADER_BYTES,
    RUNTIME_ALLOC,
    RUNTIME_DECREF,
    RUNTIME_INCREF,
    RUNTIME_LIVE,
)
from gradc.compiler.codegen.emit import EmittedObject, emit_object
from gradc.compiler.options import CompilerOptions

__all__ = ["RUNTIME_SYMBOLS", "emit_runtime_object", "runtime_module"]

#: Every symbol the runtime object defines (all with external linkage).
RUNTIME_SYMBOLS = (RUNTIME_ALLOC, RUNTIME_INCREF, RUNTIME_DECREF, RUNTIME_LIVE)

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()
_I64P = _I64.as_pointer()


def runtime_module() -> ll.Module:
    """The runtime as an LLVM module (same text in every process).

    Defines ``gradc_rt1_alloc``, ``gradc_rt1_incref``, ``gradc_rt1_decref`` and the
    global ``gradc_rt1_live``, all external; declares ``posix_memalign`` and ``free``.
    """
    mod = ll.Module(name="gradc_rt1", context=ll.Context())
    live = ll.GlobalVariable(mod, _I64, name=RUNTIME_LIVE)
    live.initializer = ll.Constant(_I64, 0)
    live.align = 8
    memalign = ll.Function(
        mod, ll.FunctionType(_I32, [_I8P.as_pointer(), _I64, _I64]), name="posix_memalign"
    )
    memalign.attributes.add("nounwind")
    free = ll.Function(mod, ll.FunctionType(ll.VoidType(), [_I8P]), name="free")
    free.attributes.add("nounwind")
    _define_alloc(mod, live, memalign)
    _define_incref(mod)
    _define_decref(mod, live, free)
    return mod


def _refcount_ptr(b: ll.IRBuilder, block: ll.Value) -> ll.Value:
    return b.bitcast(block, _I64P, name="refcount")


def _define_alloc(mod: ll.Module, live: ll.GlobalVariable, memalign: ll.Function) -> None:
    fn = ll.Function(mod, ll.FunctionType(_I8P, [_I64]), name=RUNTIME_ALLOC)
    fn.attributes.add("nounwind")
    (nbytes,) = fn.args
    nbytes.name = "nbytes"
    entry = fn.append_basic_block("entry")
    allocate = fn.append_basic_block("allocate")
    init = fn.append_basic_block("init")
    fail = fn.append_basic_block("fail")
    b = ll.IRBuilder(entry)
    slot = b.alloca(_I8P, name="slot")
    too_big = b.icmp_unsigned(">", nbytes, ll.Constant(_I64, (1 << 63) - 1 - HEADER_BYTES))
    b.cbranch(too_big, fail, allocate)
    b.position_at_end(allocate)
    total = b.add(nbytes, ll.Constant(_I64, HEADER_BYTES), name="total")
    status = b.call(memalign, [slot, ll.Constant(_I64, HEADER_BYTES), total], name="status")
    b.cbranch(b.icmp_signed("!=", status, ll.Constant(_I32, 0)), fail, init)
    b.position_at_end(init)
    block = b.load(slot, name="block")
    b.store(ll.Constant(_I64, 1), _refcount_ptr(b, block), align=8)
    size_ptr = b.gep(_refcount_ptr(b, block), [ll.Constant(_I64, 1)], inbounds=True)
    b.store(nbytes, size_ptr, align=8)
    b.atomic_rmw("add", live, ll.Constant(_I64, 1), "monotonic")
    b.ret(block)
    b.position_at_end(fail)
    b.ret(ll.Constant(_I8P, None))


def _define_incref(mod: ll.Module) -> None:
    fn = ll.Function(mod, ll.FunctionType(ll.VoidType(), [_I8P]), name=RUNTIME_INCREF)
    fn.attributes.add("nounwind")
    (block,) = fn.args
    block.name = "meminfo"
    entry = fn.append_basic_block("entry")
    add = fn.append_basic_block("add")
    done = fn.append_basic_block("done")
    b = ll.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", block, ll.Constant(_I8P, None)), done, add)
    b.position_at_end(add)
    b.atomic_rmw("add", _refcount_ptr(b, block), ll.Constant(_I64, 1), "monotonic")
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _define_decref(mod: ll.Module, live: ll.GlobalVariable, free: ll.Function) -> None:
    fn = ll.Function(mod, ll.FunctionType(ll.VoidType(), [_I8P]), name=RUNTIME_DECREF)
    fn.attributes.add("nounwind")
    (block,) = fn.args
    block.name = "meminfo"
    entry = fn.append_basic_block("entry")
    sub = fn.append_basic_block("sub")
    release = fn.append_basic_block("release")
    done = fn.append_basic_block("done")
    b = ll.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", block, ll.Constant(_I8P, None)), done, sub)
    b.position_at_end(sub)
    old = b.atomic_rmw("sub", _refcount_ptr(b, block), ll.Constant(_I64, 1), "release")
    b.cbranch(b.icmp_signed("==", old, ll.Constant(_I64, 1)), release, done)
    b.position_at_end(release)
    b.fence("acquire")
    b.atomic_rmw("sub", live, ll.Constant(_I64, 1), "monotonic")
    b.call(free, [block])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def emit_runtime_object(options: CompilerOptions) -> EmittedObject:
    """The runtime as a relocatable object for the host (via :func:`.emit.emit_object`).

    ``options`` gives the optimisation level and CPU; the loader should pass the
    options it compiles artifacts with, or the defaults (the code is tiny and portable).
    """
    return emit_object(runtime_module(), options)
