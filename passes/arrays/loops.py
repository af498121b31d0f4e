"""The loop-nest builder of ``lower-arrays``: what every array lowering rule uses.

A rule gets an :class:`ArrayLowering` whose builder ``b`` is at the end of the block that
held the operation, the rest of that block already moved to a continuation block (the
pass jumps there when the rule returns). The rule

- asks for shapes: :meth:`~ArrayLowering.dims` (an array's sizes; a fused producer's
  broadcast shape, checked where the producer was), :meth:`~ArrayLowering.broadcast`
  (NumPy's broadcast of several operands, raising NumPy's ValueError);
- prepares the operands it reads, before its loops: :meth:`~ArrayLowering.operand`
  gives a :class:`Reader`, whose ``at(index)`` emits, inside a loop, the scalar value of
  the operand at an output index (size-1 axes read at 0; a scalar is itself; a fused
  producer chain is computed right there, with no temporary array);
- emits counted loops: ``with lw.loop_nest(extents) as index:`` (row-major, the last
  extent innermost; ``lw.b`` is inside the body, after the ``with`` after the nest);
- allocates its result with :meth:`~ArrayLowering.new_array` and writes it with
  :meth:`~ArrayLowering.store`; it returns the value replacing the operation.

Example (a rule of ``lower-arrays``, ``np.negative(x)`` for a 2-D ``x``)::

    def lower(lw: ArrayLowering, inst: Instruction) -> Value | None:
        dims = lw.broadcast(list(inst.args))
        out = lw.new_array(inst.type, dims)
        x = lw.operand(inst.args[0], len(dims))
        with lw.loop_nest(dims) as index:
            lw.store(out, index, lw.b.unary(ops.Neg, x.at(index)))
        return out
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from gradc.compiler.ir import broadcasting, ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Block, Function, Instruction, Value
from gradc.compiler.ir.types import I64, NONE, ArrayType, PointerType, ScalarType, Type


class Reader(Protocol):
    """An operand prepared for reading inside a loop nest."""

    def at(self, index: Sequence[Value]) -> Value:
        """The operand's scalar at output ``index`` (one ``i64`` per output axis),
        emitted at the lowering's builder."""
        ...


