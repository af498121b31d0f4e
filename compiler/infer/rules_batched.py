"""Materialisation of ``a @ b`` with an operand of more than 2 axes: inference typed the
``contract matmul`` (compiler/infer/rules_linalg.py); it becomes a
:class:`~gradc.compiler.ir.ops.BatchMatmul` of the same type."""

from __future__ import annotations

from gradc.compiler.infer.materialize import MATERIALIZE, Materializer
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.types import ArrayType


@MATERIALIZE.register(ops.Contract)
def _batched(m: Materializer, inst: Instruction) -> None:
    assert isinstance(inst, ops.Contract)
    ranks = [v.type.ndim for v in (inst.lhs, inst.rhs) if isinstance(v.type, ArrayType)]
    if inst.kind != ops.ContractKind.MATMUL or max(ranks) <= 2:
        return
    m.b.position_before(inst)
    with m.b.at(inst.loc):
        m.replaced[inst] = m.b.insert(ops.BatchMatmul(inst.lhs, inst.rhs, type=inst.type))
    inst.erase()
