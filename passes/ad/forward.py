"""``ad-forward``: forward mode (JVP) — a function that also returns a tangent.

For ``f(x, n)`` with ``x`` active, ``f.jvp.<pattern>(x, n, dx)`` returns ``(f(x, n), ḟ)``
where ḟ is the directional derivative along ``dx``. The derived function is a clone of
``f`` with tangent code after every active instruction (rules in :mod:`.rules`), tangent
phis beside primal phis, tangent arrays (shadows) beside active arrays, and calls of
active callees replaced by calls of their own JVP functions (inter-procedural; recursion
works because derived functions are named by callee and activity pattern).

Before (``x`` active)::

    %y = mul %x, %x : f64
    ret %y

After::

    %y = mul %x, %x : f64
    %0 = mul %dx, %x : f64
    %1 = mul %x, %dx : f64
    %2 = add %0, %1 : f64
    %3 = tuple(%y, %2) : tuple[f64,f64]
    ret %3
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import clone_function
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.dominance import DominatorTree
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    I64,
    ArrayType,
    NoneType,
    ScalarType,
    TupleType,
    python_name,
)
from gradc.passes.ad.activity import Activity, analyze, check_rules_exist
from gradc.passes.ad.custom import custom_jvp, custom_of
from gradc.passes.ad.layout import as_shadow, shadow_type
from gradc.passes.ad.rules import NotDifferentiable, rule_for

#: Derivative code with side effects on a differentiated tape or shadow: forward mode
#: pushes, frees or accumulates the tangents beside them (:mod:`.rules.derivative_code`).
_TAPE_EFFECTS = (ops.TapePush, ops.TapeFree, ops.AccumulateArray)


def jvp_name(fn: Function, pattern: frozenset[int]) -> str:
    """The symbol of ``fn``'s JVP for active parameters ``pattern`` (content-named)."""
    return f"{fn.name}.jvp." + ("_".join(str(i) for i in sorted(pattern)) or "none")


def jvp_function(module: Module, fn: Function, pattern: frozenset[int]) -> Function:
    """The JVP of ``fn`` with the parameters at ``pattern`` active, added to ``module``.

    Signature: ``(params..., tangents of the active params in order) ->
    tuple[result, tangent of result]``; a function returning None returns None (its
    derivative is what it writes into the tangents of its array arguments). Tangents are
    typed :func:`.layout.shadow_type` of their primal (an F-ordered array's tangent is
    ``A``). Memoised by name in ``module``.

    Raises:
        PassError: an active construct has no derivative rule.
    """
    name = jvp_name(fn, pattern)
    if name in module.functions:
        return module.functions[name]
    rule = custom_of(module, fn, "jvp")
    if rule is not None:
        return custom_jvp(module, fn, pattern, name, rule)
    return _ForwardMode(module, fn, pattern, name).run()


def check_returns_value(fn: Function, loc: Loc) -> None:
    """Refuse a forward-mode export of ``fn`` when it returns nothing.

    Raises:
        PassError: ``fn`` returns None (there is no value to differentiate), at ``loc``.
    """
    if isinstance(fn.return_type, NoneType):
        raise PassError(f"cannot differentiate '{fn.source_name}': it returns no value", loc)


def private_tangents(
    module: Module, fn: Function, b: Builder, tangents: dict[int, Value]
) -> dict[int, Value]:
    """``tangents`` (parameter index -> the caller's tangent) with a copy in place of
    each tangent array of a parameter ``fn`` may write: the JVP writes the tangents of
    what it stores beside the values, and the caller's tangents are only read. Every
    tangent is relabelled to the JVP's parameter type (:func:`.layout.shadow_type`)."""
    from gradc.passes.ad.memory import callee_writes

    written = callee_writes(module, fn.name)[fn.name]
    out = dict(tangents)
    for i, t in tangents.items():
        if i in written and isinstance(t.type, ArrayType):
            copy = b.insert(
                ops.CopyArray(t, type=ArrayType(t.type.dtype, t.type.ndim, "C"), name=t.name)
            )
            out[i] = as_shadow(b, copy, t.type)
        else:
            out[i] = as_shadow(b, t, t.type)
    return out


