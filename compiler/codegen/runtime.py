"""The gradc runtime object: owned array blocks with atomic reference counts, and the
reverse-mode tape.

docs/abi.md "Runtime functions". The build makes this object once per runtime key
(:mod:`.runtime_cache`) and stores it in every artifact; the loader links the first one
it meets once per process into an image of its own and lets every artifact resolve the
``gradc_rt1_*`` (arrays) and ``gradc_rt2_*`` (tape) symbols against it (artifact objects
only declare them): ``gradc.artifacts.loader.linking``.

This is runtime ABI ``rt2`` (docs/abi.md "Runtime functions"): the array functions keep
their ``rt1`` names and contract; the tape functions are ``gradc_rt2_*`` because their
contract changed (the header grew an owned-reference stack that ``tape_free`` releases).

A block is ``posix_memalign(64, 64 + nbytes)``::

    offset 0   int64_t refcount      (atomic)
    offset 8   int64_t nbytes
    offset 64  data, 64-byte aligned

Counts use ``atomicrmw``: increments are ``monotonic``; a decrement is ``release`` and
the thread that drops the last reference runs an ``acquire`` fence before ``free`` (the
usual shared-pointer protocol), so blocks may be shared between threads. ``gradc_rt1_live``
counts blocks allocated and not yet freed (``monotonic``), for leak tests;
``gradc_rt1_allocated`` counts every block ever allocated (``monotonic``), for tests that
an array expression allocates only its result.

A block of at least :data:`HUGEPAGE_MIN_BYTES` is ``madvise(MADV_HUGEPAGE)``'d from its
first page boundary on, as NumPy does for its data (``numpy/_core/src/multiarray/
alloc.c``): where transparent huge pages are ``madvise`` (the usual default), a fresh
array then page-faults once per 2 MiB, not once per 4 KiB, which costs as much as a fused
elementwise loop itself at 10^7 elements. The advice is a hint: its result is ignored.

The runtime also keeps one freed block of :data:`BLOCK_CACHE_MIN_BYTES` to
:data:`BLOCK_CACHE_MAX_BYTES` (capacity) in an internal slot, swapped atomically like the
tape's, and hands it to the next ``gradc_rt1_alloc`` it fits (capacity at least the
request and at most twice it; one that does not fit is freed): a function returning a
big array, called in a loop, then reuses its last result's memory instead of mapping
fresh pages from the kernel (``free`` unmaps blocks this big) and faulting on every one.
The capacity is the header's third word (offset 16); ``nbytes`` is the request.

A tape (:mod:`.tape`) is a ``malloc``'d header ``{i8* base, i64 top, i64 cap, i8** refs,
i64 nrefs, i64 refcap}``: ``gradc_rt2_tape_new`` returns an empty one (buffers NULL,
capacities 0; NULL when out of memory), ``gradc_rt2_tape_grow(tape, need)`` ``realloc``s
``base`` to at least ``need`` bytes — ``max(2 * cap, need, 4096)`` — and returns 0, or 1
leaving the tape as it was, ``gradc_rt2_tape_grow_refs(tape, need)`` does the same for the
reference stack ``refs`` (``need`` entries, ``max(2 * refcap, need, 512)``), and
``gradc_rt2_tape_free`` releases it (NULL: no-op). Pushes and pops are inline in compiled
code; only growth calls the runtime.

``refs[0 .. nrefs)`` holds the ``meminfo`` of every array reference on the tape, in push
order: a push of an array (or of a tuple holding arrays) records the references it moves
onto the tape, a pop of one takes them off again. ``tape_free`` first releases what is
still there (``gradc_rt1_decref`` from the top down): nothing after a complete reverse
sweep, the arrays pushed so far when a derivative call raised and its error exit frees
the tape.

The runtime keeps one freed tape (buffer up to :data:`TAPE_CACHE_MAX_BYTES`) in an
internal slot and hands it to the next ``tape_new``, emptied but with its buffer: a
gradient called in a loop then neither grows its tape nor page-faults on fresh memory
(which otherwise costs as much as the derivative code itself on large tapes). The slot is
swapped atomically (``xchg``), so concurrent derivative calls each get a tape of their
own; the tape ``tape_free`` displaces from the slot, and a bigger one, are freed.

The runtime refers to libc only (``posix_memalign``, ``malloc``, ``realloc``, ``free``,
``madvise``), by name.
"""

