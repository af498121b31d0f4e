"""The kinds of AD rules (:data:`.registry.AD_RULES` holds one per operation class).

A rule is one object per operation class. Every rule says what the reverse sweep must
have of the forward values (:meth:`Rule.needs`, from a declarative :class:`Keep`) and how
forward mode differentiates the operation (:meth:`Rule.jvp`). Scalar rules
(:class:`ScalarRule`) also give the adjoint (:meth:`ScalarRule.transpose`), in one of
three kinds, after JAX's ``deflinear``/``defjvp`` split:

* :class:`Linear`: linear in its operands with constant coefficients (``add``, ``sub``,
  ``neg``); the JVP and the transpose both follow from the coefficients;
* :class:`Smooth`: a nonlinear operation given by its partial derivatives (``mul``,
  ``pow``, each ``math`` function), written with :class:`.algebra.RuleOps`;
* :class:`Choice`: the result is one of the operands (``min``, ``max``, ``select``): the
  tangent or adjoint of the operand picked.

Operations that move derivatives between memory, tuple elements or callees (loads,
stores, calls, tuples; :mod:`.arrays`, :mod:`.control`) are :class:`SweepRule` objects:
their JVP and their adjoint are functions of the sweep they run in (:class:`ForwardSweep`,
:class:`ReverseSweep`: the shadows and adjoint variables they move are the sweep's).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Block, Instruction, Value
from gradc.compiler.ir.types import ScalarType
from gradc.passes.ad.rules.algebra import RuleOps, make_ops

if TYPE_CHECKING:  # the reverse sweep's state; those modules import the rules
    from gradc.passes.ad.adjoints import Adjoints
    from gradc.passes.ad.sweep_state import Primal, Shadows

Active = Callable[[Value], bool]
"""Does a value carry a derivative (an active value of the function)?"""

Accumulate = Callable[[Value, Value], None]
"""Add a contribution (second) to the adjoint of an operand (first) of the instruction."""

Partials = list[tuple[Value, Value | None]]
"""``[(operand, ∂result/∂operand)]``; None as a partial means zero."""


class NotDifferentiable(Exception):
    """No derivative rule exists for this construct (the message names it)."""


# -- what the tape keeps -------------------------------------------------------------


@dataclass(frozen=True)
class Keep:
    """Which forward values an adjoint rule reads: the reverse sweep has them (taped,
    recomputed or rebuilt, :mod:`..taping`) where it applies the rule.

    Attributes:
        operands: positions (in ``inst.operands()``) of the operands read.
        result: the result is read.
        partners: each operand of a product is read where the *other* one is active
            (``a * b``: ``ā·b`` to ``a``, ``ā·a`` to ``b``).
        result_if_active: the result is read only where the operand at this position is
            active (``a ** b``: ``r·ln a`` to ``b``).
        only_if_active: nothing is read unless the operand at this position is active
            (``fmod(x, y)``: ``−trunc(x/y)`` to ``y`` reads both, ``1`` to ``x`` nothing).
    """

    operands: tuple[int, ...] = ()
    result: bool = False
    partners: bool = False
    result_if_active: int | None = None
    only_if_active: int | None = None

    def values(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        """``(operands read, is the result read?)`` for ``inst``."""
        args = inst.operands()
        if self.only_if_active is not None and not active(args[self.only_if_active]):
            return [], False
        kept = [args[i] for i in self.operands]
        if self.partners:
            a, b = args
            kept += [x for x, partner in ((b, a), (a, b)) if active(partner)]
        result = self.result
        if self.result_if_active is not None:
            result = result or active(args[self.result_if_active])
        return kept, result


#: Nothing: the adjoint of a linear operation reads no forward value.
KEEP_NOTHING = Keep()


def default_needs(inst: Instruction) -> tuple[list[Value], bool]:
    """What the reverse sweep keeps of an operation without a rule: its scalar operands
    and its result (its adjoint then fails with :class:`NotDifferentiable`, at its line)."""
    return [v for v in inst.operands() if isinstance(v.type, ScalarType)], True


class Rebuild(Enum):
    """Can the reverse sweep rebuild an operation's forward value from its operands
    instead of taping it (:mod:`..taping`, where its operands come without a push)?
    Only cheap pure operations can."""

    NEVER = "never"
    """Taped (or hoisted) when needed."""
    SCALAR = "scalar"
    """Rebuilt when its result is a scalar (integer arithmetic, casts, comparisons,
    float ``add``, ``sub``, ``mul``, ``neg``)."""
    INTEGER = "integer"
    """Rebuilt when its result is an integer or a bool (float ``//``, ``min``... are not
    cheap enough)."""
    SCALAR_TUPLE = "scalar tuple"
    """Rebuilt when its result is a scalar or a tuple of scalars (tuple accesses)."""
    ALWAYS = "always"
    """Always rebuilt (array dimensions)."""
    RELOAD = "reload"
    """A load: loaded again where no write can reach the element before the reverse sweep
    (:class:`..memory.MemoryFacts`)."""


# -- rule kinds ----------------------------------------------------------------------


class ForwardSweep(Protocol):
    """What a JVP rule may ask of the forward-mode sweep (:mod:`..forward`)."""

    @property
    def b(self) -> Builder:
        """The builder, placed after the primal instruction, at its location."""
        ...

    def tangent(self, v: Value) -> Value:
        """The tangent of ``v``: a zero of its type where ``v`` is inactive."""
        ...

    def known_tangent(self, v: Value) -> Value | None:
        """The tangent of ``v``, or None where it has none (inactive)."""
        ...

    def must_have_tangent(self, v: Value) -> bool:
        """Is ``v`` active in reachable code (so a missing tangent is a bug)?"""
        ...

    def call_jvp(self, call: ops.Call) -> Value | None:
        """Replace ``call`` by a call of the callee's JVP; the result's tangent."""
        ...


class BlockState(Protocol):
    """The reverse of one forward block while the reverse sweep builds it (an adjoint
    hands it back to the :class:`ReverseSweep` methods that take it)."""

    popped: dict[Value, Value]
    """Forward value -> its copy in the reverse sweep (popped, reloaded or recomputed)."""
    selected: dict[Value, Value]
    """Alias -> its shadow, rebuilt from the popped selector."""


class ReverseSweep(Protocol):
    """What the adjoint of a :class:`SweepRule` may ask of the reverse sweep
    (:mod:`..reverse_sweep`), where it emits the adjoint of one forward instruction."""

    @property
    def p(self) -> Primal:
        """The function being differentiated (its activity, module and callees)."""
        ...

    @property
    def b(self) -> Builder:
        """The builder, at the adjoint's place in the reverse block, at its location."""
        ...

    @property
    def adjoints(self) -> Adjoints:
        """The adjoint variables (read, reset, accumulate)."""
        ...

    @property
    def shadows(self) -> Shadows:
        """Where the shadow of each active array lives."""
        ...

    @property
    def tape(self) -> Value:
        """The reverse function's tape parameter."""
        ...

    def current(self) -> Block:
        """The reverse block the builder is in."""
        ...

    def shadow(self, state: BlockState, array: Value) -> Value:
        """The shadow of forward array ``array`` in the reverse sweep."""
        ...

    def address(self, state: BlockState, pointer: Value) -> Value:
        """The shadow element of forward element address ``pointer``."""
        ...


