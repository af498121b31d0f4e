"""Objects with arrays, and the runtime object: symbols, relocations, linking recipe.

An artifact object that uses every array operation only *declares* the ``gradc_rt1_*``
runtime functions (plus libc's ``memset``/``memcpy``, which LLVM may call for fills and
copies); the runtime object defines exactly the runtime symbols (arrays and tape) and
needs only libc's allocator (``posix_memalign``, ``malloc``/``calloc``, ``realloc``,
``free``). The loader's recipe — runtime linked once into its own JIT library, each
artifact library linked with ``add_jit_library(<runtime library>)`` — works with both of
LLVM's JIT linkers, and an artifact linked without it fails to link.
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
import numpy as np
import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from gradc.compiler.codegen.emit import emit_object
from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.codegen.relocatable import check_object
from gradc.compiler.codegen.runtime import RUNTIME_SYMBOLS, emit_runtime_object
from gradc.compiler.options import CompilerOptions

from .conftest import GradcError, descriptor, descriptor_class, to_numpy
from .test_object import ABSOLUTE, LIBM

#: Builds an export using every array operation (run here and in fresh interpreters).
BUILD_SCRIPT = r"""
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, I1, I64, NONE, ArrayType, PointerType, TupleType


def build():
    m = Module("arrays", source_file="arrays.py")
    a2 = ArrayType(F64, 2, "A")
    c2 = ArrayType(F64, 2, "C")
    b1 = ArrayType(I1, 1, "C")
    f = Function("top", [Argument(type=a2, name="a", index=0), Argument(type=I64, name="i",
                 index=1)], TupleType((c2, b1, F64)), loc=Loc("arrays.py", 1, 0))
    m.add(f)
    b = Builder(f)
    b.position_at_end(f.add_block("entry"))
    b.loc = Loc("arrays.py", 2, 4)
    a, i = f.params
    n0 = b.insert(ops.ArrayDim(a, 0, type=I64))
    p = b.insert(ops.ElementAddr(a, (i, b.const(-1, I64)), type=PointerType(F64)))
    x = b.insert(ops.Load(p, type=F64))
    c = b.insert(ops.CopyArray(a, type=c2))
    q = b.insert(ops.ElementAddr(c, (b.const(0, I64), b.const(0, I64)), type=PointerType(F64)))
    b.insert(ops.Store(q, x, type=NONE))
    z = b.insert(ops.NewArray((n0,), b.const(False, I1), type=b1))
    e = b.insert(ops.NewArray((n0, n0), None, type=c2))
    b.insert(ops.IncRef(e, type=NONE))
    b.insert(ops.DecRef(e, type=NONE))
    b.insert(ops.DecRef(e, type=NONE))
    b.ret(b.make_tuple([c, z, x]))
    return m
"""

PRINT_HASH = (
    BUILD_SCRIPT
    + r"""
import hashlib
from gradc.compiler.codegen.emit import emit_object
from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.codegen.relocatable import check_object
from gradc.compiler.codegen.runtime import emit_runtime_object
from gradc.compiler.options import CompilerOptions

