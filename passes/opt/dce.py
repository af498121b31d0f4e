"""``dce``: delete instructions whose results are unused and that have no effect.

An instruction is dead when nothing uses its result and it neither ends a block, raises,
nor has a side effect (``MAY_RAISE`` instructions stay: deleting ``1 // 0`` would hide a
ZeroDivisionError). Phis that feed only themselves or other dead phis are dead too.

Before::

    %0 = const 1 : i64
    %1 = add %a, %0 : i64
    ret %a

After::

    ret %a
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Instruction, Module, Value
from gradc.compiler.ir.types import ScalarType


def _is_removable(inst: Instruction) -> bool:
    if inst.IS_TERMINATOR or inst.HAS_SIDE_EFFECTS:
        return False
    return not inst.MAY_RAISE or _cannot_raise(inst)


def _cannot_raise(inst: Instruction) -> bool:
    """Operations that are marked ``MAY_RAISE`` but cannot raise for these operands."""
    if isinstance(inst, ops.Cast):
        # Only float → (non-bool) int conversions check their operand.
        src, dst = inst.value.type, inst.type
        return not (
            isinstance(src, ScalarType)
            and isinstance(dst, ScalarType)
            and src.is_float
            and dst.is_int
            and not dst.is_bool
        )
    if isinstance(inst, ops.MathCall):
        return ops.MATH_FUNCTIONS[inst.fn].check == "none"
    return False


def run_function(fn: Function) -> Function:
    """Delete the dead instructions of ``fn`` (a mark phase from the live roots)."""
    live: set[Value] = set()
    work: list[Instruction] = [i for i in fn.instructions() if not _is_removable(i)]
    while work:
        inst = work.pop()
        if inst in live:
            continue
        live.add(inst)
        for v in inst.operands():
            if isinstance(v, Instruction) and v not in live:
                work.append(v)
    for block in fn.blocks:
        block.instructions = [i for i in block.instructions if i in live]
    return fn


def run(module: Module) -> Module:
    """Run :func:`run_function` on every function of ``module``."""
    for fn in module.functions.values():
        run_function(fn)
    return module