@dataclass
class ArrayLowering:
    """The state of ``lower-arrays`` in one function, handed to every rule.

    Attributes:
        function: the function being lowered.
        b: the builder rules emit with (its location is the operation's).
        fused: producers computed inside their one consumer instead of materialised.
        shapes: the sizes of each array value, read once where it is defined (an array
            never changes shape, so one read serves every later use), and the checked
            broadcast shape of each fused producer, computed where the producer was.
    """

    function: Function
    b: Builder
    fused: set[Instruction] = field(default_factory=set)
    shapes: dict[Value, list[Value]] = field(default_factory=dict)
    #: the 0/1 factors of the axes that may stretch, of the operands prepared for the
    #: operation being lowered (:meth:`for_each` versions its loops on them)
    moves: list[Value] = field(default_factory=list)
    #: emitting the version of the loops where no axis stretches
    unstretched: bool = False
    _consts: dict[tuple[object, Type], Value] = field(default_factory=dict)

    # -- shapes ---------------------------------------------------------------------

    def dims(self, v: Value) -> list[Value]:
        """The sizes of array ``v`` (``i64``), read right after ``v`` is defined the
        first time they are asked for (so the same values serve every operation)."""
        known = self.shapes.get(v)
        if known is not None:
            return known
        t = v.type
        assert isinstance(t, ArrayType), f"dims of a non-array {t}"
        aside = Builder(self.function)
        if isinstance(v, Instruction) and v.OPNAME != "phi":
            assert v.block is not None
            insts = v.block.instructions
            aside.position_before(insts[insts.index(v) + 1])
        else:
            block = v.block if isinstance(v, Instruction) else self.function.entry
            assert block is not None
            aside.position_before(block.instructions[len(block.phis())])
        aside.loc = self.b.loc
        dims: list[Value] = [aside.insert(ops.ArrayDim(v, k, type=I64)) for k in range(t.ndim)]
        self.shapes[v] = dims
        return dims

    def const(self, value: int | float | bool, t: ScalarType) -> Value:
        """The constant ``value`` of type ``t``, made once at the function's entry."""
        key = (value, t)
        known = self._consts.get(key)
        if known is None or (isinstance(value, float) and value != value):
            entry = self.function.entry
            aside = Builder(self.function)
            aside.position_before(entry.instructions[len(entry.phis())])
            known = self._consts[key] = aside.const(value, t)
        return known

    def broadcast(self, operands: Sequence[Value], out: Value | None = None) -> list[Value]:
        """The broadcast shape of ``operands`` (arrays and scalars) and, for an in-place
        operation, its output ``out`` (last); raises NumPy's ValueError where they do not
        broadcast, and where the shape is not ``out``'s (the messages of
        :mod:`gradc.compiler.ir.broadcasting`)."""
        values = [*operands, out] if out is not None else list(operands)
        shapes: list[list[Value] | None] = [
            self.dims(v) if isinstance(v.type, ArrayType) else None for v in values
        ]
        rank = max(len(s) for s in shapes if s is not None)
        result: list[Value] = []
        for axis in range(-1, -rank - 1, -1):
            size: Value | None = None
            for s in shapes:
                if s is None or len(s) < -axis:
                    continue
                d = s[axis]
                if size is None or d is size:
                    size = d if size is None else size
                    continue
                self._check_pair(size, d, shapes, axis)
                size = self.b.select(self.b.cmp("ne", d, self._one()), d, size)
            assert size is not None
            result.insert(0, size)
        if out is not None:
            self._check_output(self.dims(out), result)
        return result

    def _one(self) -> Value:
        return self.const(1, I64)

    def _check_pair(
        self, size: Value, d: Value, shapes: list[list[Value] | None], axis: int
    ) -> None:
        b = self.b
        one = self._one()
        bad = b.binary(
            ops.BitAnd,
            b.binary(ops.BitAnd, b.cmp("ne", d, one), b.cmp("ne", size, one)),
            b.cmp("ne", size, d),
        )
        template, full = broadcasting.mismatch_template(
            [None if s is None else len(s) for s in shapes], axis
        )
        fields = [x for s in shapes if s is not None for x in s] if full else [size, d]
        with b.if_then(bad, "broadcast.error"):
            b.raise_format("ValueError", template, fields)

    def _check_output(self, out: list[Value], shape: list[Value]) -> None:
        b = self.b
        for axis in range(-1, -len(out) - 1, -1):
            if out[axis] is shape[axis]:
                continue
            template, full = broadcasting.output_template(len(out), axis)
            fields = [*out, *shape] if full else [out[axis], shape[axis]]
            with b.if_then(b.cmp("ne", out[axis], shape[axis]), "broadcast.error"):
                b.raise_format("ValueError", template, fields)

    # -- operands -------------------------------------------------------------------

    def operand(self, v: Value, out_dims: Sequence[Value]) -> Reader:
        """``v`` prepared for reading at indices of an output of sizes ``out_dims``
        (emitted here, before the loops): a scalar reads itself, an array its element
        (a size-1 axis at index 0, axes aligned at the last), a fused producer its
        element computed from its own operands' (the ARRAY_LOWERING table's fusion)."""
        if not isinstance(v.type, ArrayType):
            return _Scalar(v)
        if v in self.fused:
            from gradc.passes.arrays.table import ARRAY_LOWERING  # its rules import this

            assert isinstance(v, Instruction)
            read = ARRAY_LOWERING.lookup(v).read
            assert read is not None, f"fused {v.OPNAME} without a reader"
            return read(self, v, out_dims)
        dims = self.dims(v)
        offset = len(out_dims) - len(dims)
        stretched: list[Value | None] = []
        for k, d in enumerate(dims):
            # an axis whose size is the output's (the same value) never stretches; else
            # the index times 0 (a size-1 axis) or 1: loop-invariant, no select per element
            same = d is out_dims[offset + k]
            moves = None if same else self.b.cast(self.b.cmp("ne", d, self._one()), I64)
            if moves is not None:
                self.moves.append(moves)
            stretched.append(moves)
        return _Element(self, v, offset, stretched)

    # -- loops and memory -------------------------------------------------------------

    @contextmanager
    def loop_nest(self, extents: Sequence[Value], label: str = "array") -> Iterator[list[Value]]:
        """Counted loops ``for i0 in range(extents[0]): for i1 in ...`` (the last
        innermost); inside the ``with`` the builder is in the innermost body and the
        indices are given; after it, the builder is after the nest."""
        b = self.b
        zero, one = self.const(0, I64), self._one()
        levels: list[tuple[Block, ops.Phi, Block]] = []
        for k, n in enumerate(extents):
            assert b.block is not None
            pre = b.block
            header = b.new_block(f"{label}.loop{k}")
            body = b.new_block(f"{label}.body{k}")
            done = b.new_block(f"{label}.done{k}")
            b.jump(header)
            b.position_at_end(header)
            i = b.phi(I64, name=f"i{k}")
            i.incoming.append((pre, zero))
            b.branch(b.cmp("lt", i, n), body, done)
            b.position_at_end(body)
            levels.append((header, i, done))
        yield [i for _, i, _ in levels]
        for header, i, done in reversed(levels):
            assert b.block is not None
            latch = b.block
            nxt = b.add(i, one)
            b.jump(header)
            i.incoming.append((latch, nxt))
            b.position_at_end(done)

    def for_each(
        self, extents: Sequence[Value], body: Callable[[list[Value]], None], label: str = "array"
    ) -> None:
        """``body(index)`` in a :meth:`loop_nest` over ``extents``, emitted twice when an
        operand axis may stretch: a version where none does (checked once, before the
        loops), whose indices are plain (so LLVM vectorizes it), and the general one."""
        if not self.moves:
            with self.loop_nest(extents, label) as index:
                body(index)
            return
        b = self.b
        every = self.moves[0]
        for m in self.moves[1:]:
            every = b.binary(ops.BitAnd, every, m)
        fast, general, join = (b.new_block(f"{label}.{n}") for n in ("plain", "general", "end"))
        b.branch(b.cmp("ne", every, self.const(0, I64)), fast, general)
        for block, plain in ((fast, True), (general, False)):
            b.position_at_end(block)
            self.unstretched = plain
            with self.loop_nest(extents, label) as index:
                body(index)
            self.unstretched = False
            b.jump(join)
        b.position_at_end(join)

    def new_array(self, t: Type, dims: Sequence[Value]) -> Value:
        """A new uninitialised C-contiguous array of type ``t`` and sizes ``dims``."""
        new = self.b.insert(ops.NewArray(tuple(dims), None, type=t))
        self.shapes[new] = list(dims)
        return new

    def address(self, array: Value, index: Sequence[Value]) -> Value:
        """The derived pointer to ``array[index]`` (``index`` in range: no check)."""
        t = array.type
        assert isinstance(t, ArrayType)
        pointer = ops.ElementAddr(array, tuple(index), in_range=True, type=PointerType(t.dtype))
        return self.b.insert(pointer)

    def load(self, array: Value, index: Sequence[Value]) -> Value:
        """``array[index]``."""
        t = array.type
        assert isinstance(t, ArrayType)
        return self.b.insert(ops.Load(self.address(array, index), type=t.dtype))

    def store(self, array: Value, index: Sequence[Value], value: Value) -> None:
        """``array[index] = value`` (``value`` converted to the dtype)."""
        t = array.type
        assert isinstance(t, ArrayType)
        pointer = self.address(array, index)
        self.b.insert(ops.Store(pointer, self.b.cast(value, t.dtype), type=NONE))


