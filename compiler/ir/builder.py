"""The IR builder: the only way passes and the front end create instructions.

A builder has an insertion point (a block; new instructions go at its end, or before an
anchor instruction) and a current source location, given to every instruction it makes::

    b = Builder(func)
    b.position_at_end(func.entry)
    with b.at(loc):
        s = b.add(x, y)            # %s = add %x, %y : f64   (type of x)
    with b.if_then(cond):          # structured control flow for passes
        b.raise_("ValueError", "negative")
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Value
from gradc.compiler.ir.loc import UNKNOWN_LOC, Loc
from gradc.compiler.ir.types import F64, I1, UNKNOWN, ScalarType, TupleType, Type


class Builder:
    """Creates instructions at an insertion point with a current location.

    Args:
        function: the function being built.
    """

    def __init__(self, function: Function) -> None:
        self.function = function
        self.block: Block | None = None
        self._anchor: Instruction | None = None
        self.loc: Loc = UNKNOWN_LOC

    # -- insertion point ----------------------------------------------------------

    def position_at_end(self, block: Block) -> None:
        """Insert new instructions at the end of ``block``."""
        self.block = block
        self._anchor = None

    def position_before(self, inst: Instruction) -> None:
        """Insert new instructions just before ``inst``."""
        assert inst.block is not None
        self.block = inst.block
        self._anchor = inst

    @contextmanager
    def at(self, loc: Loc) -> Iterator[None]:
        """Use ``loc`` as the location of instructions made inside the ``with``."""
        saved = self.loc
        self.loc = loc
        try:
            yield
        finally:
            self.loc = saved

    def insert(self, inst: Instruction) -> Instruction:
        """Place ``inst`` at the insertion point, stamping the current location."""
        if self.block is None:
            raise RuntimeError("builder has no insertion point")
        if inst.loc is UNKNOWN_LOC:
            inst.loc = self.loc
        if self._anchor is not None:
            self.block.insert_before(self._anchor, inst)
        elif inst.OPNAME == "phi":
            self.block.insert(len(self.block.phis()), inst)
        else:
            self.block.append(inst)
        return inst

    def new_block(self, label: str) -> Block:
        """A new, empty block in the function (the insertion point does not move)."""
        return self.function.add_block(label)

    @property
    def terminated(self) -> bool:
        """True when the current block already ends in a terminator."""
        return self.block is not None and self.block.terminator is not None

    # -- values -------------------------------------------------------------------

    def const(self, value: int | float | bool, type: ScalarType) -> ops.Const:
        """A constant of scalar ``type``."""
        return self.insert(ops.Const(value, type=type))  # type: ignore[return-value]

    def cast(self, value: Value, to: Type) -> Value:
        """``value`` converted to ``to``; returns ``value`` itself when already ``to``."""
        if value.type == to:
            return value
        return self.insert(ops.Cast(value, type=to))

    def binary(self, cls: type[ops.BinaryOp], lhs: Value, rhs: Value) -> Value:
        """A binary arithmetic operation typed like ``lhs``."""
        return self.insert(cls(lhs, rhs, type=lhs.type))

    def add(self, lhs: Value, rhs: Value) -> Value:
        """``lhs + rhs``."""
        return self.binary(ops.Add, lhs, rhs)

    def sub(self, lhs: Value, rhs: Value) -> Value:
        """``lhs - rhs``."""
        return self.binary(ops.Sub, lhs, rhs)

    def mul(self, lhs: Value, rhs: Value) -> Value:
        """``lhs * rhs``."""
        return self.binary(ops.Mul, lhs, rhs)

    def div(self, lhs: Value, rhs: Value) -> Value:
        """``lhs / rhs`` (floats)."""
        return self.binary(ops.Div, lhs, rhs)

    def unary(self, cls: type[ops.UnaryOp], operand: Value) -> Value:
        """A unary operation typed like ``operand`` (``i1`` for ``not``)."""
        t = I1 if cls is ops.Not else operand.type
        return self.insert(cls(operand, type=t))

    def cmp(self, pred: str, lhs: Value, rhs: Value) -> Value:
        """``lhs <pred> rhs`` as ``i1``; ``pred`` is an ``ops.CmpPred`` (or its value).

        Raises:
            ValueError: ``pred`` is not a predicate.
        """
        return self.insert(ops.Cmp(ops.CmpPred(pred), lhs, rhs, type=I1))

    def select(self, cond: Value, if_true: Value, if_false: Value) -> Value:
        """``if_true if cond else if_false``."""
        return self.insert(ops.Select(cond, if_true, if_false, type=if_true.type))

    def math(self, fn: str, *args: Value) -> Value:
        """A ``math`` function call (``f64`` result, ``i1`` for the ``is*`` tests);
        ``fn`` is an ``ops.MathName`` (or its value).

        Raises:
            ValueError: ``fn`` is not a function the IR knows.
        """
        name = ops.MathName(fn)
        t = I1 if ops.MATH_FUNCTIONS[name].returns_bool else F64
        return self.insert(ops.MathCall(name, tuple(args), type=t))

    def call(self, callee: str, args: list[Value], result: Type = UNKNOWN) -> Value:
        """A call of module function ``callee``."""
        return self.insert(ops.Call(callee, tuple(args), type=result))

    def make_tuple(self, elements: list[Value]) -> Value:
        """A tuple of ``elements``."""
        t = TupleType(tuple(e.type for e in elements))
        return self.insert(ops.MakeTuple(tuple(elements), type=t))

    def tuple_get(self, tup: Value, index: int) -> Value:
        """Element ``index`` of tuple value ``tup`` (the element itself when ``tup`` is a
        ``MakeTuple``: ``np.meshgrid(x, y)[0]`` leaves no tuple to differentiate)."""
        if isinstance(tup, ops.MakeTuple) and 0 <= index < len(tup.elements):
            return tup.elements[index]
        t = tup.type.elements[index] if isinstance(tup.type, TupleType) else UNKNOWN
        return self.insert(ops.TupleGet(tup, index, type=t))

    def phi(self, type: Type = UNKNOWN, name: str | None = None) -> ops.Phi:
        """An empty phi at the head of the current block; fill ``incoming`` later."""
        return self.insert(ops.Phi(type=type, name=name))  # type: ignore[return-value]

    # -- terminators --------------------------------------------------------------

    def jump(self, target: Block) -> Instruction:
        """``br ^target``."""
        return self.insert(ops.Jump(target))

    def branch(self, cond: Value, if_true: Block, if_false: Block) -> Instruction:
        """``condbr cond, ^if_true, ^if_false``."""
        return self.insert(ops.Branch(cond, if_true, if_false))

    def ret(self, value: Value | None) -> Instruction:
        """``ret value``."""
        return self.insert(ops.Return(value))

    def raise_(self, exception: str, message: str) -> Instruction:
        """``raise exception(message)``; ``exception`` is an ``ops.ExceptionKind`` (or
        its value).

        Raises:
            ValueError: ``exception`` is not an exception kind.
        """
        return self.insert(ops.Raise(ops.ExceptionKind(exception), message))

    def raise_format(self, exception: str, template: str, values: list[Value]) -> Instruction:
        """``raise exception(template.format(*values))`` (:class:`ops.RaiseFormat`).

        Raises:
            ValueError: ``exception`` is not an exception kind.
        """
        return self.insert(ops.RaiseFormat(ops.ExceptionKind(exception), template, tuple(values)))

    # -- structured control flow ----------------------------------------------------

    @contextmanager
    def if_then(self, cond: Value, label: str = "if") -> Iterator[Block]:
        """Emit ``if cond: <body>``; the body is built inside the ``with``.

        After the ``with`` the insertion point is the join block. A body that ends in a
        terminator (a raise) does not fall through.
        """
        then = self.new_block(f"{label}.then")
        join = self.new_block(f"{label}.end")
        self.branch(cond, then, join)
        self.position_at_end(then)
        yield then
        if not self.terminated:
            self.jump(join)
        self.position_at_end(join)
