"""The gradc runtime object: owned array blocks with atomic reference counts, and the
reverse-mode tape.

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

A tape (:mod:`.tape`) is a ``malloc``'d header ``{i8* base, i64 top, i64 cap}``:
``gradc_rt1_tape_new`` returns an empty one (``base`` NULL, capacity 0; NULL when out of
memory), ``gradc_rt1_tape_grow(tape, need)`` ``realloc``s ``base`` to at least ``need``
bytes — ``max(2 * cap, need, 4096)`` — and returns 0, or 1 leaving the tape as it was,
``gradc_rt1_tape_free`` releases it (NULL: no-op). Pushes and pops are inline in compiled
code; only growth calls the runtime.

The runtime keeps one freed tape (buffer up to :data:`TAPE_CACHE_MAX_BYTES`) in an
internal slot and hands it to the next ``tape_new``, emptied but with its buffer: a
gradient called in a loop then neither grows its tape nor page-faults on fresh memory
(which otherwise costs as much as the derivative code itself on large tapes). The slot is
swapped atomically (``xchg``), so concurrent derivative calls each get a tape of their
own; the tape ``tape_free`` displaces from the slot, and a bigger one, are freed.

The runtime refers to libc only (``posix_memalign``, ``malloc``, ``realloc``, ``free``),
by name.
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
from gradc.compiler.codegen.tape import (
    RUNTIME_TAPE_FREE,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_NEW,
    TAPE_INITIAL_BYTES,
    memory_size_align,
    tape_header_type,
    tape_type,
)
from gradc.compiler.options import CompilerOptions

__all__ = ["RUNTIME_SYMBOLS", "emit_runtime_object", "runtime_module"]

#: Every symbol the runtime object defines (all with external linkage).
RUNTIME_SYMBOLS = (
    RUNTIME_ALLOC,
    RUNTIME_INCREF,
    RUNTIME_DECREF,
    RUNTIME_LIVE,
    RUNTIME_TAPE_NEW,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_FREE,
)

#: Largest tape capacity asked for (so doubling never overflows ``int64_t``).
_MAX_TAPE_BYTES = 1 << 62

#: The runtime's internal slot holding one freed tape for reuse.
TAPE_CACHE = "gradc_rt1.tape_cache"

#: A freed tape whose buffer is at most this big is kept for the next ``tape_new``.
TAPE_CACHE_MAX_BYTES = 256 << 20

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()
_I64P = _I64.as_pointer()


def runtime_module() -> ll.Module:
    """The runtime as an LLVM module (same text in every process).

    Defines ``gradc_rt1_alloc``, ``gradc_rt1_incref``, ``gradc_rt1_decref``, the tape
    functions ``gradc_rt1_tape_new``/``_grow``/``_free`` and the global
    ``gradc_rt1_live``, all external; declares ``posix_memalign``, ``malloc``,
    ``realloc`` and ``free``.
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
    malloc = ll.Function(mod, ll.FunctionType(_I8P, [_I64]), name="malloc")
    malloc.attributes.add("nounwind")
    realloc = ll.Function(mod, ll.FunctionType(_I8P, [_I8P, _I64]), name="realloc")
    realloc.attributes.add("nounwind")
    cache = ll.GlobalVariable(mod, tape_type(), name=TAPE_CACHE)
    cache.linkage = "internal"
    cache.initializer = ll.Constant(tape_type(), None)
    cache.align = 8
    _define_tape_new(mod, cache, malloc)
    _define_tape_grow(mod, realloc)
    _define_tape_free(mod, cache, free)
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


def _tape_field(b: ll.IRBuilder, tape: ll.Value, field: int) -> ll.Value:
    zero = ll.Constant(_I32, 0)
    return b.gep(tape, [zero, ll.Constant(_I32, field)], inbounds=True)