@dataclass
class _Scalar:
    value: Value

    def at(self, index: Sequence[Value]) -> Value:
        return self.value


@dataclass
class _Element:
    """An array read at output indices: leading output axes it lacks are dropped,
    stretched (size-1) axes read at 0 (the index times ``moves``, 0 or 1)."""

    lw: ArrayLowering
    array: Value
    offset: int
    stretched: list[Value | None]

    def at(self, index: Sequence[Value]) -> Value:
        b = self.lw.b
        own: list[Value] = []
        for k, flag in enumerate(self.stretched):
            i = index[self.offset + k]
            plain = flag is None or self.lw.unstretched
            own.append(i if plain else b.mul(i, flag))  # type: ignore[arg-type]
        return self.lw.load(self.array, own)


def element_type(v: Value) -> ScalarType:
    """The scalar type of ``v``'s elements (``v`` itself for a scalar)."""
    t = v.type
    if isinstance(t, ArrayType):
        return t.dtype
    assert isinstance(t, ScalarType)
    return t


def merge(block: Block, cont: Block) -> None:
    """Append the instructions of ``cont``, whose one predecessor is ``block`` (ending
    in a jump to it), to ``block``, and drop ``cont``."""
    jump = block.terminator
    assert jump is not None and jump.successors() == [cont]
    jump.erase()
    for m in list(cont.instructions):
        block.append(m)
    cont.instructions.clear()
    _rename_predecessor(block, cont, block)
    assert cont.function is not None
    cont.function.blocks.remove(cont)


def _rename_predecessor(block: Block, old: Block, new: Block) -> None:
    for succ in block.successors():
        for phi in succ.phis():
            assert isinstance(phi, ops.Phi)
            phi.incoming = [(new if p is old else p, v) for p, v in phi.incoming]


def split_after(inst: Instruction) -> Block:
    """Move what follows ``inst`` in its block into a new block (the continuation),
    whose successors' phis now name it; ``inst``'s block is left unterminated."""
    block = inst.block
    assert block is not None and block.function is not None
    cont = block.function.add_block(f"{block.label}.cont")
    k = block.instructions.index(inst)
    moved = block.instructions[k + 1 :]
    del block.instructions[k + 1 :]
    for m in moved:
        cont.append(m)
    _rename_predecessor(cont, block, cont)
    return cont
