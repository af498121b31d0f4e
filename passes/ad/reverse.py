"""``ad-reverse``: reverse mode (VJP) with a tape.

For ``f`` and a pattern of active parameters, two functions are derived:

* the augmented forward sweep ``f.fwd.<pattern>(params..., tape) -> result`` runs ``f``
  and, at the end of every basic block, pushes onto the tape what the reverse sweep of
  that block needs (operands and results of the active instructions, array indices,
  shadows of local arrays) and, before entering a join, which predecessor it came from;
* the reverse sweep ``f.rev.<pattern>(shadows..., tape, adjoint of result) ->
  tuple[adjoints of the active scalar parameters]`` walks the CFG backwards: block
  ``B``'s reverse pops ``B``'s values (last pushed, first popped), applies the adjoint
  rules of :mod:`.rules` to ``B``'s instructions in reverse order, and pops the
  predecessor to return to. Array adjoints accumulate into shadow arrays (Enzyme's
  ``Duplicated``): the caller's for parameters, zero-initialised ones for local arrays.

One LIFO tape serves a whole call tree: a callee's forward sweep pushes onto the same
tape inside the caller's, and its reverse sweep pops inside the caller's. Loops with
run-time trip counts, ``break``, data-dependent branches, recursion and values that are
overwritten later (the old value was pushed when it was live) all follow from this.
Memory is proportional to what is pushed, not to the number of operations run.

Adjoints of scalars are SSA variables of the reverse function, built with the on-the-fly
SSA construction of :mod:`gradc.compiler.ir.ssa` over the reverse CFG; critical edges of
``f`` are split first, so that edge code (phi adjoints, predecessor pushes) has a block.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import clone_function, remap
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ssa import SSABuilder
from gradc.compiler.ir.types import (
    F64,
    I64,
    NONE,
    TAPE,
    ArrayType,
    NoneType,
    ScalarType,
    TupleType,
    Type,
    python_name,
)
from gradc.passes.ad.activity import analyze, can_be_active, check_rules_exist
from gradc.passes.ad.layout import fill_adjoint, shadow_type
from gradc.passes.ad.loops import LoopForest
from gradc.passes.ad.memory import MemoryFacts, callee_writes
from gradc.passes.ad.rules import NotDifferentiable, make_ops, needs_of, scalar_rule
from gradc.passes.ad.taping import (
    DEFAULT_OPTIONS,
    Counter,
    Recipe,
    RecipeKind,
    TapeOptions,
    plan_tape,
)
from gradc.passes.analysis.cfg import split_critical_edges
from gradc.passes.analysis.pointers import array_sources

# Adjoint variables are keyed by (value, element index) so tuple elements have their own.
AdjKey = tuple[Value, int]


def _suffix(pattern: frozenset[int]) -> str:
    return "_".join(str(i) for i in sorted(pattern)) or "none"


@dataclass
class Derived:
    """The two functions of a reverse-mode derivative and their interface."""

    fwd: Function
    rev: Function
    array_params: list[int]  # active array parameters, shadows passed to rev in order
    scalar_params: list[int]  # active scalar parameters, adjoints returned in order


def vjp_functions(
    module: Module,
    fn: Function,
    pattern: frozenset[int],
    frozen: frozenset[int] = frozenset(),
    options: TapeOptions = DEFAULT_OPTIONS,
    c_shadows: bool = False,
) -> Derived:
    """The augmented forward and reverse functions of ``fn`` (memoised in ``module``).

    ``c_shadows``: the caller passes C-contiguous shadows (the allocating exports do), so
    the reverse function's shadow parameters are typed C and addressed without strides
    (``f.rev.0_1.c``); otherwise they have the parameters' own layouts.

    ``frozen``: the array parameters the caller will not write between the forward and
    the reverse sweep (:mod:`.memory`): loads from them may be repeated instead of taped.
    Each (pattern, frozen) pair has its own functions (``f.fwd.0_1.ro.1``). ``options``
    chooses the taping strategies (:class:`.taping.TapeOptions`; the first derivation
    of a name in a module decides, callees inherit it).

    Raises:
        PassError: an active construct has no adjoint rule (named, with its line).
    """
    frozen = frozenset(k for k in frozen if isinstance(fn.params[k].type, ArrayType))
    variant = _suffix(pattern) + (f".ro.{_suffix(frozen)}" if frozen else "")
    variant += (
        ".c"
        if c_shadows
        and any(isinstance(fn.params[k].type, ArrayType) for k in range(len(fn.params)))
        else ""
    )
    fwd_name = f"{fn.name}.fwd.{variant}"
    rev_name = f"{fn.name}.rev.{variant}"
    # An array parameter outside the pattern that active values are stored into is
    # active too: its shadow carries those values' adjoints between the sweeps.
    activity = analyze(fn, pattern)
    arrays = [
        p.index
        for p in fn.params
        if isinstance(p.type, ArrayType) and (p.index in pattern or p in activity)
    ]
    scalars = [i for i in sorted(pattern) if i not in arrays]
    if fwd_name in module.functions:
        return Derived(module.functions[fwd_name], module.functions[rev_name], arrays, scalars)
    return _ReverseMode(
        module, fn, pattern, frozen, options, fwd_name, rev_name, arrays, scalars, c_shadows
    ).run()


def _zero(b: Builder, t: Type) -> Value:
    assert isinstance(t, ScalarType), t
    return b.const(0.0 if t.is_float else 0, t)


def _adjoint_type(t: Type, top: bool = True) -> Type:
    """The type of the adjoint a function receives for a result of type ``t``: the
    result's own type for a float, a C-ordered shadow array for a float array result
    (its adjoints, added to the shadow of the returned array), a tuple of those."""
    if isinstance(t, ScalarType) and t.is_float:
        return t
    if top and isinstance(t, ArrayType) and t.dtype.is_float:
        return ArrayType(t.dtype, t.ndim, "C")
    if isinstance(t, TupleType):
        return TupleType(tuple(_adjoint_type(e, top=False) for e in t.elements))
    return F64  # ints, bools, arrays in tuples: a placeholder (their adjoint is ignored)


@dataclass
class _Needs:
    """The forward values the reverse of one block reads, in first-use order."""

    values: list[Value] = field(default_factory=list)  # fwd-side values
    aliases: list[Value] = field(default_factory=list)  # shadows rebuilt from selectors

    def add(self, v: Value) -> None:
        if not isinstance(v, ops.Const) and v not in self.values:
            self.values.append(v)


class _ReverseMode:
    def __init__(
        self,
        module: Module,
        fn: Function,
        pattern: frozenset[int],
        frozen: frozenset[int],
        options: TapeOptions,
        fwd_name: str,
        rev_name: str,
        arrays: list[int],
        scalars: list[int],
        c_shadows: bool = False,
    ) -> None:
        self.c_shadows = c_shadows
        self.module = module
        self.pattern = pattern
        self.frozen = frozen
        self.options = options
        self.original_name = fn.name
        self.arrays = arrays
        self.scalars = scalars
        clone = clone_function(fn, fwd_name)
        self.fwd = clone.function
        split_critical_edges(self.fwd)
        self.activity = analyze(self.fwd, pattern)
        self.source_name = fn.source_name
        self.tape = Argument(type=TAPE, name="tape", index=len(self.fwd.params))
        self.rev = Function(rev_name, loc=fn.loc, source_name=fn.source_name)
        self.shadows: dict[Value, Value] = {}  # fwd array value -> fwd shadow value
        # aliases (array phis, casts) that parameters reach: their selector (fwd i64)
        self.selectors: dict[Value, Value] = {}
        self.alias_params: dict[Value, list[Argument]] = {}
        self.derived = Derived(self.fwd, self.rev, arrays, scalars)
        self._names: dict[Value, int] = {}
        self._var_types: dict[str, Type] = {}
        self._adjoint_of: dict[str, Value] = {}  # adjoint variable -> its forward value
        self._use_regions: dict[Value, set[Block]] = {}
        self._use_blocks: dict[Value, set[Block]] | None = None
        self._forest: LoopForest | None = None
        self._zeros: dict[Type, Value] = {}
        self._primal_names: dict[Value, str] = {}
        self._accumulations: set[ops.Add] = set()  # adds of contributions to adjoints
        self.call_frozen: dict[ops.Call, frozenset[int]] = {}

    # -- driver -------------------------------------------------------------------

    def run(self) -> Derived:
        # register both before building, so recursive calls find them
        self.fwd.params.append(self.tape)
        self.module.add(self.fwd)
        self.module.add(self.rev)
        self.original_blocks = list(self.fwd.blocks)
        self.body = {b: list(b.instructions) for b in self.original_blocks}
        self.preds = self.fwd.predecessors()
        # blocks from which a return is reachable; the others end in an error exit
        # (``raise``, a failed ``assert``, a zero ``range`` step): the call raises there,
        # so their reverse never runs and they need nothing on the tape
        self.returning = _reaches_return(self.fwd, self.preds)
        try:
            check_rules_exist(self.fwd, self.activity)
            self._make_shadows()
            plans = {
                b: self._needs(b) if b in self.returning else _Needs() for b in self.original_blocks
            }
            needs = {b: plan.values for b, plan in plans.items()}
            self.alias_needs = {b: plan.aliases for b, plan in plans.items()}
            memory = MemoryFacts(
                self.fwd,
                self.body,
                self.frozen,
                callee_writes(self.module, self.original_name),
            )
            for block in self.original_blocks:
                for inst in self.body[block]:
                    if isinstance(inst, ops.Call) and inst in self.activity.call_patterns:
                        self.call_frozen[inst] = memory.frozen_args(inst)
            self.tape_plan = plan_tape(self.fwd, self.original_blocks, needs, memory, self.options)
            self._build_reverse()
            self._instrument_forward()
        except NotDifferentiable as exc:
            where = getattr(exc, "inst", None)
            loc = where.loc if isinstance(where, Instruction) else self.fwd.loc
            raise PassError(
                f"cannot differentiate {exc} in '{self.source_name}': no adjoint rule", loc
            ) from None
        return self.derived

    def active(self, v: Value) -> bool:
        return v in self.activity.active

    def _differentiated(self, inst: Instruction) -> bool:
        """Does ``inst`` get adjoint code? An active instruction does, and so does a call
        with active operands whose own result is inactive or None: its callee may write
        active values into an array argument (side effects on active memory)."""
        return self.active(inst) or inst in self.activity.call_patterns

    # -- forward sweep: shadows of local arrays -----------------------------------

    def _make_shadows(self) -> None:
        b = Builder(self.fwd)
        for block in self.original_blocks:
            for inst in self.body[block]:
                if not self.active(inst) or not isinstance(inst.type, ArrayType):
                    continue
                if isinstance(inst, ops.NewArray | ops.CopyArray):
                    b.position_before(block.instructions[block.instructions.index(inst) + 1])
                    with b.at(inst.loc):
                        t = inst.type
                        assert isinstance(t, ArrayType)
                        shape = (
                            inst.shape
                            if isinstance(inst, ops.NewArray)
                            else tuple(
                                b.insert(ops.ArrayDim(inst, k, type=I64)) for k in range(t.ndim)
                            )
                        )
                        self.shadows[inst] = b.insert(
                            ops.NewArray(shape, b.const(0.0, t.dtype), type=t, name="shadow")
                        )
                elif isinstance(inst, ops.Call) and inst in self.activity.call_patterns:
                    # a zeroed shadow of the returned array: the reverse sweep adds the
                    # adjoints of its elements there and hands it to the callee's reverse
                    b.position_before(block.instructions[block.instructions.index(inst) + 1])
                    with b.at(inst.loc):
                        t = inst.type
                        assert isinstance(t, ArrayType)
                        dims = tuple(
                            b.insert(ops.ArrayDim(inst, k, type=I64)) for k in range(t.ndim)
                        )
                        shadow = b.insert(
                            ops.NewArray(
                                dims,
                                b.const(0.0, t.dtype),
                                type=ArrayType(t.dtype, t.ndim, "C"),
                                name="shadow",
                            )
                        )
                        self.shadows[inst] = shadow
                elif not isinstance(inst, ops.Phi | ops.Cast):
                    raise _not_differentiable(f"'{inst.OPNAME}' producing an array", inst)
        self._alias_shadows()

    def _alias_shadows(self) -> None:
        """Shadows of array phis and layout casts: other names of arrays.

        The shadow of an array phi is the phi of its incoming arrays' shadows. Shadows of
        local arrays are forward values, but a parameter's lives in the reverse function
        only; so where parameters reach an alias ``v``, the forward sweep keeps an
        integer *selector* ``which(v)`` beside it (the index of the parameter ``v`` is, or
        -1 for a local array) and, where local arrays reach ``v`` too, a phi of their
        shadows (``self.shadows[v]``; where a parameter came in, it holds the incoming
        array itself: a tracked array the reverse sweep never uses as a shadow). The
        reverse sweep rebuilds the shadow from the popped selector
        (:meth:`_select_shadow`). Only tracked arrays and integers cross the gap, never
        a derived pointer.
        """
        b = Builder(self.fwd)
        aliases = [
            inst
            for block in self.original_blocks
            for inst in self.body[block]
            if isinstance(inst, ops.Phi | ops.Cast)
            and isinstance(inst.type, ArrayType)
            and self.active(inst)
        ]
        params: dict[Value, list[Argument]] = {}
        has_local: dict[Value, bool] = {}
        for v in aliases:
            roots = [r for r in array_sources(v) if not isinstance(r, ops.Phi | ops.Cast)]
            for r in roots:
                if not isinstance(r, Argument) and r not in self.shadows:
                    raise _not_differentiable("an array whose shadow cannot be found", r)
            found = {r for r in roots if isinstance(r, Argument)}
            params[v] = sorted(found, key=lambda a: a.index)
            has_local[v] = any(not isinstance(r, Argument) for r in roots)
        self.alias_params = {v: ps for v, ps in params.items() if ps}
        # phis first: they may be cyclic (an array variable carried around a loop)
        for v in aliases:
            if not isinstance(v, ops.Phi):
                continue
            block = v.block
            assert block is not None
            if params[v]:
                which = ops.Phi(type=I64, name="which")
                which.loc = v.loc
                block.insert(len(block.phis()), which)
                self.selectors[v] = which
            if has_local[v]:
                shadow = ops.Phi(type=v.type, name="shadow")
                shadow.loc = v.loc
                block.insert(len(block.phis()), shadow)
                self.shadows[v] = shadow

        def selector(w: Value, at: Instruction) -> Value:
            """``which(w)`` as a forward value, constants placed before ``at``."""
            if w in self.selectors:
                return self.selectors[w]
            b.position_before(at)
            with b.at(at.loc):
                return b.const(w.index if isinstance(w, Argument) else -1, I64)

        def local_shadow(w: Value) -> Value:
            """The forward array in ``w``'s place in the phi of local shadows."""
            return self.shadows.get(w, w)

        done: set[Value] = set()

        def cast_shadows(v: ops.Cast) -> None:
            if v in done:
                return
            done.add(v)
            w = v.operands()[0]
            if isinstance(w, ops.Cast) and w in params:
                cast_shadows(w)
            block = v.block
            assert block is not None
            after = block.instructions[block.instructions.index(v) + 1]
            if params[v]:
                self.selectors[v] = selector(w, after)
            if has_local[v]:
                b.position_before(after)
                with b.at(v.loc):
                    self.shadows[v] = b.insert(ops.Cast(local_shadow(w), type=v.type))

        for v in aliases:
            if isinstance(v, ops.Cast):
                cast_shadows(v)
        for v in aliases:
            if not isinstance(v, ops.Phi):
                continue
            for pred, w in v.incoming:
                term = pred.terminator
                assert term is not None
                merged_which = self.selectors.get(v)
                if isinstance(merged_which, ops.Phi):
                    merged_which.incoming.append((pred, selector(w, term)))
                merged_shadow = self.shadows.get(v)
                if isinstance(merged_shadow, ops.Phi):
                    merged_shadow.incoming.append((pred, local_shadow(w)))

    def _shadow_needed(self, array: Value, plan: _Needs) -> None:
        """Make the shadow of ``array`` available to the reverse sweep of this block."""
        if isinstance(array, Argument):
            return  # a parameter's shadow is a parameter of the reverse function
        if array in self.selectors:
            plan.add(self.selectors[array])
            if array not in plan.aliases:
                plan.aliases.append(array)
        elif array not in self.shadows:
            raise _not_differentiable("an array whose shadow cannot be found", array)
        if array in self.shadows:
            plan.add(self.shadows[array])

    # -- what each block pushes ------------------------------------------------------

    def _needs(self, block: Block) -> _Needs:
        plan = _Needs()
        for inst in self.body[block]:
            if isinstance(inst, ops.Store):
                if self.active(inst.pointer):
                    self._plan_address(inst.pointer, plan)
                continue
            if isinstance(inst, ops.Return):
                value = inst.value
                if value is not None and isinstance(value.type, ArrayType) and self.active(value):
                    if any(isinstance(r, Argument) for r in array_sources(value)):
                        # the caller's result would alias its argument, with shadows apart
                        raise _not_differentiable("a returned array that may be a parameter", inst)
                    self._shadow_needed(value, plan)  # the caller's adjoints flow into it
                continue
            if not self._differentiated(inst) or isinstance(inst, ops.Phi):
                continue
            match inst:
                case ops.Load(pointer=pointer):
                    self._plan_address(pointer, plan)
                case ops.ElementAddr():
                    pass
                case ops.NewArray(fill=fill):
                    if fill is not None and self.active(fill):
                        self._shadow_needed(inst, plan)  # np.full: Σ shadow flows to fill
                case ops.CopyArray(array=source):
                    self._shadow_needed(source, plan)
                    self._shadow_needed(inst, plan)
                case ops.Call(args=args):
                    for a in args:
                        if self.active(a) and isinstance(a.type, ArrayType):
                            self._shadow_needed(a, plan)
                    if self.active(inst) and isinstance(inst.type, ArrayType):
                        self._shadow_needed(inst, plan)
                case _:
                    operands, result = needs_of(inst, self.active)
                    for v in operands:
                        plan.add(v)
                    if result:
                        plan.add(inst)
        return plan

    def _plan_address(self, pointer: Value, plan: _Needs) -> None:
        if not isinstance(pointer, ops.ElementAddr):
            raise _not_differentiable("a derived pointer that is not an element address", pointer)
        for index in pointer.indices:
            plan.add(index)
        self._shadow_needed(pointer.array, plan)

    def _instrument_forward(self) -> None:
        b = Builder(self.fwd)
        ret_blocks = [blk for blk in self.original_blocks if _returns(blk)]
        counters = self.tape_plan.counters
        for header, counter in counters.items():
            # trip = phi [entry: 0], [latch: trip + 1]
            header.insert(len(header.phis()), counter.phi)
            entry_term, latch_term = counter.entry.terminator, counter.latch.terminator
            assert entry_term is not None and latch_term is not None
            b.position_before(entry_term)
            with b.at(entry_term.loc):
                zero = b.const(0, I64)
            b.position_before(latch_term)
            with b.at(latch_term.loc):
                nxt = b.add(counter.phi, b.const(1, I64))
            counter.phi.incoming = [(counter.entry, zero), (counter.latch, nxt)]
        for block in self.original_blocks:
            term = block.terminator
            assert term is not None
            b.position_before(term)
            with b.at(term.loc):
                for v in self.tape_plan.pushes.get(block, []):
                    b.insert(ops.TapePush(self.tape, v, type=NONE))
                succs = block.successors()
                if len(succs) == 1 and succs[0] in counters:
                    pass  # the loop's trip count tells the reverse sweep where it came from
                elif (
                    len(succs) == 1 and len(self.preds[succs[0]]) > 1 and succs[0] in self.returning
                ):
                    which = self.preds[succs[0]].index(block)
                    b.insert(ops.TapePush(self.tape, b.const(which, I64), type=NONE))
                if isinstance(term, ops.Return) and len(ret_blocks) > 1:
                    b.insert(
                        ops.TapePush(self.tape, b.const(ret_blocks.index(block), I64), type=NONE)
                    )
        # calls of active callees become calls of their forward sweeps
        for block in self.original_blocks:
            for inst in self.body[block]:
                if isinstance(inst, ops.Call) and inst in self.activity.call_patterns:
                    callee = self.module.functions[inst.callee]
                    derived = vjp_functions(
                        self.module,
                        callee,
                        self.activity.call_patterns[inst],
                        self.call_frozen.get(inst, frozenset()),
                        self.options,
                    )
                    inst.callee = derived.fwd.name
                    inst.args = (*inst.args, self.tape)

    # -- reverse sweep ---------------------------------------------------------------

    def _build_reverse(self) -> None:
        rev = self.rev
        fwd_params = self.fwd.params[:-1]
        for i in self.arrays:
            p = fwd_params[i]
            t = p.type
            if self.c_shadows and isinstance(t, ArrayType):
                t = ArrayType(t.dtype, t.ndim, "C")
            t = shadow_type(t)  # F-ordered: A, which scratch (C) shadows relabel to
            shadow = Argument(type=t, name=f"d_{p.name}", index=len(rev.params))
            rev.params.append(shadow)
            self.shadows[p] = shadow
        tape = Argument(type=TAPE, name="tape", index=len(rev.params))
        rev.params.append(tape)
        seed_type = _adjoint_type(self.fwd.return_type)
        seed = Argument(type=seed_type, name="adjoint", index=len(rev.params))
        rev.params.append(seed)
        adj_types = [fwd_params[i].type for i in self.scalars]
        rev.return_type = TupleType(tuple(adj_types)) if adj_types else NONE
        self.rev_tape = tape
        self.seed = seed

        b = Builder(rev)
        self.b = b
        ssa = SSABuilder(rev, phi_type=lambda name: self._var_types[name], known=self._known_zero)
        self.ssa = ssa
        entry = rev.add_block("entry")
        exit_ = rev.add_block("exit")
        rblocks = {blk: rev.add_block(f"rev.{blk.label}") for blk in self.original_blocks}
        self.rblocks = rblocks
        # the forward block whose reverse each reverse block is part of (edge blocks:
        # the predecessor's, whose phi operands they take); see :meth:`_known_zero`
        self.rev_origin: dict[Block, Block] = {r: blk for blk, r in rblocks.items()}
        # expected number of reverse predecessors of each block, to know when to seal
        expected: dict[Block, int] = {entry: 0, exit_: 1}
        ret_blocks = [blk for blk in self.original_blocks if _returns(blk)]
        for blk in self.original_blocks:
            # the reverse of ``blk`` is entered from the reverse of each successor that
            # runs one (those that reach a return: the others raise), or from the entry
            live_succs = [s for s in blk.successors() if s in self.returning]
            expected[rblocks[blk]] = len(live_succs) + (1 if blk in ret_blocks else 0)
        self.expected = expected
        self.filled_edges: dict[Block, int] = {blk: 0 for blk in expected}

        b.position_at_end(entry)
        ssa.seal(entry)
        with b.at(self.fwd.loc):
            # one zero per type, defined in the entry block: every adjoint starts from it
            # and is reset to it, so the SSA construction sees the same value on both
            # sides of a loop and keeps no phi for adjoints that do not cross iterations
            for key in self._adjoint_keys():
                ssa.write(entry, self._var(key), self._zero_of(self._key_type(key)))
            # a function that always raises has no reverse: straight to the exit
            targets = [rblocks[blk] for blk in ret_blocks] or [exit_]
            self._dispatch(entry, targets, tape, pop=len(targets) > 1)

        for blk in self._reverse_order(ret_blocks):
            self._reverse_block(blk)

        b.position_at_end(exit_)
        with b.at(self.fwd.loc):
            adjs = [self._param_adjoint(exit_, fwd_params[i]) for i in self.scalars]
            b.ret(b.make_tuple(adjs) if adjs else None)
        for read in ssa.finish():
            raise AssertionError(f"adjoint {read.name} read before definition")
        _fold_zero_adjoints(rev, self._accumulations)
        _move_exit_last(rev, exit_)
        # blocks that cannot reach a return (a ``raise``) have no reverse: drop theirs
        rev.blocks = [blk for blk in rev.blocks if blk.instructions]

    def _param_adjoint(self, block: Block, p: Value) -> Value:
        """The adjoint of scalar parameter ``p`` at the exit; for a tuple parameter (a
        helper called with a tuple), the tuple of its elements' adjoints (zeros for int
        and bool elements)."""
        t = p.type
        if not isinstance(t, TupleType):
            return self._read(block, (p, 0))
        parts = []
        for k, e in enumerate(t.elements):
            if not isinstance(e, ScalarType):
                raise _not_differentiable(f"a tuple holding {user_type_name(e)} passed to", p)
            parts.append(self._read(block, (p, k)) if _is_float(e) else _zero(self.b, e))
        return self.b.make_tuple(parts)

    def _adjoint_keys(self) -> list[AdjKey]:
        keys: list[AdjKey] = []
        values: list[Value] = [*self.fwd.params[:-1], *self.fwd.instructions()]
        for v in values:
            if self.active(v) or (isinstance(v, Argument) and v.index in self.scalars):
                t = v.type
                if isinstance(t, TupleType):
                    keys.extend((v, k) for k, e in enumerate(t.elements) if _is_float(e))
                elif _is_float(t):
                    keys.append((v, 0))
        return keys

    def _key_type(self, key: AdjKey) -> Type:
        v, k = key
        t = v.type
        return t.elements[k] if isinstance(t, TupleType) else t

    def _var(self, key: AdjKey) -> str:
        v, k = key
        n = self._names.setdefault(v, len(self._names))
        name = f"adj.{n}.{k}"
        self._var_types[name] = self._key_type(key)
        self._adjoint_of[name] = v
        return name

    def _known_zero(self, rblk: Block, name: str) -> Value | None:
        """The zero, if adjoint variable ``name`` is zero all through reverse block
        ``rblk`` (the SSA construction then looks no further back; see
        :class:`~gradc.compiler.ir.ssa.SSABuilder`); else None.

        The adjoint of ``v`` (defined in forward block ``D``) is non-zero only between
        a contribution, made in the reverse of a block ``U`` using ``v``, and its read
        and reset in the reverse of ``D``. So it is zero all through the reverse of a
        forward block ``X`` that reaches no use of ``v`` except through ``D`` and lies
        on no cycle with ``D``: any path from ``X`` to a use passes ``D`` (whose reverse
        runs in between and resets the adjoint) or there is none.
        """
        v = self._adjoint_of.get(name)
        origin = self.rev_origin.get(rblk)
        if not isinstance(v, Instruction) or v.block is None or origin is None:
            return None
        region = self._use_regions.get(v)
        if region is None:
            region = self._use_regions[v] = self._use_region(v)
        if origin in region or origin in self._cycle_of(v.block):
            return None
        return self._zero_of(self._var_types[name])

    def _use_region(self, v: Instruction) -> set[Block]:
        """The forward blocks from which a use of ``v`` is reachable without passing
        ``v``'s block (that block included when it reaches one); a phi operand counts
        as a use at the end of its predecessor."""
        if self._use_blocks is None:
            self._use_blocks = {}
            for blk in self.original_blocks:
                for inst in self.body[blk]:
                    if isinstance(inst, ops.Phi):
                        for pred, w in inst.incoming:
                            self._use_blocks.setdefault(w, set()).add(pred)
                    else:
                        for w in inst.operands():
                            self._use_blocks.setdefault(w, set()).add(blk)
        home = v.block
        region = set(self._use_blocks.get(v, ()))
        work = [blk for blk in region if blk is not home]
        while work:
            for p in self.preds[work.pop()]:
                if p not in region:
                    region.add(p)
                    if p is not home:
                        work.append(p)
        return region

    def _cycle_of(self, blk: Block) -> set[Block]:
        """The forward blocks on a cycle through ``blk`` (its outermost loop), or none."""
        if self._forest is None:
            self._forest = LoopForest(self.fwd)
        loops = self._forest.loops_of(blk)
        return loops[0].blocks if loops else set()

    def _read(self, block: Block, key: AdjKey) -> Value:
        return self.ssa.read(block, self._var(key), self.fwd.loc)

    def _accumulate(self, key: AdjKey, contribution: Value | None) -> None:
        if contribution is None or not self._is_adjoint_key(key):
            return
        assert self.b.block is not None
        block = self.b.block
        current = self._read(block, key)
        if current is self._zeros.get(current.type):
            # 0 + c is c (up to the sign of a zero, which no gradient depends on);
            # LLVM may not fold it without fast-math
            self.ssa.write(block, self._var(key), contribution)
            return
        total = self.b.add(current, contribution)
        assert isinstance(total, ops.Add)
        self._accumulations.add(total)
        self.ssa.write(block, self._var(key), total)

    def _is_adjoint_key(self, key: AdjKey) -> bool:
        v, _ = key
        return self.active(v) or (isinstance(v, Argument) and v.index in self.scalars)

    def _reset(self, key: AdjKey) -> None:
        assert self.b.block is not None
        self.ssa.write(self.b.block, self._var(key), self._zero_of(self._key_type(key)))

    def _zero_of(self, t: Type) -> Value:
        """The shared zero of type ``t`` (a constant at the top of the entry block)."""
        zero = self._zeros.get(t)
        if zero is None:
            assert isinstance(t, ScalarType)
            zero = ops.Const(0.0 if t.is_float else 0, type=t, name="zero")
            zero.loc = self.fwd.loc
            self.rev.blocks[0].insert(0, zero)
            self._zeros[t] = zero
        return zero

    def _reverse_order(self, ret_blocks: list[Block]) -> list[Block]:
        """Blocks in reverse post-order of the reverse CFG (from the returns)."""
        seen: set[Block] = set()
        post: list[Block] = []
        preds = self.preds

        def visit(blk: Block) -> None:
            stack = [(blk, iter(preds[blk]))]
            seen.add(blk)
            while stack:
                node, it = stack[-1]
                nxt = next((p for p in it if p not in seen), None)
                if nxt is None:
                    post.append(node)
                    stack.pop()
                else:
                    seen.add(nxt)
                    stack.append((nxt, iter(preds[nxt])))

        for blk in ret_blocks:
            if blk not in seen:
                visit(blk)
        return list(reversed(post))

    def _edge(self, src: Block, dst: Block) -> None:
        self.ssa.add_edge(src, dst)
        self.filled_edges[dst] += 1
        if self.filled_edges[dst] == self.expected[dst]:
            self.ssa.seal(dst)

    def _dispatch(self, src: Block, targets: list[Block], tape: Value, pop: bool) -> None:
        """Branch from ``src`` to ``targets[k]``, ``k`` popped off the tape when ``pop``."""
        b = self.b
        if not pop:
            (target,) = targets
            b.jump(target)
            self._edge(src, target)
            return
        which = b.insert(ops.TapePop(tape, type=I64, name="which"))
        current = src
        for k, target in enumerate(targets[:-1]):
            nxt = self.rev.add_block(f"{src.label}.dispatch")
            b.branch(b.cmp("eq", which, b.const(k, I64)), target, nxt)
            self._edge(current, target)
            self.ssa.add_edge(current, nxt)
            self.ssa.seal(nxt)
            b.position_at_end(nxt)
            current = nxt
        b.jump(targets[-1])
        self._edge(current, targets[-1])

    def _dispatch_counted(
        self, src: Block, counter: Counter, preds: list[Block], targets: list[Block]
    ) -> None:
        """Leave the reverse of a counted loop's header: back to the latch while the
        iteration number is positive (decrementing it), else to the loop's entry."""
        b = self.b
        name = self._primal_var(counter.phi)
        k = self.ssa.read(src, name, b.loc)
        self.ssa.write(src, name, b.sub(k, b.const(1, I64)))
        to_entry = targets[preds.index(counter.entry)]
        to_latch = targets[preds.index(counter.latch)]
        # k <= 0 rather than k == 0 (the same for a count): LLVM then knows k - 1 >= 0
        # in the loop, so an index start + (k - 1)·step needs no negative-index wrap
        b.branch(b.cmp("le", k, b.const(0, I64)), to_entry, to_latch)
        self._edge(src, to_entry)
        self._edge(src, to_latch)

    def _primal_var(self, v: Value) -> str:
        """The reverse function's variable holding forward value ``v``."""
        name = self._primal_names.get(v)
        if name is None:
            name = f"primal.{len(self._primal_names)}"
            self._primal_names[v] = name
            self._var_types[name] = v.type
        return name

    def _materialize(self, rblk: Block, v: Value, recipe: Recipe) -> Value:
        """Forward value ``v`` at the start of ``R(B)`` (``rblk``), as planned."""
        b = self.b
        if recipe.kind is RecipeKind.TAPE:
            return self.ssa.read(rblk, self._primal_var(v), b.loc)
        if recipe.kind is RecipeKind.INDUCTION:
            ind = recipe.induction
            assert ind is not None
            k = self.primal(ind.counter)
            return b.add(self.primal(ind.start), b.mul(k, self.primal(ind.step)))
        if recipe.kind is RecipeKind.TRIP:
            # a range loop's iteration count at its exit, where a pop would have set it
            trip = recipe.trip
            assert trip is not None
            start, bound = self.primal(trip.start), self.primal(trip.bound)
            count = b.select(b.cmp("lt", start, bound), b.sub(bound, start), b.const(0, I64))
            self.ssa.write(rblk, self._primal_var(v), count)
            return count
        assert isinstance(v, Instruction) and recipe.kind is RecipeKind.RECOMPUTE
        if isinstance(v, ops.Load):
            pointer = v.pointer
            assert isinstance(pointer, ops.ElementAddr)
            address = self._checked_address(
                self.primal(pointer.array), list(pointer.indices), pointer.type
            )
            return b.insert(ops.Load(address, type=v.type))
        rebuilt = copy.copy(v)
        rebuilt.block = None
        rebuilt.unwind = ()
        remap(rebuilt, {w: self.primal(w) for w in v.operands()}, {})
        return b.insert(rebuilt)

    def _reverse_block(self, blk: Block) -> None:
        first_new = len(self.rev.blocks)
        self._reverse_block_body(blk)
        for piece in self.rev.blocks[first_new:]:  # dispatch and shadow blocks
            self.rev_origin.setdefault(piece, blk)

    def _reverse_block_body(self, blk: Block) -> None:
        b = self.b
        rblk = self.rblocks[blk]
        b.position_at_end(rblk)
        term = blk.terminator
        assert term is not None
        with b.at(term.loc):
            # pop in the opposite order of the pushes at the end of ``blk``, into the
            # variables later reads of those forward values see (:mod:`.taping`)
            for v in reversed(self.tape_plan.pushes.get(blk, [])):
                popped = b.insert(ops.TapePop(self.rev_tape, type=v.type))
                self.ssa.write(rblk, self._primal_var(v), popped)
            self.popped: dict[Value, Value] = {}
            self.recipes = self.tape_plan.recipes.get(blk, {})
            for v, recipe in self.recipes.items():
                self.popped[v] = self._materialize(rblk, v, recipe)
            self.selected = {v: self._select_shadow(v) for v in self.alias_needs[blk]}
            if isinstance(term, ops.Return) and term.value is not None:
                self._seed(term.value)
        for inst in reversed(self.body[blk]):
            if inst.IS_TERMINATOR or isinstance(inst, ops.Phi):
                continue
            if not self._differentiated(inst) and not isinstance(inst, ops.Store):
                continue
            with b.at(inst.loc):
                try:
                    self._adjoint(inst)
                except NotDifferentiable as exc:
                    exc.inst = inst  # type: ignore[attr-defined]
                    raise
        # phis: their adjoints flow to the incoming values, on each edge
        phi_adjoints: list[tuple[ops.Phi, list[Value]]] = []
        with b.at(term.loc):
            for phi in blk.phis():
                assert isinstance(phi, ops.Phi)
                if not self.active(phi) or isinstance(phi.type, ArrayType):
                    continue
                keys = self._keys_of(phi)
                phi_adjoints.append((phi, [self._read(rblk_cur(b), k) for k in keys]))
                for k in keys:
                    self._reset(k)
            preds = self.preds[blk]
            if not preds:  # the entry block: done
                b.jump(self._exit())
                self._edge(rblk_cur(b), self._exit())
                return
            targets = [self.rblocks[p] for p in preds]
            if phi_adjoints:
                # edge code (a phi's adjoint flows to the value from that predecessor)
                # gets a block of its own on each reverse edge
                targets = [self._edge_block(blk, p, phi_adjoints) for p in preds]
            counter = self.tape_plan.counters.get(blk)
            if counter is not None:
                self._dispatch_counted(rblk_cur(b), counter, preds, targets)
            else:
                self._dispatch(rblk_cur(b), targets, self.rev_tape, pop=len(preds) > 1)

    def _edge_block(
        self, blk: Block, pred: Block, phi_adjoints: list[tuple[ops.Phi, list[Value]]]
    ) -> Block:
        """A block on the reverse edge ``R(blk) → R(pred)`` adding the phi adjoints."""
        b = self.b
        saved = b.block
        edge = self.rev.add_block(f"rev.{blk.label}.to.{pred.label}")
        self.rev_origin[edge] = pred
        self.expected[edge] = 1
        self.filled_edges[edge] = 0
        b.position_at_end(edge)
        for phi, adjoints in phi_adjoints:
            incoming = phi.value_for(pred)
            for k, a in zip(self._keys_of(phi), adjoints, strict=True):
                self._accumulate((incoming, k[1]), a)
        b.jump(self.rblocks[pred])
        self._edge(edge, self.rblocks[pred])
        assert saved is not None
        b.position_at_end(saved)
        return edge

    def _exit(self) -> Block:
        return next(blk for blk in self.rev.blocks if blk.label == "exit")

    def _keys_of(self, v: Value) -> list[AdjKey]:
        t = v.type
        if isinstance(t, TupleType):
            return [(v, k) for k, e in enumerate(t.elements) if _is_float(e)]
        return [(v, 0)] if _is_float(t) else []

    def _seed(self, value: Value) -> None:
        b = self.b
        if not self.active(value):
            return
        if isinstance(value.type, TupleType):
            for v, k in self._keys_of(value):
                self._accumulate((v, k), b.tuple_get(self.seed, k))
        elif _is_float(value.type):
            self._accumulate((value, 0), self.seed)
        elif isinstance(value.type, ArrayType):
            # the caller's adjoints of the returned array flow into its shadow here
            b.insert(ops.AccumulateArray(self._shadow(value), self.seed, type=NONE))

    def primal(self, v: Value) -> Value:
        """The reverse-sweep copy of forward value ``v`` (popped, or a constant)."""
        if isinstance(v, ops.Const):
            return self.b.const(v.value, v.type)  # type: ignore[arg-type]
        if v in self.popped:
            return self.popped[v]
        raise AssertionError(f"reverse sweep needs {v!r}, which was not pushed")

    def _shadow(self, array: Value) -> Value:
        if array in self.selectors:
            return self.selected[array]
        shadow = self.shadows[array]
        return (
            shadow
            if isinstance(shadow, Argument) and shadow in self.rev.params
            else (self.primal(shadow))
        )

    def _select_shadow(self, array: Value) -> Value:
        """The shadow of alias ``array`` that parameters reach, rebuilt at the start of a
        reverse block from its popped selector: ``d_p if which == p.index else ...``,
        ending with the popped shadow of the local arrays (or the last parameter's
        shadow when no local array reaches ``array``). Branches and phis, not selects
        (the lifetimes pass manages arrays through phis)."""
        b = self.b
        which = self.primal(self.selectors[array])
        params = self.alias_params[array]
        chosen = (
            self.primal(self.shadows[array])
            if array in self.shadows
            else b.cast(self.shadows[params[-1]], shadow_type(array.type))
        )
        if array not in self.shadows:
            params = params[:-1]
        for p in reversed(params):
            here = rblk_cur(b)
            pick = self.rev.add_block(f"{here.label}.shadow")
            join = self.rev.add_block(f"{here.label}.shadow.join")
            b.branch(b.cmp("eq", which, b.const(p.index, I64)), pick, join)
            self.ssa.add_edge(here, pick)
            self.ssa.seal(pick)
            b.position_at_end(pick)
            param_shadow = b.cast(self.shadows[p], shadow_type(array.type))
            b.jump(join)
            self.ssa.add_edge(here, join)
            self.ssa.add_edge(pick, join)
            self.ssa.seal(join)
            b.position_at_end(join)
            merged = ops.Phi(type=shadow_type(array.type), name="shadow")
            merged.incoming = [(here, chosen), (pick, param_shadow)]
            chosen = b.insert(merged)
        return chosen

    def _address(self, pointer: Value) -> Value:
        """The shadow element of forward element address ``pointer``."""
        assert isinstance(pointer, ops.ElementAddr)
        return self._checked_address(
            self._shadow(pointer.array), list(pointer.indices), pointer.type
        )

    def _checked_address(self, array: Value, indices: list[Value], t: Type) -> Value:
        """``array[indices]`` (``indices``: forward values) in the reverse sweep, for
        indices the forward sweep used on an array of the same shape (the primal of a
        shadow, or the array itself): the forward ``elemaddr`` checked them, so they are
        in bounds once wrapped. ``addr(elemoffset)``: a negative index is wrapped
        branch-free (``i < 0 ? i + shape : i``), never checked again."""
        b = self.b
        values = tuple(self.primal(i) for i in indices)
        offset = b.insert(ops.ElementOffset(array, values, type=I64))
        return b.insert(ops.Addr(array, offset, type=t))

    def _adjoint(self, inst: Instruction) -> None:
        b = self.b
        a: Value
        block = rblk_cur(b)
        o = make_ops(b)
        match inst:
            case ops.Store(pointer=pointer, value=value):
                if not self.active(pointer):
                    return
                # value was written over the old contents: its adjoint is the shadow's,
                # and the shadow restarts from zero (the old value did not reach later)
                address = self._address(pointer)
                a = b.insert(ops.Load(address, type=value.type))
                self._accumulate((value, 0), a)
                b.insert(ops.Store(address, _zero(b, value.type), type=NONE))
                return
            case ops.Load(pointer=pointer):
                a = self._read(block, (inst, 0))
                self._reset((inst, 0))
                address = self._address(pointer)
                old = b.insert(ops.Load(address, type=inst.type))
                b.insert(ops.Store(address, b.add(old, a), type=NONE))
                return
            case ops.ElementAddr():
                return
            case ops.NewArray(fill=fill):
                if fill is not None and self.active(fill):
                    # np.full(shape, y): every element is y, so ȳ += Σ shadow
                    self._accumulate((fill, 0), fill_adjoint(self.module, b, self._shadow(inst)))
                return
            case ops.CopyArray(array=source):
                # the copy's adjoints flow back into the source's, element by element; a
                # constant source (a Const parameter copied, the copy then made active by a
                # store) has no shadow, and its adjoint is not wanted
                if self.active(source) or source in self.shadows or source in self.selectors:
                    b.insert(
                        ops.AccumulateArray(self._shadow(source), self._shadow(inst), type=NONE)
                    )
                return
            case ops.Call():
                self._call_adjoint(inst)
                return
            case ops.TupleGet(tuple=tup, index=index):
                if _is_float(inst.type):
                    a = self._read(block, (inst, 0))
                    self._reset((inst, 0))
                    self._accumulate((tup, index), a)
                return
            case ops.MakeTuple(elements=elements):
                for _, k in self._keys_of(inst):
                    a = self._read(block, (inst, k))
                    self._reset((inst, k))
                    self._accumulate((elements[k], 0), a)
                return
        if not _is_float(inst.type):
            return
        a = self._read(block, (inst, 0))
        self._reset((inst, 0))
        if a is self._zeros.get(a.type):
            return  # an unused value: no adjoint, and no 0·inf from its partials
        if isinstance(inst, ops.Cast):
            if _is_float(inst.value.type):
                self._accumulate((inst.value, 0), b.cast(a, inst.value.type))
            return
        proxy = copy.copy(inst)
        # operands the rule needs were pushed (or are constants); the others stand for
        # themselves, as keys of the contributions (the verifier catches a rule that
        # used a value it should have pushed)
        mapping = {
            v: self.primal(v) if v in self.popped or isinstance(v, ops.Const) else v
            for v in inst.operands()
        }
        remap(proxy, mapping, {})
        back = {id(mapping[v]): v for v in inst.operands()}

        def active(v: Value) -> bool:
            original = back.get(id(v))
            return original is not None and self.active(original)

        def accumulate(operand: Value, contribution: Value) -> None:
            original = back.get(id(operand))
            if original is not None:
                self._accumulate((original, 0), contribution)

        # the popped result where the rule needs it (its plan pushed it); otherwise the
        # rule uses the result only for its type
        result = self.popped.get(inst, inst)
        scalar_rule(inst).transpose(o, proxy, a, result, active, accumulate)

    def _call_adjoint(self, call: ops.Call) -> None:
        b = self.b
        block = rblk_cur(b)
        pattern = self.activity.call_patterns.get(call)
        if not pattern:
            return
        callee = self.module.functions[call.callee]
        frozen = self.call_frozen.get(call, frozenset())
        derived = vjp_functions(self.module, callee, pattern, frozen, self.options)
        shadows = [
            s if s.type == derived.rev.params[k].type else b.cast(s, derived.rev.params[k].type)
            for k, s in enumerate(self._shadow(call.args[i]) for i in derived.array_params)
        ]
        keys = self._keys_of(call)
        seed_type = _adjoint_type(call.type)
        if isinstance(seed_type, TupleType):
            parts = []
            for k, t in enumerate(seed_type.elements):
                if (call, k) in keys:
                    parts.append(self._read(block, (call, k)))
                else:
                    parts.append(_zero(b, t))
            seed = b.make_tuple(parts)
        elif keys:
            seed = self._read(block, (call, 0))
        elif isinstance(seed_type, ArrayType):
            # the shadow of the returned array (a placeholder if the caller needs none)
            seed = (
                self._shadow(call)
                if call in self.shadows
                else b.insert(
                    ops.NewArray(
                        (b.const(0, I64),) * seed_type.ndim,
                        b.const(0.0, seed_type.dtype),
                        type=seed_type,
                    )
                )
            )
        else:
            seed = _zero(b, seed_type)
        for key in keys:
            self._reset(key)
        result = b.call(derived.rev.name, [*shadows, self.rev_tape, seed], derived.rev.return_type)
        for position, i in enumerate(derived.scalar_params):
            adjoint, arg = b.tuple_get(result, position), call.args[i]
            if isinstance(arg.type, TupleType):  # a tuple argument: element by element
                for _, k in self._keys_of(arg):
                    self._accumulate((arg, k), b.tuple_get(adjoint, k))
            else:
                self._accumulate((arg, 0), adjoint)


