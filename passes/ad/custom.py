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
from gradc.compiler.ir.types import (
    F64,
    I64,
    NONE,
    TAPE,
    ArrayType,
    TupleType,
    Type,
    python_name,
)
from gradc.passes.ad.layout import adjoint_type, shadow_type


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


def _as(b: Builder, value: Value, expected: Type, rule: Function, what: str) -> Value:
    """``value`` (from rule ``rule``) relabelled to ``expected``: a C array goes where
    any layout is expected.

    Raises:
        PassError: the types do not fit (naming the rule and ``what`` it returned).
    """
    t = value.type
    if t == expected:
        return value
    if (
        isinstance(t, ArrayType)
        and isinstance(expected, ArrayType)
        and (t.dtype, t.ndim) == (expected.dtype, expected.ndim)
        and expected.layout == "A"
    ):
        return b.cast(value, expected)
    raise PassError(
        f"the custom rule '{rule.source_name}' returns {what} of type {python_name(t)} "
        f"where {python_name(expected)} is expected",
        rule.loc,
    )


def _zeros(b: Builder, like: Value) -> Value:
    """A zero tangent of parameter ``like``: ``0.0``, or a zeroed C array of its shape."""
    t = like.type
    if not isinstance(t, ArrayType):
        return b.const(0.0, F64)
    dims = tuple(b.insert(ops.ArrayDim(like, k, type=I64)) for k in range(t.ndim))
    zeros = b.insert(ops.NewArray(dims, b.const(0.0, F64), type=ArrayType(F64, t.ndim, "C")))
    return b.cast(zeros, shadow_type(t))


def custom_jvp(
    module: Module, fn: Function, pattern: frozenset[int], name: str, rule: Custom
) -> Function:
    """``name`` (``fn``'s JVP for ``pattern``) calling the JVP rule; added to ``module``.
    Tangents of inactive parameters are zeros (zeroed arrays for array parameters).

    Raises:
        PassError: the rule does not return ``(value, tangent)`` of ``fn``'s result type.
    """
    jvp = module.functions[rule.rules[0]]
    t = jvp.return_type
    if not (isinstance(t, TupleType) and len(t.elements) == 2):
        _returns(jvp, TupleType((fn.return_type, fn.return_type)), "(value, tangent)")
    out, params, b = _start(name, fn, len(fn.params))
    with b.at(fn.loc):
        tangents: list[Value] = []
        for p, arg in zip(fn.params, params, strict=True):
            if p.index in pattern:
                d = Argument(type=shadow_type(p.type), name=f"d_{p.name}", index=len(out.params))
                out.params.append(d)
                tangents.append(d)
            else:
                tangents.append(_zeros(b, arg))
        args = [b.make_tuple(list(params)), b.make_tuple(tangents)]
        both = b.call(jvp.name, args, t)
        value = _as(b, b.tuple_get(both, 0), fn.return_type, jvp, "a value")
        tangent = _as(b, b.tuple_get(both, 1), shadow_type(fn.return_type), jvp, "a tangent")
        result = b.make_tuple([value, tangent])
        out.return_type = result.type
        b.ret(result)
    module.add(out)
    return out


