"""Lower one Python function's ``ast`` to SSA IR.

The result is untyped except for the parameters and constants: inference
(:mod:`gradc.compiler.infer`) gives every value its type and inserts conversions. Calls of
other module functions are emitted with the callee's *Python* name; inference replaces it
by the symbol of the specialisation for the argument types.

Statements lower to basic blocks; local variables become SSA values through
:class:`~gradc.compiler.ir.ssa.SSABuilder`. Python semantics that need control
flow are expanded here: short-circuit ``and``/``or``, chained comparisons, conditional
expressions (only the chosen arm runs), ``range`` loops (bounds evaluated once, a zero
step raises ValueError), ``for``/``while`` with ``else``, ``assert``.

Code no path reaches is not lowered, as CPython never runs it: statements after
``return``/``raise``/``break``/``continue``, after an ``if`` whose branches all leave,
after ``while True:`` without ``break``, and branches of a constant condition
(``if False:``, ``while 1:``, ``assert True``). So it cannot read a variable "before
assignment", and unsupported constructs there are no error.
"""

from __future__ import annotations

import ast
import builtins
import math
from dataclasses import dataclass, field

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.imports import (
    ConstantRef,
    ForeignRef,
    FunctionRef,
    ModuleRef,
    NonConstantRef,
    foreign_error,
    resolve,
)
from gradc.compiler.frontend.module_scan import MATH_CONSTANTS, ModuleInfo, fold_constant
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Function, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ssa import SSABuilder
from gradc.compiler.ir.types import F64, I1, I64, ScalarType, Type

_BINOPS: dict[type[ast.operator], type[ops.BinaryOp]] = {
    ast.Add: ops.Add,
    ast.Sub: ops.Sub,
    ast.Mult: ops.Mul,
    ast.Div: ops.Div,
    ast.FloorDiv: ops.FloorDiv,
    ast.Mod: ops.Mod,
    ast.Pow: ops.Pow,
}

