"""Copying functions: a new function with the same blocks and instructions.

Passes that derive one function from another (the AD transforms) start from a clone and
add to it, so the derived function keeps every source location of the original.
"""

from __future__ import annotations

import copy

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Value


@dataclass
class Clone:
    """A cloned function and the maps from the original's values and blocks to it."""

    function: Function
    values: dict[Value, Value]
    blocks: dict[Block, Block]


def clone_function(fn: Function, name: str) -> Clone:
    """A deep copy of ``fn`` named ``name`` (not exported; add it to a module yourself)."""
    new = Function(
        name,
        return_type=fn.return_type,
        loc=fn.loc,
        source_name=fn.source_name,
    )
    values: dict[Value, Value] = {}
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=p.index)
        new.params.append(arg)
        values[p] = arg
    blocks = {b: new.add_block(b.label) for b in fn.blocks}
    for block in fn.blocks:
        for inst in block.instructions:
            twin = copy.copy(inst)
            twin.block = None
            values[inst] = twin
            blocks[block].append(twin)
    for block in fn.blocks:
        for inst in blocks[block].instructions:
            remap(inst, values, blocks)
    return Clone(new, values, blocks)


def remap(inst: Instruction, values: dict[Value, Value], blocks: dict[Block, Block]) -> None:
    """Point ``inst``'s operands and successors at their images under the maps.

    Values and blocks missing from a map are kept (constants shared on purpose, or
    values of the function ``inst`` already belongs to).
    """
    for name in inst.EDGES:
        edges = getattr(inst, name)
        setattr(inst, name, [(blocks.get(b, b), values.get(v, v)) for b, v in edges])
    for name in inst.OPERANDS:
        v = getattr(inst, name)
        if isinstance(v, tuple):
            setattr(inst, name, tuple(values.get(x, x) for x in v))
        elif v is not None:
            setattr(inst, name, values.get(v, v))
    for name in inst.SUCCESSORS:
        b = getattr(inst, name)
        setattr(inst, name, blocks.get(b, b))