def custom_vjp(
    module: Module,
    fn: Function,
    pattern: frozenset[int],
    names: tuple[str, str],
    rule: Custom,
    shadows: list[Type],
) -> tuple[Function, Function]:
    """``(fwd, rev)`` named ``names`` for ``fn`` and ``pattern``, calling the rules;
    added to ``module``. ``shadows``: the types of ``rev``'s shadow parameters, one per
    active array parameter in order; ``bwd``'s cotangent of each is added into its
    shadow, those of the float parameters in ``pattern`` are returned.

    Raises:
        PassError: ``fwd`` does not return ``(value, residuals)`` with ``fn``'s result
            type, or ``bwd`` not a tuple of one cotangent per parameter (a float, or an
            f64 array of the parameter's rank).
    """
    fwd_rule, bwd_rule = (module.functions[r] for r in rule.rules)
    t = fwd_rule.return_type
    if not (isinstance(t, TupleType) and len(t.elements) == 2):
        raise PassError(
            f"the custom rule '{fwd_rule.source_name}' must return (value, residuals), not "
            f"{python_name(t)}",
            fwd_rule.loc,
        )
    n = len(fn.params)
    cts = bwd_rule.return_type
    if not (isinstance(cts, TupleType) and len(cts.elements) == n):
        _returns(bwd_rule, TupleType((F64,) * n), f"a tuple of {n} cotangents")
    fwd, params, b = _start(names[0], fn, n)
    tape = Argument(type=TAPE, name="tape", index=n)
    fwd.params.append(tape)
    fwd.return_type = fn.return_type
    with b.at(fn.loc):
        both = b.call(fwd_rule.name, list(params), t)
        b.insert(ops.TapePush(tape, b.tuple_get(both, 1), type=NONE))
        b.ret(_as(b, b.tuple_get(both, 0), fn.return_type, fwd_rule, "a value"))
    rev = Function(names[1], loc=fn.loc, source_name=fn.source_name)
    arrays = [i for i in sorted(pattern) if isinstance(fn.params[i].type, ArrayType)]
    for i, st in zip(arrays, shadows, strict=True):
        rev.params.append(Argument(type=st, name=f"d_{fn.params[i].name}", index=len(rev.params)))
    rev_tape = Argument(type=TAPE, name="tape", index=len(rev.params))
    ct = Argument(type=adjoint_type(fn.return_type), name="adjoint", index=len(rev.params) + 1)
    rev.params += [rev_tape, ct]
    b = Builder(rev)
    b.position_at_end(rev.add_block("entry"))
    with b.at(fn.loc):
        res = b.insert(ops.TapePop(rev_tape, type=t.elements[1]))
        want = bwd_rule.params[1].type
        seed = ct if ct.type == want else _as(b, ct, want, bwd_rule, "a cotangent parameter")
        got = b.call(bwd_rule.name, [res, seed], cts)
        for k, i in enumerate(arrays):
            _accumulate(b, rev.params[k], b.tuple_get(got, i), str(fn.params[i].name), bwd_rule)
        scalars = [i for i in sorted(pattern) if i not in arrays]
        adjoints = b.make_tuple(
            [
                _as(b, b.tuple_get(got, i), F64, bwd_rule, f"a cotangent of '{fn.params[i].name}'")
                for i in scalars
            ]
        )
        rev.return_type = adjoints.type
        b.ret(adjoints)
    module.add(fwd)
    module.add(rev)
    return fwd, rev


def _accumulate(b: Builder, shadow: Value, ct: Value, name: str, rule: Function) -> None:
    """``shadow += ct`` element by element (``ct``: what ``rule`` returned for parameter
    ``name``); ``ValueError`` where the shapes differ.

    Raises:
        PassError: ``ct`` is not an f64 array of the shadow's rank.
    """
    from gradc.passes.ad.columns import _element, _loop

    st, t = shadow.type, ct.type
    assert isinstance(st, ArrayType)
    if not (isinstance(t, ArrayType) and t.dtype == F64 and t.ndim == st.ndim):
        raise PassError(
            f"the custom rule '{rule.source_name}' returns a cotangent of type "
            f"{python_name(t)} for '{name}', an array of {st.ndim} axes",
            rule.loc,
        )
    dims = [b.insert(ops.ArrayDim(shadow, k, type=I64)) for k in range(st.ndim)]
    for k, d in enumerate(dims):
        with b.if_then(b.cmp("ne", b.insert(ops.ArrayDim(ct, k, type=I64)), d), "ct.shape"):
            b.raise_(
                "ValueError",
                f"the custom rule '{rule.source_name}' returned a cotangent for '{name}' "
                f"whose axis {k} differs from the parameter's",
            )
    index: list[Value] = []

    def nest(depth: int) -> None:
        if depth == len(dims):
            cell = _element(b, shadow, index)
            value = b.insert(ops.Load(_element(b, ct, index), type=F64))
            b.insert(ops.Store(cell, b.add(b.insert(ops.Load(cell, type=F64)), value), type=NONE))
            return
        with _loop(b, dims[depth], "ct") as i:
            index.append(i)
            nest(depth + 1)
            index.pop()

    nest(0)
