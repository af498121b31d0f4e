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

The work is layered by job, each layer a module: :mod:`.lower_state` (blocks, edges,
variables), :mod:`.lower_calls`, :mod:`.lower_expr`, :mod:`.lower_stmt`; this module lowers
the whole function and drops what no path reaches.
"""

from __future__ import annotations

import ast
from dataclasses import field

from gradc._dataclass import dataclass
from gradc.compiler.frontend.constants import default_values
from gradc.compiler.frontend.function_args import bind_aliases, check_bound_parameters
from gradc.compiler.frontend.imports import FunctionConstant, FunctionRef
from gradc.compiler.frontend.kernels import THREAD_PARAMS, is_kernel
from gradc.compiler.frontend.lower_state import IntCheck, UnpackCheck
from gradc.compiler.frontend.lower_stmt import StatementLowering
from gradc.compiler.frontend.module_scan import ModuleInfo
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import I64, Type

#: ``UnpackCheck`` and ``IntCheck`` (of :mod:`.lower_state`) are part of what
#: :func:`lower_function` returns.
__all__ = ["IntCheck", "LoweredFunction", "UnpackCheck", "lower_function"]


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
    info: ModuleInfo,
    node: ast.FunctionDef,
    symbol: str,
    param_types: list[Type],
    bound: dict[str, FunctionConstant] | None = None,
) -> LoweredFunction:
    """Lower ``node`` with the given parameter types to an untyped IR function.

    Args:
        info: the module's top-level view (constants, imports, other functions).
        node: the function definition.
        symbol: the IR function's name.
        param_types: one type per parameter not in ``bound``.
        bound: parameters passed a function (:mod:`.function_args`), which are no IR
            parameters.

    Raises:
        CompileError: an unsupported construct, an undefined name, a variable that may be
            used before assignment; the error names the construct and its source line.
    """
    return _FunctionLowering(info, node, symbol, param_types, bound).run()


class _FunctionLowering(StatementLowering):
    def run(self) -> LoweredFunction:
        node = self.node
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise self.src.error(
                f"function '{node.name}' must take plain positional parameters "
                "(no *args, **kwargs or keyword-only parameters)",
                node,
            )
        default_values(self.info, node)  # checked here, used where calls omit them
        check_bound_parameters(self)
        bind_aliases(self)
        entry = self.fn.add_block("entry")
        self.ssa.seal(entry)
        self.b.position_at_end(entry)
        hidden = THREAD_PARAMS if is_kernel(self.info, node) else ()
        for i, name in enumerate(hidden):
            self.fn.params.append(Argument(type=I64, name=name, index=i))
        params = [p for p in args.args if p.arg not in self.bound_functions]
        for i, (p, t) in enumerate(zip(params, self.param_types, strict=True), len(hidden)):
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
