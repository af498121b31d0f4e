"""Builds run with Python's cyclic garbage collector paused.

A build allocates millions of small, long-lived objects (IR instructions, llvmlite values,
AST nodes) and frees few of them before it ends, so each of the collector's periodic
passes scans a heap that keeps growing, finding almost nothing: a sixth of the CPU time
of a 400-branch gradient's build (lowering to LLVM IR took twice as long), for 3 % less
peak memory (docs/compile_time.md). Compilers in Python that build large heaps do the same
(mypy raises the collector's thresholds for the same reason). Reference counting still
frees every acyclic object at once; cycles left by the build are collected by the next
pass after it.

A ``gradc`` process also skips the collector's passes at interpreter exit
(:func:`no_collection_at_exit`): they scan every object the imports made (classes,
functions, module dicts: ~40 M of the ~760 M instructions of ``gradc build`` of a scalar
module, issue 13) to free memory that the process's exit frees anyway.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["no_collection_at_exit", "paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic garbage collector for the ``with`` block; re-enable it after
    (also on an exception) if it was enabled before, so that nested uses and callers that
    disabled it themselves keep their setting. Process-wide: other threads run without
    cyclic collection meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def no_collection_at_exit() -> None:
    """Make the interpreter's exit skip the cyclic collector's passes over the objects
    alive then: :func:`gc.freeze` them in the last ``atexit`` handler to run (handlers run
    in reverse order; those registered later, such as ``weakref.finalize``'s and
    temporary folders' clean-ups, run before it). For a process's entry point only (the
    ``gradc`` command), never in a library call: objects left in reference cycles at exit
    are then not finalized, so the command must close its files itself (it does: writes
    are atomic, ``with``-scoped)."""
    atexit.register(gc.freeze)
