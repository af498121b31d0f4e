"""Lowering of calls (the C ABI of docs/abi.md), returns, branches and raises."""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import TEMPLATE_FLOATS
from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.codegen.lltypes import abi_type, value_type
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import F64, I1, ArrayType, NoneType

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)


@LOWERING.register(ops.Call)
def _call(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    """Call by the ABI; a nonzero status is returned unchanged (``*err`` is filled)."""
    assert isinstance(inst, ops.Call)
    b = fl.b
    callee = fl.ml.module.functions[inst.callee]
    llcallee = fl.ml.functions[inst.callee]
    if len(inst.args) != len(callee.params):
        raise fl.ice(f"call of {inst.callee!r} with {len(inst.args)} arguments")
    args = []
    for a, p in zip(inst.args, callee.params):
        if isinstance(p.type, ArrayType):  # by pointer to a descriptor in a stack slot
            slot = fl.prologue.alloca(value_type(p.type), name=f"{inst.callee}.arg")
            b.store(fl.value(a), slot, align=8)
            args.append(slot)
        else:
            args.append(fl.to_abi(b, fl.value(a), p.type))
    slot = fl.prologue.alloca(abi_type(callee.return_type), name=f"{inst.callee}.out")
    fl.tape.before_call(inst)
    status = b.call(llcallee, [*args, slot, fl.err], name=f"{inst.callee}.status")
    failed = b.icmp_signed("!=", status, ll.Constant(_I32, 0))
    propagate = fl.llfn.append_basic_block(f"propagate.{inst.callee}")
    ll.IRBuilder(propagate).ret(status)
    ok = fl.llfn.append_basic_block(fl.continuation())
    b.cbranch(failed, fl.unwind_to(propagate), ok).set_weights([1, 1 << 20])
    b.position_at_end(ok)
    fl.tape.after_call(inst)
    if isinstance(callee.return_type, NoneType):
        return ll.Constant(_I8, 0)
    return fl.from_abi(b, b.load(slot), callee.return_type)


@LOWERING.register(ops.Return)
def _return(fl: FunctionLowering, inst: Instruction) -> None:
    assert isinstance(inst, ops.Return)
    b = fl.b
    rt = fl.func.return_type
    if not isinstance(rt, NoneType):
        if inst.value is None:
            raise fl.ice(f"return without a value from a function returning {rt}")
        b.store(fl.to_abi(b, fl.value(inst.value), rt), fl.out)
    fl.tape.before_return()
    b.ret(ll.Constant(_I32, 0))


@LOWERING.register(ops.Jump)
def _jump(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Jump)
    fl.b.branch(fl.blocks[inst.target])
    return None


@LOWERING.register(ops.Branch)
def _branch(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Branch)
    fl.b.cbranch(fl.value(inst.cond), fl.blocks[inst.if_true], fl.blocks[inst.if_false])
    return None


@LOWERING.register(ops.Raise)
def _raise(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    assert isinstance(inst, ops.Raise)
    if inst.exception not in ops.EXCEPTION_KINDS:
        raise fl.ice(f"unknown exception kind {inst.exception!r}")
    fl.b.branch(fl.raise_block(inst.exception, inst.message))
    return None


@LOWERING.register(ops.RaiseFormat)
def _raise_format(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
    """Int fields go to the record's ``data`` words (sign-extended), f64 fields as their
    bits with ``data[3] = TEMPLATE_FLOATS + mask`` (the loader formats the template, so
    floats print as CPython prints them); each bool field is a branch to a copy of the raise whose template has
    ``True``/``False`` formatted in (CPython's text), so no bool reaches the loader."""
    assert isinstance(inst, ops.RaiseFormat)
    if inst.exception not in ops.EXCEPTION_KINDS:
        raise fl.ice(f"unknown exception kind {inst.exception!r}")
    ints = [v for v in inst.values if v.type != I1]
    data = [_word(fl, v) for v in ints]
    mask = sum(1 << i for i, v in enumerate(ints) if v.type == F64)
    flag = TEMPLATE_FLOATS + mask if mask else None
    bools = [i for i, v in enumerate(inst.values) if v.type == I1]

    def emit(b: ll.IRBuilder, known: dict[int, bool]) -> None:
        if len(known) < len(bools):
            i = bools[len(known)]
            yes = fl.llfn.append_basic_block("raisef.true")
            no = fl.llfn.append_basic_block("raisef.false")
            b.cbranch(fl.value(inst.values[i]), yes, no)
            emit(ll.IRBuilder(yes), {**known, i: True})
            emit(ll.IRBuilder(no), {**known, i: False})
            return
        fl.fill_error(b, inst.exception, substitute(inst.template, known), data, flag)

    emit(fl.b, {})
    return None


def _word(fl: FunctionLowering, v: Value) -> ll.Value:
    """An int field sign-extended to ``i64``; a float field's bits."""
    if v.type == F64:
        return fl.b.bitcast(fl.value(v), _I64)
    if value_type(v.type).width < 64:
        return fl.b.sext(fl.value(v), _I64)
    return fl.value(v)


def substitute(template: str, known: dict[int, bool]) -> str:
    """``template`` with fields ``{i...}`` for ``i`` in ``known`` formatted in (as
    ``format`` formats the bool, conversion and spec included) and the other fields
    renumbered to their rank among the fields not in ``known`` (the ``data`` words)."""
    out: list[str] = []
    for literal, name, spec, conversion in string.Formatter().parse(template):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if int(name) in known:
            value: object = known[int(name)]
            convert: dict[str, Callable[[object], str]] = {"r": repr, "s": str, "a": ascii}
            if conversion:
                value = convert[conversion](value)
            text = format(value, spec or "")
            out.append(text.replace("{", "{{").replace("}", "}}"))
        else:
            conv = f"!{conversion}" if conversion else ""
            index = int(name) - sum(1 for k in known if k < int(name))
            out.append(f"{{{index}{conv}{':' + spec if spec else ''}}}")
    return "".join(out)
