"""Which CPU variants a default build makes (docs/artifacts.md "CPU variants").

A default build (``gradc build`` without ``--cpu``, runtime mode) asks for
:data:`gradc.compiler.options.DEFAULT_CPUS` with ``vector_variants_only``: the baseline
x86-64 object always, and the x86-64-v3 (AVX2, FMA) object only when it can pay, that is
when the module's code handles arrays. Loops over arrays are what LLVM's loop and SLP
vectorisers widen (benchmarks/bench_variants.py: elementwise code and a matrix product
take half the baseline's time with x86-64-v3); straight-line scalar code gains nothing
from wider registers, and each extra variant costs one more LLVM optimisation and code
generation per export (examples/scalars.py: the ``emit`` phase about doubles with two
more variants). An x86-64-v4 (AVX-512) object is not built by default: on an AVX-512
host (AMD EPYC) it ran elementwise code, a stencil and a matrix product no faster than
x86-64-v3 and the GMM gradient 16-19 % slower (LLVM selects doubles with mask-register
moves there), in the same runs.

The rule is per module, not per export: an artifact's entries all have the same
variants (docs/artifacts.md, manifest 1.2), so a module with one array export builds every
export for every variant.
"""

from __future__ import annotations

from dataclasses import replace

from gradc.compiler.ir.core import Function, Module
from gradc.compiler.ir.types import ArrayType
from gradc.compiler.options import CompilerOptions
from gradc.passes.analysis.callgraph import reachable

__all__ = ["handles_arrays", "resolve_variants"]


def handles_arrays(function: Function) -> bool:
    """Whether ``function`` has an array among its parameters, its result or the values
    its instructions produce or use (a tuple holding an array counts)."""
    if function.return_type.contains(ArrayType):
        return True
    if any(p.type.contains(ArrayType) for p in function.params):
        return True
    for inst in function.instructions():
        if inst.type.contains(ArrayType):
            return True
        if any(v.type.contains(ArrayType) for v in inst.operands()):
            return True
    return False


def resolve_variants(
    options: CompilerOptions, module: Module, exports: list[str]
) -> CompilerOptions:
    """``options`` with its CPU variants decided: unchanged unless ``vector_variants_only``;
    then ``cpus`` is kept when a function reachable from one of ``exports`` handles arrays
    (:func:`handles_arrays`) and dropped (``cpu`` alone) otherwise. The result never has
    ``vector_variants_only`` set, so that it says exactly what is built."""
    if not options.vector_variants_only:
        return options
    names = {n for e in exports for n in reachable(module, e) if n in module.functions}
    if any(handles_arrays(module.functions[n]) for n in sorted(names)):
        return replace(options, vector_variants_only=False)
    return replace(options, cpus=(), vector_variants_only=False)
