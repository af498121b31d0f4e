"""Every IR → IR pass by its command-line name, and the default pipeline.

A pass is a function ``Module -> Module`` (it may update the module in place and return
it). Options are fields of a frozen dataclass bound into the pass object, spelled as in
``mlir-opt``: ``name{key=value key=v1,v2}`` (space-separated fields; a comma inside the
braces separates the items of a list field, not passes). So a pipeline is a plain,
printable list::

    >>> print_pipeline(DEFAULT_PIPELINE)
    'dce,phi-decay,stack-promote,lifetimes'
    >>> split_pipeline("ad-reverse{fn=f wrt=x,y},dce")
    ['ad-reverse{fn=f wrt=x,y}', 'dce']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Module
from gradc.passes.ad import ad_pass
from gradc.passes.gc import lifetimes, phi_decay, stack_promote
from gradc.passes.opt import dce
from gradc.passes.options import PassOptionError, parse_options

OptionsT = TypeVar("OptionsT")


def _lower_arrays(module: Module) -> Module:
    """``gradc.passes.arrays.lower.run``, imported when it runs: its rules for every array
    operation are most of a scalar build's pass imports, and such a build never runs it."""
    from gradc.passes.arrays.lower import run

    return run(module)


@dataclass(frozen=True)
class Pass:
    """A named IR transformation, its options (if any) bound.

    Attributes:
        name: the command-line name (``"dce"``), also the module name with ``_``.
        run: the transformation.
        summary: one line for ``--help`` listings.
    """

    name: str
    run: Callable[[Module], Module]
    summary: str


@dataclass(frozen=True)
class PassWithOptions(Generic[OptionsT]):
    """A named IR transformation that takes options: ``name{key=value ...}``.

    Attributes:
        name: the command-line name (``"ad-reverse"``).
        run: the transformation, given the module and the parsed options.
        options: the frozen dataclass of the options. Its fields are ``str``, ``bool``
            (``true``/``false``) or ``tuple[str, ...]`` (comma-separated); fields without
            a default are required. Its ``__post_init__`` may raise ``ValueError`` for
            options that do not fit together.
        summary: one line for ``--help`` listings.
    """

    name: str
    run: Callable[[Module, OptionsT], Module]
    options: type[OptionsT]
    summary: str

    def bind(self, text: str) -> Pass:
        """This pass with the options spelled ``text`` (the inside of the braces).

        Raises:
            PassOptionError: an unknown or repeated key, a malformed item, a missing
                required option, or options the dataclass rejects.
        """
        options = parse_options(self.name, self.options, text)
        run = self.run
        return Pass(self.name, lambda module: run(module, options), self.summary)


PASSES: dict[str, Pass | PassWithOptions[Any]] = {
    p.name: p
    for p in (
        Pass("dce", dce.run, "delete instructions whose results are unused"),
        Pass(
            "lower-arrays",
            _lower_arrays,
            "whole-array operations into loop nests, fusing elementwise chains",
        ),
        Pass("phi-decay", phi_decay.run, "split pointer phis into base and offset phis"),
        Pass(
            "stack-promote",
            stack_promote.run,
            "put small arrays that do not escape on the stack (escape analysis)",
        ),
        Pass("lifetimes", lifetimes.run, "insert and prune array reference counting"),
        PassWithOptions(
            "ad-forward",
            ad_pass.run_forward,
            ad_pass.ForwardOptions,
            "add a forward-mode derivative export: ad-forward{fn=f wrt=x}",
        ),
        PassWithOptions(
            "ad-reverse",
            ad_pass.run_reverse,
            ad_pass.ReverseOptions,
            "add a reverse-mode derivative export: ad-reverse{fn=f wrt=x,y}",
        ),
    )
}

DEFAULT_PIPELINE: tuple[str, ...] = ("dce", "phi-decay", "stack-promote", "lifetimes")


def get(spelling: str) -> Pass:
    """The pass spelled ``spelling``: a name (``"dce"``), or a name and its options
    (``"ad-reverse{fn=f wrt=x}"``).

    Raises:
        KeyError: no such pass; the message lists the known ones.
        PassOptionError: options given to a pass that takes none, or options that do not
            parse (:meth:`PassWithOptions.bind`).
    """
    name, brace, rest = spelling.strip().partition("{")
    name = name.strip()
    try:
        p = PASSES[name]
    except KeyError:
        known = ", ".join(sorted(PASSES))
        raise KeyError(f"unknown pass {name!r} (known: {known})") from None
    if brace and not rest.rstrip().endswith("}"):
        raise PassOptionError(f"{name}: options must end with '}}': {spelling!r}")
    text = rest.rstrip()[:-1] if brace else ""
    if isinstance(p, PassWithOptions):
        return p.bind(text)
    if text.strip():
        raise PassOptionError(f"pass {name!r} takes no options")
    return p


def split_pipeline(text: str) -> list[str]:
    """The pass spellings of a ``-p`` argument: split at commas outside braces.

    Raises:
        PassOptionError: unbalanced braces.
    """
    out: list[str] = []
    depth, start = 0, 0
    for k, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise PassOptionError(f"unbalanced '}}' in pipeline {text!r}")
        elif ch == "," and depth == 0:
            out.append(text[start:k])
            start = k + 1
    if depth:
        raise PassOptionError(f"unclosed '{{' in pipeline {text!r}")
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def run_pipeline(module: Module, names: tuple[str, ...] | list[str]) -> Module:
    """Run the passes spelled ``names`` in order."""
    for name in names:
        module = get(name).run(module)
    return module


def print_pipeline(names: tuple[str, ...] | list[str]) -> str:
    """The pipeline as its command-line spelling (``-p`` argument)."""
    return ",".join(names)
