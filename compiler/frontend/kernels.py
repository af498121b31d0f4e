"""``@gradc.kernel`` bodies: their parameters and the ``gradc.cuda`` names in them.

A kernel is a per-thread body (``gradc/cuda.py``). Its IR function takes the thread's
position as twelve hidden ``i64`` parameters before its own, :data:`THREAD_PARAMS`::

    @gradc.kernel                           func @k(%tid.x: i64, %tid.y: i64, ...,
    def k(x: f64[:]):                                %nctaid.z: i64, %x: f64[:]) -> none
        i = cuda.grid(1)                      %0 = mul %ctaid.x, %ntid.x : i64
        ...                                   %i = add %0, %tid.x : i64

so ``cuda.thread_idx.x`` is a read of ``%tid.x``, ``cuda.grid(1)`` is
``block_idx.x * block_dim.x + thread_idx.x``, on every target and in the interpreter
alike: the CUDA entry passes the special registers (``%tid.x`` ...), the CPU build's grid
loop its counters (``compiler/infer/kernels.py``). ``cuda.syncthreads()`` and
``cuda.atomic_add(a, i, v)`` are operations (``compiler/ir/ops/gpu.py``).

A kernel takes scalars and arrays, returns None, has no default values, is not called
by other functions (it is launched) and is not differentiated (yet); the ``gradc.cuda``
names are read only in kernel bodies. Each of these is a compile error at its line.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.frontend.annotations import TypeSyntaxError, type_from_annotation
from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import I64, NONE, ArrayType, ScalarType, Type, parse_type

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering
    from gradc.compiler.frontend.lower_state import LoweringState
    from gradc.compiler.frontend.module_scan import ModuleInfo

#: The hidden parameters of a kernel's IR function, in order (PTX's special registers).
THREAD_PARAMS = tuple(
    f"{reg}.{axis}" for reg in ("tid", "ctaid", "ntid", "nctaid") for axis in "xyz"
)

#: ``gradc.cuda``'s index triples and the registers they read.
_DIM3 = {"thread_idx": "tid", "block_idx": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}

#: The names of ``gradc.cuda`` compiled code uses.
CUDA_NAMES = (*_DIM3, "grid", "syncthreads", "atomic_add", "shared_array")

#: Parameters of the CPU build's grid loop before the kernel's own (``lib.k(grid_x, ...)``).
GRID_PARAMS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")


def kernel_param_types(info: ModuleInfo, fn: ast.FunctionDef) -> list[Type]:
    """The types of ``@gradc.kernel`` function ``fn``'s parameters (annotations).

    Raises:
        CompileError: parameters that are not plain positional ones, a default value, a
            missing or unsupported annotation (scalars and arrays only), a parameter
            named like a grid-loop parameter (:data:`GRID_PARAMS`), or a result
            annotation other than None.
    """
    src = info.source
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        raise src.error(
            f"kernel '{fn.name}' must take plain positional parameters without default values",
            fn,
        )
    if len(fn.decorator_list) > 1:
        raise src.error(f"kernel '{fn.name}' cannot have other decorators", fn)
    if fn.returns is not None and not (
        isinstance(fn.returns, ast.Constant) and fn.returns.value is None
    ):
        raise src.error(
            f"kernel '{fn.name}' returns None: annotate it '-> None' or not at all", fn.returns
        )
    types: list[Type] = []
    for p in args.args:
        if p.annotation is None:
            raise src.error(f"missing type for parameter '{p.arg}' of kernel '{fn.name}'", p)
        if p.arg in GRID_PARAMS:
            raise src.error(
                f"kernel parameter '{p.arg}' is named like a grid-loop parameter of the CPU "
                f"build ({', '.join(GRID_PARAMS)}); rename it",
                p,
            )
        try:
            t = type_from_annotation(p.annotation)
        except TypeSyntaxError as exc:
            raise src.error(str(exc), p.annotation) from None
        if not isinstance(t, ScalarType | ArrayType):
            raise src.error(f"kernel parameters are scalars or arrays, not {t}", p.annotation)
        types.append(t)
    return types


def is_kernel(info: ModuleInfo, node: ast.FunctionDef) -> bool:
    """True when ``node`` is decorated ``@gradc.kernel`` (read from the decorator, so it
    holds in any view of the module, e.g. one export inferred alone)."""
    return any(info.is_gradc(d, "kernel") for d in node.decorator_list)


def cuda_name(info: ModuleInfo, node: ast.expr) -> str | None:
    """``"grid"`` for ``cuda.grid`` (``from gradc import cuda``, any alias) or
    ``gradc.cuda.grid``; else None."""
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and info.gradc_names.get(base.id) == "cuda":
        return node.attr
    if info.is_gradc(base, "cuda"):
        return node.attr
    return None


def lower_cuda_attribute(lw: LoweringState, e: ast.Attribute) -> Value | None:
    """``cuda.thread_idx.x`` and friends: the hidden parameter, or None when ``e`` is
    no ``gradc.cuda`` name.

    Raises:
        CompileError: outside a kernel, an unknown attribute, or a function not called.
    """
    inner = cuda_name(lw.info, e.value)
    if inner is not None:
        if inner not in _DIM3 or e.attr not in ("x", "y", "z"):
            raise lw.src.error(f"unsupported attribute 'cuda.{inner}.{e.attr}'", e)
        return _thread_value(lw, f"{_DIM3[inner]}.{e.attr}", e)
    name = cuda_name(lw.info, e)
    if name is None:
        return None
    if name in _DIM3:
        raise lw.src.error(f"cuda.{name} is read by component: cuda.{name}.x, .y or .z", e)
    if name in CUDA_NAMES:
        raise lw.src.error(f"function 'cuda.{name}' can only be called", e)
    raise lw.src.error(f"module 'gradc.cuda' has no attribute '{name}' in compiled code", e)


def lower_cuda_call(lw: CallLowering, name: str, e: ast.Call) -> Value:
    """``cuda.grid(n)``, ``cuda.syncthreads()``, ``cuda.atomic_add(a, i, v)``,
    ``cuda.shared_array(shape, dtype)``.

    Raises:
        CompileError: outside a kernel, an unknown function, wrong arguments.
    """
    if name not in CUDA_NAMES or name in _DIM3:
        raise lw.src.error(f"unsupported function 'cuda.{name}'", e.func)
    _in_kernel(lw, f"cuda.{name}()", e)
    if name == "shared_array":
        return _shared_array(lw, e)
    if e.keywords:
        raise lw.src.error("keyword arguments are not supported", e)
    if name == "grid":
        arg = e.args[0] if len(e.args) == 1 else None
        if not (isinstance(arg, ast.Constant) and type(arg.value) is int and 1 <= arg.value <= 3):
            raise lw.src.error("cuda.grid() takes one constant argument: 1, 2 or 3", e)
        axes = [
            lw.b.add(
                lw.b.mul(_thread_value(lw, f"ctaid.{a}", e), _thread_value(lw, f"ntid.{a}", e)),
                _thread_value(lw, f"tid.{a}", e),
            )
            for a in "xyz"[: arg.value]
        ]
        return axes[0] if len(axes) == 1 else lw.b.make_tuple(axes)
    if name == "syncthreads":
        if e.args:
            raise lw.src.error("cuda.syncthreads() takes no arguments", e)
        block = tuple(_thread_value(lw, f"ntid.{a}", e) for a in "xyz")
        return lw.b.insert(ops.SyncThreads(block, type=NONE))
    if len(e.args) != 3:
        raise lw.src.error("cuda.atomic_add() takes 3 arguments: array, index, value", e)
    array = lw.expr(e.args[0])
    index = e.args[1]
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    indices = tuple(lw.expr(p) for p in parts)
    value = lw.expr(e.args[2])
    with lw.b.at(lw.src.loc(e)):
        return lw.b.insert(ops.AtomicAddItem(array, indices, value))


def _shared_array(lw: CallLowering, e: ast.Call) -> Value:
    """``cuda.shared_array(shape, dtype)`` (also ``shape=``, ``dtype=``): ``shape`` a
    positive constant int or a tuple of them (literals, module constants), ``dtype`` a
    NumPy dtype (``np.float64``, ``"f8"``, ...) or a gradc scalar type (``f64``).

    Raises:
        CompileError: a shape that is not constant and positive, a bool dtype, other
            arguments.
    """
    names = ("shape", "dtype")
    bound = dict(zip(names, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in names or kw.arg in bound:
            raise lw.src.error("cuda.shared_array() takes 2 arguments: shape, dtype", e)
        bound[kw.arg] = kw.value
    if len(e.args) > 2 or len(bound) != 2:
        raise lw.src.error("cuda.shared_array() takes 2 arguments: shape, dtype", e)
    shape_node = bound["shape"]
    parts = shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node]
    shape = [fold_constant(lw.info, p) for p in parts]
    dims = [d for d in shape if type(d) is int and d >= 1]
    if not parts or len(dims) != len(shape):
        raise lw.src.error(
            "the shape of cuda.shared_array() is a positive constant int or a tuple of them",
            shape_node,
        )
    dtype_node = bound["dtype"]
    try:
        dtype = type_from_annotation(dtype_node)
    except TypeSyntaxError:
        dtype = parse_type(lw.dtype(dtype_node))
    if not isinstance(dtype, ScalarType) or dtype.is_bool:
        raise lw.src.error(
            f"cuda.shared_array() holds numbers, not {ast.unparse(dtype_node)}", dtype_node
        )
    t = ArrayType(dtype, len(dims), "C")
    with lw.b.at(lw.src.loc(e)):
        return lw.b.insert(ops.SharedArray(tuple(dims), type=t))


def _in_kernel(lw: LoweringState, what: str, node: ast.AST) -> None:
    if not is_kernel(lw.info, lw.node):
        raise lw.src.error(
            f"{what} is available only in the body of a @gradc.kernel function", node
        )


def _thread_value(lw: LoweringState, register: str, node: ast.AST) -> Value:
    """The hidden parameter ``register`` (``"tid.x"``) of the kernel being lowered."""
    _in_kernel(lw, "cuda." + next(k for k, v in _DIM3.items() if register.startswith(v)), node)
    param = lw.fn.params[THREAD_PARAMS.index(register)]
    assert param.name == register and param.type == I64
    return param
