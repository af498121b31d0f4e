"""SSA values, instructions, basic blocks, functions and modules.

The IR is SSA over basic blocks with explicit phi nodes. Every value carries its type
(:mod:`gradc.compiler.ir.types`); every instruction carries a source location. Concrete
operations are small final dataclasses in :mod:`gradc.compiler.ir.ops`; each declares
which of its fields are operands, successors and attributes, so that the printer, parser,
verifier and passes can treat operations generically without string tags.

Invariants (checked by :mod:`gradc.compiler.ir.verifier`): phis come first in a block,
exactly one terminator comes last, every operand is defined by an instruction or argument
of the same function that dominates the use, a phi has one incoming value per predecessor.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from typing import Annotated, ClassVar, Protocol

from gradc._dataclass import dataclass
from gradc.compiler.ir.loc import UNKNOWN_LOC, Loc
from gradc.compiler.ir.types import UNKNOWN, Type

#: A string attribute naming a function of the module: printed ``@name``.
Symbol = Annotated[str, "symbol"]

#: A string attribute holding free text (a message): always printed quoted.
Text = Annotated[str, "text"]


@dataclass(eq=False, kw_only=True)
class Value:
    """An SSA value. Identity is object identity (``eq=False``).

    Attributes:
        type: the value's type (``UNKNOWN`` until inference).
        name: a printing hint (a source variable name), or None.
    """

    type: Type = UNKNOWN
    name: str | None = None


@dataclass(eq=False, kw_only=True)
class Argument(Value):
    """A function parameter.

    Attributes:
        index: 0-based position in the parameter list.
    """

    index: int = 0


@dataclass(eq=False, kw_only=True)
class Instruction(Value):
    """Base of every operation.

    Class attributes of concrete operations:
        OPNAME: the printed mnemonic (``"add"``).
        OPERANDS: names of fields holding one ``Value`` or a tuple of ``Value``.
        SUCCESSORS: names of fields holding a ``Block`` (terminators only).
        ATTRS: names of fields holding plain data (str, int, float, bool).
        FLAGS: names of ``bool`` fields, False by default, printed as ``{name}`` when
            True (``newarray(%n) {on_stack}``).
        EDGES: names of fields holding ``(predecessor Block, Value)`` pairs (``phi``).
        IS_TERMINATOR: ends a block.
        MAY_RAISE: may raise a Python exception at run time (lowering adds an error exit).
        HAS_SIDE_EFFECTS: must not be removed even when its result is unused.
        LOWERED_TO_LOOPS: a whole-array operation the ``lower-arrays`` pass replaces by
            loop nests before AD (passes/arrays/): AD and codegen never see it.
    """

    OPNAME: ClassVar[str] = ""
    OPERANDS: ClassVar[tuple[str, ...]] = ()
    SUCCESSORS: ClassVar[tuple[str, ...]] = ()
    ATTRS: ClassVar[tuple[str, ...]] = ()
    FLAGS: ClassVar[tuple[str, ...]] = ()
    EDGES: ClassVar[tuple[str, ...]] = ()
    IS_TERMINATOR: ClassVar[bool] = False
    MAY_RAISE: ClassVar[bool] = False
    HAS_SIDE_EFFECTS: ClassVar[bool] = False
    LOWERED_TO_LOOPS: ClassVar[bool] = False

    loc: Loc = UNKNOWN_LOC
    block: Block | None = field(default=None, repr=False)
    #: Owned arrays to release if this (``MAY_RAISE``) instruction raises; the
    #: ``lifetimes`` pass fills it, lowering emits the releases on the error exit.
    #: Printed after the result type: ``%p = elemaddr %a, (%i) : ptr[f64] unwind(%b)``.
    unwind: tuple[Value, ...] = field(default=(), repr=False)

    def operands(self) -> list[Value]:
        """The values this instruction uses, in field order."""
        out: list[Value] = []
        for name in self.OPERANDS:
            v = getattr(self, name)
            if isinstance(v, tuple):
                out.extend(v)
            elif v is not None:
                out.append(v)
        return out

    def replace_operand(self, old: Value, new: Value) -> None:
        """Replace every use of ``old`` in this instruction's operands by ``new``."""
        for name in self.OPERANDS:
            v = getattr(self, name)
            if isinstance(v, tuple):
                if any(x is old for x in v):
                    setattr(self, name, tuple(new if x is old else x for x in v))
            elif v is old:
                setattr(self, name, new)

    def successors(self) -> list[Block]:
        """Target blocks of a terminator, in field order (empty otherwise)."""
        return [getattr(self, name) for name in self.SUCCESSORS]

    def replace_successor(self, old: Block, new: Block) -> None:
        """Retarget every edge to ``old`` at ``new``."""
        for name in self.SUCCESSORS:
            if getattr(self, name) is old:
                setattr(self, name, new)

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """Check the attribute values (in untyped IR too): None when they are valid, else
        the reason (``unknown cmp predicate 'x'``). No attributes to check by default."""
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The operation's type rule (typed IR only): None when the operand and result
        types fit, else the reason. Every operation declares one (the verifier's rule 12;
        tests/ir/test_dispatch_coverage.py checks that each has its own).

        Raises:
            NotImplementedError: the class declares no rule.
        """
        raise NotImplementedError(f"{type(self).__name__} declares no verify_ rule")

    def attrs(self) -> dict[str, object]:
        """Attribute and flag fields as a dict, in declaration order."""
        return {name: getattr(self, name) for name in (*self.ATTRS, *self.FLAGS)}

    @property
    def function(self) -> Function | None:
        """The function whose block holds this instruction."""
        return self.block.function if self.block is not None else None

    def erase(self) -> None:
        """Remove this instruction from its block (its uses must be gone already)."""
        assert self.block is not None
        self.block.instructions.remove(self)
        self.block = None


class VerifyContext(Protocol):
    """What an operation's verification rules may ask the verifier
    (:meth:`Instruction.verify_`, :meth:`Instruction.verify_attrs`)."""

    @property
    def module(self) -> Module | None:
        """The module holding the callees, or None (callee checks are skipped)."""
        ...

    @property
    def function(self) -> Function:
        """The function being verified."""
        ...

    def show(self, v: Value | None) -> str:
        """``%name`` of ``v`` as the printer names it."""
        ...

    def show_block(self, b: Block) -> str:
        """``^label`` of ``b`` as the printer names it."""
        ...


@dataclass(eq=False)
class Block:
    """A basic block: phis, then ordinary instructions, then one terminator.

    Attributes:
        label: printed name, unique within the function (``entry``, ``loop.header``).
        instructions: the instructions in order.
        function: the owning function.
    """

    label: str
    instructions: list[Instruction] = field(default_factory=list)
    function: Function | None = field(default=None, repr=False)

    def append(self, inst: Instruction) -> Instruction:
        """Append ``inst`` (after the terminator is a verifier error) and return it."""
        inst.block = self
        self.instructions.append(inst)
        return inst

    def insert(self, index: int, inst: Instruction) -> Instruction:
        """Insert ``inst`` at ``index`` and return it."""
        inst.block = self
        self.instructions.insert(index, inst)
        return inst

    def insert_before(self, anchor: Instruction, inst: Instruction) -> Instruction:
        """Insert ``inst`` just before ``anchor`` (which must be in this block)."""
        return self.insert(self.instructions.index(anchor), inst)

    @property
    def terminator(self) -> Instruction | None:
        """The last instruction if it is a terminator, else None."""
        if self.instructions and self.instructions[-1].IS_TERMINATOR:
            return self.instructions[-1]
        return None

    def phis(self) -> list[Instruction]:
        """The leading phi instructions."""
        out = []
        for inst in self.instructions:
            if inst.OPNAME != "phi":
                break
            out.append(inst)
        return out

    def successors(self) -> list[Block]:
        """Successor blocks (via the terminator)."""
        term = self.terminator
        return term.successors() if term is not None else []

    def __repr__(self) -> str:
        return f"<Block ^{self.label}>"


@dataclass(eq=False)
class Function:
    """A function in SSA form.

    Attributes:
        name: symbol name, unique in the module (specialisations are named by the
            caller-independent content of their signature, never by a counter).
        params: the arguments in order.
        return_type: the result type (``UNKNOWN`` before inference).
        blocks: basic blocks; ``blocks[0]`` is the entry block.
        loc: the ``def`` line.
        source_name: the Python name of the function.
        exported: an entry point of the artifact.
    """

    name: str
    params: list[Argument] = field(default_factory=list)
    return_type: Type = UNKNOWN
    blocks: list[Block] = field(default_factory=list)
    loc: Loc = UNKNOWN_LOC
    source_name: str = ""
    exported: bool = False
    #: ``add_block``'s memo: (the blocks list it saw, its length, its last block, the
    #: labels in it, the next suffix to try per label); rebuilt whenever any differs
    _labels: tuple[list[Block], int, Block | None, set[str], dict[str, int]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def entry(self) -> Block:
        """The entry block."""
        return self.blocks[0]

    def add_block(self, label: str) -> Block:
        """Create a block with a label unique in this function, append it, return it.

        The label is ``label``, or ``label.N`` with the least N free. Amortised O(1):
        the labels in use are remembered between calls (and recomputed when the block
        list was changed by other means), so building a function of B blocks is O(B).
        """
        blocks = self.blocks
        last = blocks[-1] if blocks else None
        memo = self._labels
        if memo is None or memo[0] is not blocks or memo[1] != len(blocks) or memo[2] is not last:
            memo = (blocks, len(blocks), last, {b.label for b in blocks}, {})
        taken, tried = memo[3], memo[4]
        unique = label
        if unique in taken:
            n = tried.get(label, 1)
            while f"{label}.{n}" in taken:
                n += 1
            tried[label] = n
            unique = f"{label}.{n}"
        block = Block(unique, function=self)
        blocks.append(block)
        taken.add(unique)
        self._labels = (blocks, len(blocks), block, taken, tried)
        return block

    def instructions(self) -> Iterator[Instruction]:
        """All instructions, block by block."""
        for block in self.blocks:
            yield from block.instructions

    def predecessors(self) -> dict[Block, list[Block]]:
        """Map each block to its predecessors (with multiplicity for duplicate edges)."""
        preds: dict[Block, list[Block]] = {b: [] for b in self.blocks}
        for b in self.blocks:
            for s in b.successors():
                preds[s].append(b)
        return preds

    def uses(self) -> dict[Value, list[Instruction]]:
        """Use lists: value -> instructions using it (a use-def chain, computed fresh)."""
        out: dict[Value, list[Instruction]] = {}
        for inst in self.instructions():
            for v in inst.operands():
                out.setdefault(v, []).append(inst)
        return out

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Replace every use of ``old`` in the function by ``new``."""
        for inst in self.instructions():
            inst.replace_operand(old, new)


@dataclass(eq=False)
class Module:
    """A compilation unit: functions by name, in insertion order.

    Attributes:
        name: module name (source file stem).
        functions: symbol name -> function.
        source_file: the path given to the compiler (relative paths stay relative).
    """

    name: str
    functions: dict[str, Function] = field(default_factory=dict)
    source_file: str = ""

    def add(self, func: Function) -> Function:
        """Add ``func``; its name must be new."""
        if func.name in self.functions:
            raise ValueError(f"function {func.name!r} already in module {self.name!r}")
        self.functions[func.name] = func
        return func
