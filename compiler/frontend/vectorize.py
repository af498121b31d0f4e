"""``@gradc.vectorize("f64(f64, f64)")``: a scalar function made a kernel over arrays.

The decorated function stays a scalar helper (its IR name ``<name>.scalar``, typed by the
signature's parameter types); the export ``<name>`` is a kernel the front end writes
for it, with one 4-d strided array per parameter and ``out`` of the result type, which
runs one thread per element of ``out`` (C order)::

    @gradc.vectorize("f64(f64, f64)")         kernel huber(r: f64[:, :, :, :],
    def huber(r, delta):                                   delta: f64[:, :, :, :],
        return ...                                         out: f64[:, :, :, :]):
                                                  i = cuda.grid(1)
                                                  if i < out.size:  (k0, k1, k2, k3) = unravel(i)
                                                      out[k] = huber.scalar(r[k], delta[k])

Broadcasting is the caller's: every input is passed with ``out``'s shape, stride 0 along
the axes it is broadcast over, and up to 4 axes (leading ones of length 1);
``gradc.broadcast_call`` does it for NumPy arrays (the CPU build) and CUDA arrays, and
chooses the grid. The kernel builds for the CPU (grid loop) and CUDA as any other.
Locations: the written kernel's nodes carry the decorator's position, so an error in it
(a result type ``out`` cannot hold) points there; errors in the body are the body's.
"""

from __future__ import annotations

import ast
import copy
from typing import TYPE_CHECKING

from gradc.compiler.frontend.annotations import TypeSyntaxError, parse_signature
from gradc.compiler.ir.types import NONE, ArrayType, ScalarType, Type

if TYPE_CHECKING:
    from gradc.compiler.frontend.exports import Export
    from gradc.compiler.frontend.module_scan import ModuleInfo

__all__ = ["VECTORIZE_NDIM", "is_vectorize", "vectorize_export"]

#: The rank of a vectorised function's kernel arrays (inputs broadcast to it).
VECTORIZE_NDIM = 4

#: Names the written kernel uses, bound in ``ModuleInfo.gradc_names`` (not Python names,
#: so no user name can shadow them).
_CUDA, _KERNEL = "gradc:cuda", "gradc:kernel"

_BODY = """
def KERNEL(PARAMS):
    i = CUDA.grid(1)
    n1 = out.shape[1]
    n2 = out.shape[2]
    n3 = out.shape[3]
    if i < out.shape[0] * n1 * n2 * n3:
        k3 = i % n3
        q = i // n3
        k2 = q % n2
        q = q // n2
        k1 = q % n1
        k0 = q // n1
        out[k0, k1, k2, k3] = SCALAR(ARGS)
"""


def is_vectorize(info: ModuleInfo, deco: ast.expr) -> bool:
    """``deco`` is ``@gradc.vectorize(...)`` (any alias)."""
    return isinstance(deco, ast.Call) and info.is_gradc(deco.func, "vectorize")


def scalar_name(name: str) -> str:
    """The name of vectorised function ``name``'s scalar helper."""
    return f"{name}.scalar"


def vectorize_export(info: ModuleInfo, fn: ast.FunctionDef) -> Export:
    """The kernel export of ``@gradc.vectorize`` function ``fn``; registers ``fn`` as its
    scalar helper and the written kernel in ``info.functions``.

    Raises:
        CompileError: other decorators, a signature that is not one string of scalar
            types matching ``fn``'s plain positional parameters, a parameter named
            ``out``.
    """
    from gradc.compiler.frontend.exports import Export

    src = info.source
    deco = fn.decorator_list[0]
    if len(fn.decorator_list) > 1:
        raise src.error(f"vectorised function '{fn.name}' cannot have other decorators", fn)
    assert isinstance(deco, ast.Call)
    sig = deco.args[0] if len(deco.args) == 1 and not deco.keywords else None
    if not (isinstance(sig, ast.Constant) and isinstance(sig.value, str)):
        raise src.error(
            'gradc.vectorize takes one signature string, e.g. @gradc.vectorize("f64(f64, f64)")',
            deco,
        )
    try:
        result, types = parse_signature(sig.value)
    except TypeSyntaxError as exc:
        raise src.error(str(exc), deco) from None
    args = fn.args
    names = [a.arg for a in args.args]
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        raise src.error(
            f"vectorised function '{fn.name}' must take plain positional parameters "
            "without default values",
            fn,
        )
    if len(types) != len(names) or not names:
        raise src.error(
            f"signature string {sig.value!r} has {len(types)} parameter types but "
            f"'{fn.name}' takes {len(names)} parameters (at least one)",
            deco,
        )
    if not all(isinstance(t, ScalarType) for t in [*types, result]):
        raise src.error("a vectorised function takes and returns scalars", deco)
    if "out" in names:
        raise src.error(
            f"vectorised function '{fn.name}' cannot name a parameter 'out' (its kernel's)", fn
        )
    info.gradc_names[_CUDA], info.gradc_names[_KERNEL] = "cuda", "kernel"
    scalar = copy.copy(fn)
    scalar.name, scalar.decorator_list, scalar.returns = scalar_name(fn.name), [], None
    info.functions[scalar.name] = scalar
    kernel = _kernel(fn.name, names, deco)
    info.functions[fn.name] = kernel
    arrays: list[Type] = [ArrayType(t, VECTORIZE_NDIM, "A") for t in types]  # type: ignore[arg-type]
    arrays.append(ArrayType(result, VECTORIZE_NDIM, "A"))  # type: ignore[arg-type]
    return Export(fn.name, kernel, arrays, NONE, kernel=True)


def _kernel(name: str, params: list[str], deco: ast.expr) -> ast.FunctionDef:
    """The written kernel (module docstring), every node at ``deco``'s position."""
    index = "[k0, k1, k2, k3]"
    text = (
        _BODY.replace("KERNEL", "kernel_")
        .replace("PARAMS", ", ".join([*params, "out"]))
        .replace("ARGS", ", ".join(p + index for p in params))
    )
    fn = ast.parse(text).body[0]
    assert isinstance(fn, ast.FunctionDef)
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == "CUDA":
            node.id = _CUDA
        elif isinstance(node, ast.Name) and node.id == "SCALAR":
            node.id = scalar_name(name)
        if hasattr(node, "lineno"):
            ast.copy_location(node, deco)
    fn.name = name
    fn.decorator_list = [ast.copy_location(ast.Name(id=_KERNEL, ctx=ast.Load()), deco)]
    return fn
