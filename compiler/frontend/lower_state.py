"""The state of lowering one function: blocks and edges, reachability, variables.

:class:`LoweringState` is the base of the front end's lowering layers, each in its own
module and each a subclass of the one before: :class:`~.lower_calls.CallLowering` (calls),
:class:`~.lower_expr.ExpressionLowering` (expressions), :class:`~.lower_stmt.StatementLowering`
(statements and loops), and ``_FunctionLowering`` in :mod:`.lower` (the whole function). It
holds what every layer reads and writes: the IR function and its builder, the SSA
construction, the enclosing loops, the checks left for inference, the blocks no path
reaches, and the names the function binds.
"""

from __future__ import annotations

import ast
import builtins
from abc import ABC, abstractmethod

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.constructs import builtin_help
from gradc.compiler.frontend.imports import FunctionConstant, FunctionRef
from gradc.compiler.frontend.module_scan import ModuleInfo
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Function, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ssa import SSABuilder
from gradc.compiler.ir.types import F64, I1, I64, Type


def _const_type(value: object) -> Type:
    if isinstance(value, bool):
        return I1
    if isinstance(value, int):
        return I64
    return F64


@dataclass
class Loop:
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


class LoweringState(ABC):
    """What lowering one function reads and writes, and the block and variable helpers.

    Subclasses add the lowering of calls, expressions and statements; :meth:`expr`, which
    every layer uses to lower its operands, is :class:`~.lower_expr.ExpressionLowering`'s.
    """

    def __init__(
        self,
        info: ModuleInfo,
        node: ast.FunctionDef,
        symbol: str,
        param_types: list[Type],
        bound: dict[str, FunctionConstant] | None = None,
    ) -> None:
        self.info = info
        self.src = info.source
        self.node = node
        self.fn = Function(symbol, loc=self.src.loc(node), source_name=node.name)
        self.b = Builder(self.fn)
        self.ssa = SSABuilder(self.fn)
        self.loops: list[Loop] = []
        self.param_types = param_types
        #: parameters passed a function (compile-time constants, :mod:`.function_args`)
        self.bound_functions = dict(bound or {})
        self.locals = _assigned_names(node) - self.bound_functions.keys()
        #: ``g = _twice`` statements: ``g`` is bound, the statement lowers to nothing
        self.function_aliases: set[ast.stmt] = set()
        self.unpacks: list[UnpackCheck] = []
        self.int_checks: list[IntCheck] = []
        self.callees: dict[str, FunctionRef] = {}
        #: blocks no path from the entry reaches (code after an ``if``/``else`` whose
        #: branches all return, after ``while True:`` without ``break``, ...)
        self.dead: set[Block] = set()

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

    # -- variables ----------------------------------------------------------------

    def read(self, name: str, node: ast.AST) -> Value:
        """The current SSA value of local variable ``name`` (``node`` locates a read that may
        come before any assignment)."""
        assert self.b.block is not None
        return self.ssa.read(self.b.block, name, self.src.loc(node))

    def write(self, name: str, value: Value) -> None:
        """Bind local variable ``name`` to ``value`` in the current block (naming ``value``
        after it when it has no name yet)."""
        assert self.b.block is not None
        if value.name is None and not isinstance(value, Argument):
            value.name = name
        self.ssa.write(self.b.block, name, value)

    # -- expressions: constants and names ------------------------------------------

    @abstractmethod
    def expr(self, e: ast.expr) -> Value:
        """Lower the expression ``e`` at its source location; its value."""

    def _const(self, value: int | float | bool, node: ast.AST) -> Value:
        if isinstance(value, int) and not isinstance(value, bool):
            if not -(2**63) <= value < 2**63:
                raise self.src.error(f"integer constant {value} does not fit in 64 bits", node)
        return self.b.const(value, _const_type(value))  # type: ignore[arg-type]

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
            return self.src.error(
                f"the builtin '{name}' is not supported in compiled code",
                node,
                help=builtin_help(name),
            )
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


def _assigned_names(fn: ast.FunctionDef) -> set[str]:
    """Names local to ``fn`` by Python's rule: parameters and anything assigned."""
    names = {a.arg for a in fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names
