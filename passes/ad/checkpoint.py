"""Checkpointed helpers (JAX's ``jax.checkpoint``/remat): the reverse sweep recomputes a
helper's forward pass instead of taping its intermediates.

The driver registers the specialisations of each ``@gradc.checkpoint`` helper
(``compiler/frontend/checkpoints.py`` reads the decorator). Reverse mode derives a
callee's functions by name (``f.fwd.<variant>``/``f.rev.<variant>``): for a registered
helper those names are given to two wrappers around the ordinary derivation of ``f``
(``f.fwd.<variant>.taped``/``f.rev.<variant>.taped``, built as for any helper):

* ``f.fwd.<variant>(x..., tape)``: pushes the arguments (scalars and tuples by value,
  arrays by reference, or a copy of the ones the caller may write before the reverse
  sweep) and returns the plain ``f(x...)``: none of ``f``'s intermediates are taped;
* ``f.rev.<variant>(shadows..., tape, adjoint)``: pops the arguments, runs
  ``f.fwd.<variant>.taped(x..., tape)`` on the same tape (recomputing and taping the
  intermediates of this one call) and at once ``f.rev.<variant>.taped(shadows..., tape,
  adjoint)``, which pops them again.

So the tape holds the arguments of every call plus the intermediates of one call at a
time, and the forward pass runs twice. Forward mode (``f.jvp.*``) ignores the decorator:
it has no tape. A helper that writes one of its array parameters cannot be recomputed
(the second run would read what the first wrote, and write it twice), and a recursive
one is not supported: compile errors.
"""

from __future__ import annotations

import weakref

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.types import NONE, TAPE, ArrayType
from gradc.passes.ad.memory import callee_writes
from gradc.passes.ad.sweep_state import Derived

_REGISTERED: weakref.WeakKeyDictionary[Module, set[str]] = weakref.WeakKeyDictionary()

#: The suffix of the ordinary (taping) derived functions of a checkpointed helper.
TAPED = ".taped"


def register(module: Module, helper: str) -> None:
    """Mark ``module``'s function ``helper`` checkpointed."""
    _REGISTERED.setdefault(module, set()).add(helper)


def is_checkpointed(module: Module, fn: Function) -> bool:
    """Whether ``fn`` (a function of ``module``) was declared ``@gradc.checkpoint``."""
    return fn.name in _REGISTERED.get(module, set())


def check_checkpointable(module: Module, fn: Function) -> None:
    """Refuse a checkpointed ``fn`` that writes one of its array parameters, or that
    calls itself (directly or through other functions).

    Raises:
        PassError: naming the parameter or the recursion, at ``fn``'s definition.
    """
    reached = callee_writes(module, fn.name)
    written = reached[fn.name]
    if written:
        name = fn.params[min(written)].name
        raise PassError(
            f"@gradc.checkpoint helper '{fn.source_name}' writes its array parameter "
            f"'{name}': a checkpointed helper is run again in the reverse sweep, so it may "
            "not write its arguments",
            fn.loc,
        )
    for other in reached:
        calls = (i for i in module.functions[other].instructions() if isinstance(i, ops.Call))
        if any(call.callee == fn.name for call in calls):
            raise PassError(
                f"@gradc.checkpoint helper '{fn.source_name}' is recursive: checkpointing "
                "a recursive helper is not supported",
                fn.loc,
            )


def _mirror(out: Function, params: list[Argument]) -> list[Argument]:
    for p in params:
        out.params.append(Argument(type=p.type, name=p.name, index=len(out.params)))
    return list(out.params)


def _saved(b: Builder, fn: Function, params: list[Argument], frozen: frozenset[int]) -> list[Value]:
    """What the forward wrapper pushes for each parameter: the value, or a copy of an
    array the caller may write before the reverse sweep.

    Raises:
        PassError: such an array is not C-contiguous (its copy would not have its type).
    """
    saved: list[Value] = []
    for p in params:
        t = p.type
        if isinstance(t, ArrayType) and p.index not in frozen:
            if t.layout != "C":
                raise PassError(
                    f"@gradc.checkpoint helper '{fn.source_name}': its caller may write the "
                    f"array argument '{p.name}' ({t.layout}-layout) before the reverse "
                    "sweep; pass a C-contiguous array or leave it unwritten",
                    fn.loc,
                )
            saved.append(b.insert(ops.CopyArray(p, type=t)))
        else:
            saved.append(p)
    return saved


def declare(module: Module, fn: Function, names: tuple[str, str]) -> tuple[Function, Function]:
    """The wrappers ``names`` (forward, reverse) of ``fn``, empty, added to ``module``
    before the taping derivation, so that recursive calls find them.

    Raises:
        PassError: ``fn`` writes an array parameter or is recursive.
    """
    check_checkpointable(module, fn)
    fwd = Function(names[0], loc=fn.loc, source_name=fn.source_name)
    rev = Function(names[1], loc=fn.loc, source_name=fn.source_name)
    module.add(fwd)
    module.add(rev)
    return fwd, rev


def checkpointed(
    fn: Function, inner: Derived, fwd: Function, rev: Function, frozen: frozenset[int]
) -> Derived:
    """Fill the wrappers ``fwd``, ``rev`` of ``fn`` (:func:`declare`), recomputing
    ``inner`` (the taping derivation of ``fn`` for the same variant).

    ``frozen``: the array parameters the caller does not write before the reverse
    sweep (pushed by reference; the others are copied).

    Raises:
        PassError: a non-C array parameter the caller may write.
    """
    n = len(fn.params)
    fwd_params = _mirror(fwd, inner.fwd.params)
    fwd.return_type = inner.fwd.return_type
    b = Builder(fwd)
    b.position_at_end(fwd.add_block("entry"))
    with b.at(fn.loc):
        for value in _saved(b, fn, fwd_params[:n], frozen):
            b.insert(ops.TapePush(fwd_params[n], value, type=NONE))
        result = b.call(fn.name, list(fwd_params[:n]), fn.return_type)
        b.ret(None if fn.return_type == NONE else result)
    rev_params = _mirror(rev, inner.rev.params)
    rev.return_type = inner.rev.return_type
    tape = next(p for p in rev_params if p.type == TAPE)
    b = Builder(rev)
    b.position_at_end(rev.add_block("entry"))
    with b.at(fn.loc):
        popped = [b.insert(ops.TapePop(tape, type=p.type)) for p in reversed(fn.params)]
        b.call(inner.fwd.name, [*reversed(popped), tape], inner.fwd.return_type)
        adjoints = b.call(inner.rev.name, list(rev_params), inner.rev.return_type)
        b.ret(None if rev.return_type == NONE else adjoints)
    return Derived(fwd, rev, inner.array_params, inner.scalar_params)