class Rule(ABC):
    """The derivative of one operation class (registered in :data:`.registry.AD_RULES`).

    Attributes:
        rebuild: whether the reverse sweep may rebuild the operation's value instead of
            taping it.
    """

    rebuild: Rebuild = Rebuild.NEVER

    @abstractmethod
    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        """``(operands, result?)``: the forward values the adjoint of ``inst`` reads."""

    @abstractmethod
    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        """Emit the tangent of ``inst``'s result (None: no tangent, as for a store).

        Raises:
            NotDifferentiable: no rule for this instance (a ``math`` function without one).
        """


class ScalarRule(Rule):
    """A rule whose adjoint maps the result's adjoint to its operands' adjoints."""

    @abstractmethod
    def transpose(
        self,
        o: RuleOps,
        inst: Instruction,
        ct: Value,
        result: Value,
        active: Active,
        accumulate: Accumulate,
    ) -> None:
        """Emit ``ct·∂r/∂x`` for the operands ``x`` of ``inst`` and hand each to
        ``accumulate(x, contribution)``.

        ``inst`` holds, as operands, the forward values where the sweep has them (the
        ones :meth:`needs` asks for); ``result`` is the forward result where needed.
        """


class _FromPartials(ScalarRule):
    """JVP ``Σ ẋ·∂r/∂x`` and adjoint ``ā·∂r/∂x`` from :meth:`partials`, with a strong
    zero (:meth:`.algebra.RuleOps.scale`)."""

    keep: Keep

    @abstractmethod
    def partials(self, o: RuleOps, inst: Instruction, active: Active, result: Value) -> Partials:
        """``[(operand, ∂result/∂operand)]`` (None: zero)."""

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        return self.keep.values(inst, active)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        o = make_ops(sweep.b)

        def has_tangent(v: Value) -> bool:
            return sweep.known_tangent(v) is not None

        total: Value | None = None
        for operand, partial in self.partials(o, inst, has_tangent, inst):
            dv = sweep.known_tangent(operand)
            if partial is not None and dv is not None:
                total = o.add(total, o.scale(dv, partial, active_p=has_tangent(partial)))
        return total if total is not None else o.c(0.0, inst)  # all partials zero

    def transpose(
        self,
        o: RuleOps,
        inst: Instruction,
        ct: Value,
        result: Value,
        active: Active,
        accumulate: Accumulate,
    ) -> None:
        for operand, partial in self.partials(o, inst, active, result):
            if partial is None or not active(operand):
                continue
            accumulate(operand, o.scale(ct, partial, active(partial), adjoint=True))


