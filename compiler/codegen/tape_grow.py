"""The cold path of a tape push, outlined into one function per LLVM module.

A push whose tape lives in registers (:mod:`.tape`) checks ``cur + size <= end``; when the
buffer is full it used to call the runtime's growth function, raise MemoryError on
failure (a block filling the error record) and reload ``cur`` and ``end`` from the header,
about 25 LLVM instructions per push site: two fifths of the forward sweep of a large
gradient (docs/compile_time.md). :func:`grow_function` makes that path one internal,
``noinline``, ``cold`` function per module, which fills the error record itself and
returns the new ``{cur, end}`` (``cur`` NULL when the growth failed), so that a push site
keeps only a call and a branch to the function's one ``ret`` of the MemoryError code.
The error record is the one the inline path wrote (kind, site, message, ``data[3] = 0``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

if TYPE_CHECKING:
    from gradc.compiler.codegen.tape import TapeLowering

__all__ = ["GROW_FUNCTION", "grow_function", "grow_outlined"]

#: The outlined function's name (internal: each object has its own).
GROW_FUNCTION = "gradc.tape.grow"

_I8P = ll.IntType(8).as_pointer()
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_RESULT = ll.LiteralStructType([_I8P, _I8P])


def grow_function(
    llmod: ll.Module,
    runtime_grow: ll.Function,
    err_type: ll.Type,
    header_tag: ll.MDValue,
    fields: tuple[int, int],
    error: tuple[int, ll.Constant],
) -> ll.Function:
    """``{i8*, i8*} gradc.tape.grow(tape, cur, size, err, site)`` of ``llmod`` (made once):
    grows the tape (``runtime_grow``, ``gradc_rt2_tape_grow``) for ``size`` more bytes
    than ``cur - base`` and returns the new ``{base + used, base + cap}``; on failure fills
    ``*err`` with ``error`` (the MemoryError code and its message) at ``site`` and
    returns ``{NULL, NULL}``. ``fields``: the header's ``base`` and ``cap`` field indices;
    ``header_tag``: the TBAA tag of header accesses."""
    try:
        existing = llmod.get_global(GROW_FUNCTION)
    except KeyError:
        existing = None
    if isinstance(existing, ll.Function):
        return existing
    tape_ty = runtime_grow.function_type.args[0]
    fnty = ll.FunctionType(_RESULT, [tape_ty, _I8P, _I64, err_type, _I32])
    fn = ll.Function(llmod, fnty, name=GROW_FUNCTION)
    fn.linkage = "internal"
    for attribute in ("noinline", "cold", "nounwind"):
        fn.attributes.add(attribute)
    tape, cur, size, err, site = fn.args
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    zero = ll.Constant(_I32, 0)

    def header(field: int, name: str) -> ll.Value:
        at = b.gep(tape, [zero, ll.Constant(_I32, field)], inbounds=True)
        v = b.load(at, name=name, align=8)
        v.set_metadata("tbaa", header_tag)
        return v

    base_field, cap_field = fields
    base = header(base_field, "tape.base")
    used = b.sub(b.ptrtoint(cur, _I64), b.ptrtoint(base, _I64), name="tape.top")
    need = b.add(used, size, name="tape.need", flags=["nuw", "nsw"])
    status = b.call(runtime_grow, [tape, need], name="tape.grown")
    failed = b.icmp_unsigned("!=", status, ll.Constant(_I32, 0))
    fail, ok = fn.append_basic_block("fail"), fn.append_basic_block("ok")
    b.cbranch(failed, fail, ok)
    b.position_at_end(ok)
    base = header(base_field, "tape.base")
    cap = header(cap_field, "tape.cap")
    # not inbounds, as the inline path: base + cap is one past the buffer
    pair = b.insert_value(ll.Constant(_RESULT, None), b.gep(base, [used], name="tape.cur"), 0)
    b.ret(b.insert_value(pair, b.gep(base, [cap], name="tape.end"), 1))
    b.position_at_end(fail)
    code, message = error

    def record(*idx: int) -> ll.Value:
        return b.gep(err, [zero, *(ll.Constant(_I32, i) for i in idx)], inbounds=True)

    b.store(ll.Constant(_I32, code), record(0))
    b.store(site, record(1))
    b.store(message, record(2))
    b.store(ll.Constant(_I64, 0), record(3, 3))
    b.ret(ll.Constant(_RESULT, None))
    return fn


def grow_outlined(
    tl: TapeLowering, runtime_grow: ll.Function, tape: ll.Value, cur: ll.Value, size: ll.Value
) -> None:
    """At ``tl``'s builder, in the growth block of a registered push (``cur``: the full
    buffer's ``cur``; ``size``: the bytes the push needs): call the module's
    :func:`grow_function`, raise MemoryError (through ``tl``'s function's one ``ret`` of
    its code, after the push's unwind block if it holds arrays) when it failed, else put
    the new ``cur`` and ``end`` in the registers. Leaves the builder in a fresh block."""
    from gradc.compiler.codegen.tape import _BASE, _CAP, _OUT_OF_MEMORY
    from gradc.compiler.ir import ops

    fl, b = tl.fl, tl.b
    regs = tl._registers
    assert regs is not None
    code = ops.EXCEPTION_KINDS["MemoryError"]
    error = (code, fl.ml.string(_OUT_OF_MEMORY))
    header_tag = fl.ml.tbaa("tape header")
    helper = grow_function(fl.ml.llmod, runtime_grow, fl.err.type, header_tag, (_BASE, _CAP), error)
    pair = b.call(helper, [tape, cur, size, fl.err, ll.Constant(_I32, fl.site())])
    new_cur = b.extract_value(pair, 0, name="tape.cur")
    if tl.oom_exit is None:
        tl.oom_exit = fl.llfn.append_basic_block("raise.MemoryError")
        ll.IRBuilder(tl.oom_exit).ret(ll.Constant(_I32, code))
    fail = fl.unwind_to(tl.oom_exit)
    ok = fl.llfn.append_basic_block(fl.continuation())
    failed = b.icmp_unsigned("==", new_cur, ll.Constant(_I8P, None))
    b.cbranch(failed, fail, ok).set_weights([1, 1 << 20])  # exceptions are cold
    b.position_at_end(ok)
    b.store(new_cur, regs.cur)
    b.store(b.extract_value(pair, 1, name="tape.end"), regs.end)