def _zero(b: Builder, like: Value) -> Value:
    """The zero tangent of ``like`` (an inactive value): zero scalars, a zeroed array of
    ``like``'s shape (typed ``shadow_type``), a tuple of those."""
    t = like.type
    if isinstance(t, ScalarType):
        return b.const(0.0 if t.is_float else (False if t.is_bool else 0), t)
    if isinstance(t, TupleType):
        return b.make_tuple([_zero(b, b.tuple_get(like, k)) for k in range(len(t.elements))])
    if isinstance(t, ArrayType):
        shape = tuple(b.insert(ops.ArrayDim(like, k, type=I64)) for k in range(t.ndim))
        zeros = b.insert(
            ops.NewArray(shape, b.const(0.0, t.dtype), type=ArrayType(t.dtype, t.ndim, "C"))
        )
        return as_shadow(b, zeros, t)
    raise NotDifferentiable(f"a value of type {python_name(t)} without a tangent")


class _ForwardMode:
    def __init__(self, module: Module, fn: Function, pattern: frozenset[int], name: str) -> None:
        self.module = module
        self.original = fn
        self.pattern = pattern
        self.activity: Activity = analyze(fn, pattern, tapes=True)
        clone = clone_function(fn, name)
        self.fn = clone.function
        self.values = clone.values
        self.b = Builder(self.fn)
        self.tangents: dict[Value, Value] = {}
        self.tangent_phis: list[tuple[ops.Phi, ops.Phi]] = []
        self.reachable: set[Block] = set()
        self.strict = True  # an active value without a tangent is a bug (reachable code)
        self._active_clones = {self.values[v] for v in self.activity.active}
        self._calls_with_active_operands = {self.values[c] for c in self.activity.call_patterns}

    def active(self, clone_value: Value) -> bool:
        return clone_value in self._active_clones

    def run(self) -> Function:
        fn = self.fn
        params = list(fn.params)
        self._add_tangent_params()
        self.module.add(fn)  # before the body, so recursive calls find it
        try:
            check_rules_exist(fn, Activity(self._active_clones, {}), forward=True)
        except NotDifferentiable as exc:
            where = getattr(exc, "inst", None)
            loc = where.loc if isinstance(where, Instruction) else fn.loc
            raise PassError(
                f"cannot differentiate {exc} in '{fn.source_name}': no derivative rule", loc
            ) from None
        # Visit the blocks in reverse post-order: a block's dominators come first, so every
        # operand's tangent exists before its uses (layout order can put a use first: a
        # return block laid out before the branch computing its value). Phis get their
        # incoming tangents at the end, when every block is done. Unreachable blocks last.
        order = DominatorTree(fn).reverse_postorder
        self.reachable = set(order)
        entry = fn.entry
        self.b.position_before(entry.instructions[len(entry.phis())])
        with self.b.at(fn.loc):
            for p in params:
                if p in self._active_clones and p not in self.tangents:
                    # an array parameter outside the pattern that active values are stored
                    # into (here or by a callee): a zeroed scratch tangent carries them
                    self.tangents[p] = _zero(self.b, p)
        for block in [*order, *(blk for blk in fn.blocks if blk not in self.reachable)]:
            self.strict = block in self.reachable
            for inst in list(block.instructions):
                try:
                    self._visit(block, inst)
                except NotDifferentiable as exc:
                    raise PassError(
                        f"cannot differentiate {exc} in '{fn.source_name}': no derivative rule",
                        inst.loc,
                    ) from None
        for primal, tangent in self.tangent_phis:
            for pred, v in primal.incoming:
                self.strict = pred in self.reachable
                term = pred.terminator
                assert term is not None
                self.b.position_before(term)
                with self.b.at(term.loc):
                    tangent.incoming.append((pred, self.tangent(v)))
        return fn

    def _add_tangent_params(self) -> None:
        """The signature: a tangent parameter per active parameter, after the primal
        ones, and ``tuple[result, tangent]`` as the result."""
        fn = self.fn
        for p in self.original.params:
            if p.index in self.pattern:
                t = Argument(type=shadow_type(p.type), name=f"d_{p.name}", index=len(fn.params))
                fn.params.append(t)
                self.tangents[self.values[p]] = t
        result_type = fn.return_type
        if not isinstance(result_type, NoneType):
            fn.return_type = TupleType((result_type, shadow_type(result_type)))

    def tangent(self, v: Value) -> Value:
        """The tangent of ``v`` (a zero constant at the insertion point if inactive).

        Raises:
            AssertionError: ``v`` is active but has no tangent yet (in reachable code): a
                zero would be a silently wrong derivative.
        """
        t = self.tangents.get(v)
        if t is not None:
            return t
        if self.strict and v in self._active_clones:
            raise AssertionError(f"forward mode: the tangent of active {v!r} is not defined")
        return _zero(self.b, v)

    def known_tangent(self, v: Value) -> Value | None:
        """The tangent of ``v``, or None where it has none."""
        return self.tangents.get(v)

    def must_have_tangent(self, v: Value) -> bool:
        """Is ``v`` active in reachable code (where a missing tangent is a bug)?"""
        return self.strict and self.active(v)

    def _visit(self, block: Block, inst: Instruction) -> None:
        b = self.b
        if isinstance(inst, ops.Return):
            b.position_before(inst)
            if inst.value is not None:
                with b.at(inst.loc):
                    inst.value = b.make_tuple([inst.value, self.tangent(inst.value)])
            return
        # a store, or a call with active operands whose own result is inactive or None,
        # may write active values into memory: their tangents are written beside them
        side_effect = (
            isinstance(inst, ops.Store | ops.AtomicAdd)
            or inst in self._calls_with_active_operands
            or (isinstance(inst, _TAPE_EFFECTS) and any(map(self.active, inst.operands())))
        )
        if not self.active(inst) and not side_effect:
            return
        if isinstance(inst, ops.Phi):
            tangent = ops.Phi(
                type=shadow_type(inst.type), name=f"d_{inst.name}" if inst.name else None
            )
            tangent.loc = inst.loc
            block.insert(len(block.phis()), tangent)
            self.tangents[inst] = tangent
            self.tangent_phis.append((inst, tangent))
            return
        index = block.instructions.index(inst)
        b.position_before(block.instructions[index + 1])
        with b.at(inst.loc):
            result = rule_for(inst).jvp(self, inst)
        if result is not None:
            self.tangents[inst] = result

    def call_jvp(self, call: ops.Call) -> Value | None:
        """Replace ``call`` by a call of its callee's JVP; the result's tangent (None for
        an int, bool or None result)."""
        b = self.b
        callee = self.module.functions[call.callee]
        pattern = frozenset(i for i, a in enumerate(call.args) if a in self.tangents)
        derived = jvp_function(self.module, callee, pattern)
        args = [*call.args, *(self.tangents[call.args[i]] for i in sorted(pattern))]
        both = b.call(derived.name, args, derived.return_type)
        if isinstance(derived.return_type, NoneType):
            # the callee only writes (values and tangents) into its array arguments
            self.fn.replace_all_uses(call, both)
            call.erase()
            return None
        primal = b.tuple_get(both, 0)
        self.fn.replace_all_uses(call, primal)
        active = self.active(call)
        call.erase()  # the derived call computes the primal value too
        if not active:
            return None  # an int or bool result carries no tangent
        tangent = b.tuple_get(both, 1)
        self.tangents[primal] = tangent
        return tangent
