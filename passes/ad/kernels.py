"""Derivatives of ``@gradc.kernel`` functions: per-thread derivative bodies (Enzyme's
``Duplicated`` calling convention).

A kernel ``k`` is, after inference, a per-thread function ``k.thread(<12 thread
registers>, <own params>) -> none`` (``compiler/frontend/kernels.py``). Its derivative
``gradc.grad(k, wrt=...)`` / ``gradc.jvp(k, wrt=...)`` is a kernel too: this module
builds its per-thread body, and the driver gives it a grid loop
(``compiler/kernel_derivatives.py``) like any kernel's.

Calling convention (docs/ad.md "Kernels"), for ``k(a: f64, x: f64[:], y: f64[:], out:
f64[:])`` writing ``out`` and ``wrt=("a", "x")``: every parameter in ``wrt`` and every
float array the kernel writes (an output) is followed by its shadow::

    d_k = gradc.grad(k, wrt=("a", "x"))   # d_k(a, d_a, x, d_x, y, out, d_out)
    t_k = gradc.jvp(k, wrt=("a", "x"))    # t_k(a, d_a, x, d_x, y, out, d_out)

* reverse (``grad``): ``d_out`` is the seed (the cotangent of what the kernel writes
  into ``out``); the derivative **accumulates** ``d_x += d_outᵀ·∂out/∂x`` into array
  shadows and ``d_a[0] += d_outᵀ·∂out/∂a`` into the 1-element array ``d_a`` of a float
  scalar; where the kernel overwrites an element of an output, the seed element is
  consumed (reset to zero), Enzyme's semantics. Each thread runs its own forward sweep
  (recomputing its primal, writing ``out`` again) and then its reverse sweep; the tape
  lives only within the thread.
* forward (``jvp``): tangents of the ``wrt`` parameters are read (a float scalar's is a
  float), and the kernel writes the tangent of each element it writes into ``out`` into
  the same element of ``d_out`` (its other elements are left as they are).

``cuda.atomic_add(a, i, v)`` (``a[i] += v``): its tangent adds ``v``'s into ``d_a[i]``
(atomically on the GPU), its adjoint adds ``d_a[i]`` to ``v``'s and leaves the seed in
place (``a[i]``'s old value still reaches the output). Barriers, shared arrays, a used
old value of a float ``cuda.atomic_add`` (its derivative would depend on the order of
the threads), and an array both atomically added to and read, stored or passed to a
call in one kernel (the reverse sweep would consume or add to the seed other threads
read) are refused (compile error at their line).
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Instruction, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import F64, I1, I64, NONE, TAPE, ArrayType, PointerType, ScalarType
from gradc.passes.ad.activity import is_active_param
from gradc.passes.ad.forward import jvp_function
from gradc.passes.ad.kernel_aliasing import emit_kernel_overlap_checks
from gradc.passes.ad.layout import as_shadow
from gradc.passes.ad.lowlevel import check_shapes
from gradc.passes.ad.memory import callee_writes
from gradc.passes.ad.reverse import kernel_vjp_functions
from gradc.passes.analysis.pointers import array_roots

__all__ = ["KERNEL_KINDS", "ThreadPrivate", "kernel_derivative", "shadowed_params"]

#: The derivative kinds of a kernel (``gradc.grad``: reverse mode, ``gradc.jvp``: forward).
KERNEL_KINDS = ("grad", "jvp")

#: Operations of kernel bodies without derivatives here, and what to say about them.
_REFUSED = {
    ops.SyncThreads: "cuda.syncthreads()",
    ops.SharedArray: "cuda.shared_array()",
}


def shadowed_params(module: Module, thread: Function, nthread: int, wrt: list[int]) -> list[int]:
    """The own-parameter indices (0 = the kernel's first) that take a shadow: those in
    ``wrt`` and every float array the kernel (or a function it calls) writes, in
    parameter order."""
    written = callee_writes(module, thread.name)[thread.name]
    out = set(wrt)
    for p in thread.params[nthread:]:
        t = p.type
        if p.index in written and isinstance(t, ArrayType) and t.dtype.is_float:
            out.add(p.index - nthread)
    return sorted(out)


def kernel_derivative(
    module: Module,
    name: str,
    kind: str,
    thread: Function,
    nthread: int,
    wrt: list[int],
    loc: Loc,
) -> Function:
    """Add ``name``, the per-thread derivative body of kernel body ``thread`` (its first
    ``nthread`` parameters the thread registers), to ``module`` and return it.

    ``kind``: ``grad`` (reverse) or ``jvp`` (forward); ``wrt``: own-parameter indices.
    The result takes the thread registers, then the kernel's own parameters with a
    shadow after each of :func:`shadowed_params` (module docstring), and returns None.

    Raises:
        PassError: at ``loc``, a ``wrt`` parameter without derivatives; at its line, a
            barrier, a shared array or an atomic in the kernel, or a construct without a
            derivative rule.
    """
    if kind not in KERNEL_KINDS:
        raise PassError(
            f"gradc.{kind} of kernel '{thread.source_name}' is not supported: kernels have "
            "gradc.grad (reverse mode) and gradc.jvp (forward mode)",
            loc,
        )
    for i in wrt:
        p = thread.params[nthread + i]
        if not is_active_param(p):
            raise PassError(
                f"cannot differentiate kernel '{thread.source_name}' with respect to "
                f"'{p.name}' of type {p.type}: only float scalars and float arrays have "
                "derivatives",
                loc,
            )
    _refuse_unsupported(module, thread)
    _check_atomics(thread)
    shadowed = shadowed_params(module, thread, nthread, wrt)
    pattern = frozenset(nthread + i for i in shadowed)
    fn = Function(name, return_type=NONE, loc=loc, source_name=name)
    fn.exported = True
    primal: list[Value] = []
    shadows: dict[int, Argument] = {}
    taken = {p.name for p in thread.params}
    for p in thread.params:
        arg = Argument(type=p.type, name=p.name, index=len(fn.params))
        fn.params.append(arg)
        primal.append(arg)
        if p.index in pattern:
            t = p.type
            if kind == "grad" and isinstance(t, ScalarType):
                t = ArrayType(t, 1, "C")
            shadow_name = f"d_{p.name}"
            while shadow_name in taken:  # d_x beside a parameter d_x: dd_x
                shadow_name = "d" + shadow_name
            taken.add(shadow_name)
            shadow = Argument(type=t, name=shadow_name, index=len(fn.params))
            fn.params.append(shadow)
            shadows[p.index] = shadow
    b = Builder(fn)
    b.position_at_end(fn.add_block("entry"))
    with b.at(loc):
        _check_shadows(b, primal, shadows, kind)
        indexed = ThreadPrivate(thread, nthread).indexed if kind == "grad" else frozenset()
        # once per launch (the descriptors are the same in every thread); on the GPU
        # its ValueError arrives at synchronize()
        with b.if_then(_first_thread(b, primal), label="overlap"):
            emit_kernel_overlap_checks(module, thread, b, primal, shadows, kind, indexed)
        if kind == "jvp":
            derived = jvp_function(module, thread, pattern)
            tangents = [as_shadow(b, shadows[i], thread.params[i].type) for i in sorted(pattern)]
            b.call(derived.name, [*primal, *tangents], derived.return_type)
        else:
            _reverse_body(module, b, thread, nthread, pattern, primal, shadows)
        b.ret(None)
    module.add(fn)
    return fn


def _reverse_body(
    module: Module,
    b: Builder,
    thread: Function,
    nthread: int,
    pattern: frozenset[int],
    primal: list[Value],
    shadows: dict[int, Argument],
) -> None:
    """One thread's forward sweep then its reverse sweep; the adjoint of each active
    float scalar added to element 0 of its 1-element shadow (an atomic add)."""
    private = ThreadPrivate(thread, nthread)
    # the fewest grid axes a thread-indexed access of a shadowed array uses: the adjoint
    # of a load is added to, and the seed of a store consumed from, its shadow without
    # an atomic
    axes = 3
    for inst in thread.instructions():
        if isinstance(inst, (ops.Load, ops.Store)) and isinstance(inst.pointer, ops.ElementAddr):
            array = inst.pointer.array
            if isinstance(array, Argument) and array.index in private.indexed & pattern:
                axes = min(axes, len(inst.pointer.indices))
    _check_launch(b, primal, axes, thread.source_name)
    # the kernel's own arrays are in global memory (shared arrays are refused)
    arrays = frozenset(p.index for p in thread.params if isinstance(p.type, ArrayType))
    derived = kernel_vjp_functions(module, thread, pattern, private, global_arrays=arrays)
    shadow_args: list[Value] = []
    for k, i in enumerate(derived.array_params):
        shadow_args.append(b.cast(shadows[i], derived.rev.params[k].type))
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    b.call(derived.fwd.name, [*primal, tape], derived.fwd.return_type)
    # a kernel returns None: the seed is the placeholder adjoint of a result with none
    placeholder = b.const(0.0, F64)
    adjoints = b.call(derived.rev.name, [*shadow_args, tape, placeholder], derived.rev.return_type)
    b.insert(ops.TapeFree(tape, type=NONE))
    zero = b.const(0, I64)
    for k, i in enumerate(derived.scalar_params):
        adjoint = b.tuple_get(adjoints, k)
        t = thread.params[i].type
        assert isinstance(t, ScalarType)
        pointer = b.insert(ops.ElementAddr(shadows[i], (zero,), type=PointerType(t)))
        b.insert(ops.AtomicAdd(pointer, adjoint, type=t, uniform=True, global_memory=True))


class ThreadPrivate:
    """Whether a load of a kernel body reads an element no other thread touches.

    An array parameter ``a`` of ``n <= 3`` axes is *thread-indexed* when every element
    access of it in ``thread`` is ``a[g0, ..., g(n-1)]`` with ``g`` the thread's
    ``cuda.grid(n)`` components (``ctaid * ntid + tid`` per axis), ``n`` at least the
    number of grid axes the kernel's indices read (``v[i]`` in a kernel of ``i, j =
    cuda.grid(2)`` is read by a row of threads), and its other uses read its shape only
    (no call, view or alias sees it). Then two threads of a launch
    whose extents beyond axis ``n`` are 1 touch different elements of ``a``, and so of
    its shadow: the reverse sweep adds a load's adjoint there without an atomic. One
    access by another index (``a[i + 1]`` beside ``a[i]``) makes every access of ``a``
    shared: another thread may add to ``d_a[i]`` while this one does.

    ``registers``: the number of thread-register parameters before the kernel's own
    (``tid``, ``ctaid``, ``ntid``, ``nctaid``, each x, y, z). Called with a load of
    ``thread`` or of a clone of it (parameters are matched by position).
    """

    def __init__(self, thread: Function, registers: int) -> None:
        self.registers = registers
        arrays = [p for p in thread.params[registers:] if isinstance(p.type, ArrayType)]
        # the grid axes the thread's index reads (tid or ctaid): an access by fewer
        # components (v[i] in a 2-d kernel) is shared by the threads of a row
        axes = 1
        for inst in thread.instructions():
            for v in inst.operands():
                if isinstance(v, Argument) and v.index < 6 and v.index % 3 > 0:
                    axes = max(axes, v.index % 3 + 1)
        shared: set[Value] = set()
        for inst in thread.instructions():
            for v in inst.operands():
                if v in arrays and not _grid_access(inst, v, axes):
                    shared.add(v)
        #: the positions of the thread-indexed array parameters
        self.indexed = frozenset(p.index for p in arrays if p not in shared)

    def __call__(self, inst: Instruction) -> bool:
        if not isinstance(inst, ops.Load) or not isinstance(inst.pointer, ops.ElementAddr):
            return False
        array = inst.pointer.array
        return isinstance(array, Argument) and array.index in self.indexed


def _grid_access(inst: Instruction, array: Value, axes: int) -> bool:
    """``inst`` reads ``array``'s shape, or addresses ``array[g0, ..., g(n-1)]`` (every
    axis, by ``cuda.grid(n)``'s components, ``n >= axes``)."""
    if isinstance(inst, ops.ArrayDim):
        return True
    if not isinstance(inst, ops.ElementAddr) or inst.array is not array:
        return False
    if not axes <= len(inst.indices) <= 3:
        return False
    return all(_is_grid(v, axis) for axis, v in enumerate(inst.indices))


