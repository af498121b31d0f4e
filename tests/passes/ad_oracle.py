"""Shared by the ``ad-forward``/``ad-reverse`` pass tests: run a pipeline on IR text
(verifying before and after each pass, and that the result prints and parses back), and
the oracles the derivatives are checked against in the reference interpreter: central
finite differences of the primal function.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

from gradc.compiler.ir import interp
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get, split_pipeline


def run_passes(text: str, pipeline: str) -> tuple[Module, str]:
    """The module of ``text`` after ``pipeline`` (a ``-p`` spelling) and its text."""
    module = parse_module(textwrap.dedent(text))
    verify_module(module)
    for spelling in split_pipeline(pipeline):
        module = get(spelling).run(module)
        verify_module(module)
    out = print_module(module)
    again = parse_module(out)
    verify_module(again)
    assert print_module(again) == out
    return module, out


def call(module: Module, name: str, args: Sequence[object]) -> object:
    """``name(*args)`` in the reference interpreter, on copies of array arguments."""
    return interp.run_function(
        module, name, [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    )


def directional_fd(
    module: Module, name: str, args: Sequence[object], direction: dict[int, object]
) -> float:
    """The derivative of scalar ``name(*args)`` along ``direction`` (parameter index ->
    float, or array of the argument's shape), by central differences."""
    h = 1e-6

    def at(t: float) -> float:
        moved = list(args)
        for i, d in direction.items():
            moved[i] = args[i] + t * d  # type: ignore[operator]
        result = call(module, name, moved)
        assert isinstance(result, float)
        return result

    return (at(h) - at(-h)) / (2 * h)


def fd_gradient(module: Module, name: str, args: Sequence[object], i: int) -> object:
    """``∂ name(*args) / ∂ args[i]`` by central differences: a float for a float
    parameter, an array of its shape for an array."""
    a = args[i]
    if not isinstance(a, np.ndarray):
        return directional_fd(module, name, args, {i: 1.0})
    out = np.zeros_like(a)
    for k in np.ndindex(a.shape):
        unit = np.zeros_like(a)
        unit[k] = 1.0
        out[k] = directional_fd(module, name, args, {i: unit})
    return out


def close(got: object, want: object) -> None:
    """``got`` equals ``want`` to finite-difference accuracy (tuples element-wise)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            close(g, w)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)  # type: ignore[arg-type]
