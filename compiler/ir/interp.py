"""The reference interpreter: the test oracle for passes and code generation.

It executes IR with the Python semantics the docstrings of :mod:`gradc.compiler.ir.ops`
document, on Python values:

- ``i1`` is ``bool``; ``i8/i32/i64`` are ``int`` wrapped to their width in two's
  complement after every operation (``i1`` arithmetic, which the verifier rejects except
  for ``min``/``max``, wraps modulo 2);
- ``f64`` is ``float``; ``f32`` is a ``float`` rounded to binary32 after every operation
  (computing ``+ - * /`` in double and rounding once is exact for binary32 operands);
- tuples are Python tuples, ``none`` is ``None``;
- arrays are NumPy arrays of the matching dtype, passed by reference (borrowed arrays are
  written in place, as compiled code writes them); a derived pointer is an (array, offset)
  pair (``elemaddr``, which checks bounds with NumPy's message, ``addr``, ``ptradd``),
  stored as a byte offset that ``load``/``store`` map back to an element; ``newarray``
  without ``fill`` gives zeros (the IR leaves the memory uninitialised); ``incref`` and
  ``decref`` do nothing (NumPy owns the memory);
- ``poison`` is a marker that phis and the unchosen arm of a select may carry; any other
  use of it is an :class:`InterpreterError`;
- ``fdiv`` is IEEE division (``x / 0.0`` is ±inf or NaN, never an exception);
- a tape is a Python list (push appends, pop pops; popping an empty tape or freeing a
  non-empty one is an :class:`InterpreterError`).

Errors the program raises are real Python exceptions with the messages compiled code
reports (:data:`MESSAGES` for the ones the interpreter chooses; ``math`` functions raise
exactly what CPython's ``math`` module raises). :class:`InterpreterError` reports IR the
interpreter cannot run (which the verifier would have rejected);
:class:`StepLimitExceeded` (a ``RuntimeError``) a run longer than the step limit.

Calls run on an explicit frame stack, so deep IR recursion does not consume Python stack;
more than ``max_depth`` nested calls raise ``RecursionError``, as CPython would.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gradc.compiler.ir import (  # noqa: F401 (registrations)
    interp_elementwise,
    interp_linalg,
    interp_memory,
    interp_reductions,
    interp_reorder,
    interp_scalar,
    interp_views,
    ops,
)
from gradc.compiler.ir.core import Block, Function, Instruction, Module, Value
from gradc.compiler.ir.dispatch import MissingRule, OpTable
from gradc.compiler.ir.interp_values import (
    MESSAGES,
    NUMPY_DTYPES,
    POISON,
    RULES,
    InterpreterError,
    StepLimitExceeded,
    from_python,
    int_to_f32,
    normalize,
    round_f32,
    wrap_int,
)

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_STEP_LIMIT",
    "FRAME_RULES",
    "MESSAGES",
    "NUMPY_DTYPES",
    "RULES",
    "Frame",
    "InterpreterError",
    "Machine",
    "StepLimitExceeded",
    "int_to_f32",
    "normalize",
    "round_f32",
    "run_function",
    "wrap_int",
]

DEFAULT_STEP_LIMIT = 10**7
DEFAULT_MAX_DEPTH = 10_000


def run_function(
    module: Module,
    name: str,
    args: Sequence[object],
    *,
    step_limit: int = DEFAULT_STEP_LIMIT,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> object:
    """Run function ``name`` of ``module`` on Python values and return its result.

    Args:
        module: the module (callees are looked up in it by name).
        name: the function to run.
        args: one Python value per parameter: ``float`` (or ``int``) for float types,
            ``int`` in range for int types, ``bool`` (or 0/1) for ``i1``, tuples for
            tuple types, NumPy arrays of the exact dtype and rank (and contiguity, for
            layouts ``C`` and ``F``) for array types.
        step_limit: the most instructions to execute, all calls together.
        max_depth: the most nested calls.

    Returns:
        The result as a Python value (``None`` for ``none``).

    Raises:
        KeyError: no function ``name``.
        TypeError: wrong number or kinds of arguments.
        OverflowError: an int argument out of range for its type.
        ValueError, ZeroDivisionError, OverflowError, AssertionError, IndexError, ...:
            raised by the program (a ``raise`` or a checked operation).
        RecursionError: more than ``max_depth`` nested calls.
        StepLimitExceeded: the step limit was reached.
        InterpreterError: the IR cannot be run.
    """
    fn = module.functions[name]
    if len(args) != len(fn.params):
        raise TypeError(f"@{name} takes {len(fn.params)} argument(s), got {len(args)}")
    values = [from_python(a, p.type, i) for i, (a, p) in enumerate(zip(args, fn.params))]
    return Machine(module, step_limit, max_depth).run(fn, values)


_EXCEPTIONS: dict[str, type[BaseException]] = {
    name: getattr(builtins, name) for name in ops.EXCEPTION_KINDS
}


# ---------------------------------------------------------------------------------
# the machine


@dataclass
class Frame:
    """One call being run: its function, values, current block and position."""

    fn: Function
    env: dict[Value, object]
    block: Block
    index: int = 0
    call: ops.Call | None = None  # the caller's instruction awaiting this frame's result
    pred: Block | None = None
    entered: bool = field(default=False)


#: A rule that runs on the frame stack: ``(machine, frames, instruction) -> done``, True
#: when the program has finished (its result is ``machine.result``).
FrameRule = Callable[["Machine", list[Frame], Instruction], bool]

#: The rules of control flow, calls and selects (which may carry poison): they move
#: between blocks and frames, or read operands their own way.
FRAME_RULES: OpTable[FrameRule] = OpTable("interpreter (frames)")


class Machine:
    """Runs IR on an explicit frame stack (see :func:`run_function`)."""

    def __init__(self, module: Module, step_limit: int, max_depth: int) -> None:
        self.module = module
        self.step_limit = step_limit
        self.max_depth = max_depth
        self.steps = 0
        self.result: object = None

    def run(self, fn: Function, args: list[object]) -> object:
        """Run ``fn`` on interpreter values ``args``; its result."""
        frames = [self.frame(fn, args, None)]
        while True:
            frame = frames[-1]
            if not frame.entered:
                self._enter_block(frame)
            insts = frame.block.instructions
            if frame.index >= len(insts):
                raise InterpreterError(
                    f"@{frame.fn.name}: fell off the end of block ^{frame.block.label}"
                )
            inst = insts[frame.index]
            self._step(frame)
            frame_rule = FRAME_RULES.get(inst)
            if frame_rule is not None:
                if frame_rule(self, frames, inst):
                    return self.result
                continue
            try:
                rule = RULES.lookup(inst)
            except MissingRule:
                raise InterpreterError(
                    f"no interpreter rule for operation {inst.OPNAME!r}"
                ) from None
            vals = [self.use(frame, v, inst) for v in inst.operands()]
            frame.env[inst] = rule(self, inst, vals)
            frame.index += 1

    def frame(self, fn: Function, args: list[object], call: ops.Call | None) -> Frame:
        """A new frame running ``fn`` on ``args``, called by ``call`` (None: the entry)."""
        if not fn.blocks:
            raise InterpreterError(f"@{fn.name} has no blocks")
        if len(args) != len(fn.params):
            raise InterpreterError(f"@{fn.name} takes {len(fn.params)} arguments, got {len(args)}")
        env: dict[Value, object] = dict(zip(fn.params, args))
        return Frame(fn, env, fn.entry, call=call)

    def _step(self, frame: Frame) -> None:
        self.steps += 1
        if self.steps > self.step_limit:
            raise StepLimitExceeded(
                f"step limit of {self.step_limit} instructions exceeded in @{frame.fn.name}"
            )

    def goto(self, frame: Frame, target: Block) -> None:
        """Continue ``frame`` at the start of ``target``."""
        frame.pred = frame.block
        frame.block = target
        frame.index = 0
        frame.entered = False

    def _enter_block(self, frame: Frame) -> None:
        """Evaluate the block's phis all at once, on the edge from ``frame.pred``."""
        frame.entered = True
        phis = frame.block.phis()
        if not phis:
            return
        if frame.pred is None:
            raise InterpreterError(f"@{frame.fn.name}: phi in the entry block")
        values = []
        for phi in phis:
            assert isinstance(phi, ops.Phi)
            self._step(frame)
            try:
                v = phi.value_for(frame.pred)
            except KeyError:
                raise InterpreterError(
                    f"@{frame.fn.name}: phi in ^{frame.block.label} has no value for the "
                    f"edge from ^{frame.pred.label}"
                ) from None
            values.append(self.get(frame, v))
        for phi, value in zip(phis, values):
            frame.env[phi] = value
        frame.index = len(phis)

    def use(self, frame: Frame, v: Value, inst: Instruction) -> object:
        """The value of operand ``v`` of ``inst``, which must not be poison."""
        value = self.get(frame, v)
        if value is POISON:
            raise InterpreterError(f"@{frame.fn.name}: {inst.OPNAME} observes a poison value")
        return value

    def get(self, frame: Frame, v: Value) -> object:
        try:
            return frame.env[v]
        except KeyError:
            raise InterpreterError(
                f"@{frame.fn.name}: use of a value not computed yet ({v.name or type(v).__name__})"
            ) from None


