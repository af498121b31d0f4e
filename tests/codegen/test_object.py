"""The emitted object: relocatable ELF, no absolute addresses, reproducible, linkable.

DESIGN.md §2/§7.1: nothing of the compiling process may be baked into the code. Checked
here on an object that exercises every lowering path: relocations only name external
functions (libm) or the object's own sections, PC-relative or through the PLT/GOT; the
only global symbol is the export; there is no writable data; two processes with
different hash seeds emit byte-identical objects.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import os
import subprocess
import sys
from typing import Any

import llvmlite.binding as llvm
import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from gradc.compiler.codegen.emit import (
    assembly_from_llvm,
    emit_object,
    llvm_version,
    target_info,
)
from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.codegen.sites import raise_sites
from gradc.compiler.ir import ops
from gradc.compiler.options import CompilerOptions

#: Builds a module that uses every operation (run here and in fresh interpreters).
BUILD_SCRIPT = r"""
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F32, F64, I1, I32, I64, TupleType


def build():
    m = Module("everything", source_file="everything.py")

    def fn(name, params, result, line):
        f = Function(name, [Argument(type=t, name=n, index=i) for i, (n, t) in
                            enumerate(params)], result, loc=Loc("everything.py", line, 0))
        m.add(f)
        b = Builder(f)
        b.position_at_end(f.add_block("entry"))
        b.loc = Loc("everything.py", line, 4)
        return b

    b = fn("maths", [("x", F64), ("y", F64)], F64, 10)
    x, y = b.function.params
    acc = b.const(0.0, F64)
    for i, (name, f) in enumerate(ops.MATH_FUNCTIONS.items()):
        with b.at(Loc("everything.py", 11 + i, 4)):
            # acosh of 1 + x: every function but log is defined on x in [0, 1)
            arg = b.add(x, b.const(1.0, F64)) if name in ("acosh", "ieee_acosh") else x
            r = b.math(name, *([arg, y][: f.arity]))
            if f.returns_bool:
                r = b.cast(r, F64)
            acc = b.add(acc, r)
    for cls in (ops.Div, ops.FloorDiv, ops.Mod, ops.Pow, ops.Min, ops.Max, ops.Sub, ops.Mul):
        acc = b.binary(cls, acc, y)
    b.ret(acc)

    b = fn("ints", [("a", I64), ("c", I32), ("p", I1)], TupleType((I64, I32, I1)), 50)
    a, c, p = b.function.params
    for cls in (ops.FloorDiv, ops.Mod, ops.Pow, ops.Min, ops.Max, ops.Add):
        a = b.binary(cls, a, b.cast(c, I64))
        c = b.binary(cls, c, b.const(3, I32))
    a = b.unary(ops.Abs, b.unary(ops.Neg, a))
    q = b.unary(ops.Not, b.cmp("lt", a, b.cast(c, I64)))
    b.ret(b.make_tuple([a, c, b.select(p, q, b.cmp("ne", p, q))]))

    b = fn("top", [("x", F64), ("n", I64), ("p", I1)], TupleType((F64, I64, F32)), 80)
    x, n, p = b.function.params
    r = b.call("maths", [x, b.const(2.5, F64)], F64)
    t = b.call("ints", [n, b.const(7, I32), p], TupleType((I64, I32, I1)))
    k = b.tuple_get(t, 0)
    with b.if_then(b.binary(ops.Min, b.tuple_get(t, 2), p)):
        b.raise_("RuntimeError", "flag set")
    b.ret(b.make_tuple([r, b.cast(r, I64), b.cast(b.add(r, b.cast(k, F64)), F32)]))
    return m
"""

PRINT_HASH = (
    BUILD_SCRIPT
    + r"""
import hashlib
from gradc.compiler.codegen.emit import emit_object
from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.ir import ops
from gradc.compiler.options import CompilerOptions

for level in (0, 2, 3):
    opts = CompilerOptions(opt_level=level)
    obj = emit_object(lower_export(build(), "top", "gradc_top_0123456789abcdef", opts), opts)
    print(level, hashlib.sha256(obj.object_code).hexdigest())
