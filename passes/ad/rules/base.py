"""Rule types of the AD registry, the float arithmetic rules are written with, and the
registry itself (:data:`AD_RULES`).

A rule is one object per operation class. Every rule says what the reverse sweep must
have of the forward values (:meth:`Rule.needs`, from a declarative :class:`Keep`) and how
forward mode differentiates the operation (:meth:`Rule.jvp`). Scalar rules
(:class:`ScalarRule`) also give the adjoint (:meth:`ScalarRule.transpose`), in one of
three kinds, after JAX's ``deflinear``/``defjvp`` split:

* :class:`Linear`: linear in its operands with constant coefficients (``add``, ``sub``,
  ``neg``); the JVP and the transpose both follow from the coefficients;
* :class:`Smooth`: a nonlinear operation given by its partial derivatives (``mul``,
  ``pow``, each ``math`` function), written with :class:`RuleOps`;
* :class:`Choice`: the result is one of the operands (``min``, ``max``, ``select``): the
  tangent or adjoint of the operand picked.

Operations that move derivatives between memory, tuple elements or callees (loads,
stores, calls, tuples; :mod:`.arrays`, :mod:`.control`) are :class:`SweepRule` objects:
their JVP is here, and the reverse sweep applies their adjoint itself (it owns the
shadows and adjoint variables they move).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.compiler.ir.types import ScalarType

Tangent = Callable[[Value], Value | None]
"""The tangent of a primal value, or None when it is inactive (a zero tangent)."""

Active = Callable[[Value], bool]
"""Does a value carry a derivative (an active value of the function)?"""

Accumulate = Callable[[Value, Value], None]
"""Add a contribution (second) to the adjoint of an operand (first) of the instruction."""

Partials = list[tuple[Value, Value | None]]
"""``[(operand, ∂result/∂operand)]``; None as a partial means zero."""


class NotDifferentiable(Exception):
    """No derivative rule exists for this construct (the message names it)."""


class RuleOps:
    """Float arithmetic on a builder, skipping work for ``None`` (zero) operands."""

    def __init__(self, b: Builder) -> None:
        self.b = b

    def c(self, x: float, like: Value) -> Value:
        t = like.type
        assert isinstance(t, ScalarType)
        return self.b.const(float(x), t)

    def add(self, x: Value | None, y: Value | None) -> Value | None:
        if x is None:
            return y
        if y is None:
            return x
        return self.b.add(x, y)

    def sub(self, x: Value | None, y: Value | None) -> Value | None:
        if y is None:
            return x
        if x is None:
            return self.neg(y)
        return self.b.sub(x, y)

    def mul(self, x: Value | None, y: Value | None) -> Value | None:
        if x is None or y is None:
            return None
        return self.b.mul(x, y)

    def div(self, x: Value | None, y: Value) -> Value | None:
        if x is None:
            return None
        return self.b.binary(ops.FDiv, x, y)

    def neg(self, x: Value | None) -> Value | None:
        return None if x is None else self.b.unary(ops.Neg, x)

    def math(self, fn: str, *args: Value) -> Value:
        """``math.fn(*args)`` without Python's checks (``ieee_log(0.0)`` is -inf): a
        partial is evaluated where the primal was, and must not raise where it did not."""
        if fn in ops.IEEE_MATH:
            fn = f"ieee_{fn}"
        return self.b.math(fn, *args)

    def scale(self, t: Value, p: Value, active_p: bool = False) -> Value:
        """``t·p`` for a tangent or adjoint ``t`` and a partial ``p``, with a *strong
        zero* (as Enzyme's option; JAX's symbolic zeros do it statically): 0 where ``t``
        or ``p`` is 0, even if the other is ±inf or NaN. So a value whose tangent or
        adjoint is 0 at run time (the operand ``max`` did not pick) adds nothing through
        ``0·sqrt'(0)`` or ``0·(-inf)``, and a path through a factor that is 0 (``0.0 *
        y``, ``float(int(y)) * y`` near 0) carries no infinite or NaN derivative.

        No check for a finite constant ``p``, nor where ``active_p`` says ``p`` is an
        active value of the function (the partials of ``a * b`` are its operands): an
        infinite active value means the function is at ±inf or NaN near there, and its
        derivatives are not finite anyway; the check would cost 14% (one-sided) to 30%
        (gradient) and 20% to 70% (JVP) of a product-bound derivative (a 1000×1000
        mat-vec, measured). So reverse mode of ``sqrt(x * x)`` at 0 is NaN, as JAX's."""
        zero = self.c(0.0, t)
        if isinstance(p, ops.Const):
            if float(p.value) == 0.0:
                return zero
            if math.isfinite(float(p.value)):
                return self.b.mul(t, p)  # ±inf·p, NaN·p and 0·p are what they should be
        elif active_p:
            return self.b.mul(t, p)
        product = self.b.select(self.b.cmp("eq", p, zero), zero, self.b.mul(t, p))
        return self.b.select(self.b.cmp("eq", t, zero), zero, product)

    def sign(self, x: Value) -> Value:
        """-1, 0 or 1 as a float of ``x``'s type (0 for 0 and NaN)."""
        zero = self.c(0.0, x)
        pos = self.b.cmp("gt", x, zero)
        neg = self.b.cmp("lt", x, zero)
        return self.b.select(pos, self.c(1.0, x), self.b.select(neg, self.c(-1.0, x), zero))

    def select(self, cond: Value, x: Value | None, y: Value | None, like: Value) -> Value | None:
        if x is None and y is None:
            return None
        zero = self.c(0.0, like)
        return self.b.select(cond, x if x is not None else zero, y if y is not None else zero)


