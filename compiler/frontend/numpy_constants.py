"""Module-level NumPy constants: ``EPS = np.float32(1e-6)``, ``W = np.array([1.0, 2.0])``.

A module variable assigned a NumPy scalar conversion or array construction over
constants (:func:`is_numpy_constant`) is a *NumPy constant*: compiled code evaluates its
expression where a function reads it (a scalar folds to a typed constant; an array is
a new array built from constants, freed when no longer used). In CPython the module
holds one array object that every call shares, so a write into it would persist; gradc
materialises a copy per read, so it makes such an array **read-only**: every read is
checked (:func:`check_array_read`) and only uses that cannot write into it are
accepted — full-index element reads ``W[i, j]``, ``.shape``/``.size``/``.ndim``,
``len(W)``, operands of arithmetic, comparisons and ``@``, and arguments of NumPy
functions that return new arrays or scalars. Binding it to a name, passing it to a user
function, writing into it, taking a view (slices, rows, ``.T``, ``np.transpose``...),
returning it: compile errors naming the constant and the line.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.frontend.numpy_linalg import CONSTRUCT_FUNCTIONS, SCALAR_TYPES

if TYPE_CHECKING:
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.frontend.lower_expr import ExpressionLowering
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.ir.core import Value

#: NumPy functions that may build a module constant array.
_BUILDERS = frozenset(CONSTRUCT_FUNCTIONS) | {"zeros", "ones", "full"}

#: NumPy functions returning a view of (or the very object of) an argument: a module
#: array constant may not be passed to them.
VIEW_FUNCTIONS = frozenset(
    {
        "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "transpose",
        "reshape", "ravel", "squeeze", "expand_dims", "atleast_1d", "atleast_2d",
        "atleast_3d", "diagonal", "diag", "moveaxis", "swapaxes", "broadcast_to",
        "broadcast_arrays", "flip", "fliplr", "flipud", "rot90", "real", "imag", "split",
        "array_split", "hsplit", "vsplit", "copyto", "put", "place", "fill_diagonal",
    }
)  # fmt: skip

#: Attributes of an array that read it without exposing its memory.
_READ_ATTRIBUTES = frozenset({"shape", "size", "ndim", "dtype"})
#: Methods that return new arrays or scalars.
_READ_METHODS = frozenset(
    {"copy", "astype", "sum", "prod", "mean", "var", "std", "min", "max", "argmin",
     "argmax", "any", "all", "cumsum", "cumprod", "dot", "trace"}
)  # fmt: skip


def is_numpy_constant(info: ModuleInfo, node: ast.expr) -> bool:
    """True when ``node`` is a NumPy scalar conversion or array construction whose
    arguments are all constants (literals, folded module constants, other NumPy
    constants, nested lists and tuples of them, dtype names)."""
    if isinstance(node, ast.BinOp):  # np.float64(2.5) * 2, 2.0 * np.arange(3.0)
        parts = [node.left, node.right]
        return any(is_numpy_constant(info, p) for p in parts) and all(
            _constant_part(info, p) for p in parts
        )
    if isinstance(node, ast.UnaryOp):
        return is_numpy_constant(info, node.operand)
    if not isinstance(node, ast.Call):
        return False
    name = info.numpy_attr(node.func)
    if name not in SCALAR_TYPES and name not in _BUILDERS:
        return False
    parts = [*node.args, *(kw.value for kw in node.keywords if kw.arg != "dtype")]
    return all(_constant_part(info, p) for p in parts)


def _constant_part(info: ModuleInfo, node: ast.expr) -> bool:
    if isinstance(node, ast.List | ast.Tuple):
        return all(_constant_part(info, x) for x in node.elts)
    if isinstance(node, ast.Name) and node.id in info.numpy_constants:
        return True
    return fold_constant(info, node) is not None or is_numpy_constant(info, node)


def is_array_constant(info: ModuleInfo, name: str) -> bool:
    """True when module NumPy constant ``name`` may be an array (not only scalars)."""
    return _may_be_array(info, info.numpy_constants[name])


def _may_be_array(info: ModuleInfo, node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp):
        return _may_be_array(info, node.left) or _may_be_array(info, node.right)
    if isinstance(node, ast.UnaryOp):
        return _may_be_array(info, node.operand)
    if isinstance(node, ast.Name) and node.id in info.numpy_constants:
        return is_array_constant(info, node.id)
    return isinstance(node, ast.Call) and info.numpy_attr(node.func) not in SCALAR_TYPES


def _parents(fn: ast.FunctionDef) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(fn) for child in ast.iter_child_nodes(parent)}


_PARENTS: dict[int, tuple[ast.FunctionDef, dict[ast.AST, ast.AST]]] = {}


def check_array_read(info: ModuleInfo, fn: ast.FunctionDef, node: ast.Name) -> CompileError | None:
    """The error for a read of module array constant ``node`` that could write into it
    or let it escape (the module docstring), or None when the read is safe."""
    cached = _PARENTS.get(id(fn))
    if cached is None or cached[0] is not fn:
        cached = _PARENTS[id(fn)] = (fn, _parents(fn))
    parent = cached[1].get(node)
    what = f"module array constant '{node.id}' is read-only in compiled code"
    reason = _unsafe_use(info, node, parent)
    if reason is None:
        return None
    return info.source.error(f"{what}: {reason} (use {node.id}.copy() for a private copy)", node)


def _unsafe_use(info: ModuleInfo, node: ast.Name, parent: ast.AST | None) -> str | None:
    """Why using ``node`` under ``parent`` is refused, or None."""
    match parent:
        case ast.BinOp() | ast.UnaryOp() | ast.Compare():
            return None
        case ast.Subscript(value=value, slice=index) if value is node:
            if isinstance(parent.ctx, ast.Store | ast.Del):
                return "it cannot be written"
            ndim = _ndim(info, node.id)
            parts = index.elts if isinstance(index, ast.Tuple) else [index]
            simple = not any(isinstance(p, ast.Slice | ast.Starred) for p in parts)
            if simple and ndim is not None and len(parts) == ndim:
                return None
            return "only its elements can be read by index (a slice or row is a view)"
        case ast.Attribute(attr=attr) if attr in _READ_ATTRIBUTES | _READ_METHODS:
            return None
        case ast.Attribute(attr=attr):
            return f"'.{attr}' is not supported on it"
        case ast.Call(func=func) if node is not func:
            name = info.numpy_attr(func)
            if isinstance(func, ast.Name) and func.id == "len":
                return None
            if name is not None and name not in VIEW_FUNCTIONS:
                return None
            return "it can be passed only to NumPy functions that return new arrays"
    return "it can be used only in expressions, element reads and NumPy calls"


def _ndim(info: ModuleInfo, name: str) -> int | None:
    """The rank of a module array constant where its expression states it."""
    node = info.numpy_constants[name]
    if not isinstance(node, ast.Call):
        return None
    fn = info.numpy_attr(node.func)
    if fn in ("arange", "linspace"):
        return 1
    if fn in ("eye", "identity"):
        return 2
    first = node.args[0] if node.args else None
    if fn in ("zeros", "ones", "full"):
        return len(first.elts) if isinstance(first, ast.Tuple | ast.List) else 1
    if fn == "array":
        rank = 0
        while isinstance(first, ast.List | ast.Tuple) and first.elts:
            rank, first = rank + 1, first.elts[0]
        return rank or None
    return None


def read(low: ExpressionLowering, name: str, node: ast.Name) -> Value:
    """The value of NumPy constant ``name`` read at ``node``: its expression, evaluated
    here (an array read is checked by :func:`check_array_read` first)."""
    if is_array_constant(low.info, name):
        error = check_array_read(low.info, low.node, node)
        if error is not None:
            raise error
    return low.expr(low.info.numpy_constants[name])
