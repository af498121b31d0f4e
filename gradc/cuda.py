"""The CUDA source model of gradc kernels: thread indices, barriers, atomics.

A kernel is a per-thread body marked ``@gradc.kernel``; inside it these names describe
the thread that runs it (CUDA's, as Numba spells them)::

    import math
    import gradc
    from gradc import cuda, f64

    @gradc.kernel
    def saxpy(a: f64, x: f64[:], y: f64[:], out: f64[:]):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = a * x[i] + math.sin(y[i])

``gradc build`` reads these names from the source (it never imports this module) and
compiles them to the GPU's special registers (``--target cuda``) or to the counters of a
grid loop (the CPU build). Imported as plain Python, the module is a *sequential
simulator*: ``saxpy[blocks, threads](...)`` (:class:`Kernel`) runs the body once per
thread, blocks in order and threads in order within a block, with this module's names
reading the running thread's indices. A kernel whose body calls :func:`syncthreads` runs
each block of several threads as Python threads that meet at its barriers (threads that
reach different barriers raise ``RuntimeError``, as the CPU build's phased grid loop
does); a barrier it cannot see (in a helper function) is refused in such a block, never
approximated. :func:`shared_array` gives one array per block and call site.

Calling a kernel without a launch configuration (``saxpy(...)``) raises ``TypeError``
rather than guessing one.

Attributes:
    thread_idx, block_idx, block_dim, grid_dim: CUDA's ``threadIdx``, ``blockIdx``,
        ``blockDim``, ``gridDim``; each has ``.x``, ``.y``, ``.z`` (``int``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "Dim3",
    "Kernel",
    "atomic_add",
    "block_dim",
    "block_idx",
    "grid",
    "grid_dim",
    "shared_array",
    "syncthreads",
    "thread_idx",
]


class _ThreadState(threading.local):
    """The indices of the simulated thread running on this Python thread."""

    def __init__(self) -> None:
        self.tid = (0, 0, 0)
        self.ctaid = (0, 0, 0)
        self.ntid: tuple[int, int, int] | None = None
        self.nctaid = (1, 1, 1)
        self.shared: dict[tuple[object, int], Any] = {}
        self.barrier: _BlockBarrier | None = None


_STATE = _ThreadState()


class Dim3:
    """One of CUDA's built-in index triples, read as ``.x``, ``.y``, ``.z``.

    Outside a kernel launched from Python, reading it raises ``RuntimeError``.
    """

    __slots__ = ("_field",)

    def __init__(self, field: str) -> None:
        self._field = field

    def _get(self, axis: int) -> int:
        if _STATE.ntid is None:
            raise RuntimeError(
                f"cuda.{self._field} is read outside a kernel launch; launch the kernel "
                "as kernel[grid, block](...)"
            )
        value: int = getattr(_STATE, _FIELDS[self._field])[axis]
        return value

    @property
    def x(self) -> int:
        """The x component."""
        return self._get(0)

    @property
    def y(self) -> int:
        """The y component."""
        return self._get(1)

    @property
    def z(self) -> int:
        """The z component."""
        return self._get(2)

    def __repr__(self) -> str:
        return f"gradc.cuda.{self._field}"


_FIELDS = {"thread_idx": "tid", "block_idx": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}

thread_idx = Dim3("thread_idx")
block_idx = Dim3("block_idx")
block_dim = Dim3("block_dim")
grid_dim = Dim3("grid_dim")


def grid(ndim: int) -> Any:
    """The thread's absolute position in the grid: ``block_idx * block_dim + thread_idx``
    per axis; an ``int`` for ``ndim == 1``, else a tuple of ``ndim`` ints (x first).

    Raises:
        ValueError: ``ndim`` is not 1, 2 or 3.
    """
    if ndim not in (1, 2, 3):
        raise ValueError(f"cuda.grid() takes 1, 2 or 3 dimensions, got {ndim!r}")
    pos = tuple(block_idx._get(k) * block_dim._get(k) + thread_idx._get(k) for k in range(ndim))
    return pos[0] if ndim == 1 else pos


def syncthreads() -> None:
    """CUDA's ``__syncthreads()``: a barrier for the threads of a block.

    A launch whose kernel calls it runs each block's threads as Python threads that
    wait here for each other (:func:`_run_block`); the others run sequentially.

    Raises:
        RuntimeError: outside a kernel launch; in a block of more than one thread run
            sequentially (a helper function calling it); threads of a block that reach
            different barriers, or return while others wait at one (:data:`DIVERGED`).
    """
    ntid = _STATE.ntid
    if ntid is None:
        raise RuntimeError("cuda.syncthreads() is called outside a kernel launch")
    barrier = _STATE.barrier
    if barrier is None:
        if ntid[0] * ntid[1] * ntid[2] != 1:
            raise RuntimeError(
                "cuda.syncthreads() cannot run in a sequential grid loop with more than "
                "one thread per block; run the kernel on a GPU"
            )
        return
    caller = sys._getframe(1)
    barrier.wait((caller.f_code, caller.f_lasti))


#: The RuntimeError of threads of a block that do not meet at one barrier (as the CPU
#: build's, compiler/infer/kernel_blocks.py).
DIVERGED = (
    "the threads of a block did not all reach the same cuda.syncthreads() (or some "
    "returned while others waited at it)"
)


def atomic_add(array: Any, index: Any, value: Any) -> Any:
    """``array[index] += value`` as one atomic step; returns the element's old value.

    NumPy's indexing rules apply (an out-of-range index raises ``IndexError``).
    """
    old = array[index]
    array[index] = old + value
    return old


def shared_array(shape: int | Sequence[int], dtype: Any) -> Any:
    """CUDA's ``__shared__`` array: one array per block and call site (the same one
    however often the site runs in a block), C order, of NumPy dtype ``dtype`` (a
    gradc type name such as ``f64`` is accepted too). Its content is undefined at the
    start of each block: the simulator fills floats with NaN and integers with zeros.

    Raises:
        RuntimeError: outside a kernel launch.
    """
    import numpy as np

    if _STATE.ntid is None:
        raise RuntimeError("cuda.shared_array() is called outside a kernel launch")
    caller = sys._getframe(1)
    site = (caller.f_code, caller.f_lasti)
    with _SHARED_LOCK:
        array = _STATE.shared.get(site)
        if array is None:
            dt = np.dtype(_GRADC_DTYPES.get(str(getattr(dtype, "name", "")), dtype))
            fill = np.nan if dt.kind == "f" else 0
            array = _STATE.shared[site] = np.full(shape, fill, dtype=dt)
    return array


_SHARED_LOCK = threading.Lock()


#: gradc's scalar type names as NumPy dtypes (``cuda.shared_array(n, f64)``).
_GRADC_DTYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32"}


def _dim3(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d >= 1 for d in dims):
        raise ValueError(f"{what} must be a positive int or 1 to 3 positive ints, got {value!r}")
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]


class Kernel:
    """What ``@gradc.kernel`` makes of a function in plain Python: a launchable kernel.

    ``kernel[grid, block](*args)`` (``grid`` and ``block`` an ``int`` or 1 to 3 ints)
    runs the body once per thread, sequentially (see the module docstring). Calling it
    without a launch configuration raises ``TypeError``. ``py_func`` is the function.
    """

    __slots__ = ("__wrapped__", "py_func")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py_func = fn
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"<gradc.kernel {self.py_func.__qualname__}>"

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            f"kernel '{self.py_func.__name__}' is launched as "
            f"{self.py_func.__name__}[grid, block](...), not called"
        )

    def __getitem__(self, config: tuple[Any, Any]) -> Callable[..., None]:
        if not isinstance(config, tuple) or len(config) != 2:
            raise TypeError("a kernel launch is written kernel[grid, block](...)")
        nctaid = _dim3(config[0], "grid")
        ntid = _dim3(config[1], "block")

        def launch(*args: Any) -> None:
            _run_grid(self.py_func, nctaid, ntid, args)

        return launch


def _run_grid(
    fn: Callable[..., Any],
    nctaid: tuple[int, int, int],
    ntid: tuple[int, int, int],
    args: tuple[Any, ...],
) -> None:
    """Run ``fn(*args)`` once per thread: blocks in order (x fastest), then threads, in
    order or (``fn`` calls ``syncthreads`` and a block has several threads) as Python
    threads meeting at its barriers."""
    threaded = "syncthreads" in fn.__code__.co_names and ntid[0] * ntid[1] * ntid[2] > 1
    saved = (_STATE.tid, _STATE.ctaid, _STATE.ntid, _STATE.nctaid, _STATE.shared)
    _STATE.ntid, _STATE.nctaid = ntid, nctaid
    try:
        for cz in range(nctaid[2]):
            for cy in range(nctaid[1]):
                for cx in range(nctaid[0]):
                    _STATE.ctaid = (cx, cy, cz)
                    _STATE.shared = {}
                    if threaded:
                        _run_block(fn, args)
                        continue
                    for tid in _threads(ntid):
                        _STATE.tid = tid
                        if fn(*args) is not None:
                            raise TypeError("a kernel must return None")
    finally:
        _STATE.tid, _STATE.ctaid, _STATE.ntid, _STATE.nctaid, _STATE.shared = saved


def _threads(ntid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [(tx, ty, tz) for tz in range(ntid[2]) for ty in range(ntid[1]) for tx in range(ntid[0])]


class _BlockBarrier:
    """The barrier of the Python threads running one block: all of them at one call
    site of ``syncthreads`` (code object, bytecode offset), or :data:`DIVERGED`."""

    def __init__(self, threads: int) -> None:
        self.cond = threading.Condition()
        self.threads = threads
        self.sites: list[object] = []
        self.stopped = 0
        self.generation = 0
        self.broken = False

    def wait(self, site: object) -> None:
        with self.cond:
            generation = self.generation
            self.sites.append(site)
            self._check()
            self.cond.wait_for(lambda: self.broken or self.generation != generation)
            if self.generation == generation:
                raise RuntimeError(DIVERGED)

    def stop(self, failed: bool) -> None:
        """A thread returned (or raised: ``failed``)."""
        with self.cond:
            self.stopped += 1
            self.broken |= failed
            self._check()

    def _check(self) -> None:
        if self.sites and len(self.sites) + self.stopped == self.threads:
            if self.stopped or len(set(self.sites)) != 1:
                self.broken = True
            else:
                self.sites, self.generation = [], self.generation + 1
        self.cond.notify_all()


def _run_block(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """The block ``_STATE`` describes, one Python thread per CUDA thread; the first
    exception of a thread is raised here once all have stopped."""
    ntid, ctaid, nctaid, shared = _STATE.ntid, _STATE.ctaid, _STATE.nctaid, _STATE.shared
    assert ntid is not None
    tids = _threads(ntid)
    barrier = _BlockBarrier(len(tids))
    errors: list[BaseException] = []

    def run(tid: tuple[int, int, int]) -> None:
        _STATE.tid, _STATE.ctaid, _STATE.ntid, _STATE.nctaid = tid, ctaid, ntid, nctaid
        _STATE.shared, _STATE.barrier = shared, barrier
        try:
            if fn(*args) is not None:
                raise TypeError("a kernel must return None")
        except BaseException as exc:
            errors.append(exc)
            barrier.stop(failed=True)
        else:
            barrier.stop(failed=False)

    workers = [threading.Thread(target=run, args=(tid,)) for tid in tids]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise min(errors, key=lambda e: isinstance(e, RuntimeError) and str(e) == DIVERGED)