from __future__ import annotations

from typing import NamedTuple

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import BLOCK_ALIGN, BLOCK_HEADER_BYTES
from gradc.artifacts.abi.symbols import (
    RUNTIME_ALLOC,
    RUNTIME_ALLOCATED,
    RUNTIME_DECREF,
    RUNTIME_INCREF,
    RUNTIME_LIBRARY,
    RUNTIME_LIVE,
    RUNTIME_SYMBOLS,
    RUNTIME_TAPE_FREE,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_GROW_REFS,
    RUNTIME_TAPE_NEW,
)
from gradc.compiler.codegen.emit import EmittedObject, emit_object
from gradc.compiler.codegen.tape import (
    TAPE_INITIAL_BYTES,
    TAPE_INITIAL_REFS,
    memory_size_align,
    tape_header_type,
    tape_type,
)
from gradc.compiler.options import CompilerOptions

__all__ = ["RUNTIME_SYMBOLS", "emit_runtime_object", "runtime_module"]

#: Largest tape capacity asked for (so doubling never overflows ``int64_t``).
_MAX_TAPE_BYTES = 1 << 62

#: Largest reference-stack capacity asked for (entries; ``8 * 2 * cap`` stays an ``int64_t``).
_MAX_TAPE_REFS = 1 << 58

#: The runtime's internal slot holding one freed tape for reuse.
TAPE_CACHE = "gradc_rt2.tape_cache"

#: A freed tape whose buffer is at most this big is kept for the next ``tape_new``.
TAPE_CACHE_MAX_BYTES = 256 << 20

#: Blocks of at least this many bytes get ``madvise(MADV_HUGEPAGE)`` (NumPy's threshold).
HUGEPAGE_MIN_BYTES = 4 << 20
#: A freed block whose capacity is in [MIN, MAX] bytes is kept (one) for the next alloc.
BLOCK_CACHE_MIN_BYTES = HUGEPAGE_MIN_BYTES
BLOCK_CACHE_MAX_BYTES = 256 << 20
#: The internal slot of the kept block.
BLOCK_CACHE = "gradc_rt_block_cache"
#: Linux's ``MADV_HUGEPAGE`` and page size.
_MADV_HUGEPAGE = 14
_PAGE_BYTES = 4096

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()
_I64P = _I64.as_pointer()


def runtime_module() -> ll.Module:
    """The runtime as an LLVM module (same text in every process).

    Defines ``gradc_rt1_alloc``, ``gradc_rt1_incref``, ``gradc_rt1_decref``, the tape
    functions ``gradc_rt2_tape_new``/``_grow``/``_grow_refs``/``_free`` and the globals
    ``gradc_rt1_live`` and ``gradc_rt1_allocated``, all external; declares
    ``posix_memalign``, ``madvise``, ``malloc``, ``realloc`` and ``free``.
    """
    mod = ll.Module(name=RUNTIME_LIBRARY, context=ll.Context())
    counters = []
    for name in (RUNTIME_LIVE, RUNTIME_ALLOCATED):
        counter = ll.GlobalVariable(mod, _I64, name=name)
        counter.initializer = ll.Constant(_I64, 0)
        counter.align = 8
        counters.append(counter)
    live, allocated = counters
    memalign = ll.Function(
        mod, ll.FunctionType(_I32, [_I8P.as_pointer(), _I64, _I64]), name="posix_memalign"
    )
    memalign.attributes.add("nounwind")
    free = ll.Function(mod, ll.FunctionType(ll.VoidType(), [_I8P]), name="free")
    free.attributes.add("nounwind")
    block_cache = ll.GlobalVariable(mod, _I8P, name=BLOCK_CACHE)
    block_cache.linkage = "internal"
    block_cache.initializer = ll.Constant(_I8P, None)
    block_cache.align = 8
    blocks = _Libc(memalign, free, block_cache)
    _define_alloc(mod, (live, allocated), blocks)
    _define_incref(mod)
    decref = _define_decref(mod, live, blocks)
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
    _define_tape_grow_refs(mod, realloc)
    _define_tape_free(mod, cache, free, decref)
    return mod


class _Libc(NamedTuple):
    """What the block functions call and share: libc's allocator and the cache slot."""

    memalign: ll.Function
    free: ll.Function
    cache: ll.GlobalVariable


def _refcount_ptr(b: ll.IRBuilder, block: ll.Value) -> ll.Value:
    return b.bitcast(block, _I64P, name="refcount")


