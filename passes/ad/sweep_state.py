"""What the two sweeps of one reverse-mode derivation share (:mod:`.reverse`).

* :class:`Primal`: the function being differentiated as both sweeps read it — the
  forward clone, its blocks and instructions before instrumentation, its activity;
* :class:`Shadows`: where the shadow of each active array lives;
* :class:`Derived`: the result, the two functions and their interface.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.types import (
    NoneType,
    Type,
    python_name,
)
from gradc.passes.ad.activity import Activity
from gradc.passes.ad.rules import NotDifferentiable

#: An adjoint variable: a forward value and an element index (tuple elements have their
#: own adjoints; 0 for a scalar).
AdjKey = tuple[Value, int]


@dataclass
class Derived:
    """The two functions of a reverse-mode derivative and their interface.

    Attributes:
        fwd: the augmented forward sweep ``f.fwd.<variant>(params..., tape) -> result``.
        rev: the reverse sweep ``f.rev.<variant>(shadows..., tape, adjoint) ->
            tuple[adjoints]``.
        array_params: the active array parameters, whose shadows ``rev`` takes in order.
        scalar_params: the active scalar parameters, whose adjoints ``rev`` returns in
            order.
    """

    fwd: Function
    rev: Function
    array_params: list[int]
    scalar_params: list[int]


@dataclass(eq=False)
class Primal:
    """The function being differentiated, as both sweeps read it.

    Attributes:
        module: the module the derived functions are added to.
        fwd: the clone of the function that becomes the forward sweep (critical edges
            split; its last parameter is ``tape``).
        rev: the reverse sweep under construction.
        activity: the active values of ``fwd``.
        tape: ``fwd``'s tape parameter.
        arrays: the active array parameters (their shadows are ``rev``'s parameters).
        scalars: the active scalar parameters (``rev`` returns their adjoints).
        c_shadows: the caller passes C-contiguous shadows.
        source_name: the user's name of the function, for error messages.
        blocks: ``fwd``'s blocks before instrumentation.
        body: each block's instructions before instrumentation.
        preds: each block's predecessors.
        returning: the blocks from which a return is reachable; the others end in an
            error exit (``raise``, a failed ``assert``, a zero ``range`` step): the call
            raises there, so their reverse never runs and they need nothing on the tape.
        callee: the two sweeps of the callee of an active call (memoised).
        private: in a kernel's derivation (:mod:`.kernels`), whether the shadow element
            a load's adjoint goes to is touched by this thread only; the others are added
            atomically (other threads may add to them at the same time). None outside
            kernels: plain accumulation.
        global_arrays: in a kernel's derivation, the positions of ``fwd``'s array
            parameters in CUDA global memory (the kernel's own, not a callee's): the
            atomic add of a load's adjoint into their shadows is ``{global_memory}``.
    """

    module: Module
    fwd: Function
    rev: Function
    activity: Activity
    tape: Argument
    arrays: list[int]
    scalars: list[int]
    c_shadows: bool
    source_name: str
    blocks: list[Block]
    body: dict[Block, list[Instruction]]
    preds: dict[Block, list[Block]]
    returning: set[Block]
    callee: Callable[[ops.Call], Derived]
    private: Callable[[Instruction], bool] | None = None
    global_arrays: frozenset[int] = frozenset()

    def active(self, v: Value) -> bool:
        """Does ``v`` carry a derivative?"""
        return v in self.activity.active

    def differentiated(self, inst: Instruction) -> bool:
        """Does ``inst`` get adjoint code? An active instruction does, and so does a call
        with active operands whose own result is inactive or None: its callee may write
        active values into an array argument (side effects on active memory)."""
        return self.active(inst) or inst in self.activity.call_patterns

    def return_blocks(self) -> list[Block]:
        """The blocks that end in ``ret``, in block order."""
        return [blk for blk in self.blocks if returns(blk)]


@dataclass(eq=False)
class Shadows:
    """Where the shadow of each active array lives (Enzyme's ``Duplicated``).

    Attributes:
        shadows: array value -> its shadow. For a local array, a forward value (a zeroed
            array, pushed for the reverse sweep); for a parameter, the reverse function's
            shadow parameter; for an alias that local arrays reach (an array phi or
            cast), the phi or cast of their shadows.
        selectors: aliases that parameters reach -> their *selector*, a forward ``i64``:
            the index of the parameter the alias is, or -1 for a local array.
        alias_params: those aliases -> the parameters that reach them, by index.
        views: views of a parameter (through views only): the reverse sweep rebuilds
            their shadows, the same view of the parameter's shadow (passes/ad/views.py).
    """

    shadows: dict[Value, Value] = field(default_factory=dict)
    selectors: dict[Value, Value] = field(default_factory=dict)
    alias_params: dict[Value, list[Argument]] = field(default_factory=dict)
    views: set[Value] = field(default_factory=set)


def user_type_name(t: Type) -> str:
    """``t`` as the user writes it (``bool``, ``None``, ``f64[:]``)."""
    return "None" if isinstance(t, NoneType) else python_name(t)


def returns(block: Block) -> bool:
    """Does ``block`` end in ``ret``?"""
    return isinstance(block.terminator, ops.Return)


def not_differentiable(what: str, where: Value) -> NotDifferentiable:
    """The error for construct ``what`` at ``where`` (its location is reported)."""
    exc = NotDifferentiable(what)
    exc.inst = where  # type: ignore[attr-defined]
    return exc
