"""Lower expressions: constants, names, operators, attributes, subscripts, comparisons.

Short-circuit ``and``/``or``, chained comparisons and conditional expressions become
control flow (only the operands Python evaluates are evaluated); ``-c`` over a constant is
folded as CPython folds it; calls are :class:`~.lower_calls.CallLowering`'s.
"""

from __future__ import annotations

import ast
import math

from gradc.compiler.frontend import numpy_constants, numpy_linalg, slicing
from gradc.compiler.frontend.constants import MATH_CONSTANTS, fold_constant
from gradc.compiler.frontend.constructs import operator_help
from gradc.compiler.frontend.imports import (
    ConstantRef,
    FunctionRef,
    ModuleRef,
    NonConstantRef,
    foreign_error,
    resolve,
)
from gradc.compiler.frontend.kernels import lower_cuda_attribute
from gradc.compiler.frontend.lower_calls import SUPPORTED_BUILTINS, CallLowering
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.numpy_math import NUMPY_CONSTANTS
from gradc.compiler.ir.types import F64, I1, I64

_BINOPS: dict[type[ast.operator], type[ops.BinaryOp]] = {
    ast.Add: ops.Add,
    ast.Sub: ops.Sub,
    ast.Mult: ops.Mul,
    ast.Div: ops.Div,
    ast.FloorDiv: ops.FloorDiv,
    ast.Mod: ops.Mod,
    ast.Pow: ops.Pow,
    ast.BitAnd: ops.BitAnd,
    ast.BitOr: ops.BitOr,
    ast.BitXor: ops.BitXor,
    ast.LShift: ops.LShift,
    ast.RShift: ops.RShift,
}