def _define_alloc(
    mod: ll.Module, counters: tuple[ll.GlobalVariable, ll.GlobalVariable], blocks: _Libc
) -> None:
    live, allocated = counters
    fn = ll.Function(mod, ll.FunctionType(_I8P, [_I64]), name=RUNTIME_ALLOC)
    fn.attributes.add("nounwind")
    (nbytes,) = fn.args
    nbytes.name = "nbytes"
    entry = fn.append_basic_block("entry")
    allocate = fn.append_basic_block("allocate")
    init = fn.append_basic_block("init")
    advise = fn.append_basic_block("advise")
    done = fn.append_basic_block("done")
    fail = fn.append_basic_block("fail")
    b = ll.IRBuilder(entry)
    slot = b.alloca(_I8P, name="slot")
    too_big = b.icmp_unsigned(">", nbytes, ll.Constant(_I64, (1 << 63) - 1 - BLOCK_HEADER_BYTES))
    b.cbranch(too_big, fail, allocate)
    b.position_at_end(allocate)
    reused = _take_cached(fn, b, nbytes, blocks)
    b.store(reused, slot)
    fresh = fn.append_basic_block("fresh")
    b.cbranch(b.icmp_unsigned("!=", reused, ll.Constant(_I8P, None)), done, fresh)
    b.position_at_end(fresh)
    total = b.add(nbytes, ll.Constant(_I64, BLOCK_HEADER_BYTES), name="total")
    status = b.call(blocks.memalign, [slot, ll.Constant(_I64, BLOCK_ALIGN), total], name="status")
    b.cbranch(b.icmp_signed("!=", status, ll.Constant(_I32, 0)), fail, init)
    b.position_at_end(init)
    block = b.load(slot, name="block")
    b.store(nbytes, _header(b, block, 2), align=8)  # the capacity
    big = b.icmp_unsigned(">=", total, ll.Constant(_I64, HUGEPAGE_MIN_BYTES))
    b.cbranch(big, advise, done)
    b.position_at_end(advise)
    _advise_hugepages(mod, b, block, total)
    b.branch(done)
    b.position_at_end(done)
    block = b.load(slot, name="block")
    b.store(ll.Constant(_I64, 1), _header(b, block, 0), align=8)
    b.store(nbytes, _header(b, block, 1), align=8)
    b.atomic_rmw("add", live, ll.Constant(_I64, 1), "monotonic")
    b.atomic_rmw("add", allocated, ll.Constant(_I64, 1), "monotonic")
    b.ret(block)
    b.position_at_end(fail)
    b.ret(ll.Constant(_I8P, None))


def _header(b: ll.IRBuilder, block: ll.Value, field: int) -> ll.Value:
    """The address of header field ``field`` (0 refcount, 1 nbytes, 2 capacity)."""
    return b.gep(_refcount_ptr(b, block), [ll.Constant(_I64, field)], inbounds=True)


def _cacheable(b: ll.IRBuilder, capacity: ll.Value) -> ll.Value:
    low = b.icmp_unsigned(">=", capacity, ll.Constant(_I64, BLOCK_CACHE_MIN_BYTES))
    high = b.icmp_unsigned("<=", capacity, ll.Constant(_I64, BLOCK_CACHE_MAX_BYTES))
    return b.and_(low, high)


def _take_cached(fn: ll.Function, b: ll.IRBuilder, nbytes: ll.Value, blocks: _Libc) -> ll.Value:
    """The cached block when it fits ``nbytes`` (capacity in [nbytes, 2 * nbytes]), else
    null (a cached block that does not fit is freed)."""
    none = ll.Constant(_I8P, None)
    start = b.block
    look = fn.append_basic_block("cache.look")
    check = fn.append_basic_block("cache.check")
    drop = fn.append_basic_block("cache.drop")
    out = fn.append_basic_block("cache.out")
    b.cbranch(_cacheable(b, nbytes), look, out)
    b.position_at_end(look)
    cached = b.atomic_rmw("xchg", blocks.cache, none, "acquire", name="cached")
    b.cbranch(b.icmp_unsigned("==", cached, none), out, check)
    b.position_at_end(check)
    capacity = b.load(_header(b, cached, 2), name="capacity", align=8)
    fits = b.and_(
        b.icmp_unsigned(">=", capacity, nbytes),
        b.icmp_unsigned("<=", capacity, b.shl(nbytes, ll.Constant(_I64, 1))),
    )
    b.cbranch(fits, out, drop)
    b.position_at_end(drop)
    b.call(blocks.free, [cached])
    b.branch(out)
    b.position_at_end(out)
    result = b.phi(_I8P, name="reused")
    result.add_incoming(none, start)
    result.add_incoming(none, look)
    result.add_incoming(cached, check)
    result.add_incoming(none, drop)
    return result