@dataclass(frozen=True)
class Linear(_FromPartials):
    """A linear operation: ``r = Σ cᵢ·xᵢ`` (JAX's ``deflinear``): its JVP is the same
    combination of the tangents, its transpose ``cᵢ·ā`` to each operand."""

    coefficients: tuple[float, ...]
    keep: Keep = KEEP_NOTHING
    rebuild: Rebuild = Rebuild.SCALAR

    def partials(self, o: RuleOps, inst: Instruction, active: Active, result: Value) -> Partials:
        return [(x, o.c(c, result)) for x, c in zip(inst.operands(), self.coefficients)]


PartialsFn = Callable[[RuleOps, Instruction, Active, Value], Partials]
"""``(ops, inst, active, result) -> [(operand, partial)]``."""


@dataclass(frozen=True)
class Smooth(_FromPartials):
    """A nonlinear operation given by its partial derivatives (JAX's ``defjvp``).

    Attributes:
        rule: ``(ops, inst, active, r) -> [(operand, ∂r/∂operand)]``; ``r`` is the result
            where the rule is built (the forward value in the reverse sweep).
        keep: the forward values ``rule`` reads in the reverse sweep.
        rebuild: see :class:`Rebuild`.
    """

    rule: PartialsFn
    keep: Keep
    rebuild: Rebuild = Rebuild.NEVER

    def partials(self, o: RuleOps, inst: Instruction, active: Active, result: Value) -> Partials:
        return self.rule(o, inst, active, result)


PickFn = Callable[[RuleOps, Instruction], tuple[Value, Value, Value]]
"""``(ops, inst) -> (cond, picked if cond, picked otherwise)``."""


