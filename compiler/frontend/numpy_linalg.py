"""NumPy's linear algebra and array construction in compiled code: the front end's tables.

:data:`LINALG_FUNCTIONS` (``np.matmul``, ``np.dot``, ``np.inner``, ``np.vdot``,
``np.outer``, ``np.trace``; ``a @ b`` is ``np.matmul``) and :data:`CONSTRUCT_FUNCTIONS`
(``np.arange``, ``np.linspace``, ``np.eye``, ``np.identity``, ``np.array`` of a literal,
``np.concatenate``, ``np.stack``, ``np.vstack``, ``np.hstack``) map each supported
function to its NumPy parameters and its lowering; :data:`SCALAR_TYPES` are the scalar
conversions ``np.float64(x)``, ``np.float32(x)``, ``np.int64(x)``, ``np.int32(x)``,
``np.bool_(x)``. Arguments bind by position or NumPy's keyword names and are evaluated
in source order; anything else (``out=``, ``order=``, ``axis=None``) is a compile error
naming the argument. The operations are :mod:`gradc.compiler.ir.ops.linalg` and
:mod:`gradc.compiler.ir.ops.construct`; inference types them
(:mod:`gradc.compiler.infer.rules_linalg`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradc._dataclass import dataclass
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import F32, F64, I1, I32, I64, ArrayType, ScalarType

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering

#: ``np.<name>(x)`` of a scalar: a conversion (:class:`~ops.Cast`, Python's meaning:
#: float to int truncates toward zero; NaN or infinity raise, where NumPy returns an
#: unspecified integer).
SCALAR_TYPES: dict[str, ScalarType] = {
    "float64": F64,
    "double": F64,
    "float32": F32,
    "single": F32,
    "int64": I64,
    "intp": I64,
    "int32": I32,
    "bool_": I1,
}

#: A function's lowering: ``(lowering, bound arguments by NumPy's names, call) -> value``.
Lower = Callable[["CallLowering", dict[str, ast.expr], ast.Call], Value]


@dataclass(frozen=True)
class ArrayFunction:
    """One supported NumPy function: its parameters by NumPy's names (``required`` of
    them without a default) and its lowering."""

    params: tuple[str, ...]
    required: int
    lower: Lower


def bind(low: CallLowering, name: str, fn: ArrayFunction, e: ast.Call) -> dict[str, ast.expr]:
    """Bind the arguments of ``np.<name>(...)`` to ``fn``'s parameters, as Python does.

    Raises:
        CompileError: too many positional arguments, an unknown or repeated keyword, a
            missing required argument.
    """
    if any(isinstance(a, ast.Starred) for a in e.args):
        raise low.src.error("unsupported expression 'Starred'", e)
    if len(e.args) > len(fn.params):
        raise low.src.error(
            f"np.{name}() takes at most {len(fn.params)} positional arguments "
            f"({', '.join(fn.params)}) but {len(e.args)} were given",
            e,
        )
    bound = dict(zip(fn.params, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg is None or kw.arg not in fn.params:
            shown = f"keyword '{kw.arg}'" if kw.arg else "'**' argument"
            raise low.src.error(f"np.{name}() {shown} is not supported", kw.value)
        if kw.arg in bound:
            raise low.src.error(f"np.{name}() got multiple values for argument '{kw.arg}'", kw)
        bound[kw.arg] = kw.value
    for param in fn.params[: fn.required]:
        if param not in bound:
            raise low.src.error(f"np.{name}() missing required argument '{param}'", e)
    return bound


def _in_order(low: CallLowering, bound: dict[str, ast.expr]) -> dict[str, Value]:
    """The bound arguments' values, evaluated in source order."""
    items = sorted(bound.items(), key=lambda item: (item[1].lineno, item[1].col_offset))
    return {param: low.expr(node) for param, node in items}


def _dtype(low: CallLowering, bound: dict[str, ast.expr]) -> str:
    """The IR name of ``dtype=`` (``""`` when absent or None)."""
    node = bound.pop("dtype", None)
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return ""
    return low.dtype(node)


def _const_bool(low: CallLowering, bound: dict[str, ast.expr], param: str, default: bool) -> bool:
    node = bound.pop(param, None)
    if node is None:
        return default
    if not isinstance(node, ast.Constant) or not isinstance(node.value, bool):
        raise low.src.error(f"{param}= must be the constant True or False", node)
    return node.value


def _const_int(low: CallLowering, bound: dict[str, ast.expr], param: str, default: int) -> int:
    node = bound.pop(param, None)
    if node is None:
        return default
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = node.operand
        value = -inner.value if isinstance(inner, ast.Constant) else None  # type: ignore[operator]
    if not isinstance(value, int) or isinstance(value, bool):
        raise low.src.error(f"{param}= must be a constant int", node)
    return value


