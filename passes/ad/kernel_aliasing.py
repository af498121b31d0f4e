"""Overlap checks of derivative kernels (docs/ad.md "Kernels"): shadows apart from each
other and from the arrays, and no differentiated array sharing memory with one the
kernel writes.

A derivative kernel adds the adjoint of a thread-indexed read (``x[i]``, ``i =
cuda.grid(1)``) to ``d_x[i]`` with a plain load and store, and that of a shared read
(``y[i + 1]``) with an atomic (``passes/ad/kernels.py``). Two shadows in one memory
would mix the two on one element (thread ``i`` storing ``d[i]`` while thread ``i - 1``
adds to it atomically: a lost update on the GPU, invisible in the CPU grid loop, whose
threads run one after another), and a shadow in the memory of an array would be
overwritten by the kernel's own writes. So the first thread of a launch (thread 0 of
block 0; the descriptors are the same in every thread, and a few hundred integer
instructions in each would weigh on an elementwise kernel) checks them with
``passes/ad/aliasing.py``'s overlap test (NumPy's ``np.may_share_memory`` refined for
1-d strided views) and raises ``ValueError`` naming the two parameters when:

* a shadow (or tangent) overlaps another shadow or any array argument;
* elements of the shadow of a thread-indexed array share memory with each other (an
  ``as_strided`` view; a broadcast shadow of an array read by other indices is fine:
  its adjoints are added atomically);
* two array arguments overlap, the kernel may write one of them and one of them has a
  shadow (the derivative would treat them as separate arrays; as in
  ``emit_overlap_checks``'s rule 1, without ``gradc.reverse``'s shared-shadow exception).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.types import ArrayType
from gradc.passes.ad.aliasing import _Checks, written_arrays

__all__ = ["emit_kernel_overlap_checks"]


def emit_kernel_overlap_checks(
    module: Module,
    thread: Function,
    b: Builder,
    primal: Sequence[Value],
    shadows: Mapping[int, Argument],
    kind: str,
    indexed: frozenset[int],
) -> None:
    """Emit, at ``b``'s insertion point of a derivative kernel's thread body, the checks
    of the module docstring.

    Args:
        thread: the kernel's per-thread body (its parameters' names and writes).
        primal: the derivative's values of ``thread``'s parameters, in its order.
        shadows: the shadow (``grad``) or tangent (``jvp``) of each shadowed parameter,
            by ``thread``'s parameter index; array shadows are checked (a float scalar's
            1-element reverse-mode shadow too).
        kind: ``grad`` or ``jvp`` (the word used in the messages).
        indexed: the thread-indexed array parameters (``ThreadPrivate.indexed``) whose
            shadows take plain stores: refused where their elements share memory.
    """
    c = _Checks(b)
    what = "tangent" if kind == "jvp" else "shadow"
    arrays = [i for i, p in enumerate(thread.params) if isinstance(p.type, ArrayType)]
    written = written_arrays(module, thread)
    kernel = thread.source_name
    for x, i in enumerate(arrays):
        for j in arrays[x + 1 :]:
            if {i, j} & written and {i, j} & shadows.keys():
                c.refuse_if(
                    c.overlap(primal[i], primal[j]),
                    f"'{thread.params[i].name}' and '{thread.params[j].name}' share memory "
                    f"and kernel '{kernel}' writes to one of them: its gradc.{kind} would "
                    "differentiate them as separate arrays; pass copies (np.array(...))",
                )
    ordered = [i for i in sorted(shadows) if isinstance(shadows[i].type, ArrayType)]
    for x, i in enumerate(ordered):
        s = shadows[i]
        if i in indexed:
            c.refuse_if(
                c.self_overlap(s),
                f"elements of {what} '{s.name}' share memory with each other (a view made "
                f"by as_strided?): the derivative of kernel '{kernel}' adds to them without "
                "atomics; pass np.zeros_like(...)",
            )
        for k in arrays:
            c.refuse_if(
                c.overlap(s, primal[k]),
                f"{what} '{s.name}' shares memory with argument '{thread.params[k].name}': "
                f"a {what} must be memory of its own (np.zeros_like(...))",
            )
        for j in ordered[x + 1 :]:
            c.refuse_if(
                c.overlap(s, shadows[j]),
                f"{what}s '{s.name}' and '{shadows[j].name}' share memory: each parameter "
                f"of a derivative kernel needs a {what} of its own",
            )
