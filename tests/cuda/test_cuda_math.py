"""Every ``math`` function compiled code supports builds for CUDA: libdevice has each
one, and nothing but NVPTX instructions is left for the driver to resolve."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradc.compiler.ir import ops
from tests.cuda.conftest import toolchain_or_skip


@pytest.mark.slow
def test_every_math_function_builds_for_cuda(tmp_path: Path) -> None:
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    toolchain_or_skip()
    lines = ["import math", "import gradc", "from gradc import cuda, f64", ""]
    names = [n for n, f in ops.MATH_FUNCTIONS.items() if not f.internal]
    for n in names:
        fn = ops.MATH_FUNCTIONS[n]
        args = ", ".join(["x[i]", "y[i]"][: fn.arity])
        lines += [
            "@gradc.kernel",
            f"def k_{n}(x: f64[:], y: f64[:], out: f64[:]):",
            "    i = cuda.grid(1)",
            "    if i < x.shape[0]:",
            f"        out[i] = float(math.{n}({args}))",
            "",
        ]
    src = tmp_path / "allmath.py"
    src.write_text("\n".join(lines))
    out = build_module(src, CompilerOptions(cuda_archs=("sm_80",)))
    assert [k.name for k in out.cuda] == [f"k_{n}" for n in names]
    for k in out.cuda:
        ptx = k.variants[0].code.decode()
        assert ".extern" not in ptx, k.name
