"""The reverse sweep of reverse mode (:mod:`.reverse`): ``f.rev.<variant>``.

``f.rev(shadows..., tape, adjoint of result) -> tuple[adjoints of the active scalar
parameters]`` walks the forward CFG backwards. The reverse of forward block ``B``
(``R(B)``) pops ``B``'s values (last pushed, first popped) into the variables later
reads of those forward values see, rebuilds what :mod:`.taping` chose to reload or
recompute, applies the adjoints of ``B``'s instructions in reverse order (each
operation's rule, :mod:`.rules`: a :class:`.rules.base.SweepRule`'s adjoint, or the
transpose of a scalar rule), hands the adjoints of ``B``'s phis to the incoming values on
each reverse edge (a block of its own per edge), and pops the predecessor to return to
(or counts a counted loop's iterations down). Blocks that cannot reach a return raise
in the forward sweep and have no reverse.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.clone import remap
from gradc.compiler.ir.core import Argument, Block, Instruction, Value
from gradc.compiler.ir.dominance import reverse_postorder
from gradc.compiler.ir.types import I64, NONE, TAPE, ArrayType, ScalarType, TupleType, Type
from gradc.passes.ad.adjoints import Adjoints, fold_zero_adjoints
from gradc.passes.ad.layout import adjoint_type, is_float, shadow_type, zero
from gradc.passes.ad.leaves import build, get_leaf, leaves
from gradc.passes.ad.rules import AD_RULES, NotDifferentiable, make_ops, scalar_rule
from gradc.passes.ad.rules.base import BlockState, SweepRule
from gradc.passes.ad.sweep_state import Primal, Shadows, not_differentiable, user_type_name
from gradc.passes.ad.taping import Counter, Recipe, RecipeKind, TapePlan
from gradc.passes.ad.views import rebuild_view


@dataclass(eq=False)
class ReverseBlock(BlockState):
    """The reverse of one forward block while it is built (:class:`.rules.base.BlockState`).

    Attributes:
        popped: forward value -> its copy in the reverse sweep (popped, reloaded or
            recomputed at the start of the block's reverse, as :mod:`.taping` planned).
        selected: alias -> its shadow, rebuilt from the popped selector.
    """

    popped: dict[Value, Value] = field(default_factory=dict)
    selected: dict[Value, Value] = field(default_factory=dict)


class ReverseSweep:
    """Builds ``p.rev``: call :meth:`run` once.

    Args:
        p: the function being differentiated.
        shadows: the shadows of its arrays (the parameters' are added here).
        plan: what the forward sweep pushes and how the rest is rebuilt.
        alias_needs: per block, the aliases whose shadows its reverse rebuilds.
    """

    def __init__(
        self,
        p: Primal,
        shadows: Shadows,
        plan: TapePlan,
        alias_needs: dict[Block, list[Value]],
    ) -> None:
        self.p = p
        self.shadows = shadows
        self.plan = plan
        self.alias_needs = alias_needs
        self.tape, self.seed = self._parameters()
        self.b = Builder(p.rev)
        self.adjoints = Adjoints(p, self.b)
        self.entry = p.rev.add_block("entry")
        self.exit = p.rev.add_block("exit")
        self.rblocks = {blk: p.rev.add_block(f"rev.{blk.label}") for blk in p.blocks}
        self.adjoints.origin.update({r: blk for blk, r in self.rblocks.items()})
        # expected number of reverse predecessors of each block, to know when to seal
        self.expected: dict[Block, int] = {self.entry: 0, self.exit: 1}
        ret_blocks = p.return_blocks()
        for blk in p.blocks:
            # the reverse of ``blk`` is entered from the reverse of each successor that
            # runs one (those that reach a return: the others raise), or from the entry
            live_succs = [s for s in blk.successors() if s in p.returning]
            self.expected[self.rblocks[blk]] = len(live_succs) + (1 if blk in ret_blocks else 0)
        self.filled_edges: dict[Block, int] = {blk: 0 for blk in self.expected}
        # (reverse block, forward array, axis, reverse index) -> the index wrapped there
        self.wrapped: dict[tuple[Block, Value, int, Value], Value] = {}

    def _parameters(self) -> tuple[Argument, Argument]:
        """``rev``'s parameters (shadows, tape, seed) and return type."""
        p, rev = self.p, self.p.rev
        fwd_params = p.fwd.params[:-1]
        for i in p.arrays:
            param = fwd_params[i]
            t = param.type
            if p.c_shadows and isinstance(t, ArrayType):
                t = ArrayType(t.dtype, t.ndim, "C")
            t = shadow_type(t)  # F-ordered: A, which scratch (C) shadows relabel to
            shadow = Argument(type=t, name=f"d_{param.name}", index=len(rev.params))
            rev.params.append(shadow)
            self.shadows.shadows[param] = shadow
        tape = Argument(type=TAPE, name="tape", index=len(rev.params))
        rev.params.append(tape)
        seed = Argument(type=adjoint_type(p.fwd.return_type), name="adjoint", index=len(rev.params))
        rev.params.append(seed)
        adj_types = [fwd_params[i].type for i in p.scalars]
        rev.return_type = TupleType(tuple(adj_types)) if adj_types else NONE
        return tape, seed

    def run(self) -> None:
        """Build the reverse function."""
        p, b, adj = self.p, self.b, self.adjoints
        ret_blocks = p.return_blocks()
        b.position_at_end(self.entry)
        adj.ssa.seal(self.entry)
        with b.at(p.fwd.loc):
            # one zero per type, defined in the entry block: every adjoint starts from it
            # and is reset to it, so the SSA construction sees the same value on both
            # sides of a loop and keeps no phi for adjoints that do not cross iterations
            for key in adj.all_keys():
                adj.ssa.write(self.entry, adj.var(key), adj.zero_of(adj.key_type(key)))
            # a function that always raises has no reverse: straight to the exit
            targets = [self.rblocks[blk] for blk in ret_blocks] or [self.exit]
            self._dispatch(self.entry, targets, pop=len(targets) > 1)
        for blk in reverse_postorder(*ret_blocks, edges=p.preds.__getitem__):
            first_new = len(p.rev.blocks)
            self._reverse_block(blk)
            for piece in p.rev.blocks[first_new:]:  # dispatch and shadow blocks
                adj.origin.setdefault(piece, blk)
        b.position_at_end(self.exit)
        with b.at(p.fwd.loc):
            fwd_params = p.fwd.params[:-1]
            adjs = [self._param_adjoint(fwd_params[i]) for i in p.scalars]
            b.ret(b.make_tuple(adjs) if adjs else None)
        for read in adj.ssa.finish():
            raise AssertionError(f"adjoint {read.name} read before definition")
        fold_zero_adjoints(p.rev, adj.accumulations)
        p.rev.blocks.remove(self.exit)
        p.rev.blocks.append(self.exit)
        # blocks that cannot reach a return (a ``raise``) have no reverse: drop theirs
        p.rev.blocks = [blk for blk in p.rev.blocks if blk.instructions]

    def _param_adjoint(self, param: Value) -> Value:
        """The adjoint of scalar parameter ``param`` at the exit; for a tuple parameter
        (a helper called with a tuple, nested or not), the tuple of its leaves' adjoints
        (zeros for int and bool leaves)."""
        t = param.type
        if not isinstance(t, TupleType):
            return self.adjoints.read(self.exit, (param, 0))
        for _, e in leaves(t):
            if not isinstance(e, ScalarType):
                raise not_differentiable(f"a tuple holding {user_type_name(e)} passed to", param)
        return build(
            self.b,
            t,
            lambda k, e: (
                self.adjoints.read(self.exit, (param, k)) if is_float(e) else zero(self.b, e)
            ),
        )

    # -- control flow --------------------------------------------------------------------

    def current(self) -> Block:
        """The reverse block the builder is in."""
        assert self.b.block is not None
        return self.b.block

    def _edge(self, src: Block, dst: Block) -> None:
        self.adjoints.ssa.add_edge(src, dst)
        self.filled_edges[dst] += 1
        if self.filled_edges[dst] == self.expected[dst]:
            self.adjoints.ssa.seal(dst)

    def _dispatch(self, src: Block, targets: list[Block], pop: bool) -> None:
        """Branch from ``src`` to ``targets[k]``, ``k`` popped off the tape when ``pop``."""
        b, ssa = self.b, self.adjoints.ssa
        if not pop:
            (target,) = targets
            b.jump(target)
            self._edge(src, target)
            return
        which = b.insert(ops.TapePop(self.tape, type=I64, name="which"))
        current = src
        for k, target in enumerate(targets[:-1]):
            nxt = self.p.rev.add_block(f"{src.label}.dispatch")
            b.branch(b.cmp("eq", which, b.const(k, I64)), target, nxt)
            self._edge(current, target)
            ssa.add_edge(current, nxt)
            ssa.seal(nxt)
            b.position_at_end(nxt)
            current = nxt
        b.jump(targets[-1])
        self._edge(current, targets[-1])

    def _dispatch_counted(
        self, src: Block, counter: Counter, preds: list[Block], targets: list[Block]
    ) -> None:
        """Leave the reverse of a counted loop's header: back to the latch while the
        iteration number is positive (decrementing it), else to the loop's entry."""
        b, adj = self.b, self.adjoints
        k = adj.read_primal(src, counter.phi, b.loc)
        adj.write_primal(src, counter.phi, b.sub(k, b.const(1, I64)))
        to_entry = targets[preds.index(counter.entry)]
        to_latch = targets[preds.index(counter.latch)]
        # k <= 0 rather than k == 0 (the same for a count): LLVM then knows k - 1 >= 0
        # in the loop, so an index start + (k - 1)·step needs no negative-index wrap
        b.branch(b.cmp("le", k, b.const(0, I64)), to_entry, to_latch)
        self._edge(src, to_entry)
        self._edge(src, to_latch)

    # -- one block -------------------------------------------------------------------------

    def _reverse_block(self, blk: Block) -> None:
        p, b = self.p, self.b
        rblk = self.rblocks[blk]
        b.position_at_end(rblk)
        term = blk.terminator
        assert term is not None
        state = ReverseBlock()
        with b.at(term.loc):
            # pop in the opposite order of the pushes at the end of ``blk``, into the
            # variables later reads of those forward values see (:mod:`.taping`)
            for v in reversed(self.plan.pushes.get(blk, [])):
                popped = b.insert(ops.TapePop(self.tape, type=v.type))
                self.adjoints.write_primal(rblk, v, popped)
            for v, recipe in self.plan.recipes.get(blk, {}).items():
                state.popped[v] = self._materialize(state, rblk, v, recipe)
            state.selected = {v: self._select_shadow(state, v) for v in self.alias_needs[blk]}
            if isinstance(term, ops.Return) and term.value is not None:
                self._seed(state, term.value)
        for inst in reversed(p.body[blk]):
            if inst.IS_TERMINATOR or isinstance(inst, ops.Phi):
                continue
            if not p.differentiated(inst) and not isinstance(inst, ops.Store):
                continue
            with b.at(inst.loc):
                try:
                    self._apply_adjoint(state, inst)
                except NotDifferentiable as exc:
                    exc.inst = inst  # type: ignore[attr-defined]
                    raise
        with b.at(term.loc):
            self._leave(blk)

    def _apply_adjoint(self, state: BlockState, inst: Instruction) -> None:
        """Emit the adjoint of forward instruction ``inst`` at the insertion point: its
        :class:`.rules.base.SweepRule`'s adjoint, or the transpose of its scalar rule.

        Raises:
            NotDifferentiable: its rule cannot differentiate it.
        """
        rule = AD_RULES.get(inst)
        if isinstance(rule, SweepRule):
            rule.adjoint(self, state, inst)
        else:
            self._transpose(state, inst)

    def _transpose(self, state: BlockState, inst: Instruction) -> None:
        """The transpose of a scalar operation's rule, applied to the adjoint of its result."""
        b, adj = self.b, self.adjoints
        if not is_float(inst.type):
            return
        a = adj.read(self.current(), (inst, 0))
        adj.reset((inst, 0))
        if adj.is_shared_zero(a):
            return  # an unused value: no adjoint, and no 0·inf from its partials
        o = make_ops(b)
        proxy = copy.copy(inst)
        # operands the rule needs were pushed (or are constants); the others stand for
        # themselves, as keys of the contributions (the verifier catches a rule that
        # used a value it should have pushed)
        mapping = {
            v: self.primal(state, v) if v in state.popped or isinstance(v, ops.Const) else v
            for v in inst.operands()
        }
        remap(proxy, mapping, {})
        back = {id(mapping[v]): v for v in inst.operands()}

        def active(v: Value) -> bool:
            original = back.get(id(v))
            return original is not None and self.p.active(original)

        def accumulate(operand: Value, contribution: Value) -> None:
            original = back.get(id(operand))
            if original is not None:
                adj.accumulate((original, 0), contribution)

        # the popped result where the rule needs it (its plan pushed it); otherwise the
        # rule uses the result only for its type
        result = state.popped.get(inst, inst)
        scalar_rule(inst).transpose(o, proxy, a, result, active, accumulate)

    def _leave(self, blk: Block) -> None:
        """End the reverse of ``blk``: phi adjoints to the incoming values, then back to
        the reverse of the predecessor the forward sweep came from."""
        adj = self.adjoints
        phi_adjoints: list[tuple[ops.Phi, list[Value]]] = []
        for phi in blk.phis():
            assert isinstance(phi, ops.Phi)
            if not self.p.active(phi) or isinstance(phi.type, ArrayType):
                continue
            keys = adj.keys_of(phi)
            phi_adjoints.append((phi, [adj.read(self.current(), k) for k in keys]))
            for k in keys:
                adj.reset(k)
        preds = self.p.preds[blk]
        if not preds:  # the entry block: done
            self.b.jump(self.exit)
            self._edge(self.current(), self.exit)
            return
        targets = [self.rblocks[pred] for pred in preds]
        if phi_adjoints:
            # edge code (a phi's adjoint flows to the value from that predecessor)
            # gets a block of its own on each reverse edge
            targets = [self._edge_block(blk, pred, phi_adjoints) for pred in preds]
        counter = self.plan.counters.get(blk)
        if counter is not None:
            self._dispatch_counted(self.current(), counter, preds, targets)
        else:
            self._dispatch(self.current(), targets, pop=len(preds) > 1)

    def _edge_block(
        self, blk: Block, pred: Block, phi_adjoints: list[tuple[ops.Phi, list[Value]]]
    ) -> Block:
        """A block on the reverse edge ``R(blk) → R(pred)`` adding the phi adjoints."""
        b, adj = self.b, self.adjoints
        saved = b.block
        edge = self.p.rev.add_block(f"rev.{blk.label}.to.{pred.label}")
        adj.origin[edge] = pred
        self.expected[edge] = 1
        self.filled_edges[edge] = 0
        b.position_at_end(edge)
        for phi, adjoints in phi_adjoints:
            incoming = phi.value_for(pred)
            for k, a in zip(adj.keys_of(phi), adjoints, strict=True):
                adj.accumulate((incoming, k[1]), a)
        b.jump(self.rblocks[pred])
        self._edge(edge, self.rblocks[pred])
        assert saved is not None
        b.position_at_end(saved)
        return edge

    def _seed(self, state: BlockState, value: Value) -> None:
        """The adjoint of the returned ``value`` is the reverse function's seed."""
        b, adj = self.b, self.adjoints
        if not self.p.active(value):
            return
        if isinstance(value.type, TupleType):
            paths = leaves(value.type)
            for v, k in adj.keys_of(value):
                adj.accumulate((v, k), get_leaf(b, self.seed, paths[k][0]))
        elif is_float(value.type):
            adj.accumulate((value, 0), self.seed)
        elif isinstance(value.type, ArrayType):
            # the caller's adjoints of the returned array flow into its shadow here
            b.insert(ops.AccumulateArray(self.shadow(state, value), self.seed, type=NONE))

    # -- forward values and shadows in the reverse sweep -------------------------------

    def _materialize(self, state: BlockState, rblk: Block, v: Value, recipe: Recipe) -> Value:
        """Forward value ``v`` at the start of ``R(B)`` (``rblk``), as planned."""
        b, adj = self.b, self.adjoints
        if recipe.kind is RecipeKind.TAPE:
            return adj.read_primal(rblk, v, b.loc)
        if recipe.kind is RecipeKind.INDUCTION:
            ind = recipe.induction
            assert ind is not None
            k = self.primal(state, ind.counter)
            return b.add(self.primal(state, ind.start), b.mul(k, self.primal(state, ind.step)))
        if recipe.kind is RecipeKind.TRIP:
            # a range loop's iteration count at its exit, where a pop would have set it
            trip = recipe.trip
            assert trip is not None
            start, bound = self.primal(state, trip.start), self.primal(state, trip.bound)
            count = b.select(b.cmp("lt", start, bound), b.sub(bound, start), b.const(0, I64))
            adj.write_primal(rblk, v, count)
            return count
        assert isinstance(v, Instruction) and recipe.kind is RecipeKind.RECOMPUTE
        if isinstance(v, ops.Load):
            pointer = v.pointer
            assert isinstance(pointer, ops.ElementAddr)
            address = self.checked_address(
                state,
                self.primal(state, pointer.array),
                list(pointer.indices),
                pointer.type,
                like=pointer.array,
            )
            return b.insert(ops.Load(address, type=v.type))
        rebuilt = copy.copy(v)
        rebuilt.block = None
        rebuilt.unwind = ()
        remap(rebuilt, {w: self.primal(state, w) for w in v.operands()}, {})
        return b.insert(rebuilt)

    def primal(self, state: BlockState, v: Value) -> Value:
        """The reverse-sweep copy of forward value ``v`` (popped, or a constant)."""
        if isinstance(v, ops.Const):
            return self.b.const(v.value, v.type)  # type: ignore[arg-type]
        if v in state.popped:
            return state.popped[v]
        raise AssertionError(f"reverse sweep needs {v!r}, which was not pushed")

    def shadow(self, state: BlockState, array: Value) -> Value:
        """The shadow of forward array ``array`` in the reverse sweep."""
        if array in self.shadows.views:  # the same view of the base's shadow
            base = self.shadow(state, array.array)  # type: ignore[attr-defined]
            return rebuild_view(self.b, array, base, self.primal, state)
        if array in self.shadows.selectors:
            return state.selected[array]
        shadow = self.shadows.shadows[array]
        return (
            shadow
            if isinstance(shadow, Argument) and shadow in self.p.rev.params
            else (self.primal(state, shadow))
        )

    def _select_shadow(self, state: BlockState, array: Value) -> Value:
        """The shadow of alias ``array`` that parameters reach, rebuilt at the start of a
        reverse block from its popped selector: ``d_p if which == p.index else ...``,
        ending with the popped shadow of the local arrays (or the last parameter's
        shadow when no local array reaches ``array``). Branches and phis, not selects
        (the lifetimes pass manages arrays through phis)."""
        b, ssa, s = self.b, self.adjoints.ssa, self.shadows
        which = self.primal(state, s.selectors[array])
        params = s.alias_params[array]
        chosen = (
            self.primal(state, s.shadows[array])
            if array in s.shadows
            else b.cast(s.shadows[params[-1]], shadow_type(array.type))
        )
        if array not in s.shadows:
            params = params[:-1]
        for param in reversed(params):
            here = self.current()
            pick = self.p.rev.add_block(f"{here.label}.shadow")
            join = self.p.rev.add_block(f"{here.label}.shadow.join")
            b.branch(b.cmp("eq", which, b.const(param.index, I64)), pick, join)
            ssa.add_edge(here, pick)
            ssa.seal(pick)
            b.position_at_end(pick)
            param_shadow = b.cast(s.shadows[param], shadow_type(array.type))
            b.jump(join)
            ssa.add_edge(here, join)
            ssa.add_edge(pick, join)
            ssa.seal(join)
            b.position_at_end(join)
            merged = ops.Phi(type=shadow_type(array.type), name="shadow")
            merged.incoming = [(here, chosen), (pick, param_shadow)]
            chosen = b.insert(merged)
        return chosen

    def address(self, state: BlockState, pointer: Value) -> Value:
        """The shadow element of forward element address ``pointer``."""
        assert isinstance(pointer, ops.ElementAddr)
        return self.checked_address(
            state,
            self.shadow(state, pointer.array),
            list(pointer.indices),
            pointer.type,
            like=pointer.array,
        )

    def checked_address(
        self, state: BlockState, array: Value, indices: list[Value], t: Type, like: Value
    ) -> Value:
        """``array[indices]`` (``indices``: forward values) in the reverse sweep, for
        indices the forward sweep used on ``like``, a forward array of the same shape as
        ``array`` (``array`` is its shadow or its reverse-sweep copy): the forward
        ``elemaddr`` checked them, so they are in bounds once wrapped, and never checked
        again. ``addr(elemoffset {in_range})`` of the indices wrapped branch-free
        (``i < 0 ? i + shape : i``, :meth:`_wrap`) once per reverse block, so that an
        element and its shadow share one wrap."""
        b = self.b
        values = tuple(self._wrap(array, axis, like, i, state) for axis, i in enumerate(indices))
        offset = b.insert(ops.ElementOffset(array, values, in_range=True, type=I64))
        return b.insert(ops.Addr(array, offset, type=t))

    def _wrap(self, array: Value, axis: int, like: Value, index: Value, state: BlockState) -> Value:
        """Forward ``index`` into ``axis`` of ``like`` (an array of ``array``'s shape)
        counted from the end once if negative: ``i < 0 ? i + dim(array, axis) : i`` in the
        current reverse block (the same value for every array of ``like``'s shape there);
        a constant ``>= 0`` as it is."""
        b = self.b
        i = self.primal(state, index)
        if isinstance(i, ops.Const) and int(i.value) >= 0:
            return i
        key = (self.current(), like, axis, i)
        if key not in self.wrapped:
            n = b.insert(ops.ArrayDim(array, axis, type=I64))
            zero = b.const(0, I64)
            self.wrapped[key] = b.select(b.cmp("lt", i, zero), b.add(i, n), i)
        return self.wrapped[key]
