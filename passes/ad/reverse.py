"""``ad-reverse``: reverse mode (VJP) with a tape.

For ``f`` and a pattern of active parameters, two functions are derived:

* the augmented forward sweep ``f.fwd.<pattern>(params..., tape) -> result`` runs ``f``
  and, at the end of every basic block, pushes onto the tape what the reverse sweep of
  that block needs (operands and results of the active instructions, array indices,
  shadows of local arrays) and, before entering a join, which predecessor it came from
  (:mod:`.forward_sweep`, planned by :mod:`.taping`);
* the reverse sweep ``f.rev.<pattern>(shadows..., tape, adjoint of result) ->
  tuple[adjoints of the active scalar parameters]`` walks the CFG backwards: block
  ``B``'s reverse pops ``B``'s values (last pushed, first popped), applies the adjoint
  rules to ``B``'s instructions in reverse order (each operation's rule, :mod:`.rules`),
  and pops the predecessor to return to (:mod:`.reverse_sweep`). Array adjoints
  accumulate into shadow arrays (Enzyme's ``Duplicated``): the caller's for parameters,
  zero-initialised ones for local arrays.

One LIFO tape serves a whole call tree: a callee's forward sweep pushes onto the same
tape inside the caller's, and its reverse sweep pops inside the caller's. Loops with
run-time trip counts, ``break``, data-dependent branches, recursion and values that are
overwritten later (the old value was pushed when it was live) all follow from this.
Memory is proportional to what is pushed, not to the number of operations run.

Adjoints of scalars are SSA variables of the reverse function (:mod:`.adjoints`);
critical edges of ``f`` are split first, so that edge code (phi adjoints, predecessor
pushes) has a block. The exports built on the two sweeps are in :mod:`.reverse_exports`;
the pass ``ad-reverse{...}`` of the registry in :mod:`.ad_pass`.
"""

from __future__ import annotations

from collections.abc import Callable

from gradc.compiler.ir import ops
from gradc.compiler.ir.clone import clone_function
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.types import TAPE, ArrayType, Type
from gradc.passes.ad.activity import analyze, check_rules_exist
from gradc.passes.ad.checkpoint import TAPED, checkpointed, declare, is_checkpointed
from gradc.passes.ad.custom import custom_of, custom_vjp
from gradc.passes.ad.forward_sweep import block_needs, instrument, make_shadows
from gradc.passes.ad.layout import shadow_type
from gradc.passes.ad.memory import MemoryFacts, callee_writes
from gradc.passes.ad.reverse_sweep import ReverseSweep
from gradc.passes.ad.rules import NotDifferentiable
from gradc.passes.ad.segments import segment_loops
from gradc.passes.ad.sweep_state import Derived, Primal, returns
from gradc.passes.ad.taping import DEFAULT_OPTIONS, TapeOptions, plan_tape
from gradc.passes.analysis.cfg import split_critical_edges


def _suffix(pattern: frozenset[int]) -> str:
    return "_".join(str(i) for i in sorted(pattern)) or "none"