@dataclass(frozen=True)
class Choice(ScalarRule):
    """The result is one of two operands, picked by a condition: its tangent is that
    operand's, the adjoint goes to that operand (the other gets 0).

    Attributes:
        pick: ``(ops, inst) -> (cond, picked if cond, picked otherwise)``.
        keep: the forward values ``pick`` reads.
        rebuild: see :class:`Rebuild`.
    """

    pick: PickFn
    keep: Keep
    rebuild: Rebuild = Rebuild.NEVER

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        return self.keep.values(inst, active)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        cond, x, y = self.pick(make_ops(sweep.b), inst)
        return sweep.b.select(cond, sweep.tangent(x), sweep.tangent(y))

    def transpose(
        self,
        o: RuleOps,
        inst: Instruction,
        ct: Value,
        result: Value,
        active: Active,
        accumulate: Accumulate,
    ) -> None:
        cond, x, y = self.pick(o, inst)
        zero = o.c(0.0, ct)
        contributions = ((x, o.b.select(cond, ct, zero)), (y, o.b.select(cond, zero, ct)))
        for operand, contribution in contributions:
            accumulate(operand, contribution)


JvpFn = Callable[[ForwardSweep, Instruction], Value | None]
"""``(sweep, inst) -> tangent of inst`` (None: no tangent)."""

AdjointFn = Callable[[ReverseSweep, BlockState, Instruction], None]
"""``(sweep, state, inst)``: emit the adjoint of ``inst`` at the sweep's insertion point
(``state``: the reverse of ``inst``'s block)."""


@dataclass(frozen=True)
class SweepRule(Rule):
    """An operation that moves derivatives between memory, tuple elements or callees
    (loads, stores, array copies, calls, tuples, casts): its JVP is ``tangent`` and its
    adjoint ``adjoint``, both written against the sweep they run in, since the tangents,
    shadows and adjoint variables they move are the sweep's.

    Attributes:
        tangent: the JVP.
        adjoint: the adjoint, applied by the reverse sweep (:mod:`..reverse_sweep`).
        keep: the scalar forward values its adjoint reads (array indices and shadows
            are planned by the reverse sweep).
        rebuild: see :class:`Rebuild`.
    """

    tangent: JvpFn
    adjoint: AdjointFn
    keep: Keep = KEEP_NOTHING
    rebuild: Rebuild = Rebuild.NEVER

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        return self.keep.values(inst, active)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        return self.tangent(sweep, inst)


@dataclass(frozen=True)
class Refused(Rule):
    """An operation only derivative code and the passes after AD make (the tape, shadow
    accumulation, reference counts, decayed pointers): nothing differentiates it, and an
    active value reaching it is a compile-time error (:func:`..activity.check_rules_exist`)
    rather than a derivative silently dropped."""

    def refusal(self, inst: Instruction) -> NotDifferentiable:
        """The error naming ``inst``'s operation, with ``inst`` attached."""
        exc = NotDifferentiable(f"'{inst.OPNAME}' (derivative code)")
        exc.inst = inst  # type: ignore[attr-defined]
        return exc

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        raise self.refusal(inst)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        raise self.refusal(inst)


@dataclass(frozen=True)
class ForwardOnly(Refused):
    """Derivative code that forward mode differentiates but reverse mode refuses: the tape
    and shadow accumulation, met by ``gradc.jvp`` of a reverse-mode derivative
    (forward-over-reverse, :mod:`.derivative_code`).

    Attributes:
        tangent: the JVP.
    """

    tangent: JvpFn

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        return self.tangent(sweep, inst)


@dataclass(frozen=True)
class NoDerivative(Rule):
    """An operation that carries no derivative: its result is never active (a comparison,
    ``not``, an array dimension), or it has no rule yet (float ``%``: differentiating
    through it is a compile-time error naming it). Registered for what the tape planner
    knows of it (:attr:`Rule.rebuild`).
    """

    rebuild: Rebuild = Rebuild.NEVER

    def needs(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        return default_needs(inst)

    def jvp(self, sweep: ForwardSweep, inst: Instruction) -> Value | None:
        raise NotDifferentiable(type(inst).OPNAME)
