"""Raise sites: where an export's compiled code can raise, numbered without line numbers.

Compiled objects must not depend on source lines (a comment added above a function must
not change its object, DESIGN.md §5), yet a run-time error must name the line that
raised. So the error record carries a *site number* (docs/abi.md "Error record"), and the
manifest entry carries the site table that maps it to ``file:line:col``.

The numbering depends only on the IR's structure::

    func f(...)           # export, then its callees by sorted name
      %1 = div %x, %y     # site 1   (MAY_RAISE)
      %2 = add %1, %x     # -        (cannot raise)
      raise ValueError    # site 2   (Raise)
    func g(...)
      %1 = call @h(...)   # site 3   (a callee's error passes through unchanged)

Site ``k`` (1-based) is the ``k``-th instruction, in that order, that may raise
(``MAY_RAISE``) or is a ``raise``; 0 means "unknown". The code generator stores the site
number of the instruction it lowers; the driver builds the table from the same order, so
a build that reuses an object (same IR up to locations) still gets a correct table.

This module imports no llvmlite: the driver uses it without lowering anything. The
order of functions is ``gradc.passes.analysis.callgraph.reachable``'s.
"""

from __future__ import annotations

from collections.abc import Callable

from gradc.compiler.ir.core import Instruction, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ops import Raise, RaiseFormat
from gradc.passes.analysis.callgraph import reachable


def raise_sites(module: Module, export: str) -> list[Instruction]:
    """The instructions of ``export``'s object that may raise, in site order (site 1 first)."""
    return [
        inst
        for name in reachable(module, export)
        for inst in module.functions[name].instructions()
        if inst.MAY_RAISE or isinstance(inst, Raise | RaiseFormat)
    ]


def site_numbers(module: Module, export: str) -> dict[Instruction, int]:
    """Instruction -> its 1-based site number in ``export``'s object."""
    return {inst: i for i, inst in enumerate(raise_sites(module, export), start=1)}


def site_table(module: Module, export: str, rename: Callable[[str], str]) -> list[Loc]:
    """The locations of ``export``'s sites in site order, each file renamed by ``rename``.

    Args:
        rename: ``Loc.file`` -> the name stored in the manifest (module-relative, so the
            artifact does not depend on the working directory).
    """
    return [
        Loc(rename(inst.loc.file), inst.loc.line, inst.loc.col)
        for inst in raise_sites(module, export)
    ]
