"""Lower statements: assignments, ``if``, ``for``/``while`` loops, ``raise``, ``assert``.

A suite stops at the first statement no path reaches (after ``return``, ``break``, ...);
a constant condition branches straight to the block it selects. ``range`` loops evaluate
their bounds once and raise ValueError on a zero step; ``for v in a`` loops over the first
axis of an array; ``else`` suites run when the loop ends without ``break``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gradc.compiler.frontend import array_reorder, slicing
from gradc.compiler.frontend.lower_iter import IterationLowering
from gradc.compiler.frontend.lower_state import Loop, UnpackCheck
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Value
from gradc.compiler.ir.types import I64, TupleType

#: Exceptions a ``raise`` statement may name (all map to docs/abi.md kinds).

RAISABLE = (
    "ValueError",
    "ZeroDivisionError",
    "OverflowError",
    "IndexError",
    "TypeError",
    "RuntimeError",
    "AssertionError",
)


class StatementLowering(IterationLowering):
    """The lowering of statements, loops included."""

    def suite(self, body: list[ast.stmt]) -> None:
        """Lower ``body`` statement by statement, stopping where no path reaches."""
        for stmt in body:
            if not self._live():
                return  # the rest of the suite is unreachable
            if stmt in self.function_aliases:
                continue  # g = _twice: g names the function (function_args.py)
            with self.b.at(self.src.loc(stmt)):
                self.statement(stmt)

    def statement(self, s: ast.stmt) -> None:
        """Lower one statement.

        Raises:
            CompileError: an unsupported statement or assignment target, ``break`` or
                ``continue`` outside a loop."""
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
                    result = self.b.insert(cls(current, rhs))
                    # an array is updated in place (NumPy), a scalar rebound
                    self.write(name, self.b.insert(ops.InPlace(current, result)))
            case ast.AugAssign(target=ast.Subscript(slice=index) as target, op=op) if (
                slicing.is_basic_index(self, index)
            ):
                cls = self._binop_class(op, s)
                view = slicing.basic_index(self, target, index)  # a[1:] -= x: in the view
                rhs = self.expr(s.value)
                with self.b.at(self.src.loc(s)):
                    self.b.insert(ops.InPlace(view, self.b.insert(cls(view, rhs))))
            case ast.AugAssign(target=ast.Subscript(value=container, slice=index), op=op):
                cls = self._binop_class(op, s)
                array = self.expr(container)
                indices = self.indices(index)  # evaluated once, as in Python
                with self.b.at(self.src.loc(s.target)):
                    current = self.b.insert(ops.GetItem(array, indices))
                rhs = self.expr(s.value)
                with self.b.at(self.src.loc(s)):
                    result = self.b.insert(cls(current, rhs))
                    # a row (w[i] *= s) is updated in place, an element stored back
                    result = self.b.insert(ops.InPlace(current, result))
                    self.b.insert(ops.SetItem(array, indices, result))
            case ast.AugAssign(target=target):
                raise self.src.unsupported(target, as_target=True)
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
            case ast.Return(value=None | ast.Constant(value=None)):
                self.b.ret(None)  # ``return``, ``return None``: a function without a result
            case ast.Return(value=ast.expr() as value):
                self.b.ret(self.expr(value))
            case ast.Pass():
                pass
            case ast.Expr(value=ast.Constant(value=str())):
                pass  # docstring
            case ast.Expr(value=ast.Call(func=func) as call) if self._array_method(func, "sort"):
                array_reorder.sort_method(self, func, call)  # type: ignore[arg-type]
            case ast.Expr(value=value):
                self.expr(value)
            case ast.Raise():
                self.raise_stmt(s)
            case ast.Assert(test=test, msg=msg):
                self.assert_stmt(s, test, msg)
            case _:
                raise self.src.unsupported(s)

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        """``t1 = t2 = value``; ``a, b = x, y`` evaluates the right side before binding."""
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
        """Bind an assignment target (a name, ``a[i]``, or a tuple/list of targets) to ``value``."""
        match target:
            case ast.Name(id=name):
                self.write(name, value)
            case ast.Subscript(slice=index) if slicing.is_basic_index(self, index):
                view = slicing.basic_index(self, target, index)  # a[1:] = b: into the view
                with self.b.at(self.src.loc(target)):
                    self.b.insert(ops.SetItem(view, (), value))
            case ast.Subscript(value=container, slice=index):
                array = self.expr(container)
                indices = self.indices(index)
                with self.b.at(self.src.loc(target)):
                    self.b.insert(ops.SetItem(array, indices, value))
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                if any(isinstance(e, ast.Starred) for e in elts):
                    raise self.src.error("starred assignment is not supported", target)
                known = value.type
                if isinstance(known, TupleType) and len(known.elements) != len(elts):
                    # a tuple the front end built (enumerate/zip items): its size is known
                    raise self.src.error(
                        f"cannot unpack a tuple of {len(known.elements)} elements into "
                        f"{len(elts)} names",
                        target,
                    )
                self.unpacks.append(UnpackCheck(value, len(elts), self.src.loc(target)))
                with self.b.at(self.src.loc(target)):
                    parts = [self.b.tuple_get(value, i) for i in range(len(elts))]
                for part, elt in zip(parts, elts, strict=True):
                    self.bind(elt, part)
            case _:
                raise self.src.unsupported(target, as_target=True)

    def if_stmt(self, s: ast.If) -> None:
        """``if``/``else``: a constant condition branches straight to the suite it selects."""
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
        """``for`` over ``range(...)`` (bounds evaluated once; a zero step raises ValueError),
        a tuple literal (:meth:`for_unrolled`) or any other sequence (:meth:`for_each`):
        an array, a tuple of scalars of one type, a helper's result, ``enumerate``,
        ``zip``, ``reversed``."""
        it = s.iter
        if self.iter_builtin(it, "range") is None:
            if isinstance(it, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in it.elts):
                self.for_unrolled(s, it.elts)
                return
            self.for_each(s)
            return
        assert isinstance(it, ast.Call)
        args, step_value = self.range_arguments(it)
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
        bind_item: Callable[[Value], None] | None = None,
    ) -> None:
        """The loop of ``for target in range(start, stop, step)`` (or over a sequence).

        With ``bind_item``, ``bind_item(i)`` binds the target instead of ``target = i``.
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
        if bind_item is not None:
            bind_item(i)
        else:
            self.bind(s.target, i)
        self.loops.append(Loop(continue_to=latch, break_to=exit_))
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

        self._loop_exit(s, orelse, exit_)

    def for_each(self, s: ast.For) -> None:
        """``for v in seq``: an index loop over a sequence
        (:meth:`~.lower_iter.IterationLowering.sequence`); a tuple target of as many names
        as an ``enumerate``/``zip`` element has parts binds them without building the
        tuple."""
        seq = self.sequence(s.iter, "iter")
        target = s.target

        def bind_item(i: Value) -> None:
            if (
                seq.parts is not None
                and isinstance(target, ast.Tuple | ast.List)
                and len(target.elts) == seq.width
                and not any(isinstance(e, ast.Starred) for e in target.elts)
            ):
                for elt, part in zip(target.elts, seq.parts(i), strict=True):
                    self.bind(elt, part)
            else:
                self.bind(target, seq.item(i))

        self._counted_loop(s, self.b.const(0, I64), seq.length, self.b.const(1, I64), bind_item)

    def for_unrolled(self, s: ast.For, elements: list[ast.expr]) -> None:
        """``for v in (x, y, z)``: the tuple is evaluated first, then the body is lowered
        once per element (``continue`` goes to the next copy, ``break`` past the ``else``)."""
        values = [self.expr(e) for e in elements]
        exit_ = self.b.new_block("for.end")
        for value in values:
            if not self._live():
                break
            step = self.b.new_block("for.next")
            self.bind(s.target, value)
            self.loops.append(Loop(continue_to=step, break_to=exit_))
            self.suite(s.body)
            self.loops.pop()
            if self._live():
                self._jump(step)
            self._start(step)
        if self._live():
            self.suite(s.orelse)
            if self._live():
                self._jump(exit_)
        self._start(exit_)

    def while_stmt(self, s: ast.While) -> None:
        """``while``, with its ``else`` suite run when the condition becomes false."""
        header = self.b.new_block("while.header")
        body = self.b.new_block("while.body")
        orelse = self.b.new_block("while.else") if s.orelse else None
        exit_ = self.b.new_block("while.end")
        self._jump(header)
        self._start(header, seal=False)
        cond = self.expr(s.test)
        self._cond_branch(cond, body, orelse or exit_)
        self._start(body)
        self.loops.append(Loop(continue_to=header, break_to=exit_))
        self.suite(s.body)
        self.loops.pop()
        if self._live():
            self._jump(header)
        self.ssa.seal(header)
        self._loop_exit(s, orelse, exit_)

    def _loop_exit(self, s: ast.For | ast.While, orelse: Block | None, exit_: Block) -> None:
        """After a loop: its ``else`` suite (entered when the loop ends without ``break``)
        falling through to ``exit_``, then continue at ``exit_``."""
        if orelse is not None:
            self._start(orelse)
            self.suite(s.orelse)
            if self._live():
                self._jump(exit_)
        self._start(exit_)

    def raise_stmt(self, s: ast.Raise) -> None:
        """``raise E`` or ``raise E("constant message")`` for E in :data:`RAISABLE`."""
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
            if exc.args and isinstance(exc.args[0], ast.JoinedStr) and name in RAISABLE:
                self.raise_fstring(name, exc.args[0])
                return
            if exc.args:
                arg = exc.args[0]
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    raise self.src.error(
                        "the message of raise must be a constant string or an f-string", arg
                    )
                message = arg.value
        if name not in RAISABLE:
            got = ast.unparse(exc) if exc is not None else "a bare re-raise"
            raise self.src.error(
                "raise supports only ValueError, ZeroDivisionError, OverflowError, "
                f"IndexError, TypeError, RuntimeError and AssertionError (got {got})",
                s,
            )
        self.b.raise_(name, message)

    def raise_fstring(self, name: str, message: ast.JoinedStr) -> None:
        """``raise E(f"... {n} ...")``: fields evaluated left to right, then
        :class:`ops.RaiseFormat`; a field must be an int, a bool or an f64 (checked by
        inference), its format spec a constant, at most :data:`ops.FORMAT_FIELDS` fields.

        Raises:
            CompileError: a nested or run-time format spec, too many fields."""
        template: list[str] = []
        values: list[Value] = []
        names: dict[str, int] = {}  # a variable named twice is one field (same value)
        for part in message.values:
            if isinstance(part, ast.Constant):
                template.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            assert isinstance(part, ast.FormattedValue)
            spec = ""
            if isinstance(part.format_spec, ast.JoinedStr):
                pieces = part.format_spec.values
                if not all(isinstance(p, ast.Constant) for p in pieces):
                    raise self.src.error(
                        "the format spec of an f-string field in a raise message must be "
                        "a constant",
                        part.format_spec,
                    )
                spec = ":" + "".join(str(p.value) for p in pieces if isinstance(p, ast.Constant))
            conversion = f"!{chr(part.conversion)}" if part.conversion != -1 else ""
            name_ = part.value.id if isinstance(part.value, ast.Name) else None
            if name_ is not None and name_ in names:
                template.append(f"{{{names[name_]}{conversion}{spec}}}")
                continue
            if len(values) == ops.FORMAT_FIELDS:
                raise self.src.error(
                    f"an f-string raise message may have at most {ops.FORMAT_FIELDS} fields "
                    "(distinct variables or expressions)",
                    part,
                )
            if name_ is not None:
                names[name_] = len(values)
            template.append(f"{{{len(values)}{conversion}{spec}}}")
            values.append(self.expr(part.value))
        self.b.raise_format(name, "".join(template), values)

    def assert_stmt(self, s: ast.Assert, test: ast.expr, msg: ast.expr | None) -> None:
        """``assert test[, "constant message"]``: raises AssertionError when false."""
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