def _is_grid(v: Value, axis: int) -> bool:
    """``v`` is ``ctaid.<axis> * ntid.<axis> + tid.<axis>`` (``cuda.grid``'s component;
    ``cuda.grid(2)`` and ``(3)`` build a tuple of them, which ``i, j = ...`` unpacks)."""
    if isinstance(v, ops.TupleGet) and isinstance(v.tuple, ops.MakeTuple):
        v = v.tuple.elements[v.index]
    if not isinstance(v, ops.Add):
        return False
    for prod, tid in ((v.lhs, v.rhs), (v.rhs, v.lhs)):
        if _register(tid, axis) and isinstance(prod, ops.Mul):
            pair = {_which(prod.lhs), _which(prod.rhs)}
            if pair == {3 + axis, 6 + axis}:
                return True
    return False


def _which(v: Value) -> int:
    return v.index if isinstance(v, Argument) else -1


def _register(v: Value, index: int) -> bool:
    return isinstance(v, Argument) and v.index == index


def _first_thread(b: Builder, primal: list[Value]) -> Value:
    """``i1``: this is thread 0 of block 0 (``tid`` and ``ctaid`` all zero)."""
    zero = b.const(0, I64)
    first: Value = b.const(True, I1)
    for reg in range(6):  # tid, ctaid
        first = b.insert(ops.BitAnd(first, b.cmp("eq", primal[reg], zero), type=I1))
    return first


