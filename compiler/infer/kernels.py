"""The grid loop of each kernel: how a CPU (and the interpreter) runs a ``@gradc.kernel``.

After inference a kernel ``k`` is one typed function taking the thread's position as
hidden parameters (``compiler/frontend/kernels.py``). :func:`add_grid_loops` renames it
``k.thread`` (not exported) and adds the export ``k`` that runs every thread, one after
another, blocks in order and threads in order within a block (x fastest)::

    func @k(%grid_x: i64, %grid_y: i64, %grid_z: i64,
            %block_x: i64, %block_y: i64, %block_z: i64, %a: f64, %x: f64[:]) -> none
      (ValueError unless every dimension is >= 1)
      for ctaid.z < grid_z, ctaid.y < grid_y, ctaid.x < grid_x,
          tid.z < block_z, tid.y < block_y, tid.x < block_x:
        call @k.thread(tid.x, tid.y, tid.z, ctaid.x, ..., block_x, ..., grid_z, %a, %x)

A kernel with barriers (``cuda.syncthreads()``) runs each block in phases instead, all
its threads up to the next barrier, then on (``compiler/infer/kernel_blocks.py``), where
its phase function allows (``compiler/infer/kernel_phases.py``). The CUDA build compiles
``k.thread`` under its own entry instead
(``compiler/codegen/cuda.py``). No products of dimensions are formed, so no count can
overflow.
"""

from __future__ import annotations

from gradc.compiler.frontend.kernels import GRID_PARAMS, THREAD_PARAMS
from gradc.compiler.infer.kernel_blocks import block_arrays, points, run_phases
from gradc.compiler.infer.kernel_phases import Phased, phase_function
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.types import I1, I64, NONE

#: Suffix of the IR name of a kernel's per-thread function.
THREAD_SUFFIX = ".thread"

#: Suffix of the IR name of a kernel's phase function (``compiler/infer/kernel_phases.py``).
PHASES_SUFFIX = ".phases"

#: The ValueError of a grid or block dimension below 1 (CUDA refuses such launches too).
BAD_DIMENSION = "grid and block dimensions must be >= 1"


def thread_function(kernel: str) -> str:
    """The IR name of kernel ``kernel``'s per-thread function."""
    return kernel + THREAD_SUFFIX


def add_grid_loops(module: Module, kernels: list[str], shuffle: bool = False) -> None:
    """Make each kernel of ``kernels`` (IR names of exported, typed kernel functions) a
    per-thread function with a grid-loop export of its name (module docstring); with
    ``shuffle``, one visiting blocks and threads in a fixed scrambled order
    (``kernel_blocks.points``): a correct kernel does not depend on the order."""
    for name in kernels:
        body = module.functions.pop(name)
        body.name = thread_function(name)
        body.exported = False
        module.add(body)
        phased = phase_function(body, name + PHASES_SUFFIX)
        if phased is not None:
            module.add(phased.function)
        module.add(_grid_loop(name, body, phased, shuffle))


def shuffle_grid_loops(module: Module, kernels: list[str]) -> None:
    """Replace the grid loops :func:`add_grid_loops` made for ``kernels`` by shuffled-order
    ones (``CompilerOptions.shuffle_threads``)."""
    for name in kernels:
        module.functions.pop(name)
        module.functions.pop(name + PHASES_SUFFIX, None)
        body = module.functions.pop(thread_function(name))
        body.name, body.exported = name, True
        module.add(body)
    add_grid_loops(module, kernels, shuffle=True)


def _grid_loop(name: str, body: Function, phased: Phased | None, shuffle: bool) -> Function:
    own = body.params[len(THREAD_PARAMS) :]
    fn = Function(name, return_type=NONE, loc=body.loc, source_name=body.source_name)
    fn.exported = True
    dims = [Argument(type=I64, name=n, index=i) for i, n in enumerate(GRID_PARAMS)]
    fn.params = dims + [
        Argument(type=p.type, name=p.name, index=len(dims) + i) for i, p in enumerate(own)
    ]
    b = Builder(fn)
    b.position_at_end(fn.add_block("entry"))
    with b.at(body.loc):
        one = b.const(1, I64)
        bad: Value = b.const(False, I1)
        for d in dims:
            bad = b.insert(ops.BitOr(bad, b.cmp("lt", d, one), type=I1))
        with b.if_then(bad, "baddim"):
            b.raise_("ValueError", BAD_DIMENSION)
        grid, block = dims[:3], dims[3:]
        own_args: list[Value] = list(fn.params[len(dims) :])
        arrays = block_arrays(b, phased, block) if phased is not None else []
        with points(b, grid, "ctaid", shuffle) as (cx, cy, cz):
            if phased is not None:
                run_phases(b, phased, arrays, [cx, cy, cz], [*block, *grid], own_args, shuffle)
            else:
                with points(b, block, "tid", shuffle) as (tx, ty, tz):
                    thread = [tx, ty, tz, cx, cy, cz, *block, *grid]
                    b.call(body.name, [*thread, *own_args], result=NONE)
        b.ret(None)
    return fn