_OPERATOR_SYMBOLS: dict[type[ast.AST], str] = {
    ast.MatMult: "@",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.Invert: "~",
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

#: Exceptions a ``raise`` statement may name (all map to docs/abi.md kinds).
#: Builtins compiled code can call (``range`` only as a for loop's iterable).
SUPPORTED_BUILTINS = ("abs", "min", "max", "int", "float", "bool", "len")

RAISABLE = (
    "ValueError",
    "ZeroDivisionError",
    "OverflowError",
    "IndexError",
    "TypeError",
    "RuntimeError",
    "AssertionError",
)


def _const_type(value: object) -> Type:
    if isinstance(value, bool):
        return I1
    if isinstance(value, int):
        return I64
    return F64


@dataclass
class _Loop:
    """Targets of ``continue`` and ``break`` inside one loop."""

    continue_to: Block
    break_to: Block


@dataclass
class UnpackCheck:
    """``a, b = value``: inference checks that ``value`` is a tuple of ``count`` elements."""

    value: Value
    count: int
    loc: Loc


@dataclass
class IntCheck:
    """A value that must be an integer (``range`` bounds); checked by inference."""

    value: Value
    what: str
    loc: Loc


@dataclass
class LoweredFunction:
    """An untyped function and the checks inference must make on it.

    Attributes:
        function: the untyped IR function.
        unpacks: tuple unpackings to check.
        int_checks: values that must be integers.
        callees: the callee name of each ``call`` it contains (``f``, ``helpers.f``) ->
            the source function, possibly in another module.
    """

    function: Function
    unpacks: list[UnpackCheck]
    int_checks: list[IntCheck]
    callees: dict[str, FunctionRef] = field(default_factory=dict)


def lower_function(
    info: ModuleInfo, node: ast.FunctionDef, symbol: str, param_types: list[Type]
) -> LoweredFunction:
    """Lower ``node`` with the given parameter types to an untyped IR function.

    Args:
        info: the module's top-level view (constants, imports, other functions).
        node: the function definition.
        symbol: the IR function's name.
        param_types: one type per parameter.

    Raises:
        CompileError: an unsupported construct, an undefined name, a variable that may be
            used before assignment; the error names the construct and its source line.
    """
    return _FunctionLowering(info, node, symbol, param_types).run()


class _FunctionLowering:
    def __init__(
        self, info: ModuleInfo, node: ast.FunctionDef, symbol: str, param_types: list[Type]
    ) -> None:
        self.info = info
        self.src = info.source
        self.node = node
        self.fn = Function(symbol, loc=self.src.loc(node), source_name=node.name)
        self.b = Builder(self.fn)
        self.ssa = SSABuilder(self.fn)
        self.loops: list[_Loop] = []
        self.param_types = param_types
        self.locals = _assigned_names(node)
        self.unpacks: list[UnpackCheck] = []
        self.int_checks: list[IntCheck] = []
        self.callees: dict[str, FunctionRef] = {}
        #: blocks no path from the entry reaches (code after an ``if``/``else`` whose
        #: branches all return, after ``while True:`` without ``break``, ...)
        self.dead: set[Block] = set()

    # -- driver ------------------------------------------------------------------

    def run(self) -> LoweredFunction:
        node = self.node
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise self.src.error(
                f"function '{node.name}' must take plain positional parameters "
                "(no defaults, *args, **kwargs or keyword-only parameters)",
                node,
            )
        entry = self.fn.add_block("entry")
        self.ssa.seal(entry)
        self.b.position_at_end(entry)
        for i, (p, t) in enumerate(zip(args.args, self.param_types, strict=True)):
            arg = Argument(type=t, name=p.arg, index=i)
            self.fn.params.append(arg)
            self.ssa.write(entry, p.arg, arg)
        self.suite(node.body)
        if self._live():
            with self.b.at(self._end_loc()):
                self.b.ret(None)
        self._drop_unreachable()
        for read in self.ssa.finish():
            raise self.src.error(
                f"local variable '{read.name}' may be used before assignment", read.loc
            )
        for unpack in self.unpacks:
            unpack.value = self.ssa.resolve(unpack.value)
        for int_check in self.int_checks:
            int_check.value = self.ssa.resolve(int_check.value)
        return LoweredFunction(self.fn, self.unpacks, self.int_checks, self.callees)

    def _end_loc(self) -> Loc:
        return self.src.loc(self.node.body[-1])

    def _drop_unreachable(self) -> None:
        reachable: set[Block] = set()
        work = [self.fn.entry]
        while work:
            block = work.pop()
            if block in reachable:
                continue
            reachable.add(block)
            work.extend(block.successors())
        dead = [b for b in self.fn.blocks if b not in reachable]
        for block in self.fn.blocks:
            if block in reachable:
                for phi in block.phis():
                    assert isinstance(phi, ops.Phi)
                    phi.incoming = [(p, v) for p, v in phi.incoming if p in reachable]
        self.fn.blocks = [b for b in self.fn.blocks if b in reachable]
        for block in dead:
            block.function = None

    # -- blocks and edges -----------------------------------------------------------

    def _jump(self, target: Block) -> None:
        assert self.b.block is not None
        self.ssa.add_edge(self.b.block, target)
        self.b.jump(target)

    def _branch(self, cond: Value, if_true: Block, if_false: Block) -> None:
        assert self.b.block is not None
        self.ssa.add_edge(self.b.block, if_true)
        self.ssa.add_edge(self.b.block, if_false)
        self.b.branch(cond, if_true, if_false)

    def _start(self, block: Block, seal: bool = True) -> None:
        if seal:
            self.ssa.seal(block)
            if block is not self.fn.entry and not self.ssa.preds.get(block):
                self.dead.add(block)
        self.b.position_at_end(block)

    def _live(self) -> bool:
        """True when code emitted now can run: the current block is not terminated and
        some path from the entry reaches it.

        Statements in a dead block are not lowered at all (CPython compiles them but
        never runs them), so they cannot read a variable "before assignment", and no
        edge leaves a dead block: a join reached only from dead blocks is dead too.
        """
        return not self.b.terminated and self.b.block not in self.dead

    def _cond_branch(self, cond: Value, if_true: Block, if_false: Block) -> None:
        """Branch on a statement's condition; a constant condition (``while True:``,
        ``if False:``) jumps straight to the block it selects, so the other is dead."""
        if isinstance(cond, ops.Const):
            self._jump(if_true if cond.value else if_false)
        else:
            self._branch(cond, if_true, if_false)

    def _dead_block(self) -> None:
        """Continue emitting into an unreachable block (code after return/break)."""
        self._start(self.b.new_block("dead"))

    # -- statements ---------------------------------------------------------------

    def suite(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if not self._live():
                return  # the rest of the suite is unreachable
            with self.b.at(self.src.loc(stmt)):
                self.statement(stmt)

    def statement(self, s: ast.stmt) -> None:
        match s:
            case ast.Assign(targets=targets, value=value):
                self.assign(targets, value)
            case ast.AnnAssign(target=target, value=value) if value is not None:
                self.assign([target], value)
            case ast.AugAssign(target=ast.Name(id=name) as target, op=op, value=value):
                cls = self._binop_class(op, s)
                current = self.read(name, target)
                rhs = self.expr(value)
                with self.b.at(self.src.loc(s)):
                    self.write(name, self.b.insert(cls(current, rhs)))
            case ast.AugAssign(target=ast.Subscript(value=container, slice=index), op=op):
                cls = self._binop_class(op, s)
                array = self.expr(container)
                indices = self.indices(index)  # evaluated once, as in Python
                with self.b.at(self.src.loc(s.target)):
                    current = self.b.insert(ops.GetItem(array, indices))
                rhs = self.expr(s.value)
                with self.b.at(self.src.loc(s)):
                    result = self.b.insert(cls(current, rhs))
                    self.b.insert(ops.SetItem(array, indices, result))
            case ast.AugAssign(target=target):
                raise self.src.error(
                    f"unsupported assignment target '{type(target).__name__}'", target
                )
            case ast.If():
                self.if_stmt(s)
            case ast.For():
                self.for_stmt(s)
            case ast.While():
                self.while_stmt(s)
            case ast.Break():
                if not self.loops:
                    raise self.src.error("'break' outside loop", s)
                self._jump(self.loops[-1].break_to)
            case ast.Continue():
                if not self.loops:
                    raise self.src.error("'continue' not properly in loop", s)
                self._jump(self.loops[-1].continue_to)
            case ast.Return(value=value):
                self.b.ret(self.expr(value) if value is not None else None)
            case ast.Pass():
                pass
            case ast.Expr(value=ast.Constant(value=str())):
                pass  # docstring
            case ast.Expr(value=value):
                self.expr(value)
            case ast.Raise():
                self.raise_stmt(s)
            case ast.Assert(test=test, msg=msg):
                self.assert_stmt(s, test, msg)
            case _:
                raise self.src.error(f"unsupported statement '{type(s).__name__}'", s)

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        # ``a, b = b, a``: evaluate every element first, then bind (no tuple needed).
        if (
            len(targets) == 1
            and isinstance(targets[0], ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(targets[0].elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in value.elts)
        ):
            values = [self.expr(e) for e in value.elts]
            for target, v in zip(targets[0].elts, values, strict=True):
                self.bind(target, v)
            return
        v = self.expr(value)
        for target in targets:
            self.bind(target, v)

    def bind(self, target: ast.expr, value: Value) -> None:
        match target:
            case ast.Name(id=name):
                self.write(name, value)
            case ast.Subscript(value=container, slice=index):
                array = self.expr(container)
                indices = self.indices(index)
                with self.b.at(self.src.loc(target)):
                    self.b.insert(ops.SetItem(array, indices, value))
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                if any(isinstance(e, ast.Starred) for e in elts):
                    raise self.src.error("starred assignment is not supported", target)
                self.unpacks.append(UnpackCheck(value, len(elts), self.src.loc(target)))
                with self.b.at(self.src.loc(target)):
                    parts = [self.b.tuple_get(value, i) for i in range(len(elts))]
                for part, elt in zip(parts, elts, strict=True):
                    self.bind(elt, part)
            case _:
                raise self.src.error(
                    f"unsupported assignment target '{type(target).__name__}'", target
                )

    def if_stmt(self, s: ast.If) -> None:
        cond = self.expr(s.test)
        then = self.b.new_block("if.then")
        join = self.b.new_block("if.end")
        orelse = self.b.new_block("if.else") if s.orelse else join
        self._cond_branch(cond, then, orelse)
        self._start(then)
        self.suite(s.body)
        if self._live():
            self._jump(join)
        if s.orelse:
            self._start(orelse)
            self.suite(s.orelse)
            if self._live():
                self._jump(join)
        self._start(join)

    def for_stmt(self, s: ast.For) -> None:
        it = s.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and "range" not in self.locals
            and "range" not in self.info.functions
            and "range" not in self.info.user_imports
        ):
            if isinstance(it, ast.Name | ast.Attribute | ast.Subscript):
                self.for_each(s)
                return
            raise self.src.error(
                "unsupported iterable in for loop: only range(...) and arrays are supported",
                it,
            )
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.src.error("range() takes 1 to 3 positional arguments", it)
        step_value = fold_constant(self.info, it.args[2]) if len(it.args) == 3 else 1
        if step_value is not None and (not isinstance(step_value, int) or step_value == 0):
            raise self.src.error(
                "range() arg 3 must not be zero"
                if step_value == 0
                else "range() arguments must be integers",
                it.args[2],
            )
        args = [self.expr(a) for a in it.args[: 2 if step_value is not None else 3]]
        for a, node in zip(args, it.args, strict=False):
            self.int_checks.append(IntCheck(a, "range() argument", self.src.loc(node)))
        with self.b.at(self.src.loc(it)):
            zero: Value = self.b.const(0, I64)
            start: Value
            stop: Value
            step: Value
            if len(args) == 1:
                start, stop = zero, args[0]
            else:
                start, stop = args[0], args[1]
            if step_value is not None:
                step = self.b.const(step_value, I64)
            else:
                step = args[2]
                bad = self.b.new_block("range.zero")
                ok = self.b.new_block("range.ok")
                self._branch(self.b.cmp("eq", step, zero), bad, ok)
                self._start(bad)
                self.b.raise_("ValueError", "range() arg 3 must not be zero")
                self._start(ok)

        self._counted_loop(s, start, stop, step)

    def _counted_loop(
        self,
        s: ast.For,
        start: Value,
        stop: Value,
        step: Value,
        element_of: Value | None = None,
    ) -> None:
        """The loop of ``for target in range(start, stop, step)`` (or over an array).

        With ``element_of``, the target is bound to ``element_of[i]`` instead of ``i``.
        """
        it = s.iter
        header = self.b.new_block("for.header")
        body = self.b.new_block("for.body")
        latch = self.b.new_block("for.latch")
        orelse = self.b.new_block("for.else") if s.orelse else None
        exit_ = self.b.new_block("for.end")
        # The induction variable is a hidden SSA variable (not a valid Python name), so
        # rebinding the target inside the body does not change the iteration.
        counter = f"range.{s.lineno}.{s.col_offset}"
        assert self.b.block is not None
        self.ssa.write(self.b.block, counter, start)
        self._jump(header)

        self._start(header, seal=False)
        i = self.ssa.read(header, counter, self.src.loc(s))
        with self.b.at(self.src.loc(it)):
            if isinstance(step, ops.Const):  # the direction is known
                more = self.b.cmp("lt" if step.value > 0 else "gt", i, stop)
            else:
                zero = self.b.const(0, I64)
                up = self.b.cmp("gt", step, zero)
                below = self.b.cmp("lt", i, stop)
                above = self.b.cmp("gt", i, stop)
                more = self.b.select(up, below, above)
        self._branch(more, body, orelse or exit_)

        self._start(body)
        if element_of is not None:
            with self.b.at(self.src.loc(it)):
                item = self.b.insert(ops.GetItem(element_of, (i,)))
            self.bind(s.target, item)
        else:
            self.bind(s.target, i)
        self.loops.append(_Loop(continue_to=latch, break_to=exit_))
        self.suite(s.body)
        self.loops.pop()
        if self._live():
            self._jump(latch)

        self._start(latch)
        if self._live():  # else the body never reaches its end or a ``continue``
            with self.b.at(self.src.loc(it)):
                self.ssa.write(latch, counter, self.b.add(i, step))
            self._jump(header)
        self.ssa.seal(header)

        if orelse is not None:
            self._start(orelse)
            self.suite(s.orelse)
            if self._live():
                self._jump(exit_)
        self._start(exit_)

    def for_each(self, s: ast.For) -> None:
        """``for v in a``: an index loop over the first axis of a 1-D array."""
        array = self.expr(s.iter)
        with self.b.at(self.src.loc(s.iter)):
            n = self.b.insert(ops.Len(array))
        self._counted_loop(s, self.b.const(0, I64), n, self.b.const(1, I64), element_of=array)

    def while_stmt(self, s: ast.While) -> None:
        header = self.b.new_block("while.header")
        body = self.b.new_block("while.body")
        orelse = self.b.new_block("while.else") if s.orelse else None
        exit_ = self.b.new_block("while.end")
        self._jump(header)
        self._start(header, seal=False)
        cond = self.expr(s.test)
        self._cond_branch(cond, body, orelse or exit_)
        self._start(body)
        self.loops.append(_Loop(continue_to=header, break_to=exit_))
        self.suite(s.body)
        self.loops.pop()
        if self._live():
            self._jump(header)
        self.ssa.seal(header)
        if orelse is not None:
            self._start(orelse)
            self.suite(s.orelse)
            if self._live():
                self._jump(exit_)
        self._start(exit_)

    def raise_stmt(self, s: ast.Raise) -> None:
        exc = s.exc
        if s.cause is not None:
            raise self.src.error("'raise ... from ...' is not supported", s)
        name: str | None = None
        message = ""
        if isinstance(exc, ast.Name):
            name = exc.id
        elif isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name):
            name = exc.func.id
            if exc.keywords or len(exc.args) > 1:
                raise self.src.error("raise takes at most one message argument", exc)
            if exc.args:
                arg = exc.args[0]
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    raise self.src.error("the message of raise must be a constant string", arg)
                message = arg.value
        if name not in RAISABLE:
            got = ast.unparse(exc) if exc is not None else "a bare re-raise"
            raise self.src.error(
                "raise supports only ValueError, ZeroDivisionError, OverflowError, "
                f"IndexError, TypeError, RuntimeError and AssertionError (got {got})",
                s,
            )
        self.b.raise_(name, message)

    def assert_stmt(self, s: ast.Assert, test: ast.expr, msg: ast.expr | None) -> None:
        message = ""
        if msg is not None:
            if not (isinstance(msg, ast.Constant) and isinstance(msg.value, str)):
                raise self.src.error("the message of assert must be a constant string", msg)
            message = msg.value
        cond = self.expr(test)
        ok = self.b.new_block("assert.ok")
        fail = self.b.new_block("assert.fail")
        self._cond_branch(cond, ok, fail)
        self._start(fail)
        self.b.raise_("AssertionError", message)
        self._start(ok)

    # -- variables ----------------------------------------------------------------

    def read(self, name: str, node: ast.AST) -> Value:
        assert self.b.block is not None
        return self.ssa.read(self.b.block, name, self.src.loc(node))

    def write(self, name: str, value: Value) -> None:
        assert self.b.block is not None
        if value.name is None and not isinstance(value, Argument):
            value.name = name
        self.ssa.write(self.b.block, name, value)

    # -- expressions ----------------------------------------------------------------

    def expr(self, e: ast.expr) -> Value:
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
                return self.b.insert(ops.Mul(self.expr(operand), self.b.const(1, I64)))
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return self.b.insert(ops.Not(self.expr(operand), type=I1))
            case ast.UnaryOp(op=op):
                raise self.src.error(f"unsupported operator '{_symbol(op)}'", e)
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
                    raise self.src.error("unsupported expression 'Starred'", e)
                return self.b.make_tuple([self.expr(x) for x in elts])
            case ast.Subscript(value=value, slice=index):
                return self.subscript(e, value, index)
            case _:
                raise self.src.error(f"unsupported expression '{type(e).__name__}'", e)

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

    def _const(self, value: int | float | bool, node: ast.AST) -> Value:
        if isinstance(value, int) and not isinstance(value, bool):
            if not -(2**63) <= value < 2**63:
                raise self.src.error(f"integer constant {value} does not fit in 64 bits", node)
        return self.b.const(value, _const_type(value))  # type: ignore[arg-type]

    def _binop_class(self, op: ast.operator, node: ast.AST) -> type[ops.BinaryOp]:
        cls = _BINOPS.get(type(op))
        if cls is None:
            raise self.src.error(f"unsupported operator '{_symbol(op)}'", node)
        return cls

    def name(self, name: str, node: ast.Name) -> Value:
        if name in self.locals:
            return self.read(name, node)
        if name in self.info.constants:
            return self._const(self.info.constants[name], node)
        if name in self.info.non_constants:
            stmt = self.info.non_constants[name]
            raise self.src.error(
                f"module variable '{name}' (line {stmt.lineno}) is not a numeric "
                "constant; functions can read only constant module variables",
                node,
            )
        if name in self.info.user_imports:
            return self.imported_value(node)
        if name in self.info.functions or name in self.info.math_names:
            raise self.src.error(f"function '{name}' can only be called", node)
        if name in SUPPORTED_BUILTINS:
            raise self.src.error(f"the builtin '{name}' can only be called", node)
        raise self.undefined(name, node)

    def undefined(self, name: str, node: ast.expr) -> CompileError:
        """The error for ``name``, which compiled code cannot use: a class of the module,
        a builtin gradc does not support, or a name that is not defined at all."""
        if name in self.info.classes:
            line = self.info.classes[name].lineno
            return self.src.error(
                f"class '{name}' (line {line}) cannot be used in compiled code", node
            )
        if name == "range":
            return self.src.error("range() is supported only as the iterable of a for loop", node)
        if hasattr(builtins, name) and not name.startswith("_"):
            return self.src.error(f"the builtin '{name}' is not supported in compiled code", node)
        return self.src.error(f"name '{name}' is not defined", node)

    def _is_imported(self, node: ast.expr) -> bool:
        """``g`` or ``helpers.f.…`` where the root name is a user-module import."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return (
            isinstance(node, ast.Name)
            and node.id not in self.locals
            and node.id in self.info.user_imports
        )

    def imported_value(self, node: ast.Name | ast.Attribute) -> Value:
        """A constant of a user module (``SCALE``, ``helpers.SCALE``), folded."""
        ref = resolve(self.info, node)
        shown = ast.unparse(node)
        if isinstance(ref, ConstantRef):
            return self._const(ref.value, node)
        if isinstance(ref, FunctionRef):
            raise self.src.error(f"function '{shown}' can only be called", node)
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
        if self._is_imported(e):
            return self.imported_value(e)
        if isinstance(e.value, ast.Name) and e.value.id in self.info.math_modules:
            if e.attr in MATH_CONSTANTS:
                return self.b.const(MATH_CONSTANTS[e.attr], F64)
            if e.attr in ops.MATH_FUNCTIONS:
                raise self.src.error(f"function 'math.{e.attr}' can only be called", e)
            if hasattr(math, e.attr) and not e.attr.startswith("_"):
                raise self.src.error(f"'math.{e.attr}' is not supported in compiled code", e)
            raise self.src.error(f"module 'math' has no attribute '{e.attr}'", e)
        if self.info.numpy_attr(e) is not None:
            raise self.src.error(f"numpy attribute 'np.{e.attr}' is not supported here", e)
        if e.attr in ("shape", "size", "ndim"):
            return self.b.insert(ops.ArrayAttr(ops.ArrayProperty(e.attr), self.expr(e.value)))
        raise self.src.error(f"unsupported attribute '.{e.attr}'", e)

    def subscript(self, e: ast.Subscript, value: ast.expr, index: ast.expr) -> Value:
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
            raise self.src.error(f"unsupported operator '{_symbol(op)}'", node)
        return self.b.cmp(pred, lhs, rhs)

    def if_exp(self, test: ast.expr, body: ast.expr, orelse: ast.expr) -> Value:
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

    def call(self, e: ast.Call) -> Value:
        if any(isinstance(a, ast.Starred) for a in e.args):
            raise self.src.error("unsupported expression 'Starred'", e)
        func = e.func
        if e.keywords and self.info.numpy_attr(func) is None:
            raise self.src.error("keyword arguments are not supported", e)
        math_fn = self.info.math_attr(func)
        if math_fn is not None:
            return self.math_call(math_fn, e)
        numpy_fn = self.info.numpy_attr(func)
        if numpy_fn is not None:
            return self.numpy_call(numpy_fn, e)
        if self._is_imported(func):
            return self.imported_call(func, e)
        if isinstance(func, ast.Attribute) and func.attr == "copy":
            if e.args or e.keywords:
                raise self.src.error("copy() takes no arguments", e)
            return self.b.insert(ops.CopyArray(self.expr(func.value)))
        if isinstance(func, ast.Name):
            name = func.id
            if name in self.locals:
                raise self.src.error(f"local variable '{name}' is not callable", func)
            if name in self.info.functions:
                return self.user_call(FunctionRef(self.info, name), name, e)
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
        fn = ops.MATH_FUNCTIONS.get(fn_name)
        if fn is None or fn.internal:
            if hasattr(math, fn_name) and not fn_name.startswith("_"):  # math.fmod, ...
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
        """``np.zeros/ones/empty/full`` and their ``*_like`` forms.

        Arguments bind as NumPy's (positional or by name: ``shape=``, ``fill_value=``,
        ``a=``, ``dtype=``; ``dtype=None`` is the default) and are evaluated in source
        order; a shape may be a list (``np.zeros([n, 2])``).
        """
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

    def dtype(self, node: ast.expr) -> str:
        """The IR type name of a dtype expression (``np.float64``, ``float``, ``"f8"``)."""
        name: str | None = None
        if isinstance(node, ast.Name) and node.id in ("float", "int", "bool"):
            name = node.id
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
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
        the specialisation's symbol.
        """
        expected = len(callee.node.args.args)
        if len(e.args) != expected:
            raise self.src.error(
                f"function '{shown}' takes {expected} argument{'s' * (expected != 1)} "
                f"but {len(e.args)} were given",
                e,
            )
        args = [self.expr(a) for a in e.args]
        self.callees[callee.symbol] = callee
        return self.b.call(callee.symbol, args)

    def builtin_call(self, name: str, e: ast.Call) -> Value:
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
            if n < 2:
                raise self.src.error(
                    f"{name}() of one value (an iterable) is not supported; pass two or "
                    "more scalars",
                    e,
                )
            cls = ops.Min if name == "min" else ops.Max
            acc = self.expr(e.args[0])
            for a in e.args[1:]:
                acc = self.b.insert(cls(acc, self.expr(a)))
            return acc
        raise self.src.error(f"unsupported call of builtin '{name}'", e)


def _source_order(node: ast.expr) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def _symbol(op: ast.AST) -> str:
    return _OPERATOR_SYMBOLS.get(type(op), type(op).__name__)


def _assigned_names(fn: ast.FunctionDef) -> set[str]:
    """Names local to ``fn`` by Python's rule: parameters and anything assigned."""
    names = {a.arg for a in fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names