def _advise_hugepages(mod: ll.Module, b: ll.IRBuilder, block: ll.Value, total: ll.Value) -> None:
    """``madvise(MADV_HUGEPAGE)`` the whole pages of ``block[0 .. total)`` (result ignored)."""
    madvise = ll.Function(mod, ll.FunctionType(_I32, [_I8P, _I64, _I32]), name="madvise")
    madvise.attributes.add("nounwind")
    start = b.ptrtoint(block, _I64, name="start")
    first = b.and_(
        b.add(start, ll.Constant(_I64, _PAGE_BYTES - 1)), ll.Constant(_I64, -_PAGE_BYTES)
    )
    length = b.sub(b.add(start, total), first, name="advised")
    aligned = b.and_(length, ll.Constant(_I64, -_PAGE_BYTES))
    b.call(madvise, [b.inttoptr(first, _I8P), aligned, ll.Constant(_I32, _MADV_HUGEPAGE)])


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


def _define_decref(mod: ll.Module, live: ll.GlobalVariable, blocks: _Libc) -> ll.Function:
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
    keep = fn.append_basic_block("keep")
    drop = fn.append_basic_block("drop")
    capacity = b.load(_header(b, block, 2), name="capacity", align=8)
    b.cbranch(_cacheable(b, capacity), keep, drop)
    b.position_at_end(keep)  # into the cache; free the block it displaces (or null)
    displaced = b.atomic_rmw("xchg", blocks.cache, block, "acq_rel", name="displaced")
    b.call(blocks.free, [displaced])
    b.branch(done)
    b.position_at_end(drop)
    b.call(blocks.free, [block])
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


# header field indices (:func:`.tape.tape_header_type`)
_BASE, _TOP, _CAP, _REFS, _NREFS, _REFCAP = range(6)


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
    b.position_at_end(reuse)  # its buffers stay: the next pushes do not grow or fault
    b.store(ll.Constant(_I64, 0), _tape_field(b, cached, _TOP), align=8)
    b.store(ll.Constant(_I64, 0), _tape_field(b, cached, _NREFS), align=8)
    b.ret(cached)
    b.position_at_end(allocate)
    size, _ = memory_size_align(tape_header_type())
    raw = b.call(malloc, [ll.Constant(_I64, size)], name="raw")
    b.cbranch(b.icmp_unsigned("==", raw, ll.Constant(_I8P, None)), fail, init)
    b.position_at_end(init)
    tape = b.bitcast(raw, tape_type(), name="tape")
    for field, ty in enumerate(tape_header_type().elements):
        b.store(
            ll.Constant(ty, None if isinstance(ty, ll.PointerType) else 0),
            _tape_field(b, tape, field),
            align=8,
        )
    b.ret(tape)
    b.position_at_end(fail)
    b.ret(ll.Constant(tape_type(), None))


def _define_growth(
    mod: ll.Module,
    realloc: ll.Function,
    name: str,
    fields: tuple[int, int],
    entry_bytes: int,
    initial: int,
    limit: int,
) -> None:
    """``int32_t name(gradc_tape *tape, int64_t need)``: ``realloc`` the buffer in header
    field ``fields[0]`` (capacity in ``fields[1]``, in units of ``entry_bytes``) to
    ``max(2 * cap, need, initial)`` units; 0, or 1 leaving the tape as it was when
    ``need > limit`` or ``realloc`` fails."""
    buffer_field, cap_field = fields
    fn = ll.Function(mod, ll.FunctionType(_I32, [tape_type(), _I64]), name=name)
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
    too_big = b.icmp_unsigned(">", need, ll.Constant(_I64, limit))
    b.cbranch(too_big, fail, allocate)
    b.position_at_end(allocate)
    cap = b.load(_tape_field(b, tape, cap_field), name="cap", align=8)
    doubled = b.shl(cap, ll.Constant(_I64, 1), name="doubled")
    new_cap = b.select(b.icmp_unsigned(">", need, doubled), need, doubled)
    first = ll.Constant(_I64, initial)
    new_cap = b.select(b.icmp_unsigned("<", new_cap, first), first, new_cap, name="new.cap")
    field = _tape_field(b, tape, buffer_field)
    base = b.load(b.bitcast(field, _I8P.as_pointer()), name="base", align=8)
    nbytes = b.mul(new_cap, ll.Constant(_I64, entry_bytes), name="nbytes")
    grown = b.call(realloc, [base, nbytes], name="grown")
    b.cbranch(b.icmp_unsigned("==", grown, ll.Constant(_I8P, None)), fail, done)
    b.position_at_end(done)
    b.store(grown, b.bitcast(field, _I8P.as_pointer()), align=8)
    b.store(new_cap, _tape_field(b, tape, cap_field), align=8)
    b.ret(ll.Constant(_I32, 0))
    b.position_at_end(fail)
    b.ret(ll.Constant(_I32, 1))


