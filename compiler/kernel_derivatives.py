"""The derivative kernels a module declares (``gradc.grad(k, ...)``, ``gradc.jvp(k, ...)``
of a ``@gradc.kernel`` ``k``): their per-thread bodies (``passes/ad/kernels.py``) and
their grid loops (``compiler/infer/kernels.py``), so a derivative kernel is built and
launched like any kernel (docs/ad.md "Kernels")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.frontend.kernels import THREAD_PARAMS
from gradc.compiler.infer.kernels import add_grid_loops, thread_function
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.errors import PassError
from gradc.passes.ad.kernels import kernel_derivative

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.frontend.source import SourceFile

__all__ = ["add_kernel_derivatives", "kernel_derivative_names"]


def kernel_derivative_names(info: ModuleInfo) -> dict[str, str]:
    """Derivative declaration name -> the kernel it differentiates, for those of kernels."""
    kernels = {e.name for e in info.exports if e.kernel}
    return {d.name: d.target for d in info.derivatives if d.target in kernels}


def add_kernel_derivatives(
    module: Module, info: ModuleInfo, source: SourceFile, shuffle: bool
) -> None:
    """Add each derivative kernel ``info`` declares to ``module``: its per-thread body
    ``d_k.thread`` and its grid-loop export ``d_k`` (``shuffle``: threads in a scrambled
    order, ``CompilerOptions.shuffle_threads``).

    Raises:
        CompileError: what :func:`gradc.passes.ad.kernels.kernel_derivative` refuses, at
            the declaration's line or the construct's.
    """
    kernels = kernel_derivative_names(info)
    for d in info.derivatives:
        if d.name not in kernels:
            continue
        thread = module.functions[thread_function(d.target)]
        try:
            kernel_derivative(
                module, d.name, d.kind, thread, len(THREAD_PARAMS), d.wrt, source.loc(d.node)
            )
        except PassError as exc:
            raise info.error(exc.message, exc.loc) from None
        add_grid_loops(module, [d.name], shuffle)
