"""Every IR → IR pass by its command-line name, and the default pipeline.

A pass is a function ``Module -> Module`` (it may update the module in place and return
it). Options are fields of a frozen dataclass bound into the pass object, so a pipeline
is a plain, printable list::

    >>> print_pipeline(DEFAULT_PIPELINE)
    'dce,phi-decay,stack-promote,lifetimes'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gradc.compiler.ir.core import Module
from gradc.passes.gc import lifetimes, phi_decay, stack_promote
from gradc.passes.opt import dce


@dataclass(frozen=True)
class Pass:
    """A named IR transformation.

    Attributes:
        name: the command-line name (``"dce"``), also the module name with ``_``.
        run: the transformation.
        summary: one line for ``--help`` listings.
    """

    name: str
    run: Callable[[Module], Module]
    summary: str


PASSES: dict[str, Pass] = {
    p.name: p
    for p in (
        Pass("dce", dce.run, "delete instructions whose results are unused"),
        Pass("phi-decay", phi_decay.run, "split pointer phis into base and offset phis"),
        Pass(
            "stack-promote",
            stack_promote.run,
            "put small arrays that do not escape on the stack (escape analysis)",
        ),
        Pass("lifetimes", lifetimes.run, "insert and prune array reference counting"),
    )
}

DEFAULT_PIPELINE: tuple[str, ...] = ("dce", "phi-decay", "stack-promote", "lifetimes")


def get(name: str) -> Pass:
    """The pass called ``name``.

    Raises:
        KeyError: no such pass; the message lists the known ones.
    """
    try:
        return PASSES[name]
    except KeyError:
        known = ", ".join(sorted(PASSES))
        raise KeyError(f"unknown pass {name!r} (known: {known})") from None


def run_pipeline(module: Module, names: tuple[str, ...] | list[str]) -> Module:
    """Run the named passes in order."""
    for name in names:
        module = get(name).run(module)
    return module


def print_pipeline(names: tuple[str, ...] | list[str]) -> str:
    """The pipeline as its command-line spelling (``-p`` argument)."""
    return ",".join(names)
