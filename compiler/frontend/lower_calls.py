"""Lower calls: of ``math`` functions, NumPy allocators and math functions (on scalars),
builtins and user functions.

Arguments are evaluated left to right (NumPy's keyword arguments in source order); a call
of a user function, in this module or an imported one, is emitted with the callee's
:attr:`~.imports.FunctionRef.symbol` for inference to specialise.
"""

from __future__ import annotations

import ast
import math

from gradc.compiler.frontend import (
    array_functions,
    array_grids,
    array_reorder,
    array_repeat,
    convolve,
    einsum,
    linalg_solve,
    numpy_linalg,
    operator_ufuncs,
    slicing,
    ufunc_out,
)
from gradc.compiler.frontend.array_reductions import lower_reduction
from gradc.compiler.frontend.constants import default_values
from gradc.compiler.frontend.constructs import builtin_help
from gradc.compiler.frontend.function_args import bind_functions, call_bound
from gradc.compiler.frontend.imports import (
    ConstantRef,
    ForeignRef,
    FunctionRef,
    ModuleRef,
    NonConstantRef,
    foreign_error,
    resolve,
)
from gradc.compiler.frontend.kernels import cuda_name, is_kernel, lower_cuda_call
from gradc.compiler.frontend.lower_state import LoweringState
from gradc.compiler.frontend.numpy_arrays import ARRAY_UFUNCS
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.numpy_math import NUMPY_FUNCTIONS
from gradc.compiler.ir.types import F64, I1, I64, ScalarType

_CAST_BUILTINS: dict[str, ScalarType] = {"int": I64, "float": F64, "bool": I1}

#: numpy allocator -> its parameters by NumPy's names, in order (``dtype`` optional).
_NUMPY_ALLOCATORS: dict[str, tuple[str, ...]] = {
    "zeros": ("shape", "dtype"),
    "ones": ("shape", "dtype"),
    "empty": ("shape", "dtype"),
    "full": ("shape", "fill_value", "dtype"),
    "zeros_like": ("a", "dtype"),
    "ones_like": ("a", "dtype"),
    "empty_like": ("a", "dtype"),
    "full_like": ("a", "fill_value", "dtype"),
}

#: dtype spellings -> IR scalar type names.
_DTYPES: dict[str, str] = {
    "float64": "f64",
    "float": "f64",
    "double": "f64",
    "f8": "f64",
    "float_": "f64",
    "float32": "f32",
    "single": "f32",
    "f4": "f32",
    "int64": "i64",
    "int": "i64",
    "i8": "i64",
    "int_": "i64",
    "intp": "i64",
    "int32": "i32",
    "i4": "i32",
    "intc": "i32",
    "bool_": "i1",
    "bool": "i1",
    "?": "i1",
}

#: Builtins compiled code can call (``range`` only as a for loop's iterable).
SUPPORTED_BUILTINS = ("abs", "min", "max", "int", "float", "bool", "len")


