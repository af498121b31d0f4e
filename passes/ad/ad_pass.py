"""``ad-forward`` and ``ad-reverse``: the derivative exports as passes of the registry.

Each adds one derivative export of a function of the module, as a declaration
``d_f = gradc.grad(f, wrt=("x", "y"))`` in the source does (the driver calls the same
:func:`.api.add_derivative_export`), so ``gradc opt`` and the pass tests run AD on IR
text. ``ad-reverse{fn=f wrt=x,y name=d_f}`` on::

    func @f(%x: f64, %y: f64) -> f64 {
    ^entry:
      %0 = mul %x, %y : f64
      ret %0
    }

adds ``@f.fwd.0_1`` (``f`` pushing onto a tape what the reverse sweep needs),
``@f.rev.0_1`` (popping it, returning the adjoints) and the export calling them::

    func @d_f(%x: f64, %y: f64) -> tuple[f64,f64] export {
    ^entry:
      %tape = tapenew : tape
      %0 = call @f.fwd.0_1(%x, %y, %tape) : f64
      %1 = const 1.0 : f64
      %2 = call @f.rev.0_1(%tape, %1) : tuple[f64,f64]
      tapefree %tape
      ...

Options (names as in ``gradc.grad``; parameters by name or position):

* ``fn``: the function to differentiate (required);
* ``wrt``: the parameters differentiated with respect to (default: the first, as
  ``gradc.grad(f)``); with more than one, the gradient is a tuple, as
  ``gradc build --grad f:x,y`` gives;
* ``name``: the export's name (default ``d_<fn>``);
* ``kind``: ``ad-reverse``: ``grad`` (default), ``value_and_grad``, ``vjp``, or the
  low-level ``reverse``; ``ad-forward``: ``jvp`` (default) or the low-level ``forward``
  (docs/ad.md);
* ``duplicated``, ``active``: the annotated parameters of the low-level kinds, instead
  of ``wrt`` (``active`` in ``ad-reverse`` only), as ``gradc.reverse(f, x=Duplicated,
  c=Active)`` declares them;
* ``tape`` (``ad-reverse``, kinds ``grad``/``value_and_grad``/``vjp``): the taping
  strategies allowed, of ``hoist,count_loops,reload,recompute`` (default all; ``none``
  for none; :class:`.taping.TapeOptions`);
* ``budget`` (``ad-reverse``, the same kinds): ``--tape-budget`` in bytes (default 0:
  every loop taped whole; :mod:`.segments`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Function, Module
from gradc.passes.options import PassOptionError

if TYPE_CHECKING:  # AD itself is imported when a pass runs: a build without AD skips it
    from gradc.passes.ad.taping import TapeOptions

#: The taping strategies (:class:`.taping.TapeOptions` fields), all on by default.
STRATEGIES: tuple[str, ...] = ("hoist", "count_loops", "reload", "recompute")

REVERSE_KINDS = ("grad", "value_and_grad", "vjp", "reverse")
FORWARD_KINDS = ("jvp", "forward")


@dataclass(frozen=True)
class ReverseOptions:
    """Options of ``ad-reverse`` (the module docstring says what each means).

    Raises:
        ValueError: an unknown ``kind`` or strategy, ``wrt`` with the low-level kind or
            ``duplicated``/``active``/``tape`` with the others.
    """

    fn: str
    wrt: tuple[str, ...] = ()
    name: str = ""
    kind: str = "grad"
    duplicated: tuple[str, ...] = ()
    active: tuple[str, ...] = ()
    tape: tuple[str, ...] = STRATEGIES
    budget: int = 0

    def __post_init__(self) -> None:
        _check_kind(self.kind, REVERSE_KINDS, self.wrt, self.duplicated + self.active)
        unknown = [s for s in self.tape if s not in (*STRATEGIES, "none")]
        if unknown:
            raise ValueError(
                f"unknown taping strategy {unknown[0]!r} (strategies: "
                f"{','.join(STRATEGIES)}, or none)"
            )
        if self.kind == "reverse" and set(self.tape) != set(STRATEGIES):
            raise ValueError("kind=reverse tapes with every strategy (no tape= option)")


@dataclass(frozen=True)
class ForwardOptions:
    """Options of ``ad-forward`` (the module docstring says what each means).

    Raises:
        ValueError: an unknown ``kind``, ``wrt`` with ``kind=forward`` or
            ``duplicated`` with ``kind=jvp``.
    """

    fn: str
    wrt: tuple[str, ...] = ()
    name: str = ""
    kind: str = "jvp"
    duplicated: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_kind(self.kind, FORWARD_KINDS, self.wrt, self.duplicated)


def _check_kind(
    kind: str, kinds: tuple[str, ...], wrt: tuple[str, ...], annotated: tuple[str, ...]
) -> None:
    if kind not in kinds:
        raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(kinds)})")
    if kind in ("reverse", "forward"):
        if wrt:
            raise ValueError(f"kind={kind} takes duplicated=/active=, not wrt=")
        if not annotated:
            raise ValueError(f"kind={kind} needs a duplicated= or active= parameter")
    elif annotated:
        raise ValueError(f"duplicated=/active= go with the low-level kinds, not kind={kind}")


def run_reverse(module: Module, options: ReverseOptions) -> Module:
    """Add the reverse-mode export ``options`` describe to ``module``.

    Raises:
        PassOptionError: ``fn`` or a parameter is not in the module, or ``name`` is taken.
        PassError: what AD refuses (a parameter without derivatives, a construct without
            an adjoint rule), at its location.
    """
    from gradc.passes.ad.taping import TapeOptions

    fn = _function(module, options.fn)
    on = set(options.tape) & set(STRATEGIES)
    tape = TapeOptions(**{s: s in on for s in STRATEGIES}, budget=options.budget)
    _add(module, fn, options.name, options.kind, options.wrt, options, tape)
    return module


def run_forward(module: Module, options: ForwardOptions) -> Module:
    """Add the forward-mode export ``options`` describe to ``module``.

    Raises:
        PassOptionError: ``fn`` or a parameter is not in the module, or ``name`` is taken.
        PassError: what AD refuses, at its location.
    """
    from gradc.passes.ad.taping import TapeOptions

    fn = _function(module, options.fn)
    _add(module, fn, options.name, options.kind, options.wrt, options, TapeOptions())
    return module


def _add(
    module: Module,
    fn: Function,
    name: str,
    kind: str,
    wrt_names: tuple[str, ...],
    options: ReverseOptions | ForwardOptions,
    tape: TapeOptions,
) -> None:
    from gradc.passes.ad.api import add_derivative_export

    name = name or f"d_{fn.name}"
    if name in module.functions:
        raise PassOptionError(f"name={name}: the module has a function '{name}' already")
    if kind in ("reverse", "forward"):
        active = options.active if isinstance(options, ReverseOptions) else ()
        annotated = {_param(fn, p): "duplicated" for p in options.duplicated}
        for p in active:
            if _param(fn, p) in annotated:
                raise PassOptionError(f"parameter '{p}' is both duplicated and active")
            annotated[_param(fn, p)] = "active"
        wrt = sorted(annotated)
        activity = tuple(annotated[i] for i in wrt)
        add_derivative_export(module, name, kind, fn.name, wrt, True, fn.loc, activity)
        return
    if not fn.params:
        raise PassOptionError(f"'{fn.name}' has no parameters to differentiate")
    wrt = [_param(fn, p) for p in wrt_names] if wrt_names else [0]
    if len(set(wrt)) < len(wrt):
        raise PassOptionError(f"wrt={','.join(wrt_names)} names a parameter twice")
    add_derivative_export(module, name, kind, fn.name, wrt, len(wrt) > 1, fn.loc, tape=tape)


def _function(module: Module, name: str) -> Function:
    fn = module.functions.get(name)
    if fn is None:
        known = ", ".join(sorted(module.functions)) or "none"
        raise PassOptionError(f"fn={name}: no such function (functions: {known})")
    return fn


def _param(fn: Function, spelled: str) -> int:
    """The index of the parameter of ``fn`` spelled by name or position."""
    names = [p.name or str(p.index) for p in fn.params]
    if spelled in names:
        return names.index(spelled)
    if spelled.isdigit() and int(spelled) < len(names):
        return int(spelled)
    raise PassOptionError(
        f"'{fn.name}' has no parameter '{spelled}' (parameters: {', '.join(names)})"
    )
