"""The ``cuda`` stage of a build (``gradc build --target cuda --cuda-arch sm_80,sm_90``).

For every kernel export, after the CPU stages: its per-thread function lowered for NVPTX
(``compiler/codegen/cuda.py``), PTX emitted once for the lowest arch at that arch's
minimum ISA, and ``ptxas`` run on that PTX for every arch (``compiler/codegen/ptx.py``).
Each variant (the PTX, each cubin) gets its own cache key (``keys.cuda_components``).
Every variant is built on every build (no reuse from a previous artifact yet).
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

    Raises:
        CudaBuildError: no toolchain, a symbol the GPU lacks, ptxas failed.
        CompileError: an operation the GPU cannot run, at its line.
    """
    from gradc.compiler.codegen.emit import llvm_version
    from gradc.compiler.codegen.ptx import find_toolchain
    from gradc.compiler.infer.kernels import thread_function

    toolchain = find_toolchain(state.options.cuda_home or None)
    archs = sorted_archs(state.options.cuda_archs)
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
            "libdevice": toolchain.libdevice_sha256,
            "ftz": False,
        }
        symbol_key = sha256_key(
            keys.cuda_components(ir_hash, state.options, versions, signature, base)
        )
        symbol = entry_symbol(export.name, symbol_key)
        variants = _variants(state, export.name, symbol, archs, toolchain)
        finished = []
        for v in variants:
            facts = {**base, "kind": v.kind, "arch": v.arch, "isa": v.isa}
            if v.kind == "cubin":
                from gradc.compiler.codegen.ptx import PTXAS_FLAGS

                facts |= {"ptxas": toolchain.ptxas_version, "ptxas_flags": " ".join(PTXAS_FLAGS)}
            components = keys.cuda_components(ir_hash, state.options, versions, signature, facts)
            finished.append(
                CudaVariant(v.kind, v.arch, v.isa, v.code, sha256_key(components), components)
            )
        kernels.append(
            CudaKernel(export.name, signature, symbol, _sites(state, thread), tuple(finished))
        )
    state.cuda = tuple(kernels)


def _variants(
    state: BuildState,
    name: str,
    symbol: str,
    archs: tuple[str, ...],
    toolchain: CudaToolchain,
) -> list[CudaVariant]:
    """The PTX for ``archs[0]`` and a cubin per arch (keys not filled in yet)."""
    from gradc.compiler.codegen.cuda import lower_kernel
    from gradc.compiler.codegen.ptx import assemble, emit_ptx

    llmod = lower_kernel(state.module, name, symbol, state.options)
    ptx = emit_ptx(llmod, symbol, archs[0], toolchain, state.options)
    out = [CudaVariant("ptx", ptx.arch, ptx.isa, ptx.text.encode(), "", {})]
    for arch in archs:
        cubin = assemble(ptx.text, arch, toolchain, name)
        out.append(CudaVariant("cubin", arch, ptx.isa, cubin, "", {}))
    return out


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
