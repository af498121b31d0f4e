"""Typing of :class:`~gradc.compiler.ir.ops.LinalgSolve` (``np.linalg.inv``, ``solve``,
``det``) of a matrix or a stack ``(..., M, M)``: :func:`~gradc.compiler.ir.ops.solve.
solve_type` (NumPy 2's shapes; float32 only when every operand is float32)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.ops.solve import solve_type
from gradc.compiler.ir.types import ArrayType, Type, UnknownType, python_name

if TYPE_CHECKING:
    from gradc.compiler.infer.specialize import Inference, Spec


@TRANSFER.register(ops.LinalgSolve)
def _solve(inf: Inference, spec: Spec, inst: Instruction) -> Type | None:
    assert isinstance(inst, ops.LinalgSolve)
    shown = f"np.linalg.{inst.kind}()"
    types = [v.type for v in inst.operands()]
    if any(isinstance(t, UnknownType) for t in types):
        return None
    for t in types:
        if not isinstance(t, ArrayType):
            raise inf.error(f"{shown} of a {python_name(t)} is not supported: pass an array", inst)
    a = types[0]
    assert isinstance(a, ArrayType)
    if a.ndim < 2:
        raise inf.error(
            f"{a.ndim}-dimensional array given. Array must be at least two-dimensional", inst
        )
    b = types[1] if len(types) > 1 else None
    assert b is None or isinstance(b, ArrayType)
    if b is not None and b.ndim == 0:
        raise inf.error(f"{shown} with a 0-d b is not supported (pass an array)", inst)
    return solve_type(inst.kind, a, b)
