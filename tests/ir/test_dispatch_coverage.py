"""Each consumer of the IR covers every operation it must."""

from __future__ import annotations

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction


@pytest.mark.parametrize("opname", sorted(ops.OPERATIONS))
def test_every_operation_declares_a_verify_rule(opname: str) -> None:
    # the verifier's rule 12 is each operation's own verify_ (or its abstract base's:
    # BinaryOp, UnaryOp), never Instruction's, which raises
    cls = ops.OPERATIONS[opname]
    assert cls.verify_ is not Instruction.verify_, f"{cls.__name__} declares no verify_"


def test_operations_are_final_and_slotted() -> None:
    for cls in ops.OPERATIONS.values():
        assert getattr(cls, "__final__", False), cls.__name__
        assert "__slots__" in vars(cls), cls.__name__
    assert ops.BinaryOp not in ops.OPERATIONS.values()
    assert ops.UnaryOp not in ops.OPERATIONS.values()
