"""Derivative rules: one rule object per operation, in one registry.

:data:`AD_RULES` (a :class:`~gradc.compiler.ir.dispatch.OpTable`, keyed by the exact
operation class) holds the rule of every differentiable operation. The rules modules
fill it, one per op family, each with its table of identities:

* :mod:`.arith` — ``add``, ``sub``, ``neg`` (linear), ``mul``, ``div``, ``fdiv``,
  ``abs``, ``pow``, ``floordiv`` (smooth), ``min``, ``max`` (choice);
* :mod:`.math` — ``math.<fn>`` calls, one entry per function (:data:`.math.MATH_RULES`);
* :mod:`.control` — ``select``, ``cast``, tuples, calls;
* :mod:`.arrays` — element addresses, loads, stores, new arrays, copies;
* :mod:`.derivative_code` — the operations only derivative code makes (the tape,
  reference counts): refused where an active value reaches them
  (:class:`.base.Refused`).

A rule (its kinds in :mod:`.base`; the registry and its lookups in :mod:`.registry`;
the arithmetic rules are written with in :mod:`.algebra`) holds, for its operation:

* the JVP (:meth:`.base.Rule.jvp`), emitted by forward mode (:mod:`..forward`);
* the adjoint: for scalar operations (:class:`.base.ScalarRule`) the transpose,
  declared by kind after JAX's ``deflinear``/``defjvp`` split — :class:`.base.Linear`
  (constant coefficients), :class:`.base.Smooth` (partial derivatives),
  :class:`.base.Choice` (the operand picked); operations that move adjoints through
  shadows, tuple elements or callees are :class:`.base.SweepRule` objects, whose adjoint
  is a function of the reverse sweep (:class:`.base.ReverseSweep`, :mod:`..reverse_sweep`);
* what the tape must keep: the operands and result its adjoint reads
  (:class:`.base.Keep`), which :mod:`..taping` then tapes, rebuilds or recomputes.

Adding an elementwise operation with its derivative is its declaration in
``compiler/ir/ops.py`` (or an entry of ``MATH_FUNCTIONS``) plus one rule here: an
``AD_RULES.set([ops.X], Smooth(partials, Keep(...)))`` line in the family's module (or an
entry of :data:`.math.MATH_RULES`). An active operation without a rule is a compile-time
error naming it and its line (:class:`.base.NotDifferentiable`).

Conventions all rules share (docs/ad.md "Rules and conventions"): derivative code never
raises (IEEE division, the non-checking ``ieee_<fn>`` twins of ``math`` functions) and
runs after the primal instruction; a tangent or adjoint times a partial is a *strong
zero* (:meth:`.algebra.RuleOps.scale`).
"""

from gradc.passes.ad.rules import (  # noqa: F401  (they fill AD_RULES)
    arith,
    arrays,
    control,
    derivative_code,
    math,
    views,
)
from gradc.passes.ad.rules.algebra import RuleOps, make_ops
from gradc.passes.ad.rules.base import (
    ForwardSweep,
    NotDifferentiable,
    ReverseSweep,
    Rule,
    ScalarRule,
)
from gradc.passes.ad.rules.registry import AD_RULES, needs_of, rule_for, scalar_rule

__all__ = [
    "AD_RULES",
    "ForwardSweep",
    "NotDifferentiable",
    "ReverseSweep",
    "Rule",
    "RuleOps",
    "ScalarRule",
    "make_ops",
    "needs_of",
    "rule_for",
    "scalar_rule",
]
