"""``gradc opt FILE.ir -p PASS[,PASS...]``: run passes on textual IR (like ``mlir-opt``).

Reads IR text (a file, or ``-`` for standard input), verifies it, runs the named passes
in order — verifying after each — and prints the result. Used to try a pass by hand and
to reproduce pass tests.
"""

from __future__ import annotations

import sys
from typing import TextIO

import click

from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.parser import IRParseError, parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import VerificationError, verify_module
from gradc.passes.options import PassOptionError
from gradc.passes.registry import PASSES, get, split_pipeline


@click.command("opt")
@click.argument("source", type=click.File("r"), default="-")
@click.option(
    "-p",
    "--passes",
    "pipeline",
    default="",
    metavar="PASS,...",
    help="Comma-separated passes to run, in order: "
    + ", ".join(sorted(PASSES))
    + ". Options in braces: 'ad-reverse{fn=f wrt=x,y}'.",
)
@click.option("--locs", is_flag=True, help="Print source locations.")
@click.option("--no-verify", is_flag=True, help="Do not verify before and after each pass.")
def opt(source: TextIO, pipeline: str, locs: bool, no_verify: bool) -> None:
    """Run passes on the IR in SOURCE (a file, or - for standard input) and print it."""
    try:
        module = parse_module(source.read())
        if not no_verify:
            verify_module(module)
        for name in split_pipeline(pipeline):
            module = get(name).run(module)
            if not no_verify:
                verify_module(module)
    except (IRParseError, VerificationError, PassError, PassOptionError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) else str(exc)
        if isinstance(exc, PassError):
            message = f"{exc.loc}: error: {exc.message}"
        click.echo(f"gradc opt: {message}", err=True)
        sys.exit(1)
    click.echo(print_module(module, locs=locs), nl=False)
