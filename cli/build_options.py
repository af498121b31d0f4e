"""Options of ``gradc build`` defined outside ``cli/main.py`` (which is at its size limit)."""

from __future__ import annotations

import click

from gradc.compiler.options import DEFAULT_TAPE_BUDGET

#: ``--tape-budget BYTES``: ``CompilerOptions.tape_budget`` (docs/ad.md "Long loops").
tape_budget_option = click.option(
    "--tape-budget",
    type=click.IntRange(min=0),
    default=DEFAULT_TAPE_BUDGET,
    show_default=True,
    metavar="BYTES",
    help="Tape bytes per loop above which a gradient runs a long range loop in "
    "checkpointed segments (recomputing them: about one more forward pass, O(sqrt(n)) "
    "memory; about twice the derivative code; docs/ad.md 'Long loops'; 33554432 is a "
    "good start). 0: tape every loop whole.",
)
