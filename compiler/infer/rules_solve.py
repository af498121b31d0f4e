"""Typing of :class:`~gradc.compiler.ir.ops.LinalgSolve` (``np.linalg.inv``, ``solve``,
``det``): 2-D matrices only (NumPy's stacked ``(..., M, M)`` form is a compile error);
the result dtype is :func:`~gradc.compiler.ir.ops.solve.solve_dtype` (NumPy's: float32
only when every operand is float32)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc.compiler.infer.rules import TRANSFER
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.ops.solve import solve_dtype
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
    if a.ndim != 2:
        raise inf.error(
            f"{shown} of a {a.ndim}-D array is not supported (a 2-D matrix only)"
            if a.ndim > 2
            else f"{a.ndim}-dimensional array given. Array must be at least two-dimensional",
            inst,
        )
    dtypes = [t.dtype for t in types if isinstance(t, ArrayType)]
    dtype = solve_dtype(*dtypes)
    if inst.kind == ops.SolveKind.DET:
        return dtype
    if inst.kind == ops.SolveKind.INV:
        return ArrayType(dtype, 2, "C")
    b = types[1]
    assert isinstance(b, ArrayType)
    if b.ndim not in (1, 2):
        raise inf.error(f"{shown} with a {b.ndim}-D b is not supported (1-D or 2-D)", inst)
    return ArrayType(dtype, b.ndim, "C")
