"""How ``gradc build`` reports a build that failed, here or on a Dask worker.

A compile error is printed as its diagnostic (file, line, column, the line with carets,
notes, ``help:``); a refused compile, an unwritable output, a CUDA toolchain problem or
a worker whose toolchain differs as ``gradc: error: ...``; a bad ``--grad`` as
``gradc: error: --grad: ...``; all exit with status 1. Anything else is a bug in gradc:
an internal compiler error (status 70), with the traceback under ``-v``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click


def exit_for(exc: Exception, module: Path, verbose: bool) -> NoReturn:
    """Print ``exc``, raised while building ``module``, and exit (see the module
    docstring)."""
    sys.exit(report(exc, module, verbose))


def expected_errors() -> tuple[type[Exception], ...]:
    """The exception types of a build that failed for a reason of the user's (a compile
    error, a refused compile, ...): reported with exit status 1, never a bug in gradc."""
    from gradc.compiler.diagnostics import CompileError, CudaBuildError
    from gradc.compiler.driver import CompileForbiddenError, WriteError
    from gradc.compiler.fanout import ToolchainMismatchError
    from gradc.compiler.frontend.derivatives import GradRequestError

    return (
        CompileError,
        CompileForbiddenError,
        WriteError,
        CudaBuildError,
        ToolchainMismatchError,
        GradRequestError,
    )


def report(exc: Exception, module: Path, verbose: bool) -> int:
    """Print ``exc``, raised while building ``module`` (see the module docstring); the
    exit status it calls for: 1 for :func:`expected_errors`, 70 for anything else."""
    from gradc.compiler.diagnostics import CompileError, InternalCompilerError
    from gradc.compiler.frontend.derivatives import GradRequestError

    if isinstance(exc, CompileError):
        click.echo(exc.render(), err=True)
        return 1
    if isinstance(exc, GradRequestError):
        click.echo(f"gradc: error: --grad: {exc}", err=True)
        return 1
    if isinstance(exc, expected_errors()):
        click.echo(f"gradc: error: {exc}", err=True)
        return 1
    if verbose:  # a bug in gradc: say so, keep the traceback for -v
        import traceback

        traceback.print_exception(exc)
    if isinstance(exc, InternalCompilerError):  # names the stage, function and line
        detail = f"gradc: {exc.render()}"
    else:
        detail = (
            f"gradc: internal compiler error while building {module}: {type(exc).__name__}: {exc}"
        )
    click.echo(
        f"{detail}\n"
        "nothing was written; please report this with the module (-v shows the traceback)",
        err=True,
    )
    return 70