def _check_launch(b: Builder, primal: list[Value], axes: int, kernel: str) -> None:
    """Emit the ValueError of a launch with a grid or block extent above 1 in an axis at
    or beyond ``axes`` (there two threads would share the shadow elements
    :class:`ThreadPrivate` lets them add to without atomics)."""
    if axes >= 3:
        return
    one = b.const(1, I64)
    bad: Value = b.const(False, I1)
    for axis in range(axes, 3):
        for reg in (6 + axis, 9 + axis):  # ntid, nctaid
            bad = b.insert(ops.BitOr(bad, b.cmp("ne", primal[reg], one), type=I1))
    names = " and ".join("xyz"[axes:])
    with b.if_then(bad, label="launch"):
        b.raise_(
            "ValueError",
            f"the derivative of kernel '{kernel}' adds to shadows indexed by "
            f"cuda.grid({axes}) without atomics: launch it with grid and block extents "
            f"of 1 in {names}",
        )


def _check_shadows(
    b: Builder, primal: list[Value], shadows: dict[int, Argument], kind: str
) -> None:
    """Emit the ValueErrors of shadows that do not fit: an array shadow of another shape
    than its parameter, a scalar's reverse-mode shadow without exactly one element."""
    what = "tangent" if kind == "jvp" else "shadow"
    for i, shadow in shadows.items():
        if isinstance(primal[i].type, ArrayType):
            check_shapes(b, primal[i], shadow, what)
            continue
        if not isinstance(shadow.type, ArrayType):
            continue
        n = b.insert(ops.ArrayDim(shadow, 0, type=I64))
        with b.if_then(b.cmp("ne", n, b.const(1, I64)), label="shape"):
            b.raise_(
                "ValueError",
                f"shadow '{shadow.name}' of float parameter '{primal[i].name}' must have "
                "one element (its adjoint is added to it)",
            )


