"""The CUDA parts of the CLI: ``gradc build --target cuda``'s options and ``gradc
inspect``'s listing of the CUDA variants of an artifact (format 1.6)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from gradc.artifacts.cuda_manifest import CudaSection
from gradc.compiler.options import CompilerOptions


def cuda_options(options: CompilerOptions, cuda_arch: str) -> CompilerOptions:
    """``options`` with ``--cuda-arch``'s archs (sorted, without repeats) and
    ``CUDA_HOME`` (the toolkit; unset: ptxas on PATH).

    Raises:
        click.BadParameter: an arch that is not ``sm_<major><minor>``.
    """
    from dataclasses import replace

    from gradc.compiler.cuda_backend import sorted_archs

    try:
        archs = sorted_archs(tuple(a.strip() for a in cuda_arch.split(",")))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--cuda-arch'") from None
    return replace(options, cuda_archs=archs, cuda_home=os.environ.get("CUDA_HOME", ""))


def print_cuda(console: Any, artifact: Path, cuda: CudaSection) -> None:
    """One row per kernel variant: ``ptx (sm_80, ISA 7.0)``, ``sm_90 cubin``, its size
    (``missing`` when its file is absent) and the first 12 hex digits of its key."""
    from rich.table import Table

    console.print(f"CUDA kernels, archs {', '.join(cuda.archs)}", highlight=False)
    table = Table()
    table.add_column("kernel", style="bold")
    table.add_column("variant")
    table.add_column("symbol", overflow="fold")
    table.add_column("bytes", justify="right")
    table.add_column("key")
    for k in cuda.kernels:
        for i, v in enumerate(k.variants):
            what = f"ptx ({v.arch}, ISA {v.isa})" if v.kind == "ptx" else f"{v.arch} cubin"
            path = artifact / v.file
            size = str(path.stat().st_size) if path.is_file() else "missing"
            table.add_row(
                k.name if i == 0 else "", what, k.symbol if i == 0 else "", size, v.key[:12]
            )
    console.print(table)
