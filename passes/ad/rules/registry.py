"""The registry of derivative rules: :data:`AD_RULES`, one rule per operation class,
filled by the family modules of :mod:`gradc.passes.ad.rules`, and the lookups the
sweeps and the tape planner use.
"""

from __future__ import annotations

from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.dispatch import OpTable
from gradc.passes.ad.rules.base import (
    Active,
    NotDifferentiable,
    Rebuild,
    Rule,
    ScalarRule,
    default_needs,
)

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
    if not isinstance(rule, ScalarRule):  # NoDerivative, or a SweepRule (its own adjoint)
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