@FRAME_RULES.register(ops.Jump)
def _jump(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.Jump)
    m.goto(frames[-1], inst.target)
    return False


@FRAME_RULES.register(ops.Branch)
def _branch(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.Branch)
    frame = frames[-1]
    cond = m.use(frame, inst.cond, inst)
    m.goto(frame, inst.if_true if cond else inst.if_false)
    return False


@FRAME_RULES.register(ops.Return)
def _return(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.Return)
    frame = frames[-1]
    result = None if inst.value is None else m.use(frame, inst.value, inst)
    frames.pop()
    if not frames:
        m.result = result
        return True
    caller = frames[-1]
    assert frame.call is not None
    caller.env[frame.call] = result
    caller.index += 1
    return False


@FRAME_RULES.register(ops.Raise)
def _raise(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.Raise)
    exc = _EXCEPTIONS.get(inst.exception)
    if exc is None:
        raise InterpreterError(f"unknown exception kind {inst.exception!r}")
    raise exc(inst.message) if inst.message else exc()


@FRAME_RULES.register(ops.RaiseFormat)
def _raise_format(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.RaiseFormat)
    exc = _EXCEPTIONS.get(inst.exception)
    if exc is None:
        raise InterpreterError(f"unknown exception kind {inst.exception!r}")
    values = [m.use(frames[-1], v, inst) for v in inst.values]
    raise exc(inst.template.format(*values))


@FRAME_RULES.register(ops.Call)
def _call(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    assert isinstance(inst, ops.Call)
    callee = m.module.functions.get(inst.callee)
    if callee is None:
        raise InterpreterError(f"call of unknown function @{inst.callee}")
    if len(frames) >= m.max_depth:
        raise RecursionError("maximum recursion depth exceeded")
    frame = frames[-1]
    args = [m.use(frame, v, inst) for v in inst.args]
    frames.append(m.frame(callee, args, inst))
    return False


@FRAME_RULES.register(ops.Phi)
def _phi(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    frame = frames[-1]  # phis at the start of a block are run on entering it
    raise InterpreterError(
        f"@{frame.fn.name}: phi after other instructions in ^{frame.block.label}"
    )


@FRAME_RULES.register(ops.Select)
def _select(m: Machine, frames: list[Frame], inst: Instruction) -> bool:
    """Only the chosen arm is observed: the other may be poison."""
    assert isinstance(inst, ops.Select)
    frame = frames[-1]
    vals = [m.get(frame, v) for v in inst.operands()]
    cond = m.use(frame, inst.cond, inst)
    frame.env[inst] = vals[1] if cond else vals[2]
    frame.index += 1
    return False
