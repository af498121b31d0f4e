"""Checkpointed helpers (JAX's ``jax.checkpoint``) declared in a module::

    @gradc.checkpoint
    def step(x, a):          # a helper: every derivative's reverse sweep recomputes it
        ...

Reverse-mode derivatives that reach the helper tape its arguments only and run its
forward pass again in the reverse sweep (``passes/ad/checkpoint.py``); forward mode
ignores the decorator. The decorator is part of the derived code, hence of the keys of
exactly the derivatives that reach the helper.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo


def scan_checkpoints(info: ModuleInfo) -> dict[str, ast.expr]:
    """The ``@gradc.checkpoint`` helpers of ``info``'s module: name -> decorator.

    (On an export it is refused with the export's other decorators: ``exports.py``.)

    Raises:
        CompileError: the decorator on a helper with a custom rule (the rule already
            says what the reverse sweep does).
    """
    src = info.source
    found: dict[str, ast.expr] = {}
    for stmt in src.tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for deco in stmt.decorator_list:
            if not info.is_gradc(deco, "checkpoint"):
                continue
            if stmt.name in info.custom_rules:
                raise src.error(
                    f"@gradc.checkpoint on '{stmt.name}', which has a custom rule: the rule "
                    "already decides what the reverse sweep does",
                    deco,
                )
            found[stmt.name] = deco
    return found
