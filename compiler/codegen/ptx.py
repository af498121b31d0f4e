"""Emission for CUDA: libdevice linked, symbols checked, PTX emitted, cubins assembled.

::

    toolchain = find_toolchain(cuda_home)            # ptxas, libdevice (cli/ reads CUDA_HOME)
    ptx = emit_ptx(lower_kernel(...), "sm_80", toolchain, options)   # -> Ptx(text, isa)
    cubin = assemble(ptx.text, "sm_90", toolchain)   # ptxas; a failure is a CudaBuildError

Facts this relies on (DESIGN.md §8, LLVM 22 / CUDA 13): LLVM's ``llvm.sin``, ``llvm.pow``,
``llvm.exp`` ... abort or exit the process on NVPTX and a leftover libm call fails only in
ptxas, so math is lowered to libdevice's ``__nv_*`` (``lower_gpu.libdevice``), its bitcode
linked in and internalised before optimisation (the NVPTX pipeline resolves its
``__nvvm_reflect`` queries), and :func:`check_symbols` refuses any other external symbol
*before* emission, naming it. A reused NVPTX target machine changes the PTX text (a
running ``// callseq N``), so every emission creates its own. PTX is emitted for the
lowest requested arch at LLVM's default (minimum) ISA for it, and ``ptxas`` assembles it
for every arch.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir as ll

from gradc.artifacts.abi.cuda import DEVICE_ERROR_SYMBOL
from gradc.compiler.codegen.cuda import NVPTX_TRIPLE
from gradc.compiler.codegen.emit import set_register_allocator
from gradc.compiler.diagnostics import CudaBuildError
from gradc.compiler.options import CompilerOptions

__all__ = [
    "CudaBuildError",
    "CudaToolchain",
    "Ptx",
    "assemble",
    "check_symbols",
    "emit_ptx",
    "find_toolchain",
    "parse_arch",
    "ptx_isa",
]

#: ``ptxas`` flags of every cubin (they enter each cubin's cache key).
PTXAS_FLAGS = ("-O3",)

#: LLVM intrinsic families NVPTX lowers to instructions (the pre-emission allow-list).
_LLVM_ALLOWED = frozenset(
    {"fabs", "sqrt", "floor", "ceil", "trunc", "rint", "nearbyint", "round", "roundeven"}
    | {"copysign", "minnum", "maxnum", "minimum", "maximum", "fma", "fmuladd", "abs"}
    | {"smin", "smax", "umin", "umax", "ctlz", "cttz", "ctpop", "fshl", "fshr", "bswap"}
    | {"memcpy", "memset", "memmove", "lifetime", "assume", "expect", "bitreverse"}
    | {"sadd", "ssub", "uadd", "usub", "smul", "umul", "is", "experimental"}
)


@dataclass(frozen=True)
class CudaToolchain:
    """Where the CUDA tools are, and what identifies them in cache keys.

    Attributes:
        ptxas: path of ``ptxas``.
        libdevice: path of ``libdevice.10.bc``.
        ptxas_version: ``ptxas --version``'s release and build lines, joined by ``"; "``.
        libdevice_sha256: hex sha256 of the libdevice bitcode.
    """

    ptxas: str
    libdevice: str
    ptxas_version: str
    libdevice_sha256: str


def find_toolchain(cuda_home: str | None = None) -> CudaToolchain:
    """The toolchain under ``cuda_home`` (``CUDA_HOME``, read by ``cli/``), else ``ptxas``
    on PATH and its ``../nvvm/libdevice``, else ``/usr/local/cuda``.

    Raises:
        CudaBuildError: no ``ptxas`` or no libdevice found (the message says where it
            looked).
    """
    homes = [Path(cuda_home)] if cuda_home else []
    found = shutil.which("ptxas")
    if found:
        homes.append(Path(os.path.realpath(found)).parent.parent)
    homes.append(Path("/usr/local/cuda"))
    for home in homes:
        ptxas = home / "bin" / "ptxas"
        libdevice = home / "nvvm" / "libdevice" / "libdevice.10.bc"
        if libdevice.is_file() and (ptxas.is_file() or (found and not cuda_home)):
            tool = str(ptxas) if ptxas.is_file() else str(found)
            return _toolchain(tool, str(libdevice))
    raise CudaBuildError(
        "no CUDA toolchain: need ptxas and nvvm/libdevice/libdevice.10.bc under "
        + ", ".join(str(h) for h in homes)
        + " (set CUDA_HOME)"
    )


def _toolchain(ptxas: str, libdevice: str) -> CudaToolchain:
    done = subprocess.run([ptxas, "--version"], capture_output=True, text=True, check=False)
    lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
    wanted = [ln for ln in lines if ln.startswith(("Cuda compilation tools", "Build "))]
    if done.returncode != 0 or not wanted:
        raise CudaBuildError(f"{ptxas} --version failed: {done.stderr.strip() or done.stdout}")
    digest = hashlib.sha256(Path(libdevice).read_bytes()).hexdigest()
    return CudaToolchain(ptxas, libdevice, "; ".join(wanted), digest)


def parse_arch(arch: str) -> tuple[int, int]:
    """``"sm_90"`` -> ``(9, 0)``; ``"sm_121"`` -> ``(12, 1)``.

    Raises:
        ValueError: not of the form ``sm_<major><minor>``.
    """
    m = re.fullmatch(r"sm_(\d+)(\d)", arch)
    if m is None:
        raise ValueError(f"not a CUDA arch: {arch!r} (expected sm_80, sm_90, ...)")
    return int(m.group(1)), int(m.group(2))


@dataclass(frozen=True)
class Ptx:
    """PTX of one kernel: ``text``, its ``isa`` (``".version"``, e.g. ``"7.0"``), its
    ``arch`` (``".target"``) and the optimised LLVM IR it came from (``llvm_text``)."""

    text: str
    isa: str
    arch: str
    llvm_text: str


def emit_ptx(
    module: ll.Module, entry: str, arch: str, toolchain: CudaToolchain, options: CompilerOptions
) -> Ptx:
    """Link libdevice into ``module``, optimise, check, and emit PTX for ``arch``.

    Raises:
        CudaBuildError: an external symbol other than NVPTX intrinsics remains
            (:func:`check_symbols`), naming it and ``entry``.
    """
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    tm = llvm.Target.from_triple(NVPTX_TRIPLE).create_target_machine(
        cpu=arch, opt=options.opt_level
    )
    mod = llvm.parse_assembly(str(module))
    mod.triple = NVPTX_TRIPLE
    mod.data_layout = str(tm.target_data)
    mod.verify()
    if any(f.name.startswith("__nv_") for f in mod.functions if f.is_declaration):
        lib = llvm.parse_bitcode(Path(toolchain.libdevice).read_bytes())
        lib.triple, lib.data_layout = mod.triple, mod.data_layout
        mod.link_in(lib)
    for f in mod.functions:
        if not f.is_declaration and f.name != entry:
            f.linkage = "internal"
    for g in mod.global_variables:
        if not g.is_declaration and g.name != DEVICE_ERROR_SYMBOL:
            g.linkage = "internal"
    pto = llvm.create_pipeline_tuning_options(speed_level=options.opt_level)
    pb = llvm.create_pass_builder(tm, pto)
    dce = llvm.create_new_module_pass_manager()
    dce.add_global_dead_code_eliminate_pass()  # libdevice less what is called: ~10x less work
    dce.run(mod, pb)
    pb.getModulePassManager().run(mod, pb)
    check_symbols(mod, entry)
    set_register_allocator(options.opt_level)  # process-wide: a CPU module's may be left
    text = str(tm.emit_assembly(mod))
    isa = re.search(r"^\.version (\S+)", text, re.M)
    if isa is None:
        raise CudaBuildError(f"kernel {entry}: the PTX has no .version line")
    return Ptx(text, isa.group(1), arch, str(mod))


@functools.cache
def ptx_isa(arch: str) -> str:
    """The PTX ISA LLVM emits for ``arch`` by default (its minimum for the arch:
    ``"7.0"`` for sm_80), read from the ``.version`` of an empty module; known before a
    kernel is emitted, so it can enter the kernel's cache keys."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    tm = llvm.Target.from_triple(NVPTX_TRIPLE).create_target_machine(cpu=arch)
    mod = llvm.parse_assembly("")
    mod.triple = NVPTX_TRIPLE
    mod.data_layout = str(tm.target_data)
    found = re.search(r"^\.version (\S+)", str(tm.emit_assembly(mod)), re.M)
    if found is None:
        raise CudaBuildError(f"LLVM emits no PTX .version for {arch}")
    return found.group(1)