def _fold_zero_adjoints(rev: Function, accumulations: set[ops.Add]) -> None:
    """Remove phis of adjoints that are zero on every path, and additions of a zero.

    An adjoint reset to zero in a loop of the reverse sweep meets the zero it started
    from at each loop header: cycles of phis whose only value is the shared zero
    (the SSA construction removes single trivial phis, not such cycles), after which
    ``0.0 + c`` remains, which LLVM does not fold without fast-math (-0.0 + 0.0 is
    +0.0). Both go here; the sign of a zero adjoint is not a gradient's concern.
    Additions of the primal computation (recomputed or not) are left alone: only
    ``accumulations`` are folded.
    """
    phis = [inst for inst in rev.instructions() if isinstance(inst, ops.Phi)]
    leaves: dict[ops.Phi, set[Value]] = {}
    for phi in phis:
        found: set[Value] = set()
        seen = {phi}
        work: list[ops.Phi] = [phi]
        while work and len(found) <= 1:
            for _, v in work.pop().incoming:
                if isinstance(v, ops.Phi):
                    if v not in seen:
                        seen.add(v)
                        work.append(v)
                else:
                    found.add(v)
        leaves[phi] = found
    replace: dict[Value, Value] = {}
    for phi, found in leaves.items():
        if len(found) == 1:
            (only,) = found
            if _is_zero(only):
                replace[phi] = only
    changed = True
    while changed:
        changed = False
        for add in list(accumulations):
            if add.block is None:
                continue
            lhs, rhs = replace.get(add.lhs, add.lhs), replace.get(add.rhs, add.rhs)
            if _is_zero(lhs):
                replace[add] = rhs
            elif _is_zero(rhs):
                replace[add] = lhs
            else:
                continue
            accumulations.discard(add)
            changed = True
    if not replace:
        return

    def final(v: Value) -> Value:
        while v in replace:
            v = replace[v]
        return v

    for inst in rev.instructions():
        if isinstance(inst, ops.Phi):
            inst.incoming = [(blk, final(v)) for blk, v in inst.incoming]
        else:
            for v in inst.operands():
                if v in replace:
                    inst.replace_operand(v, final(v))
    for v in replace:
        if isinstance(v, Instruction) and v.block is not None:
            v.erase()


