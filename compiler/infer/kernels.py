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

The CUDA build compiles ``k.thread`` under its own entry instead
(``compiler/codegen/cuda.py``). No products of dimensions are formed, so no count can
overflow.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gradc.compiler.frontend.kernels import GRID_PARAMS, THREAD_PARAMS
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module, Value
from gradc.compiler.ir.types import I1, I64, NONE

#: Suffix of the IR name of a kernel's per-thread function.
THREAD_SUFFIX = ".thread"

#: The ValueError of a grid or block dimension below 1 (CUDA refuses such launches too).
BAD_DIMENSION = "grid and block dimensions must be >= 1"


def thread_function(kernel: str) -> str:
    """The IR name of kernel ``kernel``'s per-thread function."""
    return kernel + THREAD_SUFFIX


def add_grid_loops(module: Module, kernels: list[str]) -> None:
    """Make each kernel of ``kernels`` (IR names of exported, typed kernel functions) a
    per-thread function with a grid-loop export of its name (module docstring)."""
    for name in kernels:
        body = module.functions.pop(name)
        body.name = thread_function(name)
        body.exported = False
        module.add(body)
        module.add(_grid_loop(name, body))


def _grid_loop(name: str, body: Function) -> Function:
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
        zero, one = b.const(0, I64), b.const(1, I64)
        bad: Value = b.const(False, I1)
        for d in dims:
            bad = b.insert(ops.BitOr(bad, b.cmp("lt", d, one), type=I1))
        with b.if_then(bad, "baddim"):
            b.raise_("ValueError", BAD_DIMENSION)
        grid, block = dims[:3], dims[3:]
        with (
            _loop(b, grid[2], zero, one, "ctaid.z") as cz,
            _loop(b, grid[1], zero, one, "ctaid.y") as cy,
            _loop(b, grid[0], zero, one, "ctaid.x") as cx,
            _loop(b, block[2], zero, one, "tid.z") as tz,
            _loop(b, block[1], zero, one, "tid.y") as ty,
            _loop(b, block[0], zero, one, "tid.x") as tx,
        ):
            thread = [tx, ty, tz, cx, cy, cz, *block, *grid]
            b.call(body.name, [*thread, *fn.params[len(dims) :]], result=NONE)
        b.ret(None)
    return fn


@contextmanager
def _loop(b: Builder, n: Value, zero: Value, one: Value, label: str) -> Iterator[Value]:
    """``for i in range(n)`` (``n`` >= 1 is not assumed); the body inside the ``with``."""
    assert b.block is not None
    before = b.block
    head, body, done = b.new_block(label), b.new_block(f"{label}.body"), b.new_block(f"{label}.end")
    b.jump(head)
    b.position_at_end(head)
    i = b.phi(I64, name=label)
    i.incoming.append((before, zero))
    b.branch(b.cmp("lt", i, n), body, done)
    b.position_at_end(body)
    yield i
    latch = b.block
    assert latch is not None
    step = b.add(i, one)
    b.jump(head)
    i.incoming.append((latch, step))
    b.position_at_end(done)
