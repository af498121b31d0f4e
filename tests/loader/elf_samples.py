"""Relocatable ELF samples for the loader's linker tests: one small LLVM IR module
compiled by llvmlite for x86-64 or AArch64 at each code model and relocation model.

``f(x, i)`` reads a constant table, calls ``sin`` (libm), bumps the global ``counter``,
reads the external ``ext_data`` and calls an internal function through a pointer held in
data, so the objects carry calls, PC-relative and GOT-relative references and absolute
pointers (which relocation types exactly depends on the models).
"""

from __future__ import annotations

import functools
import math

import llvmlite.binding as llvm

IR = r"""
@table = internal constant [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0]
@counter = global i64 0
@ext_data = external global i64
@fp = global ptr @helper
declare double @sin(double)
define internal double @helper(double %x) noinline {
  %y = fmul double %x, 3.0
  ret double %y
}
define double @f(double %x, i64 %i) {
  %p = getelementptr [4 x double], ptr @table, i64 0, i64 %i
  %t = load double, ptr %p
  %s = call double @sin(double %x)
  %c = load i64, ptr @counter
  %c1 = add i64 %c, 1
  store i64 %c1, ptr @counter
  %e = load i64, ptr @ext_data
  %ef = sitofp i64 %e to double
  %h = load ptr, ptr @fp
  %hv = call double %h(double %t)
  %r1 = fadd double %s, %hv
  %r2 = fadd double %r1, %ef
  ret double %r2
}
"""

X86_64 = "x86_64-unknown-linux-gnu"
AARCH64 = "aarch64-unknown-linux-gnu"


def expected(x: float, i: int, ext: int) -> float:
    """What ``f(x, i)`` returns with ``ext_data == ext``."""
    return math.sin(x) + 3.0 * (i + 1.0) + ext


@functools.cache
def sample(triple: str, reloc: str, codemodel: str) -> bytes:
    """The sample compiled for ``triple`` (``reloc``: "pic"/"static"; ``codemodel``:
    "small"/"medium"/"large")."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(IR)
    module.triple = triple
    target = llvm.Target.from_triple(triple)
    tm = target.create_target_machine(reloc=reloc, codemodel=codemodel)
    return bytes(tm.emit_object(module))


def retype(obj: bytes, old: int, new: int) -> bytes:
    """``obj`` with every relocation of type ``old`` made type ``new`` (hand-made samples
    of types LLVM does not emit for this IR)."""
    from gradc.artifacts.loader.elfobj import SHT_RELA, RelocatableObject

    parsed = RelocatableObject(obj)
    out = bytearray(obj)
    for s in parsed.sections:
        if s.type == SHT_RELA:
            for at in range(s.offset, s.offset + s.size, 24):
                if int.from_bytes(out[at + 8 : at + 12], "little") == old:
                    out[at + 8 : at + 12] = new.to_bytes(4, "little")
    return bytes(out)