def _define_tape_new(mod: ll.Module, cache: ll.GlobalVariable, malloc: ll.Function) -> None:
    fn = ll.Function(mod, ll.FunctionType(tape_type(), []), name=RUNTIME_TAPE_NEW)
    fn.attributes.add("nounwind")
    entry = fn.append_basic_block("entry")
    reuse = fn.append_basic_block("reuse")
    allocate = fn.append_basic_block("allocate")
    init = fn.append_basic_block("init")
    fail = fn.append_basic_block("fail")
    b = ll.IRBuilder(entry)
    cached = b.atomic_rmw("xchg", cache, ll.Constant(tape_type(), None), "acquire", name="cached")
    b.cbranch(b.icmp_unsigned("==", cached, ll.Constant(tape_type(), None)), allocate, reuse)
    b.position_at_end(reuse)  # its buffer stays: the next pushes do not grow or fault
    b.store(ll.Constant(_I64, 0), _tape_field(b, cached, 1), align=8)
    b.ret(cached)
    b.position_at_end(allocate)
    size, _ = memory_size_align(tape_header_type())
    raw = b.call(malloc, [ll.Constant(_I64, size)], name="raw")
    b.cbranch(b.icmp_unsigned("==", raw, ll.Constant(_I8P, None)), fail, init)
    b.position_at_end(init)
    tape = b.bitcast(raw, tape_type(), name="tape")
    b.store(ll.Constant(_I8P, None), _tape_field(b, tape, 0), align=8)
    b.store(ll.Constant(_I64, 0), _tape_field(b, tape, 1), align=8)
    b.store(ll.Constant(_I64, 0), _tape_field(b, tape, 2), align=8)
    b.ret(tape)
    b.position_at_end(fail)
    b.ret(ll.Constant(tape_type(), None))


def _define_tape_grow(mod: ll.Module, realloc: ll.Function) -> None:
    fn = ll.Function(mod, ll.FunctionType(_I32, [tape_type(), _I64]), name=RUNTIME_TAPE_GROW)
    fn.attributes.add("nounwind")
    fn.attributes.add("noinline")
    fn.attributes.add("cold")
    tape, need = fn.args
    tape.name, need.name = "tape", "need"
    entry = fn.append_basic_block("entry")
    allocate = fn.append_basic_block("allocate")
    done = fn.append_basic_block("done")
    fail = fn.append_basic_block("fail")
    b = ll.IRBuilder(entry)
    too_big = b.icmp_unsigned(">", need, ll.Constant(_I64, _MAX_TAPE_BYTES))
    b.cbranch(too_big, fail, allocate)
    b.position_at_end(allocate)
    cap = b.load(_tape_field(b, tape, 2), name="cap", align=8)
    doubled = b.shl(cap, ll.Constant(_I64, 1), name="doubled")
    new_cap = b.select(b.icmp_unsigned(">", need, doubled), need, doubled)
    initial = ll.Constant(_I64, TAPE_INITIAL_BYTES)
    new_cap = b.select(b.icmp_unsigned("<", new_cap, initial), initial, new_cap, name="new.cap")
    base = b.load(_tape_field(b, tape, 0), name="base", align=8)
    grown = b.call(realloc, [base, new_cap], name="grown")
    b.cbranch(b.icmp_unsigned("==", grown, ll.Constant(_I8P, None)), fail, done)
    b.position_at_end(done)
    b.store(grown, _tape_field(b, tape, 0), align=8)
    b.store(new_cap, _tape_field(b, tape, 2), align=8)
    b.ret(ll.Constant(_I32, 0))
    b.position_at_end(fail)
    b.ret(ll.Constant(_I32, 1))


def _define_tape_free(mod: ll.Module, cache: ll.GlobalVariable, free: ll.Function) -> None:
    fn = ll.Function(mod, ll.FunctionType(ll.VoidType(), [tape_type()]), name=RUNTIME_TAPE_FREE)
    fn.attributes.add("nounwind")
    (tape,) = fn.args
    tape.name = "tape"
    entry = fn.append_basic_block("entry")
    keep = fn.append_basic_block("keep")
    cache_it = fn.append_basic_block("cache")
    release = fn.append_basic_block("release")
    done = fn.append_basic_block("done")
    null = ll.Constant(tape_type(), None)
    b = ll.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", tape, null), done, keep)
    b.position_at_end(keep)  # cached unless huge; the tape it displaces is freed
    cap = b.load(_tape_field(b, tape, 2), name="cap", align=8)
    small = b.icmp_unsigned("<=", cap, ll.Constant(_I64, TAPE_CACHE_MAX_BYTES))
    b.cbranch(small, cache_it, release)
    b.position_at_end(cache_it)
    old = b.atomic_rmw("xchg", cache, tape, "acq_rel", name="old")
    b.cbranch(b.icmp_unsigned("==", old, null), done, release)
    b.position_at_end(release)
    victim = b.phi(tape_type(), name="victim")
    victim.add_incoming(tape, keep)
    victim.add_incoming(old, cache_it)
    base = b.load(_tape_field(b, victim, 0), name="base", align=8)
    b.call(free, [base])
    b.call(free, [b.bitcast(victim, _I8P)])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def emit_runtime_object(options: CompilerOptions) -> EmittedObject:
    """The runtime as a relocatable object for the host (via :func:`.emit.emit_object`).

    ``options`` gives the optimisation level and CPU; the loader should pass the
    options it compiles artifacts with, or the defaults (the code is tiny and portable).
    """
    return emit_object(runtime_module(), options)