def _define_tape_grow(mod: ll.Module, realloc: ll.Function) -> None:
    _define_growth(
        mod, realloc, RUNTIME_TAPE_GROW, (_BASE, _CAP), 1, TAPE_INITIAL_BYTES, _MAX_TAPE_BYTES
    )


def _define_tape_grow_refs(mod: ll.Module, realloc: ll.Function) -> None:
    _define_growth(
        mod, realloc, RUNTIME_TAPE_GROW_REFS, (_REFS, _REFCAP), 8, TAPE_INITIAL_REFS, _MAX_TAPE_REFS
    )


def _define_tape_free(
    mod: ll.Module, cache: ll.GlobalVariable, free: ll.Function, decref: ll.Function
) -> None:
    fn = ll.Function(mod, ll.FunctionType(ll.VoidType(), [tape_type()]), name=RUNTIME_TAPE_FREE)
    fn.attributes.add("nounwind")
    (tape,) = fn.args
    tape.name = "tape"
    entry = fn.append_basic_block("entry")
    start = fn.append_basic_block("start")
    drop = fn.append_basic_block("drop")
    dropped = fn.append_basic_block("dropped")
    keep = fn.append_basic_block("keep")
    cache_it = fn.append_basic_block("cache")
    release = fn.append_basic_block("release")
    done = fn.append_basic_block("done")
    null = ll.Constant(tape_type(), None)
    zero = ll.Constant(_I64, 0)
    b = ll.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", tape, null), done, start)
    b.position_at_end(start)
    nrefs = b.load(_tape_field(b, tape, _NREFS), name="nrefs", align=8)
    b.branch(dropped)
    # the array references still on the tape (an error exit): released top down
    b.position_at_end(drop)
    i = b.phi(_I64, name="i")
    below = b.sub(i, ll.Constant(_I64, 1), name="below")
    refs = b.load(_tape_field(b, tape, _REFS), name="refs", align=8)
    b.call(decref, [b.load(b.gep(refs, [below], inbounds=True), name="meminfo", align=8)])
    b.branch(dropped)
    b.position_at_end(dropped)
    left = b.phi(_I64, name="left")
    left.add_incoming(nrefs, start)
    left.add_incoming(below, drop)
    i.add_incoming(left, dropped)
    b.cbranch(b.icmp_unsigned("==", left, zero), keep, drop)
    b.position_at_end(keep)  # cached unless huge; the tape it displaces is freed
    b.store(zero, _tape_field(b, tape, _NREFS), align=8)
    cap = b.load(_tape_field(b, tape, _CAP), name="cap", align=8)
    small = b.icmp_unsigned("<=", cap, ll.Constant(_I64, TAPE_CACHE_MAX_BYTES))
    b.cbranch(small, cache_it, release)
    b.position_at_end(cache_it)
    old = b.atomic_rmw("xchg", cache, tape, "acq_rel", name="old")
    b.cbranch(b.icmp_unsigned("==", old, null), done, release)
    b.position_at_end(release)
    victim = b.phi(tape_type(), name="victim")
    victim.add_incoming(tape, keep)
    victim.add_incoming(old, cache_it)
    base = b.load(_tape_field(b, victim, _BASE), name="base", align=8)
    b.call(free, [base])
    refs_buffer = b.load(_tape_field(b, victim, _REFS), name="refs", align=8)
    b.call(free, [b.bitcast(refs_buffer, _I8P)])
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
