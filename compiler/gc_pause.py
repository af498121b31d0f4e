"""Builds run with Python's cyclic garbage collector paused.

A build allocates millions of small, long-lived objects (IR instructions, llvmlite values,
AST nodes) and frees few of them before it ends, so each of the collector's periodic
passes scans a heap that keeps growing, finding almost nothing: a sixth of the CPU time
of a 400-branch gradient's build (lowering to LLVM IR took twice as long), for 3 % less
peak memory (docs/compile_time.md). Compilers in Python that build large heaps do the same
(mypy raises the collector's thresholds for the same reason). Reference counting still
frees every acyclic object at once; cycles left by the build are collected by the next
pass after it.

A ``gradc`` process (the command line) runs without the collector from its start
(:func:`collector_off_for_process`): its passes during the imports, after the build and
at interpreter exit scan every object the imports made (classes, functions, module
dicts) to free memory that the process's exit frees anyway: ~62 M of the ~760 M
instructions of ``gradc build`` of a scalar module (issue 13).
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_off_for_process", "paused_gc"]


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


def collector_off_for_process() -> None:
    """Turn the cyclic collector off for the rest of the process, and make the
    interpreter's exit skip its passes over the objects alive then (:func:`gc.freeze` in
    the last ``atexit`` handler to run: handlers run in reverse order, so those
    registered later, such as ``weakref.finalize``'s and temporary folders' clean-ups,
    run before it). For a short process's entry point only (the ``gradc`` command),
    never in a library call: garbage in reference cycles then stays until the process
    ends, and objects left in cycles at exit are not finalized, so the command closes its
    files itself (it does: writes are atomic, ``with``-scoped)."""
    gc.disable()
    atexit.register(gc.freeze)