"""
)

SYMBOL = "gradc_top_0123456789abcdef"

#: External functions the lowered code may call by name.
LIBM = {
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "expm1",
    "log", "log1p", "log2", "log10", "sqrt", "erf", "erfc", "tgamma", "lgamma", "atan2",
    "hypot", "pow", "fmod", "floor", "ceil", "trunc", "copysign", "fabs",
    "asinh", "acosh", "atanh", "cbrt", "rint",
}  # fmt: skip

#: x86-64 relocation types that hold an absolute address (R_X86_64_64, _32, _32S, _16,
#: _8) — none may appear in a position-independent gradc object.
ABSOLUTE = {1, 10, 11, 12, 14}


def _build() -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(BUILD_SCRIPT, "build_script", "exec"), namespace)
    return namespace["build"]()


@pytest.fixture(scope="module")
def emitted() -> Any:
    opts = CompilerOptions()
    return emit_object(lower_export(_build(), "top", SYMBOL, opts), opts)


def test_relocatable_x86_64_elf(emitted: Any) -> None:
    elf = ELFFile(io.BytesIO(emitted.object_code))
    assert elf.header.e_type == "ET_REL"
    assert elf.header.e_machine == "EM_X86_64"


def test_symbols_export_only_the_entry(emitted: Any) -> None:
    elf = ELFFile(io.BytesIO(emitted.object_code))
    symtab = elf.get_section_by_name(".symtab")
    defined_globals, undefined = set(), set()
    for sym in symtab.iter_symbols():
        if sym.entry.st_info.bind == "STB_LOCAL":
            continue
        if sym.entry.st_shndx == "SHN_UNDEF":
            undefined.add(sym.name)
        else:
            defined_globals.add(sym.name)
    assert defined_globals == {SYMBOL}
    assert undefined <= LIBM, undefined - LIBM
    assert {"tgamma", "lgamma", "erf", "pow"} <= undefined


def test_relocations_name_symbols_never_absolute(emitted: Any) -> None:
    elf = ELFFile(io.BytesIO(emitted.object_code))
    symtab = elf.get_section_by_name(".symtab")
    relocations = 0
    for section in elf.iter_sections():
        if not isinstance(section, RelocationSection):
            continue
        for rel in section.iter_relocations():
            relocations += 1
            assert rel["r_info_type"] not in ABSOLUTE, (section.name, rel)
            assert rel["r_info_sym"] != 0, (section.name, rel)
            sym = symtab.get_symbol(rel["r_info_sym"])
            assert sym.name or sym.entry.st_info.type == "STT_SECTION", (section.name, rel)
    assert relocations > 0


def test_no_writable_data(emitted: Any) -> None:
    elf = ELFFile(io.BytesIO(emitted.object_code))
    for section in elf.iter_sections():
        if section["sh_flags"] & 0x1:  # SHF_WRITE
            assert section["sh_size"] == 0, section.name


def test_texts(emitted: Any) -> None:
    assert SYMBOL in emitted.llvm_text
    assert emitted.asm_text == ""  # generated on demand from llvm_text (gradc inspect --asm)
    t = target_info(CompilerOptions())
    asm = assembly_from_llvm(emitted.llvm_text, t["triple"], t["cpu"], t["features"], 2)
    assert f"\n{SYMBOL}:" in asm
    assert 'c"math domain error\\00"' in emitted.llvm_text
    assert "target triple" in emitted.llvm_text


def test_byte_identical_across_processes(emitted: Any) -> None:
    hashes = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", PRINT_HASH], env=env, capture_output=True, text=True, check=True
        ).stdout
        hashes.append(out)
    assert hashes[0] == hashes[1]
    here = dict(line.split() for line in hashes[0].splitlines())
    assert here["2"] == hashlib.sha256(emitted.object_code).hexdigest()


def _call_top(address: int, x: float, n: int, p: bool) -> tuple[int, Any]:
    class Result(ctypes.Structure):
        _fields_ = [("r", ctypes.c_double), ("k", ctypes.c_int64), ("f", ctypes.c_float)]

    class Error(ctypes.Structure):
        _fields_ = [
            ("kind", ctypes.c_int32),
            ("site", ctypes.c_int32),
            ("message", ctypes.c_char_p),
            ("data", ctypes.c_int64 * 4),
        ]

    proto = ctypes.CFUNCTYPE(
        ctypes.c_int32,
        ctypes.c_double,
        ctypes.c_int64,
        ctypes.c_uint8,
        ctypes.POINTER(Result),
        ctypes.POINTER(Error),
    )
    out, err = Result(), Error()
    status = proto(address)(x, n, p, ctypes.byref(out), ctypes.byref(err))
    if status:
        return status, (err.site, err.message.decode())
    return 0, (out.r, out.k, out.f)


def test_links_with_both_jit_linkers(emitted: Any) -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    outcomes = []
    keep = []
    sites = [inst.loc for inst in raise_sites(_build(), "top")]  # site k -> location
    for use_jit_link in (False, True):
        jit = llvm.create_lljit_compiler(use_jit_link=use_jit_link)
        tracker = (
            llvm.JITLibraryBuilder()
            .add_object_img(emitted.object_code)
            .export_symbol(SYMBOL)
            .link(jit, f"object_test_{use_jit_link}")
        )
        keep.append((jit, tracker))
        # sin(0.0) is fine; log(0.0) raises "math domain error" at its own line
        status, detail = _call_top(tracker[SYMBOL], 0.0, 3, False)
        assert status == 1 and detail[1] == "math domain error"
        assert sites[detail[0] - 1].line == 11 + list(ops.MATH_FUNCTIONS).index("log")
        grid = [(x, n, p) for x in (0.25, 0.5, 0.9) for n in (-5, 3, 40) for p in (False, True)]
        outcomes.append([_call_top(tracker[SYMBOL], *args) for args in grid])
    assert outcomes[0] == outcomes[1]
    assert {status for status, _ in outcomes[0]} == {0, 8}  # results and RuntimeError


def test_target_info_and_versions() -> None:
    info = target_info(CompilerOptions(cpu="x86-64"))
    assert info == {"triple": llvm.get_process_triple(), "cpu": "x86-64", "features": ""}
    native = target_info(CompilerOptions(cpu="native"))
    assert native["cpu"] == llvm.get_host_cpu_name()
    assert native["features"] and all(f[0] in "+-" for f in native["features"].split(","))
    names = [f[1:] for f in native["features"].split(",")]
    assert names == sorted(names)  # canonical: sorted by feature name
    assert llvm_version() == ".".join(map(str, llvm.llvm_version_info))


def test_native_cpu_builds_and_runs(codegen: Any) -> None:
    from gradc.compiler.ir.core import Module
    from gradc.compiler.ir.types import F64

    m = Module("native")
    b = codegen.function(m, "f", [("x", F64)], F64)
    x = b.function.params[0]
    b.ret(b.math("sqrt", b.mul(x, x)))
    fns = codegen.build(m, ["f"], CompilerOptions(cpu="native", opt_level=3))
    assert fns["f"](-3.0) == 3.0
