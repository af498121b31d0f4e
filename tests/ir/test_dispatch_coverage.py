"""Every consumer of the IR has a rule for every operation it must handle.

Each consumer dispatches through :class:`gradc.compiler.ir.dispatch.OpTable`; these
tests compare its tables with :data:`ops.OPERATIONS`, so that a new operation cannot be
added without a rule in each consumer (or an exclusion stated here, with its reason).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.dispatch import OpTable

ALL = frozenset(ops.OPERATIONS.values())

#: Front-end operations never reach typed IR: inference replaces each by typed
#: operations, so the interpreter and codegen (which run typed IR) have no rule for them.
FRONT_END = frozenset(ops.FRONT_END_OPERATIONS)

#: Whole-array operations the ``lower-arrays`` pass replaces by loops before AD: codegen
#: never sees them (tests/passes/test_lower_arrays.py checks that each has a rule there).
LOWERED = frozenset(c for c in ALL if c.LOWERED_TO_LOOPS)


def _missing(tables: Sequence[OpTable[Any]], classes: frozenset[type[Instruction]]) -> list[str]:
    return sorted(c.OPNAME for c in classes if not any(c in t for t in tables))


def _overlap(tables: Sequence[OpTable[Any]]) -> list[str]:
    seen: set[type[Instruction]] = set()
    twice: set[str] = set()
    for table in tables:
        for cls in table.covered():
            if cls in seen:
                twice.add(cls.OPNAME)
            seen.add(cls)
    return sorted(twice)


def test_interpreter_covers_every_typed_operation() -> None:
    from gradc.compiler.ir import interp

    tables = [interp.RULES, interp.FRAME_RULES]
    assert _missing(tables, ALL - FRONT_END) == []
    assert _overlap(tables) == []
    assert not any(c in t for t in tables for c in FRONT_END)


#: Operations only passes after inference make (materialisation, AD, ``phi-decay``,
#: ``lifetimes``, ``stack-arrays``): the front end never emits them, so inference's
#: transfer rules never see them.
AFTER_INFERENCE = frozenset(
    {
        ops.FDiv,
        ops.ArrayDim,
        ops.ElementAddr,
        ops.ElementOffset,
        ops.Addr,
        ops.PointerAdd,
        ops.ArrayAddress,
        ops.Load,
        ops.NewArray,
        ops.AccumulateArray,
        ops.Poison,
        ops.TapeNew,
        ops.TapePush,
        ops.TapePop,
        ops.TapeFree,
        ops.Elementwise,
        ops.ElementwiseInto,
        ops.Reduce,  # materialised from npreduce
        ops.Cumulate,
        ops.SliceView,  # materialisation makes it from basicindex and getitem
        ops.AssignInto,  # materialisation makes it from setitem
        ops.Take,  # and these from getitem
        ops.Gather,
        ops.Compress,
        ops.MaskAssign,  # from setitem with a bool mask
        ops.IndexAssign,  # from setitem with an integer array
        ops.BatchMatmul,  # from contract matmul of more than 2 axes
        ops.FlatIndex,
        ops.AtomicAdd,
    }
)


def test_inference_covers_every_operation_the_front_end_emits() -> None:
    from gradc.compiler.infer.rules import TRANSFER

    assert TRANSFER.missing(ALL - AFTER_INFERENCE) == []
    assert not any(c in TRANSFER for c in AFTER_INFERENCE)


def test_materialization_replaces_every_front_end_operation() -> None:
    from gradc.compiler.infer.materialize import MATERIALIZE

    assert MATERIALIZE.missing(FRONT_END) == []


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


def test_codegen_lowers_every_typed_operation_but_phis() -> None:
    import gradc.compiler.codegen.lower  # noqa: F401 (imports every module with rules)
    from gradc.compiler.codegen.dispatch import LOWERING

    # phis are made by FunctionLowering itself, before the blocks' bodies, and get their
    # incoming values after all blocks are lowered: no rule
    assert LOWERING.missing(ALL - FRONT_END - LOWERED - {ops.Phi}) == []
    assert not any(c in LOWERING for c in FRONT_END | LOWERED | {ops.Phi})
