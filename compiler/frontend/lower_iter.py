"""Iterables of ``for`` loops other than a plain ``range(...)``: sequences read by index.

A :class:`Sequence` is what ``for``, ``enumerate``, ``zip`` and ``reversed`` iterate over:
an array (its first axis, ``len(a)`` read once before the loop), a tuple of scalars of
one type (read with ``getitem ... {in_range}``: inference checks the types), a
``range(...)`` (its length computed as CPython's ``range.__len__`` does, element ``k`` is
``start + k * step``) or ``reversed`` of a sequence. The loop itself is an index loop over
``0 <= k < n``, built by :class:`~.lower_stmt.StatementLowering`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradc._dataclass import dataclass
from gradc.compiler.frontend.constants import fold_constant
from gradc.compiler.frontend.lower_expr import ExpressionLowering
from gradc.compiler.frontend.lower_state import IntCheck
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.types import I64


@dataclass(frozen=True)
class Sequence:
    """An iterable read by index: ``length`` (an i64 value, evaluated once, before the
    loop) and ``item(k)``, which inserts the read of element ``k`` (``0 <= k < length``).

    For ``enumerate``/``zip``, whose elements are tuples of ``width`` parts, ``parts(k)``
    reads the parts without building the tuple (``item`` builds it)."""

    length: Value
    item: Callable[[Value], Value]
    parts: Callable[[Value], list[Value]] | None = None
    width: int = 0


class IterationLowering(ExpressionLowering):
    """Sequences for ``enumerate``/``zip``/``reversed`` loops."""

    def iter_builtin(self, node: ast.expr, name: str) -> ast.Call | None:
        """``node`` as a call of the builtin ``name`` (not shadowed by a local, a function
        of the module or an import); None when it is anything else."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == name
            and name not in self.locals
            and name not in self.info.functions
            and name not in self.info.user_imports
        ):
            return node
        return None

    def sequence(self, node: ast.expr, within: str) -> Sequence:
        """The sequence ``node`` names, its length and element reads inserted here.

        Args:
            within: the builtin iterating over it (for messages).

        Raises:
            CompileError: ``node`` is not an array or tuple expression (a name,
                attribute, subscript or call), a ``range(...)`` call or ``reversed`` of
                one of these.
        """
        call = self.iter_builtin(node, "range")
        if call is not None:
            return self._range_sequence(call)
        call = self.iter_builtin(node, "reversed")
        if call is not None:
            return self._reversed_sequence(call)
        call = self.iter_builtin(node, "enumerate")
        if call is not None:
            return self._enumerate_sequence(call)
        call = self.iter_builtin(node, "zip")
        if call is not None:
            return self._zip_sequence(call)
        if not (isinstance(node, ast.Name | ast.Attribute | ast.Subscript) or self._helper(node)):
            if within == "iter":
                raise self.src.error(
                    "unsupported iterable in for loop: only range(...), arrays, tuples, "
                    "enumerate(...), zip(...) and reversed(...) are supported",
                    node,
                )
            raise self.src.error(
                f"unsupported argument of {within}() in a for loop: only arrays, tuples, "
                "range(...), enumerate(...), zip(...) and reversed(...) are supported",
                node,
            )
        array = self.expr(node)
        with self.b.at(self.src.loc(node)):
            n = self.b.insert(ops.Len(array))

        def item(k: Value) -> Value:
            with self.b.at(self.src.loc(node)):
                return self.b.insert(ops.GetItem(array, (k,), in_range=True))

        return Sequence(n, item)

    def range_arguments(self, call: ast.Call) -> tuple[list[Value], int | None]:
        """The lowered arguments of ``range(...)`` and its step when it folds to a constant
        (None for a run-time step, then the third argument); each argument is checked to
        be an int at run time as ``range()`` does.

        Raises:
            CompileError: keywords, a wrong argument count, or a constant step that is
                not an int (CPython's message). A constant step of zero is a run-time
                step (None): CPython raises ValueError only when the line runs.
        """
        if call.keywords or not 1 <= len(call.args) <= 3:
            raise self.src.error("range() takes 1 to 3 positional arguments", call)
        step = fold_constant(self.info, call.args[2]) if len(call.args) == 3 else 1
        if step is not None and not isinstance(step, int):
            raise self.src.error("range() arguments must be integers", call.args[2])
        if step == 0:
            step = None  # the run-time check raises CPython's ValueError where the line runs
        args = [self.expr(a) for a in call.args[: 2 if step is not None else 3]]
        for a, node in zip(args, call.args, strict=False):
            self.int_checks.append(IntCheck(a, "range() argument", self.src.loc(node)))
        return args, step

    def _range_sequence(self, call: ast.Call) -> Sequence:
        """``range(...)`` as a sequence: CPython's ``compute_range_length``; a run-time
        step of zero raises ValueError before the loop, as ``range()`` does."""
        args, step = self.range_arguments(call)
        with self.b.at(self.src.loc(call)):
            zero, one = self.b.const(0, I64), self.b.const(1, I64)
            start, stop = (zero, args[0]) if len(args) == 1 else (args[0], args[1])
            if step is not None:
                step_v: Value = self.b.const(step, I64)
                lo, hi = (start, stop) if step > 0 else (stop, start)
                size: Value = self.b.const(abs(step), I64)
            else:
                step_v = args[2]
                self._zero_step_check(step_v)
                up = self.b.cmp("gt", step_v, zero)
                lo, hi = self.b.select(up, start, stop), self.b.select(up, stop, start)
                size = self.b.select(up, step_v, self.b.sub(zero, step_v))
            # length = (hi - lo - 1) // |step| + 1 when lo < hi, else 0
            span = self.b.sub(self.b.sub(hi, lo), one)
            count = self.b.add(self.b.binary(ops.FloorDiv, span, size), one)
            n = self.b.select(self.b.cmp("lt", lo, hi), count, zero)

        def item(k: Value) -> Value:
            with self.b.at(self.src.loc(call)):
                return self.b.add(start, self.b.mul(k, step_v))

        return Sequence(n, item)

    def _zero_step_check(self, step: Value) -> None:
        """Raise ValueError("range() arg 3 must not be zero") when ``step`` is 0."""
        bad = self.b.new_block("range.zero")
        ok = self.b.new_block("range.ok")
        self._branch(self.b.cmp("eq", step, self.b.const(0, I64)), bad, ok)
        self._start(bad)
        self.b.raise_("ValueError", "range() arg 3 must not be zero")
        self._start(ok)

    def _helper(self, node: ast.expr) -> bool:
        """``node`` calls a module function (its result may be an array or a tuple)."""
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id not in self.locals
            and (node.func.id in self.info.functions or node.func.id in self.info.user_imports)
        )

    def _enumerate_sequence(self, call: ast.Call) -> Sequence:
        """``enumerate(seq[, start])`` (start positional or keyword, an integer)."""
        kwargs = {k.arg: k.value for k in call.keywords}
        if set(kwargs) - {"start"} or not 1 <= len(call.args) <= 2 - len(kwargs):
            raise self.src.error("enumerate() takes a sequence and an optional start", call)
        seq = self.sequence(call.args[0], "enumerate")
        start = call.args[1] if len(call.args) == 2 else kwargs.get("start")
        first = self.b.const(0, I64) if start is None else self.expr(start)
        if start is not None:
            self.int_checks.append(IntCheck(first, "enumerate() start", self.src.loc(start)))

        def parts(k: Value) -> list[Value]:
            with self.b.at(self.src.loc(call)):
                return [self.b.add(first, k), seq.item(k)]

        return self._tuples(call, seq.length, parts, 2)

    def _zip_sequence(self, call: ast.Call) -> Sequence:
        """``zip(a, b, ...)``: as long as the shortest argument."""
        if call.keywords or not call.args:
            raise self.src.error("zip() in a for loop takes positional sequences only", call)
        seqs = [self.sequence(a, "zip") for a in call.args]
        n = seqs[0].length
        with self.b.at(self.src.loc(call)):
            for other in seqs[1:]:
                n = self.b.select(self.b.cmp("lt", other.length, n), other.length, n)
        return self._tuples(call, n, lambda k: [q.item(k) for q in seqs], len(seqs))

    def _tuples(
        self, call: ast.Call, n: Value, parts: Callable[[Value], list[Value]], width: int
    ) -> Sequence:
        def item(k: Value) -> Value:
            values = parts(k)
            with self.b.at(self.src.loc(call)):
                return self.b.make_tuple(values)

        return Sequence(n, item, parts, width)

    def _reversed_sequence(self, call: ast.Call) -> Sequence:
        """``reversed(seq)``: element ``k`` is ``seq``'s element ``length - 1 - k``."""
        if call.keywords or len(call.args) != 1:
            raise self.src.error("reversed() takes exactly one argument", call)
        for name in ("enumerate", "zip"):
            if self.iter_builtin(call.args[0], name) is not None:  # CPython's TypeError
                raise self.src.error(f"'{name}' object is not reversible", call.args[0])
        seq = self.sequence(call.args[0], "reversed")
        with self.b.at(self.src.loc(call)):
            last = self.b.sub(seq.length, self.b.const(1, I64))

        def item(k: Value) -> Value:
            with self.b.at(self.src.loc(call)):
                return seq.item(self.b.sub(last, k))

        return Sequence(seq.length, item)
