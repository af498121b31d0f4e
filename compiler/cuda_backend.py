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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gradc.artifacts.abi import entry_symbol
from gradc.artifacts.keys import sha256_key
from gradc.compiler import keys
from gradc.compiler.ir.core import Module
from gradc.compiler.options import CompilerOptions
from gradc.compiler.results import CudaKernel, CudaVariant, Param, Signature
from gradc.compiler.sources import module_relative
from gradc.compiler.state import BuildState

if TYPE_CHECKING:
    from gradc.compiler.codegen.ptx import CudaToolchain

__all__ = [
    "KernelPlan",
    "build_cuda",
    "compile_kernel",
    "needs_cuda",
    "plan_kernels",
    "sorted_archs",
]


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


@dataclass(frozen=True)
class KernelPlan:
    """One kernel's CUDA variants, keyed before anything is compiled.

    Attributes:
        name: the kernel export's name.
        thread: its per-thread IR function (what is lowered for NVPTX).
        signature: the kernel's own parameters (:func:`_signature`).
        symbol: the entry symbol of its PTX and cubins.
        sites: the raise-site table of ``thread``.
        archs: the archs, lowest first (the PTX's); ``isa``: the PTX ISA.
        planned: (kind, arch) of each variant: the PTX, then a cubin per arch.
        components: the key components of each variant, in ``planned`` order.
    """

    name: str
    thread: str
    signature: Signature
    symbol: str
    sites: tuple[tuple[str, int, int], ...]
    archs: tuple[str, ...]
    isa: str
    planned: tuple[tuple[str, str], ...]
    components: tuple[dict[str, str | int | bool], ...]

    def kernel(self, codes: list[bytes]) -> CudaKernel:
        """The :class:`CudaKernel` of these variants with ``codes`` (PTX, cubins)."""
        variants = tuple(
            CudaVariant(kind, arch, self.isa, code, sha256_key(c), c)
            for (kind, arch), c, code in zip(self.planned, self.components, codes, strict=True)
        )
        return CudaKernel(self.name, self.signature, self.symbol, self.sites, variants)


def plan_kernels(state: BuildState) -> tuple[list[KernelPlan], CudaToolchain]:
    """The :class:`KernelPlan` of every kernel export, and the CUDA toolchain they use.

    Raises:
        CudaBuildError: no toolchain.
    """
    from gradc.compiler.codegen.emit import llvm_version
    from gradc.compiler.codegen.ptx import PTXAS_FLAGS, find_toolchain, ptx_isa
    from gradc.compiler.infer.kernels import thread_function

    toolchain = find_toolchain(state.options.cuda_home or None)
    archs = sorted_archs(state.options.cuda_archs)
    isa = ptx_isa(archs[0])
    versions = keys.versions(llvm_version())
    plans = []
    from gradc.compiler.kernel_derivatives import kernel_derivative_names

    kernels = [e.name for e in state.info.exports if e.kernel]
    kernels += list(kernel_derivative_names(state.info))  # derivative kernels (d_k)
    for kernel in kernels:
        thread = thread_function(kernel)
        state.focus = state.module.functions[thread]
        state.step = f"kernel {kernel!r} for CUDA"
        signature = _signature(state, kernel)
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
        cubin = {"ptxas": toolchain.ptxas_version, "ptxas_flags": " ".join(PTXAS_FLAGS)}
        planned = [("ptx", archs[0], base | {"kind": "ptx", "arch": archs[0]})] + [
            ("cubin", arch, base | cubin | {"kind": "cubin", "arch": arch}) for arch in archs
        ]
        components = tuple(
            keys.cuda_components(ir_hash, state.options, versions, signature, facts)
            for _, _, facts in planned
        )
        plans.append(
            KernelPlan(
                kernel,
                thread,
                signature,
                entry_symbol(kernel, symbol_key),
                _sites(state, thread),
                archs,
                isa,
                tuple((kind, arch) for kind, arch, _ in planned),
                components,
            )
        )
    return plans, toolchain


def build_cuda(state: BuildState) -> None:
    """The ``cuda`` stage: ``state.cuda``, one :class:`CudaKernel` per kernel export.

    A kernel whose variants' keys the cache (``state.cache``: a previous artifact) holds
    all of is not compiled again.

    Raises:
        CudaBuildError: no toolchain, a symbol the GPU lacks, ptxas failed.
        CompileError: an operation the GPU cannot run, at its line.
    """
    plans, toolchain = plan_kernels(state)
    kernels = []
    for plan in plans:
        state.focus = state.module.functions[plan.thread]
        state.step = f"kernel {plan.name!r} for CUDA"
        found = [state.cache.get(sha256_key(c)) for c in plan.components]
        if all(f is not None for f in found):
            codes = [f.object_code for f in found if f is not None]
        else:
            codes = compile_kernel(state.module, plan, toolchain, state.options)
        kernels.append(plan.kernel(codes))
    state.cuda = tuple(kernels)


def compile_kernel(
    module: Module, plan: KernelPlan, toolchain: CudaToolchain, options: CompilerOptions
) -> list[bytes]:
    """The PTX of ``plan``'s kernel for its lowest arch (UTF-8) and a cubin per arch,
    from ``module`` (which holds ``plan.thread`` and every function it calls).

    Raises:
        CudaBuildError: a symbol the GPU lacks, ptxas failed, or a cubin's parameter
            layout (``.nv.info``) is not the kernel ABI's.
        InternalCompilerError: LLVM emitted another ISA than :func:`ptx_isa` said (the
            keys would lie).
    """
    from gradc.artifacts.abi.cubin import check_param_layout
    from gradc.artifacts.errors import ArtifactError
    from gradc.compiler.codegen.cuda import lower_kernel
    from gradc.compiler.codegen.ptx import assemble, emit_ptx
    from gradc.compiler.diagnostics import CudaBuildError, InternalCompilerError

    name, symbol, archs, isa = plan.name, plan.symbol, plan.archs, plan.isa
    llmod = lower_kernel(module, name, symbol, options)
    ptx = emit_ptx(llmod, symbol, archs[0], toolchain, options)
    if ptx.isa != isa:
        raise InternalCompilerError(f"PTX ISA {ptx.isa} emitted for {archs[0]}, {isa} expected")
    cubins = [assemble(ptx.text, arch, toolchain, name) for arch in archs]
    params = [(p.name, p.type) for p in plan.signature.params]
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