def make_ops(b: Builder) -> RuleOps:
    """The rule helpers bound to builder ``b``."""
    return RuleOps(b)


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
    """

    operands: tuple[int, ...] = ()
    result: bool = False
    partners: bool = False
    result_if_active: int | None = None

    def values(self, inst: Instruction, active: Active) -> tuple[list[Value], bool]:
        """``(operands read, is the result read?)`` for ``inst``."""
        args = inst.operands()
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


class Rule(ABC):
    """The derivative of one operation class (registered in :data:`AD_RULES`).

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
    zero (:meth:`RuleOps.scale`)."""

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
            accumulate(operand, o.scale(ct, partial, active(partial)))


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


@dataclass(frozen=True)
class SweepRule(Rule):
    """An operation that moves derivatives between memory, tuple elements or callees
    (loads, stores, array copies, calls, tuples, casts): its JVP is ``tangent``; the
    reverse sweep applies its adjoint itself, since it owns the shadows and the adjoint
    variables the adjoint moves.

    Attributes:
        tangent: the JVP.
        keep: the scalar forward values its adjoint reads (array indices and shadows
            are planned by the reverse sweep).
        rebuild: see :class:`Rebuild`.
    """

    tangent: JvpFn
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


# -- the registry --------------------------------------------------------------------

AD_RULES: OpTable[Rule] = OpTable("ad")
"""The derivative rule of every differentiable operation, by operation class; filled by
the rules modules of :mod:`gradc.passes.ad.rules` (one per op family)."""


def rule_for(inst: Instruction) -> Rule:
    """The rule of ``inst``.

    Raises:
        NotDifferentiable: the operation has none (the message names it).
    """
    rule = AD_RULES.get(inst)
    if rule is None:
        raise NotDifferentiable(type(inst).OPNAME)
    return rule


def scalar_rule(inst: Instruction) -> ScalarRule:
    """The rule of ``inst`` when it has an adjoint of its own (:class:`ScalarRule`).

    Raises:
        NotDifferentiable: it has none (the message names the operation).
    """
    rule = rule_for(inst)
    if not isinstance(rule, ScalarRule):  # NoDerivative, or a SweepRule the sweep missed
        raise NotDifferentiable(type(inst).OPNAME)
    return rule


def rebuild_of(inst: Instruction) -> Rebuild:
    """Whether the reverse sweep may rebuild ``inst``'s value (:class:`Rebuild`)."""
    rule = AD_RULES.get(inst)
    return rule.rebuild if rule is not None else Rebuild.NEVER


def needs_of(inst: Instruction, active: Active) -> tuple[list[Value], bool]:
    """``(operands, result?)``: the forward values the adjoint of ``inst`` reads
    (:func:`default_needs` for an operation without a rule)."""
    rule = AD_RULES.get(inst)
    return rule.needs(inst, active) if rule is not None else default_needs(inst)
