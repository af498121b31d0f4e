"""The PTX of a small derivative kernel (``d_scale2d``, of tests/cuda/kernels_ad_corpus.py's
``scale2d``): its adjoint accumulations are ``atom.global.add.f64`` (the AD marks them
``atomicadd {global_memory}``, ``compiler/codegen/lower_gpu.py``), never a generic-address
``atom.add.f64``; LLVM alone left ``d_v``'s generic. The whole corpus is checked the same
way by the slow tests/cuda/test_kernel_ad_cuda.py."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cuda.conftest import toolchain_or_skip

SOURCE = """\
import math

import gradc
from gradc import cuda, f64


@gradc.kernel
def scale2d(m: f64[:, :], v: f64[:], out: f64[:, :]):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m[i, j] * v[j] + math.cos(m[i, j])


d_scale2d = gradc.grad(scale2d, wrt=("m", "v"))
"""

#: Every f64 atomic add or reduction of a PTX text, with its state space if any.
F64_ATOMIC = re.compile(r"\b(?:atom|red)((?:\.\w+)*?)\.add\.f64\b")


def f64_atomic_spaces(ptx: str) -> list[str]:
    """The qualifiers before ``.add.f64`` of each f64 atomic of ``ptx`` (``.global``,
    or ``""`` for a generic address)."""
    return [m.group(1) for m in F64_ATOMIC.finditer(ptx)]


def test_derivative_kernel_atomics_are_global(tmp_path: Path) -> None:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    toolchain_or_skip()
    src = tmp_path / "scale2d.py"
    src.write_text(SOURCE)
    out = build_module(src, CompilerOptions(cuda_archs=("sm_80",)))
    ptx = {k.name: k.variants[0].code.decode() for k in out.cuda}
    assert f64_atomic_spaces(ptx["scale2d"]) == []
    spaces = f64_atomic_spaces(ptx["d_scale2d"])
    # d_v[j] is shared by a column of threads; d_m[i, j] is the thread's own (no atomic)
    assert spaces and all(s == ".global" for s in spaces), spaces
