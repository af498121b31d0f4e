"""The ``cuda`` stage of a build (``gradc build --target cuda --cuda-arch sm_80,sm_90``).

For every kernel export, after the CPU stages: its per-thread function lowered for NVPTX
(``compiler/codegen/cuda.py``), PTX emitted once for the lowest arch at that arch's
minimum ISA, and ``ptxas`` run on that PTX for every arch (``compiler/codegen/ptx.py``).
Each variant (the PTX, each cubin) gets its own cache key (``keys.cuda_components``),
known before anything is compiled (the PTX ISA is LLVM's default for the arch,
``ptx.ptx_isa``): a kernel whose variants a previous artifact holds intact is reused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from gradc.artifacts.abi import entry_symbol
from gradc.artifacts.keys import sha256_key
from gradc.compiler import keys
from gradc.compiler.results import CudaKernel, CudaVariant, Param, Signature
from gradc.compiler.sources import module_relative
from gradc.compiler.state import BuildState

if TYPE_CHECKING:
    from gradc.compiler.codegen.ptx import CudaToolchain

__all__ = ["build_cuda", "needs_cuda", "sorted_archs"]


def needs_cuda(state: BuildState) -> bool:
    """CUDA archs were asked for."""
    return bool(state.options.cuda_archs)


def sorted_archs(archs: tuple[str, ...]) -> tuple[str, ...]:
    """``archs`` without repeats, by (major, minor): the first is the PTX's.

    Raises:
        ValueError: a name that is not ``sm_<major><minor>``.
    """
    from gradc.compiler.codegen.ptx import parse_arch

    return tuple(sorted(dict.fromkeys(archs), key=parse_arch))


def build_cuda(state: BuildState) -> None:
    """The ``cuda`` stage: ``state.cuda``, one :class:`CudaKernel` per kernel export.

    A kernel whose variants' keys the cache (``state.cache``: a previous artifact) holds
    all of is not compiled again.

    Raises:
        CudaBuildError: no toolchain, a symbol the GPU lacks, ptxas failed.
        CompileError: an operation the GPU cannot run, at its line.
    """
    from gradc.compiler.codegen.emit import llvm_version
    from gradc.compiler.codegen.ptx import PTXAS_FLAGS, find_toolchain, ptx_isa
    from gradc.compiler.infer.kernels import thread_function

    toolchain = find_toolchain(state.options.cuda_home or None)
    archs = sorted_archs(state.options.cuda_archs)
    isa = ptx_isa(archs[0])
    versions = keys.versions(llvm_version())
    kernels = []
    for export in (e for e in state.info.exports if e.kernel):
        thread = thread_function(export.name)
        state.focus = state.module.functions[thread]
        state.step = f"kernel {export.name!r} for CUDA"
        signature = _signature(state, export.name)
        ir_hash = state.hashes[thread]
        base: dict[str, str | bool] = {
            "ptx_arch": archs[0],
            "isa": isa,
            "libdevice": toolchain.libdevice_sha256,
            "ftz": False,
        }
        symbol_key = sha256_key(
            keys.cuda_components(ir_hash, state.options, versions, signature, base)
        )
        symbol = entry_symbol(export.name, symbol_key)
        cubin = {"ptxas": toolchain.ptxas_version, "ptxas_flags": " ".join(PTXAS_FLAGS)}
        planned = [("ptx", archs[0], base | {"kind": "ptx", "arch": archs[0]})] + [
            ("cubin", arch, base | cubin | {"kind": "cubin", "arch": arch}) for arch in archs
        ]
        components = [
            keys.cuda_components(ir_hash, state.options, versions, signature, facts)
            for _, _, facts in planned
        ]
        found = [state.cache.get(sha256_key(c)) for c in components]
        if all(f is not None for f in found):
            codes = [f.object_code for f in found if f is not None]
        else:
            codes = _compile(state, export.name, symbol, archs, isa, toolchain)
        variants = tuple(
            CudaVariant(kind, arch, isa, code, sha256_key(c), c)
            for (kind, arch, _), c, code in zip(planned, components, codes, strict=True)
        )
        kernels.append(CudaKernel(export.name, signature, symbol, _sites(state, thread), variants))
    state.cuda = tuple(kernels)


def _compile(
    state: BuildState,
    name: str,
    symbol: str,
    archs: tuple[str, ...],
    isa: str,
    toolchain: CudaToolchain,
) -> list[bytes]:
    """The PTX for ``archs[0]`` (UTF-8) and a cubin per arch.

    Raises:
        CudaBuildError: a cubin's parameter layout (``.nv.info``) is not the kernel ABI's.
        InternalCompilerError: LLVM emitted another ISA than :func:`ptx_isa` said (the
            keys would lie).
    """
    from gradc.artifacts.abi.cubin import check_param_layout
    from gradc.artifacts.errors import ArtifactError
    from gradc.compiler.codegen.cuda import lower_kernel
    from gradc.compiler.codegen.ptx import assemble, emit_ptx
    from gradc.compiler.diagnostics import CudaBuildError, InternalCompilerError

    llmod = lower_kernel(state.module, name, symbol, state.options)
    ptx = emit_ptx(llmod, symbol, archs[0], toolchain, state.options)
    if ptx.isa != isa:
        raise InternalCompilerError(f"PTX ISA {ptx.isa} emitted for {archs[0]}, {isa} expected")
    cubins = [assemble(ptx.text, arch, toolchain, name) for arch in archs]
    params = [(p.name, p.type) for p in _signature(state, name).params]
    for arch, cubin in zip(archs, cubins, strict=True):
        try:
            check_param_layout(cubin, symbol, params)
        except ArtifactError as exc:
            raise CudaBuildError(f"{arch} cubin of kernel {name}: {exc}") from None
    return [ptx.text.encode(), *cubins]


def _signature(state: BuildState, name: str) -> Signature:
    """The kernel's own parameters (those of its CPU export less the grid's)."""
    from gradc.compiler.frontend.kernels import GRID_PARAMS

    cpu = next(p for p in state.exports if p.name == name).signature
    own: tuple[Param, ...] = cpu.params[len(GRID_PARAMS) :]
    return Signature(own, cpu.result)


def _sites(state: BuildState, thread: str) -> tuple[tuple[str, int, int], ...]:
    from gradc.compiler.codegen.sites import site_table

    base_dir = Path(os.path.abspath(state.source_path)).parent
    table = site_table(state.module, thread, lambda f: module_relative(f, base_dir))
    return tuple((loc.file, loc.line, loc.col) for loc in table)