# -- linear algebra -------------------------------------------------------------------


def _contract(kind: ops.ContractKind) -> Lower:
    def lower(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
        values = list(_in_order(low, bound).values())
        with low.b.at(low.src.loc(e)):
            return low.b.insert(ops.Contract(kind, values[0], values[1]))

    return lower


def _outer(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.Outer(v["a"], v["b"]))


def _trace(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.Trace(v["a"]))


#: The linear algebra functions compiled code supports (1-D and 2-D operands).
LINALG_FUNCTIONS: dict[str, ArrayFunction] = {
    "matmul": ArrayFunction(("x1", "x2"), 2, _contract(ops.ContractKind.MATMUL)),
    "dot": ArrayFunction(("a", "b"), 2, _contract(ops.ContractKind.DOT)),
    "inner": ArrayFunction(("a", "b"), 2, _contract(ops.ContractKind.INNER)),
    "vdot": ArrayFunction(("a", "b"), 2, _contract(ops.ContractKind.VDOT)),
    "outer": ArrayFunction(("a", "b"), 2, _outer),
    "trace": ArrayFunction(("a",), 1, _trace),
}


def matmul_operator(low: CallLowering, lhs: Value, rhs: Value) -> Value:
    """``lhs @ rhs``: ``np.matmul``."""
    return low.b.insert(ops.Contract(ops.ContractKind.MATMUL, lhs, rhs))


# -- construction ---------------------------------------------------------------------


def _arange(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    dtype = _dtype(low, bound)
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        start: Value
        if "stop" not in v:  # np.arange(stop)
            start, stop = low.b.const(0, I64), v["start"]
        else:
            start, stop = v["start"], v["stop"]
        step = v.get("step") or low.b.const(1, I64)
        return low.b.insert(ops.Arange(dtype, start, stop, step))


def _linspace(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    dtype = _dtype(low, bound)
    endpoint = _const_bool(low, bound, "endpoint", True)
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        num = v.get("num") or low.b.const(50, I64)
        return low.b.insert(
            ops.Linspace(dtype, v["start"], v["stop"], num, no_endpoint=not endpoint)
        )


def _eye(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    dtype = _dtype(low, bound) or "f64"
    if isinstance(bound.get("M"), ast.Constant) and bound["M"].value is None:  # type: ignore[attr-defined]
        del bound["M"]
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        rows = v["N"]
        cols = v.get("M", rows)
        k = v.get("k") or low.b.const(0, I64)
        return low.b.insert(ops.Eye(dtype, rows, cols, k))


def _identity(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    dtype = _dtype(low, bound) or "f64"
    v = _in_order(low, bound)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.Eye(dtype, v["n"], v["n"], low.b.const(0, I64)))


def literal_shape(low: CallLowering, node: ast.expr) -> tuple[tuple[int, ...], list[ast.expr]]:
    """The shape of a nested list/tuple literal of scalars and its leaves in C order.

    Raises:
        CompileError: a ragged literal, or one that is not a list/tuple literal.
    """
    if not isinstance(node, ast.List | ast.Tuple):
        raise low.src.error(
            "np.array() takes a literal list or tuple of numbers here (copy an array with .copy())",
            node,
        )
    parts = [x for x in node.elts if not isinstance(x, ast.Starred)]
    if len(parts) != len(node.elts):
        raise low.src.error("unsupported expression 'Starred'", node)
    nested = [isinstance(x, ast.List | ast.Tuple) for x in parts]
    if not any(nested):
        return (len(parts),), parts
    if not all(nested):
        raise low.src.error("np.array() of a ragged nested sequence is not supported", node)
    inner = [literal_shape(low, x) for x in parts]
    if len({shape for shape, _ in inner}) != 1:
        raise low.src.error(
            "setting an array element with a sequence. The requested array has an "
            "inhomogeneous shape",
            node,
        )
    return (len(parts), *inner[0][0]), [leaf for _, leaves in inner for leaf in leaves]


def _array(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
    dtype = _dtype(low, bound)
    shape, leaves = literal_shape(low, bound["object"])
    elements = tuple(low.expr(x) for x in leaves)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.ArrayLiteral(dtype, shape, elements))


def _join(kind: ops.JoinKind) -> Lower:
    def lower(low: CallLowering, bound: dict[str, ast.expr], e: ast.Call) -> Value:
        axis = _const_int(low, bound, "axis", 0)
        node = bound["arrays" if "arrays" in bound else "tup"]
        if not isinstance(node, ast.List | ast.Tuple) or not node.elts:
            raise low.src.error(
                f"np.{kind}() takes a literal, non-empty tuple or list of arrays here", node
            )
        arrays = tuple(low.expr(x) for x in node.elts)
        with low.b.at(low.src.loc(e)):
            return low.b.insert(ops.Concatenate(kind, axis, arrays))

    return lower


#: The construction functions compiled code supports.
CONSTRUCT_FUNCTIONS: dict[str, ArrayFunction] = {
    "arange": ArrayFunction(("start", "stop", "step", "dtype"), 1, _arange),
    "linspace": ArrayFunction(("start", "stop", "num", "endpoint", "dtype"), 2, _linspace),
    "eye": ArrayFunction(("N", "M", "k", "dtype"), 1, _eye),
    "identity": ArrayFunction(("n", "dtype"), 1, _identity),
    "array": ArrayFunction(("object", "dtype"), 1, _array),
    "concatenate": ArrayFunction(("arrays", "axis"), 1, _join(ops.JoinKind.CONCATENATE)),
    "stack": ArrayFunction(("arrays", "axis"), 1, _join(ops.JoinKind.STACK)),
    "vstack": ArrayFunction(("tup",), 1, _join(ops.JoinKind.VSTACK)),
    "hstack": ArrayFunction(("tup",), 1, _join(ops.JoinKind.HSTACK)),
}


def array_function_call(low: CallLowering, name: str, e: ast.Call) -> Value:
    """``np.<name>(...)`` of :data:`LINALG_FUNCTIONS`, :data:`CONSTRUCT_FUNCTIONS` or a
    scalar conversion of :data:`SCALAR_TYPES`."""
    if name in SCALAR_TYPES:
        if e.keywords or len(e.args) != 1:
            raise low.src.error(f"np.{name}() takes exactly one positional argument here", e)
        value = low.expr(e.args[0])
        with low.b.at(low.src.loc(e)):
            return low.b.insert(ops.Cast(value, numpy=True, type=SCALAR_TYPES[name]))
    fn = LINALG_FUNCTIONS.get(name) or CONSTRUCT_FUNCTIONS[name]
    return fn.lower(low, bind(low, name, fn, e), e)


def astype_call(low: CallLowering, e: ast.Call, array: ast.expr) -> Value:
    """``array.astype(dtype)`` (one argument: ``copy=``/``order=`` are not supported)."""
    if len(e.args) != 1 or e.keywords:
        raise low.src.error("astype() takes exactly one argument (the dtype) here", e)
    dtype = low.dtype(e.args[0])
    value = low.expr(array)
    with low.b.at(low.src.loc(e)):
        return low.b.insert(ops.AsType(dtype, value))


#: Every ``np.<name>`` this module lowers.
ARRAY_FUNCTION_NAMES = (
    frozenset(LINALG_FUNCTIONS) | frozenset(CONSTRUCT_FUNCTIONS) | frozenset(SCALAR_TYPES)
)


def parameter_dtype(low: CallLowering, node: ast.Attribute) -> str:
    """The IR type name ``dtype=x.dtype`` names: ``x`` must be a parameter of the
    function, of an array type known where the function is compiled (an export's, or a
    helper's specialisation), never rebound other than by ``x op= ...`` (in place: NumPy
    keeps the dtype) or ``x = x.copy()``."""
    name = node.value.id if isinstance(node.value, ast.Name) else None
    params = [a.arg for a in low.node.args.args]
    if name in params and not _rebinds_dtype(low.node, name):
        t = low.param_types[params.index(name)]
        if isinstance(t, ArrayType):
            return t.dtype.name
    raise low.src.error(
        f"dtype={ast.unparse(node)} is supported only for an array parameter that is never "
        "reassigned (or name the dtype: np.float64, np.float32, np.int64, np.int32, np.bool_)",
        node,
    )


def _rebinds_dtype(fn: ast.FunctionDef, name: str) -> bool:
    """Whether ``name`` is bound in ``fn`` other than by ``name op= ...`` or
    ``name = name.copy()`` (the two rebindings that keep an array's dtype)."""
    kept: set[int] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.AugAssign):
            kept.add(id(n.target))
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and _is_copy_of(n.value, name):
            kept.add(id(n.targets[0]))
    return any(
        isinstance(n, ast.Name)
        and n.id == name
        and isinstance(n.ctx, ast.Store)
        and id(n) not in kept
        for n in ast.walk(fn)
    )


def _is_copy_of(value: ast.expr, name: str) -> bool:
    """``value`` is ``name.copy()``."""
    return (
        isinstance(value, ast.Call)
        and not value.args
        and not value.keywords
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "copy"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == name
    )
