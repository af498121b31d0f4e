"""Which array parameters a function may write to (interprocedural).

A parameter is *written* when a ``store`` goes through a derived pointer whose base can
be that parameter — directly, through phis or casts of arrays, or by passing it to a
callee that writes the corresponding parameter. The loader uses the result to refuse
read-only NumPy arrays for written parameters (ValueError) instead of crashing.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Module, Value
from gradc.compiler.ir.types import PointerType
from gradc.passes.analysis.pointers import array_roots


def _params(v: Value) -> set[Argument]:
    """The parameters an array or pointer value may alias."""
    return {x for x in array_roots(v) if isinstance(x, Argument)}


def written_params(module: Module) -> dict[str, set[int]]:
    """Function name -> indices of the parameters it may write (a fixpoint over calls)."""
    written: dict[str, set[int]] = {name: set() for name in module.functions}
    changed = True
    while changed:
        changed = False
        for name, fn in module.functions.items():
            for inst in fn.instructions():
                targets: set[Argument] = set()
                if isinstance(inst, ops.Store | ops.AtomicAdd) and isinstance(
                    inst.pointer.type, PointerType
                ):
                    targets = _params(inst.pointer)
                elif isinstance(inst, ops.Call) and inst.callee in written:
                    for k in written[inst.callee]:
                        targets |= _params(inst.args[k])
                new = {a.index for a in targets} - written[name]
                if new:
                    written[name] |= new
                    changed = True
    return written