def _is_zero(v: Value) -> bool:
    return isinstance(v, ops.Const) and isinstance(v.value, float) and v.value == 0.0


def rblk_cur(b: Builder) -> Block:
    assert b.block is not None
    return b.block


def _returns(block: Block) -> bool:
    return isinstance(block.terminator, ops.Return)


def _reaches_return(fn: Function, preds: dict[Block, list[Block]]) -> set[Block]:
    """The blocks of ``fn`` from which some ``ret`` is reachable (a backward search
    from the returns). A block outside the set leaves the function by raising."""
    live = {blk for blk in fn.blocks if _returns(blk)}
    work = list(live)
    while work:
        for p in preds[work.pop()]:
            if p not in live:
                live.add(p)
                work.append(p)
    return live


def _is_float(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_float


def _move_exit_last(fn: Function, exit_: Block) -> None:
    fn.blocks.remove(exit_)
    fn.blocks.append(exit_)


def _not_differentiable(what: str, where: Value) -> NotDifferentiable:
    exc = NotDifferentiable(what)
    exc.inst = where  # type: ignore[attr-defined]
    return exc


# -- derivative exports ------------------------------------------------------------


def user_type_name(t: Type) -> str:
    """``t`` as the user writes it (``bool``, ``None``, ``f64[:]``)."""
    return "None" if isinstance(t, NoneType) else python_name(t)


def _check_vjp_result(fn: Function, loc: Loc) -> None:
    """Refuse ``gradc.vjp`` of a function whose result has no float cotangents yet:
    None, an int or bool array, or a tuple holding anything but scalars. A float array
    result has an array cotangent."""
    t = fn.return_type
    if isinstance(t, ArrayType) and t.dtype.is_float:
        return
    elements = t.elements if isinstance(t, TupleType) else (t,)
    for e in elements:
        if not isinstance(e, ScalarType):
            raise PassError(
                f"gradc.vjp of '{fn.source_name}', which returns {user_type_name(t)}: "
                f"results of type {user_type_name(e)} have no cotangent yet (float scalars "
                "and tuples of scalars do)",
                loc,
            )


def reverse_export(
    module: Module,
    name: str,
    kind: str,
    fn: Function,
    wrt: list[int],
    wrt_sequence: bool,
    loc: Loc,
    options: TapeOptions = DEFAULT_OPTIONS,
) -> Function:
    """The exported ``grad``/``value_and_grad``/``vjp`` function (see :mod:`.api`);
    ``options``: the taping strategies (:class:`.taping.TapeOptions`)."""
    result_type = fn.return_type
    if kind != "vjp" and not _is_float(result_type):
        raise PassError(
            f"gradc.{kind} needs '{fn.source_name}' to return a float, not "
            f"{user_type_name(result_type)} (use gradc.vjp for other results)",
            loc,
        )
    if kind == "vjp":
        _check_vjp_result(fn, loc)
    pattern = frozenset(wrt)
    # the wrapper writes none of the caller's arrays between the two sweeps
    every_array = frozenset(k for k, p in enumerate(fn.params) if isinstance(p.type, ArrayType))
    derived = vjp_functions(module, fn, pattern, every_array, options, c_shadows=True)
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    cotangents: list[Argument] = []
    if kind == "vjp":
        # one float cotangent per float result: ``cotangent``, or ``ct_<k>`` for element k
        # of a tuple result (elements that are not floats get none)
        if isinstance(result_type, TupleType):
            for k, e in enumerate(result_type.elements):
                if _is_float(e):
                    cotangents.append(Argument(type=e, name=f"ct_{k}", index=0))
        elif isinstance(result_type, ArrayType):  # any layout: copied before use
            ct_type = ArrayType(result_type.dtype, result_type.ndim, "A")
            cotangents.append(Argument(type=ct_type, name="cotangent", index=0))
        else:
            cotangents.append(Argument(type=_adjoint_type(result_type), name="cotangent", index=0))
        for ct in cotangents:
            ct.index = len(wrapper.params)
            wrapper.params.append(ct)
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        from gradc.passes.ad.aliasing import emit_overlap_checks

        array_ct = cotangents[0] if isinstance(result_type, ArrayType) and cotangents else None
        emit_overlap_checks(module, fn, b, params, kind=kind, pattern=pattern, cotangent=array_ct)
        tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
        shadows: dict[int, Value] = {}
        for i in derived.array_params:
            t = params[i].type
            assert isinstance(t, ArrayType)
            dims = tuple(b.insert(ops.ArrayDim(params[i], k, type=I64)) for k in range(t.ndim))
            shadow_type = ArrayType(t.dtype, t.ndim, "C")
            shadows[i] = b.insert(
                ops.NewArray(
                    dims, b.const(0.0, t.dtype), type=shadow_type, name=f"d_{t and params[i].name}"
                )
            )
        value = b.call(derived.fwd.name, [*params, tape], derived.fwd.return_type)
        seed: Value
        if kind == "vjp" and isinstance(result_type, TupleType):
            given = {ct.name: ct for ct in cotangents}
            seed = b.make_tuple(
                [
                    given[f"ct_{k}"] if f"ct_{k}" in given else _zero(b, _adjoint_type(e))
                    for k, e in enumerate(result_type.elements)
                ]
            )
        elif kind == "vjp" and isinstance(result_type, ArrayType):
            # the reverse sweep adds into (and may reset) its seed: give it a C copy
            ct = cotangents[0]
            c_type = ArrayType(result_type.dtype, result_type.ndim, "C")
            shape = tuple(b.insert(ops.ArrayDim(value, k, type=I64)) for k in range(c_type.ndim))
            for k in range(c_type.ndim):
                m = b.insert(ops.ArrayDim(ct, k, type=I64))
                with b.if_then(b.cmp("ne", shape[k], m), label="ct.shape"):
                    # unwind the tape with a zero seed (it holds array references the
                    # reverse sweep releases), free it, then raise
                    zero = b.insert(ops.NewArray(shape, b.const(0.0, c_type.dtype), type=c_type))
                    b.call(
                        derived.rev.name,
                        [*_shadow_args(b, derived, shadows), tape, zero],
                        derived.rev.return_type,
                    )
                    b.insert(ops.TapeFree(tape, type=NONE))
                    b.raise_(
                        "ValueError",
                        f"cotangent must have the shape of the result of "
                        f"'{fn.source_name}' (they differ in axis {k})",
                    )
            seed = b.insert(ops.CopyArray(ct, type=c_type))
        elif kind == "vjp":
            seed = cotangents[0]
        else:
            assert isinstance(result_type, ScalarType)
            seed = b.const(1.0, result_type)
        adjoints = b.call(
            derived.rev.name,
            [*_shadow_args(b, derived, shadows), tape, seed],
            derived.rev.return_type,
        )
        b.insert(ops.TapeFree(tape, type=NONE))
        grads: list[Value] = []
        for i in wrt:
            if i in shadows:
                grads.append(shadows[i])
            else:
                grads.append(b.tuple_get(adjoints, derived.scalar_params.index(i)))
        grad: Value = b.make_tuple(grads) if wrt_sequence else grads[0]
        result = b.make_tuple([value, grad]) if kind == "value_and_grad" else grad
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def _shadow_args(b: Builder, derived: Derived, shadows: dict[int, Value]) -> list[Value]:
    """The wrapper's C shadows as the reverse function's shadow parameters."""
    return [
        b.cast(shadows[i], derived.rev.params[k].type)  # a no-op relabel for the .c variant
        for k, i in enumerate(derived.array_params)
    ]


__all__ = ["Derived", "reverse_export", "vjp_functions"]
_ = (Callable, NoneType, can_be_active)