def vjp_functions(
    module: Module,
    fn: Function,
    pattern: frozenset[int],
    frozen: frozenset[int] = frozenset(),
    options: TapeOptions = DEFAULT_OPTIONS,
    c_shadows: bool = False,
    taped: bool = False,
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

    ``taped``: derive a ``@gradc.checkpoint`` helper's own taping functions
    (``f.fwd.<variant>.taped``), which its recomputing wrappers call (:mod:`.checkpoint`).

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
    variant += TAPED if taped else ""
    fwd_name = f"{fn.name}.fwd.{variant}"
    rev_name = f"{fn.name}.rev.{variant}"
    # long loops in checkpointed segments (a copy of fn, made again for a memoised
    # name: its segment calls decide which arrays are active; the segments' own
    # derivations are a checkpointed helper's, taped=True: nothing is segmented twice)
    segmented = (
        None
        if taped
        or not options.budget
        or is_checkpointed(module, fn)
        or custom_of(module, fn, "vjp")
        else segment_loops(module, fn, options.budget, pattern, frozen)
    )
    # An array parameter outside the pattern that active values are stored into is
    # active too: its shadow carries those values' adjoints between the sweeps.
    activity = analyze(segmented or fn, pattern)
    arrays = [
        p.index
        for p in (segmented or fn).params
        if isinstance(p.type, ArrayType) and (p.index in pattern or p in activity)
    ]
    scalars = [i for i in sorted(pattern) if i not in arrays]
    if fwd_name in module.functions:
        return Derived(module.functions[fwd_name], module.functions[rev_name], arrays, scalars)
    rule = custom_of(module, fn, "vjp")
    if rule is not None:  # @gradc.custom_vjp: bwd's array cotangents go to the shadows
        arrays = [i for i in arrays if i in pattern]
        shadows = [_shadow_type(fn.params[i].type, c_shadows) for i in arrays]
        fwd, rev = custom_vjp(module, fn, pattern, (fwd_name, rev_name), rule, shadows)
        return Derived(fwd, rev, arrays, [i for i in sorted(pattern) if i not in arrays])
    if not taped and is_checkpointed(module, fn):
        wrappers = declare(module, fn, (fwd_name, rev_name))
        # nothing writes the arguments between the recomputation and its reverse sweep
        unwritten = frozenset(range(len(fn.params)))
        inner = vjp_functions(module, fn, pattern, unwritten, options, c_shadows, taped=True)
        return checkpointed(fn, inner, *wrappers, frozen)
    derived = Derived(
        clone_function(segmented or fn, fwd_name).function,
        Function(rev_name, loc=fn.loc, source_name=fn.source_name),
        arrays,
        scalars,
    )
    _derive(module, fn, pattern, frozen, options, derived, c_shadows)
    return derived


def kernel_vjp_functions(
    module: Module,
    fn: Function,
    pattern: frozenset[int],
    private: Callable[[Instruction], bool],
    frozen: frozenset[int] = frozenset(),
    options: TapeOptions = DEFAULT_OPTIONS,
    global_arrays: frozenset[int] = frozenset(),
) -> Derived:
    """:func:`vjp_functions` for a kernel's threads (``f.fwd.<variant>.kernel``,
    :mod:`.kernels`): a load's adjoint is added to its shadow element atomically unless
    ``private`` says only this thread touches it (in callees: always atomically). Loops
    are taped whole (no ``--tape-budget`` segments). ``global_arrays``: the positions of
    ``fn``'s array parameters in CUDA global memory (a kernel's own: their atomic adds
    are ``atomicadd {global_memory}``; none in callees, whose arrays may be local).

    Raises:
        PassError: an active construct has no adjoint rule, or ``fn`` (a kernel or a
            function it calls) is a ``@gradc.custom_vjp`` or ``@gradc.checkpoint`` one.
    """
    frozen = frozenset(k for k in frozen if isinstance(fn.params[k].type, ArrayType))
    variant = _suffix(pattern) + (f".ro.{_suffix(frozen)}" if frozen else "") + ".kernel"
    fwd_name, rev_name = f"{fn.name}.fwd.{variant}", f"{fn.name}.rev.{variant}"
    activity = analyze(fn, pattern)
    arrays = [
        p.index
        for p in fn.params
        if isinstance(p.type, ArrayType) and (p.index in pattern or p in activity)
    ]
    scalars = [i for i in sorted(pattern) if i not in arrays]
    if fwd_name in module.functions:
        return Derived(module.functions[fwd_name], module.functions[rev_name], arrays, scalars)
    if custom_of(module, fn, "vjp") or is_checkpointed(module, fn):
        raise PassError(
            f"'{fn.source_name}' has a custom derivative or is checkpointed: not supported "
            "in the derivative of a kernel",
            fn.loc,
        )
    derived = Derived(
        clone_function(fn, fwd_name).function,
        Function(rev_name, loc=fn.loc, source_name=fn.source_name),
        arrays,
        scalars,
    )
    _derive(module, fn, pattern, frozen, options, derived, False, private, global_arrays)
    return derived


def _shadow_type(t: Type, c_shadows: bool) -> Type:
    """The type of a reverse sweep's shadow parameter of an array parameter of type
    ``t`` (as :mod:`.reverse_sweep` makes it)."""
    if c_shadows and isinstance(t, ArrayType):
        t = ArrayType(t.dtype, t.ndim, "C")
    return shadow_type(t)


def _derive(
    module: Module,
    fn: Function,
    pattern: frozenset[int],
    frozen: frozenset[int],
    options: TapeOptions,
    derived: Derived,
    c_shadows: bool,
    private: Callable[[Instruction], bool] | None = None,
    global_arrays: frozenset[int] = frozenset(),
) -> None:
    """Build ``derived.fwd`` (a clone of ``fn``) and ``derived.rev`` (empty), both added
    to ``module`` first, so that recursive calls find them.

    Raises:
        PassError: an active construct has no adjoint rule (named, with its line).
    """
    fwd = derived.fwd
    split_critical_edges(fwd)
    activity = analyze(fwd, pattern)
    tape = Argument(type=TAPE, name="tape", index=len(fwd.params))
    fwd.params.append(tape)
    module.add(fwd)
    module.add(derived.rev)
    blocks = list(fwd.blocks)
    preds = fwd.predecessors()
    # the frozen arguments of active calls, known once the memory facts are
    call_frozen: dict[ops.Call, frozenset[int]] = {}

    def callee(call: ops.Call) -> Derived:
        target, active = module.functions[call.callee], activity.call_patterns[call]
        frozen = call_frozen.get(call, frozenset())
        if private is not None:  # a kernel's callee: every shadow element may be shared
            return kernel_vjp_functions(module, target, active, _shared, frozen, options)
        return vjp_functions(module, target, active, frozen, options)

    p = Primal(
        module=module,
        fwd=fwd,
        rev=derived.rev,
        activity=activity,
        tape=tape,
        arrays=derived.array_params,
        scalars=derived.scalar_params,
        c_shadows=c_shadows,
        source_name=fn.source_name,
        blocks=blocks,
        body={b: list(b.instructions) for b in blocks},
        preds=preds,
        returning=_reaches_return(fwd, preds),
        callee=callee,
        private=private,
        global_arrays=global_arrays,
    )
    try:
        check_rules_exist(fwd, activity)
        shadows = make_shadows(p)
        plans = block_needs(p, shadows)
        writes = callee_writes(module, fn.name)
        for inst in fwd.instructions():  # the segment functions of segmented loops
            if isinstance(inst, ops.Call) and inst.callee not in writes:
                writes.update(callee_writes(module, inst.callee))
        memory = MemoryFacts(fwd, p.body, frozen, writes)
        for block in blocks:
            for inst in p.body[block]:
                if isinstance(inst, ops.Call) and inst in activity.call_patterns:
                    call_frozen[inst] = memory.frozen_args(inst)
        needs = {b: plan.values for b, plan in plans.items()}
        tape_plan = plan_tape(fwd, blocks, needs, memory, options)
        aliases = {b: plan.aliases for b, plan in plans.items()}
        ReverseSweep(p, shadows, tape_plan, aliases).run()
        instrument(p, tape_plan)
    except NotDifferentiable as exc:
        where = getattr(exc, "inst", None)
        loc = where.loc if isinstance(where, Instruction) else fwd.loc
        raise PassError(
            f"cannot differentiate {exc} in '{fn.source_name}': no adjoint rule", loc
        ) from None


def _shared(inst: Instruction) -> bool:
    """A kernel's callee: any shadow element may be another thread's too."""
    return False


def _reaches_return(fn: Function, preds: dict[Block, list[Block]]) -> set[Block]:
    """The blocks of ``fn`` from which some ``ret`` is reachable (a backward search
    from the returns). A block outside the set leaves the function by raising."""
    live = {blk for blk in fn.blocks if returns(blk)}
    work = list(live)
    while work:
        for p in preds[work.pop()]:
            if p not in live:
                live.add(p)
                work.append(p)
    return live