opts = CompilerOptions()
obj = emit_object(lower_export(build(), "top", "gradc_top_0123456789abcdef", opts), opts)
print(hashlib.sha256(obj.object_code).hexdigest())
print(hashlib.sha256(emit_runtime_object(opts).object_code).hexdigest())
"""
)

SYMBOL = "gradc_top_0123456789abcdef"
RUNTIME_CALLS = {"gradc_rt1_alloc", "gradc_rt1_incref", "gradc_rt1_decref"}
LIBC = {"memset", "memcpy"}


def _build() -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(BUILD_SCRIPT, "build_script", "exec"), namespace)
    return namespace["build"]()


@pytest.fixture(scope="module")
def emitted() -> Any:
    opts = CompilerOptions()
    return emit_object(lower_export(_build(), "top", SYMBOL, opts), opts)


@pytest.fixture(scope="module")
def runtime_object() -> Any:
    return emit_runtime_object(CompilerOptions())


def _symbols(object_code: bytes) -> tuple[set[str], set[str]]:
    elf = ELFFile(io.BytesIO(object_code))
    defined, undefined = set(), set()
    for sym in elf.get_section_by_name(".symtab").iter_symbols():
        if sym.entry.st_info.bind == "STB_LOCAL":
            continue
        (undefined if sym.entry.st_shndx == "SHN_UNDEF" else defined).add(sym.name)
    return defined, undefined


def _check_relocations(object_code: bytes) -> None:
    elf = ELFFile(io.BytesIO(object_code))
    symtab = elf.get_section_by_name(".symtab")
    for section in elf.iter_sections():
        if isinstance(section, RelocationSection):
            for rel in section.iter_relocations():
                assert rel["r_info_type"] not in ABSOLUTE, (section.name, rel)
                sym = symtab.get_symbol(rel["r_info_sym"])
                assert sym.name or sym.entry.st_info.type == "STT_SECTION", (section.name, rel)


def test_array_object_declares_the_runtime(emitted: Any) -> None:
    defined, undefined = _symbols(emitted.object_code)
    assert defined == {SYMBOL}
    assert undefined >= RUNTIME_CALLS
    assert undefined <= RUNTIME_CALLS | LIBC | LIBM, undefined
    assert "gradc_rt1_live" not in undefined
    _check_relocations(emitted.object_code)
    check_object(emitted.object_code, "top", emitted.llvm_text)
    elf = ELFFile(io.BytesIO(emitted.object_code))
    for section in elf.iter_sections():
        if section["sh_flags"] & 0x1:  # SHF_WRITE: no writable data in artifacts
            assert section["sh_size"] == 0, section.name


def test_runtime_object_symbols(runtime_object: Any) -> None:
    defined, undefined = _symbols(runtime_object.object_code)
    assert defined == set(RUNTIME_SYMBOLS)
    assert {"posix_memalign", "madvise", "realloc", "free"} <= undefined
    # LLVM turns malloc + zeroing into calloc
    libc = {"posix_memalign", "madvise", "malloc", "calloc", "realloc", "free"}
    assert undefined <= libc, undefined
    _check_relocations(runtime_object.object_code)
    check_object(runtime_object.object_code, "runtime", runtime_object.llvm_text)
    assert "atomicrmw" in runtime_object.llvm_text


def test_byte_identical_across_processes(emitted: Any, runtime_object: Any) -> None:
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outputs.append(
            subprocess.run(
                [sys.executable, "-c", PRINT_HASH],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
        )
    assert outputs[0] == outputs[1]
    assert outputs[0] == [
        hashlib.sha256(emitted.object_code).hexdigest(),
        hashlib.sha256(runtime_object.object_code).hexdigest(),
    ]


class _Result(ctypes.Structure):
    _fields_ = [("c", descriptor_class(2)), ("z", descriptor_class(1)), ("x", ctypes.c_double)]


@pytest.mark.parametrize("use_jit_link", [False, True], ids=["rtdyld", "jitlink"])
def test_loader_recipe_links_with_both_jit_linkers(
    emitted: Any, runtime_object: Any, use_jit_link: bool
) -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    jit = llvm.create_lljit_compiler(use_jit_link=use_jit_link)
    # 1. the runtime, once per process, in its own library
    rt = (
        llvm.JITLibraryBuilder()
        .add_object_img(runtime_object.object_code)
        .export_symbol("gradc_rt1_live")
        .export_symbol("gradc_rt1_decref")
        .link(jit, "gradc_rt1")
    )
    live = ctypes.c_int64.from_address(rt["gradc_rt1_live"])
    decref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(rt["gradc_rt1_decref"])
    # 2. each artifact in a library that links against the runtime library
    libs = [
        llvm.JITLibraryBuilder()
        .add_object_img(emitted.object_code)
        .add_jit_library("gradc_rt1")
        .export_symbol(SYMBOL)
        .link(jit, f"artifact_{k}")
        for k in range(2)
    ]
    # without the runtime library the undefined gradc_rt1_* symbols do not resolve
    with pytest.raises(RuntimeError, match="Failed to materialize"):
        llvm.JITLibraryBuilder().add_object_img(emitted.object_code).export_symbol(SYMBOL).link(
            jit, "artifact_alone"
        )
    proto = ctypes.CFUNCTYPE(
        ctypes.c_int32,
        ctypes.POINTER(descriptor_class(2)),
        ctypes.c_int64,
        ctypes.POINTER(_Result),
        ctypes.POINTER(GradcError),
    )
    a = np.arange(12.0).reshape(3, 4)[::-1, ::2]
    for lib in libs:
        top = proto(lib[SYMBOL])
        out, err = _Result(), GradcError()
        assert top(ctypes.byref(descriptor(a)), 1, ctypes.byref(out), ctypes.byref(err)) == 0
        assert live.value == 2 and out.x == a[1, -1]
        expected = a.copy()
        expected[0, 0] = a[1, -1]
        np.testing.assert_array_equal(to_numpy(out.c, np.float64), expected)
        np.testing.assert_array_equal(to_numpy(out.z, np.bool_), np.zeros(3, bool))
        decref(out.c.meminfo)
        decref(out.z.meminfo)
        assert live.value == 0
        status = top(ctypes.byref(descriptor(a)), 7, ctypes.byref(out), ctypes.byref(err))
        assert status == 5 and list(err.data) == [7, 0, 3, 1]
        message = err.message.decode().format(*err.data[:3])
        assert message == "index 7 is out of bounds for axis 0 with size 3"
        assert live.value == 0  # the error comes before any allocation
