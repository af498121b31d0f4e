"""Tiny C-ABI objects built with llvmlite in the tests themselves (docs/abi.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from gradc.compiler.backend import abi_description
from gradc.compiler.codegen.emit import add_abi_description
from gradc.compiler.driver import BuildOutput, CompiledEntry, Param, Signature

F64 = ir.DoubleType()
F32 = ir.FloatType()
I64 = ir.IntType(64)
I32 = ir.IntType(32)
I8 = ir.IntType(8)
ERR = ir.LiteralStructType([I32, I32, I8.as_pointer(), ir.ArrayType(I64, 4)])

#: The target :func:`build` writes by default (and :func:`entry` describes its objects for).
HOST = {"triple": llvm.get_process_triple(), "cpu": "x86-64", "features": ""}

Body = Callable[[ir.IRBuilder, ir.Function, list[ir.Argument], ir.Argument, ir.Argument], None]


def emit(module: ir.Module) -> bytes:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = llvm.parse_assembly(str(module))
    mod.verify()
    target = llvm.Target.from_default_triple()
    tm = target.create_target_machine(reloc="pic", codemodel="default")
    return bytes(tm.emit_object(mod))


def entry(
    name: str,
    params: list[tuple[str, str, ir.Type]],
    result: tuple[str, ir.Type],
    body: Body,
) -> CompiledEntry:
    """An export ``name`` whose LLVM body is written by ``body(b, fn, args, out, err)``."""
    key = hashlib.sha256(repr((name, params, result[0])).encode()).hexdigest()
    symbol = f"gradc_{name}_{key[:16]}"
    module = ir.Module(name=name)
    module.triple = llvm.get_process_triple()
    fnty = ir.FunctionType(
        I32, [t for _, _, t in params] + [result[1].as_pointer(), ERR.as_pointer()]
    )
    fn = ir.Function(module, fnty, symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    body(b, fn, list(fn.args[: len(params)]), fn.args[-2], fn.args[-1])
    signature = Signature(tuple(Param(n, t) for n, t, _ in params), result[0])
    # The ABI description the loader checks the manifest against, for build()'s target.
    add_abi_description(module, symbol, abi_description(name, symbol, signature, HOST))
    return CompiledEntry(
        name=name,
        signature=signature,
        symbol=symbol,
        object_code=emit(module),
        key=key,
        key_components={"test": name},
        llvm_text=str(module),
    )


def set_error(
    b: ir.IRBuilder, fn: ir.Function, err: ir.Argument, kind: int, site: int, message: str
) -> None:
    """Fill ``*err`` with a constant message and raise site ``site``; return ``kind``."""
    data = bytearray(message.encode()) + b"\0"
    gv = ir.GlobalVariable(fn.module, ir.ArrayType(I8, len(data)), name=f"{fn.name}.msg")
    gv.global_constant = True
    gv.linkage = "private"
    gv.initializer = ir.Constant(ir.ArrayType(I8, len(data)), data)
    zero = ir.Constant(I32, 0)
    b.store(ir.Constant(I32, kind), b.gep(err, [zero, zero]))
    b.store(ir.Constant(I32, site), b.gep(err, [zero, ir.Constant(I32, 1)]))
    b.store(b.bitcast(gv, I8.as_pointer()), b.gep(err, [zero, ir.Constant(I32, 2)]))
    b.ret(ir.Constant(I32, kind))


def build(*entries: CompiledEntry, module: str = "tiny", **target: str) -> BuildOutput:
    host = dict(HOST)
    host.update(target)
    return BuildOutput(module_name=module, entries=tuple(entries), target=host)