def check_symbols(mod: llvm.ModuleRef, entry: str) -> None:
    """Refuse every external function but NVPTX's intrinsics (``llvm.nvvm.*`` and the
    families of :data:`_LLVM_ALLOWED`).

    Raises:
        CudaBuildError: naming the first symbol (sorted) and ``entry``.
    """
    bad = sorted(
        f.name
        for f in mod.functions
        if f.is_declaration
        and not f.name.startswith("llvm.nvvm.")
        and not (f.name.startswith("llvm.") and f.name.split(".")[1] in _LLVM_ALLOWED)
    )
    if bad:
        raise CudaBuildError(
            f"kernel {entry} calls {', '.join(repr(b) for b in bad)}, which the GPU does not "
            "have (no libdevice function or NVPTX instruction implements it)"
        )


def assemble(ptx: str, arch: str, toolchain: CudaToolchain, entry: str) -> bytes:
    """``ptxas`` ``ptx`` into a cubin for ``arch`` (flags :data:`PTXAS_FLAGS`).

    Raises:
        CudaBuildError: ptxas failed; its message, the arch and ``entry``.
    """
    with tempfile.TemporaryDirectory(prefix="gradc-ptxas-") as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        Path(src).write_text(ptx)
        done = subprocess.run(
            [toolchain.ptxas, f"-arch={arch}", *PTXAS_FLAGS, src, "-o", out],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            message = (done.stderr or done.stdout).strip().replace(src, "<ptx>")
            raise CudaBuildError(f"ptxas failed for kernel {entry} ({arch}): {message}")
        return Path(out).read_bytes()
