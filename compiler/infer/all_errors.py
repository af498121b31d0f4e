"""Every export's first compile error in one build, not only the first of the module.

Inference stops at its first error. When a module with several exports fails,
:func:`infer_reporting_all` infers each export again on its own and attaches the first
error of each (at a different place, at most :data:`MAX_ERRORS` in all) to the error it
raises, which renders them one after another (``CompileError.others``)::

    m.py:6:12: error: a list literal is not supported in compiled code
        ...
    m.py:11:4: error: a try statement is not supported in compiled code
        ...
    2 errors

A module that infers is inferred once, as before: the retries run only on failure.
"""

from __future__ import annotations

import copy

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.module_scan import ModuleInfo
from gradc.compiler.infer.specialize import infer_module
from gradc.compiler.ir.core import Module

#: The most errors one build reports (rustc and mypy stop early too: later errors are
#: often consequences of earlier ones).
MAX_ERRORS = 10


def infer_reporting_all(info: ModuleInfo) -> Module:
    """``infer_module(info)``; on a compile error, that error with the first error of each
    other export attached (``err.others``, see the module docstring).

    Raises:
        CompileError: the first error, and up to ``MAX_ERRORS - 1`` others.
    """
    try:
        return infer_module(info)
    except CompileError as first:
        if len(info.exports) > 1:
            first.others = _other_errors(info, first)
        raise


def _other_errors(info: ModuleInfo, first: CompileError) -> list[CompileError]:
    """The first error of each export inferred alone, other than ``first``'s place."""
    seen = {(first.loc.file, first.loc.line, first.loc.col)}
    others: list[CompileError] = []
    for export in info.exports:
        alone = copy.copy(info)
        alone.exports = [export]
        try:
            infer_module(alone)
        except CompileError as err:
            where = (err.loc.file, err.loc.line, err.loc.col)
            if where not in seen:
                seen.add(where)
                others.append(err)
        if len(others) + 1 >= MAX_ERRORS:
            break
    return others