class CallLowering(LoweringState):
    """The lowering of call expressions (``f(x)``, ``math.exp(x)``, ``np.zeros(n)``)."""

    def call(self, e: ast.Call) -> Value:
        """A call: of ``math``, NumPy, ``x.copy()``, a builtin or a user function."""
        for a in e.args:
            if isinstance(a, ast.Starred):
                raise self.src.unsupported(a)
        reduction = lower_reduction(self, self.dtype, e)  # np.sum(a), a.max(axis=0), ...
        if reduction is not None:
            return reduction
        func = e.func
        if linalg_solve.is_solve_call(self, func):  # np.linalg.inv(a), solve, det
            return linalg_solve.solve_call(self, func, e)  # type: ignore[arg-type]
        if self._array_method(func, "sort"):  # a.sort(): a statement (lower_stmt.py)
            raise self.src.error(
                "a.sort() sorts in place and returns None: write it as a statement",
                e,
                help="np.sort(a) returns a sorted copy",
            )
        if self._array_method(func, "clip"):  # a.clip(lo, hi)
            return array_functions.clip_method(self, func, e)  # type: ignore[arg-type]
        if e.keywords and self.info.numpy_attr(func) is None and not self._user_function(func):
            raise self.src.error("keyword arguments are not supported", e)
        math_fn = self.info.math_attr(func)
        if math_fn is not None:
            return self.math_call(math_fn, e)
        numpy_fn = self.info.numpy_attr(func)
        if numpy_fn == "shape" and len(e.args) == 1 and not e.keywords:  # np.shape(a)
            return self.b.insert(ops.ArrayAttr(ops.ArrayProperty.SHAPE, self.expr(e.args[0])))
        if numpy_fn is not None:
            return self.numpy_call(numpy_fn, e)
        cuda_fn = cuda_name(self.info, func)
        if cuda_fn is not None:
            return lower_cuda_call(self, cuda_fn, e)
        if self._is_imported(func):
            return self.imported_call(func, e)
        if isinstance(func, ast.Attribute) and func.attr in slicing.VIEW_METHODS:
            return slicing.view_method(self, func, e)  # type: ignore[arg-type]
        if isinstance(func, ast.Attribute) and func.attr == "astype":
            return numpy_linalg.astype_call(self, e, func.value)
        if isinstance(func, ast.Attribute) and func.attr == "copy":
            if e.args or e.keywords:
                raise self.src.error("copy() takes no arguments", e)
            return self.b.insert(ops.CopyArray(self.expr(func.value)))
        if isinstance(func, ast.Name):
            name = func.id
            if name in self.bound_functions:
                return call_bound(self, name, e)
            if name in self.locals:
                raise self.src.error(f"local variable '{name}' is not callable", func)
            if name in self.info.functions:
                if is_kernel(self.info, self.info.functions[name]):
                    raise self.src.error(
                        f"kernel '{name}' cannot be called: it is launched, "
                        f"{name}[grid, block](...), from the host",
                        e,
                    )
                return self.user_call(FunctionRef(self.info, name), name, e)
            if any(d.name == name for d in self.info.derivatives):
                return self.derivative_call(name, e)
            if any(d.dispatch == name for d in self.info.derivatives):
                raise self.src.error(
                    f"'{name}' is a derivative of a function with several signatures; "
                    "compiled code cannot call it (the loader dispatches it for Python "
                    "callers)",
                    func,
                    help="differentiate an export with one signature to call its derivative",
                )
            if name in SUPPORTED_BUILTINS:
                return self.builtin_call(name, e)
            if name == "range":
                raise self.src.error("range() is supported only as the iterable of a for loop", e)
            if name in self.info.constants:
                raise self.src.error(f"module constant '{name}' is not callable", func)
            raise self.undefined(name, func)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            raise self.src.error(f"unsupported function '{ast.unparse(func)}'", func)
        raise self.src.error(f"unsupported call of '{ast.unparse(func)}'", func)

    def math_call(self, fn_name: str, e: ast.Call) -> Value:
        """``math.<fn_name>(...)``; ``floor``/``ceil``/``trunc`` return an int, as in Python."""
        fn = ops.MATH_FUNCTIONS.get(fn_name)
        if fn is None or fn.internal:
            if hasattr(math, fn_name) and not fn_name.startswith("_"):  # math.remainder, ...
                raise self.src.error(
                    f"function 'math.{fn_name}' is not supported in compiled code", e.func
                )
            raise self.src.error(f"module 'math' has no function '{fn_name}'", e.func)
        if len(e.args) != fn.arity:
            raise self.src.error(
                f"math.{fn_name}() takes {fn.arity} argument{'s' * (fn.arity != 1)} "
                f"but {len(e.args)} were given",
                e,
            )
        args = [self.expr(a) for a in e.args]
        result = self.b.math(fn_name, *args)
        if fn_name in ("floor", "ceil", "trunc"):
            return self.b.insert(ops.Cast(result, type=I64))  # Python returns an int
        return result

    def numpy_call(self, name: str, e: ast.Call) -> Value:
        """``np.zeros/ones/empty/full`` and their ``*_like`` forms; NumPy's math functions
        (:meth:`numpy_math_call`).

        Arguments bind as NumPy's (positional or by name: ``shape=``, ``fill_value=``,
        ``a=``, ``dtype=``; ``dtype=None`` is the default) and are evaluated in source
        order; a shape may be a list (``np.zeros([n, 2])``).
        """
        if name in NUMPY_FUNCTIONS or name in ARRAY_UFUNCS:
            return self.numpy_math_call(name, e)
        if name in operator_ufuncs.OPERATOR_FUNCTIONS:
            return operator_ufuncs.operator_call(self, name, e)
        if name in array_functions.ARRAY_FUNCTIONS:
            return array_functions.array_function_call(self, name, e)
        if name in array_repeat.REPEAT_FUNCTIONS:
            return array_repeat.repeat_call(self, name, e)
        if name == "convolve":
            return convolve.convolve_call(self, e)
        if name in array_grids.GRID_FUNCTIONS:
            return array_grids.grid_call(self, name, e)
        if name in array_reorder.REORDER_FUNCTIONS:
            return array_reorder.reorder_call(self, name, e)
        if name == "einsum":
            return einsum.einsum_call(self, e)
        if name in numpy_linalg.ARRAY_FUNCTION_NAMES:
            return numpy_linalg.array_function_call(self, name, e)
        if name not in _NUMPY_ALLOCATORS:
            raise self.src.error(f"numpy function 'np.{name}' is not supported", e.func)
        params = _NUMPY_ALLOCATORS[name]
        if len(e.args) > len(params):
            raise self.src.error(
                f"np.{name}() takes at most {len(params)} positional arguments "
                f"({', '.join(params)}) but {len(e.args)} were given",
                e,
            )
        bound: dict[str, ast.expr] = dict(zip(params, e.args, strict=False))
        for kw in e.keywords:
            if kw.arg is None or kw.arg not in params:
                shown = f"keyword '{kw.arg}'" if kw.arg else "'**' argument"
                allowed = ", ".join(f"{p}=" for p in params)
                raise self.src.error(
                    f"np.{name}() {shown} is not supported (only {allowed})", kw.value
                )
            if kw.arg in bound:
                raise self.src.error(
                    f"np.{name}() got multiple values for argument '{kw.arg}'", kw.value
                )
            bound[kw.arg] = kw.value
        for param in params[:-1]:
            if param not in bound:
                raise self.src.error(f"np.{name}() missing required argument '{param}'", e)
        dtype_node = bound.pop("dtype", None)
        dtype = ""
        if dtype_node is not None and not (
            isinstance(dtype_node, ast.Constant) and dtype_node.value is None
        ):
            dtype = self.dtype(dtype_node)
        values: dict[str, Value] = {}
        for param, node in sorted(bound.items(), key=lambda item: _source_order(item[1])):
            if param == "shape" and isinstance(node, ast.List):
                with self.b.at(self.src.loc(node)):
                    values[param] = self.b.make_tuple([self.expr(x) for x in node.elts])
            else:
                values[param] = self.expr(node)
        shape, like = values.get("shape"), values.get("a")
        fill = values.get("fill_value")
        kind = name.removesuffix("_like")
        return self.b.insert(ops.Allocate(ops.AllocKind(kind), dtype, shape, like, fill))

    def numpy_math_call(self, name: str, e: ast.Call) -> Value:
        """``np.sqrt(x)``, ``np.minimum(a, b)``, ... on scalars (:data:`NUMPY_FUNCTIONS`):
        positional operands, and ``out=`` (compiler/frontend/ufunc_out.py); inference types
        the call as NumPy's loop does."""
        arity = NUMPY_FUNCTIONS[name].arity if name in NUMPY_FUNCTIONS else ARRAY_UFUNCS[name]
        operands, out = ufunc_out.split_out(self, name, e, arity)
        if len(operands) != arity:
            raise self.src.error(
                f"np.{name}() takes {arity} argument{'s' * (arity != 1)} "
                f"but {len(operands)} were given",
                e,
            )
        args = tuple(self.expr(a) for a in operands)
        with self.b.at(self.src.loc(e)):
            result = self.b.insert(ops.NumpyCall(name, args))
        return result if out is None else ufunc_out.write_out(self, result, out, e)

    def dtype(self, node: ast.expr) -> str:
        """The IR type name of a dtype expression (``np.float64``, ``float``, ``"f8"``)."""
        name: str | None = None
        if isinstance(node, ast.Name) and node.id in ("float", "int", "bool"):
            name = node.id
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
        elif isinstance(node, ast.Attribute) and node.attr == "dtype":  # x.dtype
            return numpy_linalg.parameter_dtype(self, node)
        else:
            name = self.info.numpy_attr(node)
        if name is None or name not in _DTYPES:
            raise self.src.error(
                f"unsupported dtype '{ast.unparse(node)}' (use np.float64, np.float32, "
                "np.int64, np.int32 or np.bool_)",
                node,
            )
        return _DTYPES[name]

    def imported_call(self, func: ast.expr, e: ast.Call) -> Value:
        """A call of a user module's function (``g(x)``, ``helpers.f(x)``)."""
        assert isinstance(func, ast.Name | ast.Attribute)
        ref = resolve(self.info, func)
        shown = ast.unparse(func)
        if isinstance(ref, FunctionRef):
            return self.user_call(ref, shown, e)
        if isinstance(ref, ForeignRef):
            raise foreign_error(self.info, ref, func, called=True)
        what = {
            ConstantRef: "module constant",
            ModuleRef: "module",
            NonConstantRef: "module variable",
        }[type(ref)]
        raise self.src.error(f"{what} '{shown}' is not callable", func)

    def user_call(self, callee: FunctionRef, shown: str, e: ast.Call) -> Value:
        """A call of a top-level function of this or another user module.

        The call names the callee by :attr:`FunctionRef.symbol`; inference replaces it by
        the specialisation's symbol. Arguments bind by position or keyword as in Python
        (evaluated in source order); parameters the call omits take their default values
        (:func:`~.constants.default_values`, folded in the callee's module).

        Raises:
            CompileError: too many arguments, a missing one, an unknown or repeated
                keyword, ``**`` arguments.
        """
        params = callee.node.args
        if params.vararg or params.kwarg or params.kwonlyargs or params.posonlyargs:
            raise self.src.error(  # else its keyword-only names would read as unknown
                f"function '{shown}' must take plain positional parameters "
                "(no *args, **kwargs or keyword-only parameters)",
                e,
            )
        names = [a.arg for a in params.args]
        expected = len(names)
        defaults = default_values(callee.module, callee.node)
        least = expected - len(defaults)
        if len(e.args) > expected or (len(e.args) < least and not e.keywords):
            takes = f"{expected}" if least == expected else f"from {least} to {expected}"
            raise self.src.error(
                f"function '{shown}' takes {takes} argument{'s' * (expected != 1)} "
                f"but {len(e.args)} were given",
                e,
            )
        bound: dict[int, ast.expr] = dict(enumerate(e.args))
        for kw in e.keywords:
            if kw.arg is None:
                raise self.src.error("'**' arguments are not supported", kw.value)
            if kw.arg not in names:
                raise self.src.error(
                    f"function '{shown}' got an unexpected keyword argument '{kw.arg}'", kw.value
                )
            if names.index(kw.arg) in bound:
                raise self.src.error(
                    f"function '{shown}' got multiple values for argument '{kw.arg}'", kw.value
                )
            bound[names.index(kw.arg)] = kw.value
        missing = [names[i] for i in range(least) if i not in bound]
        if missing:
            raise self.src.error(
                f"function '{shown}' missing required argument{'s' * (len(missing) != 1)}: "
                + ", ".join(f"'{m}'" for m in missing),
                e,
            )
        callee, functions = bind_functions(self, callee, shown, bound, e)
        values = {i: self.expr(node) for i, node in bound.items() if i not in functions}
        args = [
            values[i] if i in values else self._const(defaults[i - least], e)
            for i in range(expected)
            if i not in functions
        ]
        self.callees[callee.symbol] = callee
        return self.b.call(callee.symbol, args)

    def derivative_call(self, name: str, e: ast.Call) -> Value:
        """A call of module-level derivative declaration ``name`` (``df(x, w)``): a call
        of its export, typed once AD has made it."""
        return self.b.call(name, [self.expr(a) for a in e.args])

    def _array_method(self, func: ast.expr, name: str) -> bool:
        """``func`` is ``<value>.name`` of a value that is not a module (an array method)."""
        if not isinstance(func, ast.Attribute) or func.attr != name:
            return False
        modules = self.info.math_modules | self.info.numpy_modules
        if isinstance(func.value, ast.Name) and func.value.id in modules:
            return False
        return self.info.numpy_attr(func) is None and not self._is_imported(func)

    def _user_function(self, func: ast.expr) -> bool:
        """``func`` names a function of a user module (which binds keyword arguments)."""
        if isinstance(func, ast.Name) and func.id in self.bound_functions:
            return self.bound_functions[func.id].ref is not None
        if isinstance(func, ast.Name) and func.id not in self.locals:
            if func.id in self.info.functions:
                return True
        return self._is_imported(func) and isinstance(resolve(self.info, func), FunctionRef)

    def builtin_call(self, name: str, e: ast.Call) -> Value:
        """A call of one of :data:`SUPPORTED_BUILTINS` (``int()`` and friends, ``len``, ``abs``,
        ``min``/``max`` of two or more scalars; of one array: :mod:`.array_reductions`)."""
        n = len(e.args)
        if name in _CAST_BUILTINS:
            if n == 0:
                zero = {"int": 0, "float": 0.0, "bool": False}[name]
                return self.b.const(zero, _CAST_BUILTINS[name])
            if n != 1:
                raise self.src.error(f"{name}() takes at most 1 argument ({n} given)", e)
            return self.b.insert(ops.Cast(self.expr(e.args[0]), type=_CAST_BUILTINS[name]))
        if name == "len":
            if n != 1:
                raise self.src.error(f"len() takes exactly one argument ({n} given)", e)
            return self.b.insert(ops.Len(self.expr(e.args[0])))
        if name == "abs":
            if n != 1:
                raise self.src.error(f"abs() takes exactly one argument ({n} given)", e)
            return self.b.insert(ops.Abs(self.expr(e.args[0])))
        if name in ("min", "max"):
            if n == 0:  # one argument, an array, is a reduction (array_reductions.py)
                raise self.src.error(f"{name} expected at least 1 argument, got 0", e)
            cls = ops.Min if name == "min" else ops.Max
            acc = self.expr(e.args[0])
            for a in e.args[1:]:
                acc = self.b.insert(cls(acc, self.expr(a)))
            return acc
        raise self.src.error(f"unsupported call of builtin '{name}'", e, help=builtin_help(name))


def _source_order(node: ast.expr) -> tuple[int, int]:
    return (node.lineno, node.col_offset)
