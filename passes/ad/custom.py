"""Custom rules (JAX's ``custom_jvp``/``custom_vjp``): derived functions built from
the user's rule functions instead of the helper's body.

The driver registers, per specialised helper, its rule functions (typed IR of the
module; ``compiler/frontend/custom_rules.py`` reads them from the source). Forward and
reverse mode derive a callee's functions by name (``f.jvp.0``, ``f.fwd.0``/``f.rev.0``):
for a registered helper those are built here, so every derivative that reaches the
helper calls the rule, and the rule's code is reachable (and keyed) from exactly those
derivatives:

* ``f.jvp.<pattern>(x..., ẋ of the active ones) = jvp_rule((x...), (ẋ or 0.0 ...))``;
* ``f.fwd.<variant>(x..., tape)``: ``(value, res) = fwd(x...)``, ``res`` pushed;
* ``f.rev.<variant>(tape, ct)``: ``bwd(popped res, ct)``, the cotangents of the active
  parameters returned in order.

A ``custom_jvp`` helper has no reverse rule and a ``custom_vjp`` helper no forward one:
differentiating through them in the other mode is a compile-time error.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.types import F64, NONE, TAPE, TupleType, Type, python_name


@dataclass(frozen=True)
class Custom:
    """The rule of one specialised helper.

    Attributes:
        kind: ``"jvp"`` or ``"vjp"``.
        rules: the rule functions' IR names (``(jvp,)`` or ``(fwd, bwd)``).
    """

    kind: str
    rules: tuple[str, ...]


_REGISTERED: weakref.WeakKeyDictionary[Module, dict[str, Custom]] = weakref.WeakKeyDictionary()


def register(module: Module, helper: str, rule: Custom) -> None:
    """Make ``rule`` the derivative of ``module``'s function ``helper``."""
    _REGISTERED.setdefault(module, {})[helper] = rule


def custom_of(module: Module, fn: Function, mode: str) -> Custom | None:
    """The rule of ``fn`` for ``mode`` (``"jvp"`` or ``"vjp"``), None without one.

    Raises:
        PassError: ``fn`` has a rule of the other mode only.
    """
    rule = _REGISTERED.get(module, {}).get(fn.name)
    if rule is None:
        return None
    if rule.kind != mode:
        have, need = ("forward", "reverse") if rule.kind == "jvp" else ("reverse", "forward")
        raise PassError(
            f"'{fn.source_name}' has a custom_{rule.kind} rule ({have} mode only): "
            f"differentiating it in {need} mode needs a custom_{mode} rule",
            fn.loc,
        )
    return rule


def _returns(rule: Function, expected: Type, what: str) -> None:
    if rule.return_type != expected:
        raise PassError(
            f"the custom rule '{rule.source_name}' must return {what}, not "
            f"{python_name(rule.return_type)}",
            rule.loc,
        )


def _start(name: str, fn: Function, count: int) -> tuple[Function, list[Argument], Builder]:
    out = Function(name, loc=fn.loc, source_name=fn.source_name)
    params = []
    for p in fn.params[:count]:
        arg = Argument(type=p.type, name=p.name, index=len(out.params))
        out.params.append(arg)
        params.append(arg)
    b = Builder(out)
    b.position_at_end(out.add_block("entry"))
    return out, params, b


def custom_jvp(
    module: Module, fn: Function, pattern: frozenset[int], name: str, rule: Custom
) -> Function:
    """``name`` (``fn``'s JVP for ``pattern``) calling the JVP rule; added to ``module``.

    Raises:
        PassError: the rule does not return ``(f64, f64)``.
    """
    jvp = module.functions[rule.rules[0]]
    _returns(jvp, TupleType((F64, F64)), "(value, tangent) floats")
    out, params, b = _start(name, fn, len(fn.params))
    with b.at(fn.loc):
        tangents: list[Value] = []
        for p in fn.params:
            if p.index in pattern:
                t = Argument(type=p.type, name=f"d_{p.name}", index=len(out.params))
                out.params.append(t)
                tangents.append(t)
            else:
                tangents.append(b.const(0.0, F64))
        out.return_type = jvp.return_type
        args = [b.make_tuple(list(params)), b.make_tuple(tangents)]
        b.ret(b.call(jvp.name, args, jvp.return_type))
    module.add(out)
    return out


def custom_vjp(
    module: Module, fn: Function, pattern: frozenset[int], names: tuple[str, str], rule: Custom
) -> tuple[Function, Function]:
    """``(fwd, rev)`` named ``names`` for ``fn`` and ``pattern``, calling the rules;
    added to ``module``.

    Raises:
        PassError: ``fwd`` does not return ``(f64, residuals)`` or ``bwd`` not one float
            cotangent per parameter (a tuple).
    """
    fwd_rule, bwd_rule = (module.functions[r] for r in rule.rules)
    t = fwd_rule.return_type
    if not (isinstance(t, TupleType) and len(t.elements) == 2 and t.elements[0] == F64):
        raise PassError(
            f"the custom rule '{fwd_rule.source_name}' must return (value, residuals) with "
            f"a float value, not {python_name(t)}",
            fwd_rule.loc,
        )
    n = len(fn.params)
    _returns(bwd_rule, TupleType((F64,) * n), f"a tuple of {n} float cotangents")
    fwd, params, b = _start(names[0], fn, n)
    tape = Argument(type=TAPE, name="tape", index=n)
    fwd.params.append(tape)
    fwd.return_type = F64
    with b.at(fn.loc):
        both = b.call(fwd_rule.name, list(params), t)
        b.insert(ops.TapePush(tape, b.tuple_get(both, 1), type=NONE))
        b.ret(b.tuple_get(both, 0))
    rev = Function(names[1], loc=fn.loc, source_name=fn.source_name)
    rev_tape = Argument(type=TAPE, name="tape", index=0)
    ct = Argument(type=F64, name="adjoint", index=1)
    rev.params += [rev_tape, ct]
    b = Builder(rev)
    b.position_at_end(rev.add_block("entry"))
    with b.at(fn.loc):
        res = b.insert(ops.TapePop(rev_tape, type=t.elements[1]))
        cts = b.call(bwd_rule.name, [res, ct], bwd_rule.return_type)
        adjoints = b.make_tuple([b.tuple_get(cts, i) for i in sorted(pattern)])
        rev.return_type = adjoints.type
        b.ret(adjoints)
    module.add(fwd)
    module.add(rev)
    return fwd, rev