def _refuse_unsupported(module: Module, thread: Function) -> None:
    """Raise at the first barrier, shared array or atomic of ``thread`` or a function it
    calls (their derivatives are not built)."""
    seen = {thread.name}
    work = [thread]
    while work:
        fn = work.pop()
        for inst in fn.instructions():
            what = _REFUSED.get(type(inst))
            if what is not None:
                raise PassError(
                    f"cannot differentiate {what} in kernel '{thread.source_name}': "
                    "derivatives of barriers and shared arrays are not supported",
                    inst.loc,
                )
            if fn is not thread and isinstance(inst, ops.AtomicAdd) and _float(inst):
                raise PassError(
                    f"cannot differentiate cuda.atomic_add() in '{fn.source_name}', called "
                    f"by kernel '{thread.source_name}': a differentiated kernel adds "
                    "atomically in its own body only",
                    inst.loc,
                )
            if isinstance(inst, ops.Call) and inst.callee not in seen:
                if inst.callee in module.functions:
                    seen.add(inst.callee)
                    work.append(module.functions[inst.callee])


def _check_atomics(thread: Function) -> None:
    """Raise at a float ``cuda.atomic_add`` of ``thread`` whose derivative would not be
    exact: one whose old value is used (it depends on the order of the threads), or one
    into an array the kernel also reads, stores into or passes to a call (a store's
    adjoint consumes the seed the atomic add's adjoint reads in other threads; a read's
    adds to it)."""
    uses = thread.uses()
    other: dict[Value, str] = {}  # array parameter -> how else the kernel touches it
    atomics: list[ops.AtomicAdd] = []
    for inst in thread.instructions():
        if isinstance(inst, ops.AtomicAdd) and _float(inst):
            atomics.append(inst)
        elif isinstance(inst, ops.Store | ops.Load):
            for root in array_roots(inst.pointer):
                other.setdefault(root, "stores into" if isinstance(inst, ops.Store) else "reads")
        elif isinstance(inst, ops.Call):
            for arg in inst.args:
                for root in array_roots(arg) if isinstance(arg.type, ArrayType) else ():
                    other.setdefault(root, f"passes to '{inst.callee}'")
    for inst in atomics:
        where = f"in kernel '{thread.source_name}'"
        if uses.get(inst):
            raise PassError(
                f"cannot differentiate cuda.atomic_add() {where}: the old value it returns "
                "is used, and its derivative would depend on the order of the threads",
                inst.loc,
            )
        for root in array_roots(inst.pointer):
            if root in other:
                raise PassError(
                    f"cannot differentiate cuda.atomic_add() {where}: the kernel also "
                    f"{other[root]} '{root.name}', which it atomically adds to (the "
                    "derivative of that mix would depend on the order of the threads)",
                    inst.loc,
                )


def _float(inst: Instruction) -> bool:
    return isinstance(inst.type, ScalarType) and inst.type.is_float