_OPERATOR_SYMBOLS: dict[type[ast.AST], str] = {
    ast.MatMult: "@",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

_CMP_PREDICATES: dict[type[ast.cmpop], str] = {
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
}


class ExpressionLowering(CallLowering):
    """The lowering of every expression but calls."""

    def expr(self, e: ast.expr) -> Value:
        """Lower the expression ``e`` at its source location; its value."""
        with self.b.at(self.src.loc(e)):
            return self._expr(e)

    def _expr(self, e: ast.expr) -> Value:
        match e:
            case ast.Constant(value=value):
                if isinstance(value, bool | int | float):
                    return self._const(value, e)
                raise self.src.error(
                    f"unsupported constant {value!r} of type '{type(value).__name__}'", e
                )
            case ast.Name(id=name):
                return self.name(name, e)
            case ast.Attribute():
                return self.attribute(e)
            case ast.BinOp(left=left, op=ast.MatMult(), right=right):
                return numpy_linalg.matmul_operator(self, self.expr(left), self.expr(right))
            case ast.BinOp(left=left, op=op, right=right):
                cls = self._binop_class(op, e)
                lhs = self.expr(left)
                rhs = self.expr(right)
                return self.b.insert(cls(lhs, rhs))
            case ast.UnaryOp(op=ast.USub() | ast.UAdd()) if (
                folded := self._fold_sign(e)
            ) is not None:
                return self._const(folded, e)
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                return self.b.insert(ops.Neg(self.expr(operand)))
            case ast.UnaryOp(op=ast.UAdd(), operand=operand):
                # ``+x`` is x, except that ``+True`` is the int 1: multiply by int 1,
                # exact for every int and float (``-0.0 * 1 == -0.0``).
                one = self.b.const(1, I64)
                return self.b.insert(ops.Mul(self.expr(operand), one, positive=True))
            case ast.UnaryOp(op=ast.Invert(), operand=operand):
                return self.b.insert(ops.Invert(self.expr(operand)))
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return self.b.insert(ops.Not(self.expr(operand), type=I1))
            case ast.UnaryOp(op=op):
                raise self.src.error(
                    f"unsupported operator '{_symbol(op)}'", e, help=operator_help(_symbol(op))
                )
            case ast.BoolOp():
                return self.bool_op(e)
            case ast.Compare():
                return self.compare(e)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self.if_exp(test, body, orelse)
            case ast.Call():
                return self.call(e)
            case ast.Tuple(elts=elts):
                if any(isinstance(x, ast.Starred) for x in elts):
                    raise self.src.unsupported(next(x for x in elts if isinstance(x, ast.Starred)))
                return self.b.make_tuple([self.expr(x) for x in elts])
            case ast.Subscript(value=value, slice=index):
                return self.subscript(e, value, index)
            case _:
                raise self.src.unsupported(e)

    def _fold_sign(self, e: ast.UnaryOp) -> int | float | bool | None:
        """The value of ``-c``/``+c`` (signs nested to any depth) over one constant ``c``
        (a literal, a module constant, ``math.pi``), folded as CPython does, so that
        ``-9223372036854775808``, whose operand alone does not fit in 64 bits, is the
        int64 minimum; None when ``e`` is anything else (a local variable shadows a module
        constant of its name; operators are not folded: ``-(10**10**10)`` must not hang)."""
        operand: ast.expr = e
        while isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.USub | ast.UAdd):
            operand = operand.operand
        if not isinstance(operand, ast.Constant | ast.Name | ast.Attribute):
            return None
        root: ast.expr = operand
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.locals:
            return None
        return fold_constant(self.info, e)

    def _binop_class(self, op: ast.operator, node: ast.AST) -> type[ops.BinaryOp]:
        cls = _BINOPS.get(type(op))
        if cls is None:
            raise self.src.error(
                f"unsupported operator '{_symbol(op)}'", node, help=operator_help(_symbol(op))
            )
        return cls

    def name(self, name: str, node: ast.Name) -> Value:
        """The value ``name`` reads: a local variable, a module constant (folded) or an
        imported constant; any other name is an error saying what it is."""
        if name in self.bound_functions:
            raise self.src.error(
                f"'{name}' names function '{self.bound_functions[name].shown}': "
                "it can only be called or passed to a function",
                node,
            )
        if name in self.locals:
            return self.read(name, node)
        if name in self.info.constants:
            return self._const(self.info.constants[name], node)
        if name in self.info.numpy_constants:
            return numpy_constants.read(self, name, node)
        if name in self.info.non_constants:
            stmt = self.info.non_constants[name]
            raise self.src.error(
                f"module variable '{name}' (line {stmt.lineno}) is not a numeric "
                "constant; functions can read only constant module variables",
                node,
            )
        if name in self.info.user_imports:
            return self.imported_value(node)
        if self.info.numpy_names.get(name) in NUMPY_CONSTANTS:  # from numpy import pi
            return self.b.const(NUMPY_CONSTANTS[self.info.numpy_names[name]], F64)
        if name in self.info.functions or name in self.info.math_names:
            raise self.src.error(
                f"function '{name}' can only be called or passed as an argument to a function",
                node,
            )
        if name in SUPPORTED_BUILTINS:
            raise self.src.error(f"the builtin '{name}' can only be called", node)
        raise self.undefined(name, node)

    def imported_value(self, node: ast.Name | ast.Attribute) -> Value:
        """A constant of a user module (``SCALE``, ``helpers.SCALE``), folded."""
        ref = resolve(self.info, node)
        shown = ast.unparse(node)
        if isinstance(ref, ConstantRef):
            return self._const(ref.value, node)
        if isinstance(ref, FunctionRef):
            raise self.src.error(
                f"function '{shown}' can only be called or passed as an argument to a function",
                node,
            )
        if isinstance(ref, ModuleRef):
            raise self.src.error(
                f"module '{ref.module.qualname}' can be used only to reach its functions "
                "and constants",
                node,
            )
        if isinstance(ref, NonConstantRef):
            raise self.src.error(
                f"module variable '{shown}' ({ref.module.source.path}, line {ref.stmt.lineno}) "
                "is not a numeric constant; functions can read only constant module variables",
                node,
            )
        raise foreign_error(self.info, ref, node)

    def attribute(self, e: ast.Attribute) -> Value:
        """``helpers.SCALE``, ``math.pi``, ``np.pi``, or an array's ``.shape``/``.size``/
        ``.ndim``."""
        if self._is_imported(e):
            return self.imported_value(e)
        thread_value = lower_cuda_attribute(self, e)
        if thread_value is not None:
            return thread_value
        if isinstance(e.value, ast.Name) and e.value.id in self.info.math_modules:
            if e.attr in MATH_CONSTANTS:
                return self.b.const(MATH_CONSTANTS[e.attr], F64)
            if e.attr in ops.MATH_FUNCTIONS:
                raise self.src.error(
                    f"function 'math.{e.attr}' can only be called or passed as an argument "
                    "to a function",
                    e,
                )
            if hasattr(math, e.attr) and not e.attr.startswith("_"):
                raise self.src.error(f"'math.{e.attr}' is not supported in compiled code", e)
            raise self.src.error(f"module 'math' has no attribute '{e.attr}'", e)
        numpy_name = self.info.numpy_attr(e)
        if numpy_name in NUMPY_CONSTANTS:
            return self.b.const(NUMPY_CONSTANTS[numpy_name], F64)
        if numpy_name is not None:
            raise self.src.error(f"numpy attribute 'np.{e.attr}' is not supported here", e)
        if e.attr in ("shape", "size", "ndim"):
            return self.b.insert(ops.ArrayAttr(ops.ArrayProperty(e.attr), self.expr(e.value)))
        if e.attr == "T":
            return slicing.transpose_attribute(self, e)
        raise self.src.error(f"unsupported attribute '.{e.attr}'", e)

    def subscript(self, e: ast.Subscript, value: ast.expr, index: ast.expr) -> Value:
        """``value[index]``: the container, then the indices, evaluated once."""
        if slicing.is_basic_index(self, index):
            return slicing.basic_index(self, e, index)
        if isinstance(value, ast.Attribute) and value.attr == "flat":  # a.flat[i]
            array = self.expr(value.value)
            position = self.expr(index)
            with self.b.at(self.src.loc(e)):
                return self.b.insert(ops.FlatGet(array, position))
        container = self.expr(value)
        indices = self.indices(index)
        with self.b.at(self.src.loc(e)):
            return self.b.insert(ops.GetItem(container, indices))

    def indices(self, index: ast.expr) -> tuple[Value, ...]:
        """The index expressions of a subscript, each evaluated once, left to right."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice):
                raise self.src.error(
                    f"slicing ('{ast.unparse(index)}') is not supported yet: index single elements",
                    part,
                )
        return tuple(self.expr(p) for p in parts)

    def bool_op(self, e: ast.BoolOp) -> Value:
        """``a and b``/``a or b``: short-circuit control flow joined by a phi of the operands."""
        # ``a or b``: a if a is true else b; ``a and b``: a if a is false else b.
        is_or = isinstance(e.op, ast.Or)
        join = self.b.new_block("or.end" if is_or else "and.end")
        phi = ops.Phi()
        result = self.expr(e.values[0])
        for operand in e.values[1:]:
            assert self.b.block is not None
            phi.incoming.append((self.b.block, result))
            nxt = self.b.new_block("or.rhs" if is_or else "and.rhs")
            if is_or:
                self._branch(result, join, nxt)
            else:
                self._branch(result, nxt, join)
            self._start(nxt)
            result = self.expr(operand)
        assert self.b.block is not None
        phi.incoming.append((self.b.block, result))
        self._jump(join)
        self._start(join)
        return self.b.insert(phi)

    def compare(self, e: ast.Compare) -> Value:
        """A comparison; a chain ``a < b < c`` evaluates ``b`` once and stops at the first false."""
        left = self.expr(e.left)
        if len(e.ops) == 1:
            return self._cmp(e.ops[0], left, self.expr(e.comparators[0]), e)
        # ``a < b < c`` is ``a < b and b < c`` with b evaluated once.
        join = self.b.new_block("cmp.end")
        phi = ops.Phi(type=I1)
        for i, (op, comparator) in enumerate(zip(e.ops, e.comparators, strict=True)):
            right = self.expr(comparator)
            result = self._cmp(op, left, right, e)
            assert self.b.block is not None
            phi.incoming.append((self.b.block, result))
            if i == len(e.ops) - 1:
                self._jump(join)
            else:
                nxt = self.b.new_block("cmp.next")
                self._branch(result, nxt, join)
                self._start(nxt)
            left = right
        self._start(join)
        return self.b.insert(phi)

    def _cmp(self, op: ast.cmpop, lhs: Value, rhs: Value, node: ast.AST) -> Value:
        pred = _CMP_PREDICATES.get(type(op))
        if pred is None:
            raise self.src.error(
                f"unsupported operator '{_symbol(op)}'", node, help=operator_help(_symbol(op))
            )
        # untyped: a comparison of arrays is a bool array (inference)
        return self.b.insert(ops.Cmp(ops.CmpPred(pred), lhs, rhs))

    def if_exp(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> Value:
        """``body if test else orelse``: only the chosen arm runs."""
        cond = self.expr(test)
        then = self.b.new_block("ifexp.then")
        other = self.b.new_block("ifexp.else")
        join = self.b.new_block("ifexp.end")
        self._branch(cond, then, other)
        phi = ops.Phi()
        for block, arm in ((then, body), (other, orelse)):
            self._start(block)
            v = self.expr(arm)
            assert self.b.block is not None
            phi.incoming.append((self.b.block, v))
            self._jump(join)
        self._start(join)
        return self.b.insert(phi)

    # -- calls ----------------------------------------------------------------------


def _symbol(op: ast.AST) -> str:
    return _OPERATOR_SYMBOLS.get(type(op), type(op).__name__)
