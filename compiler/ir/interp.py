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
import math
import operator
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Module, Value
from gradc.compiler.ir.special import digamma
from gradc.compiler.ir.types import NONE, ArrayType, ScalarType, TupleType, Type

#: Exception messages of operations whose wording the IR (not CPython) decides; the same
#: strings as compiled code (gradc.compiler.codegen).
MESSAGES: dict[str, str] = {
    "int_floordiv_zero": "integer division or modulo by zero",
    "int_mod_zero": "integer modulo by zero",
    "int_div_zero": "division by zero",
    "float_div_zero": "float division by zero",
    "float_floordiv_zero": "float floor division by zero",
    "float_mod_zero": "float modulo",
    "int_pow_negative": (
        "negative exponent in integer power: the result would be a float, which gradc's "
        "static types do not allow"
    ),
    "float_pow_zero_negative": "0.0 cannot be raised to a negative power",
    "float_pow_fractional": "negative number cannot be raised to a fractional power",
    "float_pow_overflow": "(34, 'Numerical result out of range')",  # str() of CPython's
    "cast_nan": "cannot convert float NaN to integer",
    "cast_inf": "cannot convert float infinity to integer",
    "cast_range": "int too large to convert",
    "index_range": "index {0} is out of bounds for axis {1} with size {2}",
    "negative_dims": "negative dimensions are not allowed",
}

#: NumPy dtype names of the IR's scalar types.
NUMPY_DTYPES: dict[str, str] = {
    "f64": "float64",
    "f32": "float32",
    "i64": "int64",
    "i32": "int32",
    "i8": "int8",
    "i1": "bool",
}

DEFAULT_STEP_LIMIT = 10**7
DEFAULT_MAX_DEPTH = 10_000


class InterpreterError(Exception):
    """The IR cannot be run (it is malformed: the verifier would reject it)."""


class StepLimitExceeded(RuntimeError):
    """More instructions were executed than the step limit allows (a runaway loop)."""


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
    values = [_from_python(a, p.type, i) for i, (a, p) in enumerate(zip(args, fn.params))]
    return _Machine(module, step_limit, max_depth).run(fn, values)


# ---------------------------------------------------------------------------------
# scalar helpers


def wrap_int(x: int, bits: int) -> int:
    """``x`` reduced to a ``bits``-wide two's complement integer."""
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def round_f32(x: float) -> float:
    """``x`` rounded to the nearest binary32 value (ties to even; overflow gives ±inf)."""
    try:
        result: float = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    return result


def int_to_f32(x: int) -> float:
    """``x`` rounded directly to binary32 (no double rounding through binary64)."""
    a = abs(x)
    shift = a.bit_length() - 24
    if shift > 0:
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    return round_f32(float(-a if x < 0 else a))


def normalize(x: object, t: Type) -> object:
    """A computed Python number as a value of scalar type ``t`` (wrap or round)."""
    if isinstance(t, ScalarType):
        if t.is_float:
            assert isinstance(x, float)
            return round_f32(x) if t.bits == 32 else x
        assert isinstance(x, int)
        if t.is_bool:
            return bool(x & 1)
        return wrap_int(x, t.bits)
    return x


def _from_python(value: object, t: Type, index: int) -> object:
    where = f"argument {index}"
    if isinstance(t, ScalarType):
        if t.is_float:
            if not isinstance(value, int | float):
                raise TypeError(f"{where}: expected a float for {t}, got {value!r}")
            if isinstance(value, int) and t.bits == 32:
                return int_to_f32(value)
            return normalize(float(value), t)
        if not isinstance(value, int):
            raise TypeError(f"{where}: expected an int for {t}, got {value!r}")
        if t.is_bool:
            if value not in (0, 1):
                raise OverflowError(f"{where}: {value} is not a bool")
            return bool(value)
        if wrap_int(value, t.bits) != value:
            raise OverflowError(f"{where}: {value} out of range for {t}")
        return int(value)
    if isinstance(t, TupleType):
        if not isinstance(value, tuple | list) or len(value) != len(t.elements):
            raise TypeError(f"{where}: expected a {len(t.elements)}-tuple for {t}, got {value!r}")
        return tuple(_from_python(v, e, index) for v, e in zip(value, t.elements))
    if isinstance(t, ArrayType):
        import numpy as np  # lazily: only array programs need NumPy

        if not isinstance(value, np.ndarray):
            raise TypeError(f"{where}: expected a NumPy array for {t}, got {type(value).__name__}")
        if value.dtype != np.dtype(NUMPY_DTYPES[t.dtype.name]) or value.ndim != t.ndim:
            raise TypeError(f"{where}: expected {t}, got a {value.ndim}-d {value.dtype} array")
        if t.layout == "C" and not value.flags.c_contiguous:
            raise TypeError(f"{where}: expected a C-contiguous array for {t}")
        if t.layout == "F" and not value.flags.f_contiguous:
            raise TypeError(f"{where}: expected a Fortran-contiguous array for {t}")
        return value
    if t == NONE:
        if value is not None:
            raise TypeError(f"{where}: expected None, got {value!r}")
        return None
    raise InterpreterError(f"{where}: the interpreter does not support type {t}")


def _scalar(inst: Instruction) -> ScalarType:
    t = inst.type
    if not isinstance(t, ScalarType):
        raise InterpreterError(f"{inst.OPNAME}: result type {t} is not a scalar")
    return t


# ---------------------------------------------------------------------------------
# operation rules: (machine, instruction, operand values) -> result

_Rule = Callable[["_Machine", Instruction, list[object]], object]


def _const(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Const)
    t = _scalar(inst)
    v = inst.value
    if t.is_float:
        return int_to_f32(v) if isinstance(v, int) and t.bits == 32 else normalize(float(v), t)
    if t.is_bool:
        return bool(v)
    if not isinstance(v, int):
        raise InterpreterError(f"const {v!r} is not an int for {t}")
    return wrap_int(int(v), t.bits)


def _cast(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    if isinstance(inst.type, ArrayType):
        return x  # a layout relabel: the same array
    to = _scalar(inst)
    if to.is_bool:
        return x != 0
    if isinstance(x, bool | int) and not isinstance(x, float):
        if to.is_float:
            return int_to_f32(int(x)) if to.bits == 32 else float(x)
        return wrap_int(int(x), to.bits)
    assert isinstance(x, float)
    if to.is_float:
        return normalize(x, to)
    if math.isnan(x):
        raise ValueError(MESSAGES["cast_nan"])
    if math.isinf(x):
        raise OverflowError(MESSAGES["cast_inf"])
    n = int(x)
    if wrap_int(n, to.bits) != n:
        raise OverflowError(MESSAGES["cast_range"])
    return n


def _select(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    cond, a, b = vals
    return a if cond else b


def _make_tuple(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return tuple(vals)


def _tuple_get(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.TupleGet)
    (tup,) = vals
    assert isinstance(tup, tuple)
    return tup[inst.index]


def _arith(fn: Callable[[object, object], object]) -> _Rule:
    def rule(m: _Machine, inst: Instruction, vals: list[object]) -> object:
        return normalize(fn(vals[0], vals[1]), _scalar(inst))

    return rule


def _div(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = _scalar(inst)
    if not t.is_float:
        raise InterpreterError(f"div on {t}: true division is defined on floats only")
    assert isinstance(a, float) and isinstance(b, float)
    if b == 0.0:
        assert isinstance(inst, ops.Div)
        raise ZeroDivisionError(MESSAGES["int_div_zero" if inst.of_ints() else "float_div_zero"])
    return normalize(a / b, t)


def _fdiv(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = _scalar(inst)
    if not t.is_float:
        raise InterpreterError(f"fdiv on {t}: IEEE division is defined on floats only")
    assert isinstance(a, float) and isinstance(b, float)
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return normalize(a / b, t)


def _floordiv(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = _scalar(inst)
    assert isinstance(a, int | float) and isinstance(b, int | float)
    if b == 0:
        key = "float_floordiv_zero" if t.is_float else "int_floordiv_zero"
        raise ZeroDivisionError(MESSAGES[key])
    return normalize(a // b, t)


def _mod(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = _scalar(inst)
    assert isinstance(a, int | float) and isinstance(b, int | float)
    if b == 0:
        raise ZeroDivisionError(MESSAGES["float_mod_zero" if t.is_float else "int_mod_zero"])
    return normalize(a % b, t)


def _pow(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    t = _scalar(inst)
    if not t.is_float:
        assert isinstance(a, int) and isinstance(b, int)
        if b < 0 and a == 0:
            raise ZeroDivisionError(MESSAGES["float_pow_zero_negative"])  # as CPython
        if b < 0:
            raise ValueError(MESSAGES["int_pow_negative"])
        bits = 1 if t.is_bool else t.bits
        return normalize(pow(a, b, 1 << bits), t)
    assert isinstance(a, float) and isinstance(b, float)
    try:
        r = a**b
    except ZeroDivisionError:
        raise ZeroDivisionError(MESSAGES["float_pow_zero_negative"]) from None
    except OverflowError:
        raise OverflowError(MESSAGES["float_pow_overflow"]) from None
    if isinstance(r, complex):
        raise ValueError(MESSAGES["float_pow_fractional"])
    result = normalize(float(r), t)
    assert isinstance(result, float)
    if math.isinf(result) and math.isfinite(a) and math.isfinite(b):
        raise OverflowError(MESSAGES["float_pow_overflow"])  # binary32 overflow
    return result


def _min(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    return b if b < a else a  # type: ignore[operator]


def _max(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    a, b = vals
    return b if b > a else a  # type: ignore[operator]


def _neg(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    assert isinstance(x, int | float)
    return normalize(-x, _scalar(inst))


def _abs(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (x,) = vals
    assert isinstance(x, int | float)
    return normalize(abs(x), _scalar(inst))


def _not(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return not vals[0]


_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def _cmp(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.Cmp)
    fn = _CMP.get(inst.pred)
    if fn is None:
        raise InterpreterError(f"unknown cmp predicate {inst.pred!r}")
    return bool(fn(vals[0], vals[1]))


def _math(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.MathCall)
    if inst.fn not in ops.MATH_FUNCTIONS:
        raise InterpreterError(f"unknown math function {inst.fn!r}")
    args = [float(v) for v in vals]  # type: ignore[arg-type]
    if inst.fn in ("floor", "ceil", "trunc"):
        (x,) = args
        if not math.isfinite(x):
            return x
        r = float(getattr(math, inst.fn)(x))
        return math.copysign(0.0, x) if r == 0.0 else r  # C keeps the sign of zero
    if inst.fn == "ieee_pow":
        return _ieee_pow(*args)
    if inst.fn.startswith("ieee_"):  # C's result (inf, NaN), no Python exception
        import numpy as np  # lazily: as libm, without Python's checks

        with np.errstate(all="ignore"):
            return float(getattr(np, inst.fn.removeprefix("ieee_"))(np.float64(args[0])))
    if inst.fn == "digamma":
        return digamma(args[0])
    result = getattr(math, inst.fn)(*args)
    if ops.MATH_FUNCTIONS[inst.fn].returns_bool:
        return bool(result)
    return float(result)


def _ieee_pow(x: float, y: float) -> float:
    """C's ``pow`` (IEEE results, no Python exceptions), as ``ieee_pow`` computes it."""
    try:
        return math.pow(x, y)
    except ZeroDivisionError:
        return math.inf
    except ValueError:
        if x == 0.0 and y < 0.0:
            return math.copysign(math.inf, x) if float(y).is_integer() and y % 2 else math.inf
        return math.nan
    except OverflowError:
        negative = x < 0.0 and float(y).is_integer() and y % 2 == 1
        return -math.inf if negative else math.inf


@dataclass(frozen=True)
class _Pointer:
    """A derived pointer: ``offset`` bytes from the data of NumPy array ``array``."""

    array: Any
    offset: int


class _PoisonType:
    """The value of ``poison``: may be carried by phis and selects, never observed."""

    def __repr__(self) -> str:
        return "poison"


_POISON = _PoisonType()


def _byte_offset(array: Any, indices: Sequence[object], *, check: bool) -> int:
    shape, strides = array.shape, array.strides
    if len(indices) != len(shape):
        raise InterpreterError(f"{len(indices)} index(es) for a {len(shape)}-d array")
    offset = 0
    for axis, (i, size, stride) in enumerate(zip(indices, shape, strides)):
        assert isinstance(i, int)
        j = i + size if i < 0 else i  # wrapped once, checked or not (as compiled)
        if check:
            if not 0 <= j < size:
                raise IndexError(MESSAGES["index_range"].format(i, axis, size))
        offset += j * stride
    return offset


def _element(p: _Pointer) -> tuple[int, ...]:
    """The index of the element ``p`` points at (NumPy views do not overlap)."""
    shape, strides = p.array.shape, p.array.strides
    rest = p.offset
    index = [0] * len(shape)
    flipped = [False] * len(shape)
    axes = []
    for k, (n, s) in enumerate(zip(shape, strides)):
        if s < 0:  # count from the other end so that every stride is positive
            rest -= (n - 1) * s
            flipped[k] = True
        if s != 0 and n > 1:
            axes.append(k)
    for k in sorted(axes, key=lambda k: -abs(strides[k])):
        i = min(rest // abs(strides[k]), shape[k] - 1)
        if i > 0:
            index[k] = i
            rest -= i * abs(strides[k])
    if rest != 0 or any(n == 0 for n in shape):
        raise InterpreterError(f"pointer at byte offset {p.offset} is not at an element")
    return tuple(n - 1 - i if f else i for i, n, f in zip(index, shape, flipped))


def _dim(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    assert isinstance(inst, ops.ArrayDim)
    return int(vals[0].shape[inst.axis])  # type: ignore[attr-defined]


def _elemaddr(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    array, *indices = vals
    return _Pointer(array, _byte_offset(array, indices, check=True))


def _elemoffset(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    array, *indices = vals
    return _byte_offset(array, indices, check=False)


def _dataaddr(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return int(vals[0].__array_interface__["data"][0])  # type: ignore[attr-defined]


def _addr(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    array, offset = vals
    assert isinstance(offset, int)
    return _Pointer(array, offset)


def _ptradd(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    p, offset = vals
    assert isinstance(p, _Pointer) and isinstance(offset, int)
    return _Pointer(p.array, p.offset + offset)


def _poison(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return _POISON


def _load(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (p,) = vals
    assert isinstance(p, _Pointer)
    t = _scalar(inst)
    x = p.array[_element(p)]
    return bool(x) if t.is_bool else float(x) if t.is_float else int(x)


def _store(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    p, value = vals
    assert isinstance(p, _Pointer)
    p.array[_element(p)] = value
    return None


def _newarray(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    assert isinstance(inst, ops.NewArray)
    t = inst.type
    if not isinstance(t, ArrayType):
        raise InterpreterError(f"newarray result type {t} is not an array")
    dims = [int(d) for d in vals[: len(inst.shape)]]  # type: ignore[call-overload]
    if any(d < 0 for d in dims):
        raise ValueError(MESSAGES["negative_dims"])
    fill = vals[len(inst.shape)] if inst.fill is not None else 0
    return np.full(tuple(dims), fill, dtype=NUMPY_DTYPES[t.dtype.name], order="C")


def _copyarray(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    import numpy as np  # lazily: only array programs need NumPy

    return np.array(vals[0], order="C", copy=True)


def _arrayacc(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    target, source = vals
    target += source  # type: ignore[operator]
    return None


def _refcount(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return None


def _tapenew(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    return []


def _tapepush(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    tape, value = vals
    assert isinstance(tape, list)
    tape.append(value)
    return None


def _tapepop(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (tape,) = vals
    assert isinstance(tape, list)
    if not tape:
        raise InterpreterError("tapepop from an empty tape")
    return tape.pop()


def _tapefree(m: _Machine, inst: Instruction, vals: list[object]) -> object:
    (tape,) = vals
    assert isinstance(tape, list)
    if tape:
        raise InterpreterError(f"tapefree of a tape holding {len(tape)} value(s)")
    return None


_RULES: dict[type[Instruction], _Rule] = {
    ops.Const: _const,
    ops.Cast: _cast,
    ops.Select: _select,
    ops.MakeTuple: _make_tuple,
    ops.TupleGet: _tuple_get,
    ops.Add: _arith(operator.add),
    ops.Sub: _arith(operator.sub),
    ops.Mul: _arith(operator.mul),
    ops.Div: _div,
    ops.FloorDiv: _floordiv,
    ops.Mod: _mod,
    ops.Pow: _pow,
    ops.Min: _min,
    ops.Max: _max,
    ops.Neg: _neg,
    ops.Abs: _abs,
    ops.Not: _not,
    ops.Cmp: _cmp,
    ops.MathCall: _math,
    ops.ArrayDim: _dim,
    ops.ElementAddr: _elemaddr,
    ops.ElementOffset: _elemoffset,
    ops.ArrayAddress: _dataaddr,
    ops.Addr: _addr,
    ops.PointerAdd: _ptradd,
    ops.Poison: _poison,
    ops.FDiv: _fdiv,
    ops.Load: _load,
    ops.Store: _store,
    ops.NewArray: _newarray,
    ops.CopyArray: _copyarray,
    ops.AccumulateArray: _arrayacc,
    ops.IncRef: _refcount,
    ops.DecRef: _refcount,
    ops.TapeNew: _tapenew,
    ops.TapePush: _tapepush,
    ops.TapePop: _tapepop,
    ops.TapeFree: _tapefree,
}

_EXCEPTIONS: dict[str, type[BaseException]] = {
    name: getattr(builtins, name) for name in ops.EXCEPTION_KINDS
}


# ---------------------------------------------------------------------------------
# the machine


@dataclass
class _Frame:
    fn: Function
    env: dict[Value, object]
    block: Block
    index: int = 0
    call: ops.Call | None = None  # the caller's instruction awaiting this frame's result
    pred: Block | None = None
    entered: bool = field(default=False)


class _Machine:
    def __init__(self, module: Module, step_limit: int, max_depth: int) -> None:
        self.module = module
        self.step_limit = step_limit
        self.max_depth = max_depth
        self.steps = 0

    def run(self, fn: Function, args: list[object]) -> object:
        frames = [self._frame(fn, args, None)]
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
            env = frame.env
            if isinstance(inst, ops.Jump):
                self._goto(frame, inst.target)
            elif isinstance(inst, ops.Branch):
                cond = self._use(frame, inst.cond, inst)
                self._goto(frame, inst.if_true if cond else inst.if_false)
            elif isinstance(inst, ops.Return):
                result = None if inst.value is None else self._use(frame, inst.value, inst)
                frames.pop()
                if not frames:
                    return result
                caller = frames[-1]
                assert frame.call is not None
                caller.env[frame.call] = result
                caller.index += 1
            elif isinstance(inst, ops.Raise):
                exc = _EXCEPTIONS.get(inst.exception)
                if exc is None:
                    raise InterpreterError(f"unknown exception kind {inst.exception!r}")
                raise exc(inst.message) if inst.message else exc()
            elif isinstance(inst, ops.Call):
                callee = self.module.functions.get(inst.callee)
                if callee is None:
                    raise InterpreterError(f"call of unknown function @{inst.callee}")
                if len(frames) >= self.max_depth:
                    raise RecursionError("maximum recursion depth exceeded")
                args = [self._use(frame, v, inst) for v in inst.args]
                frames.append(self._frame(callee, args, inst))
            elif isinstance(inst, ops.Phi):
                raise InterpreterError(
                    f"@{frame.fn.name}: phi after other instructions in ^{frame.block.label}"
                )
            else:
                rule = _lookup(inst)
                if isinstance(inst, ops.Select):  # only the chosen arm is observed
                    vals = [self._get(frame, v) for v in inst.operands()]
                    self._use(frame, inst.cond, inst)
                else:
                    vals = [self._use(frame, v, inst) for v in inst.operands()]
                env[inst] = rule(self, inst, vals)
                frame.index += 1

    def _frame(self, fn: Function, args: list[object], call: ops.Call | None) -> _Frame:
        if not fn.blocks:
            raise InterpreterError(f"@{fn.name} has no blocks")
        if len(args) != len(fn.params):
            raise InterpreterError(f"@{fn.name} takes {len(fn.params)} arguments, got {len(args)}")
        env: dict[Value, object] = dict(zip(fn.params, args))
        return _Frame(fn, env, fn.entry, call=call)

    def _step(self, frame: _Frame) -> None:
        self.steps += 1
        if self.steps > self.step_limit:
            raise StepLimitExceeded(
                f"step limit of {self.step_limit} instructions exceeded in @{frame.fn.name}"
            )

    def _goto(self, frame: _Frame, target: Block) -> None:
        frame.pred = frame.block
        frame.block = target
        frame.index = 0
        frame.entered = False

    def _enter_block(self, frame: _Frame) -> None:
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
            values.append(self._get(frame, v))
        for phi, value in zip(phis, values):
            frame.env[phi] = value
        frame.index = len(phis)

    def _use(self, frame: _Frame, v: Value, inst: Instruction) -> object:
        """The value of operand ``v`` of ``inst``, which must not be poison."""
        value = self._get(frame, v)
        if value is _POISON:
            raise InterpreterError(f"@{frame.fn.name}: {inst.OPNAME} observes a poison value")
        return value

    def _get(self, frame: _Frame, v: Value) -> object:
        try:
            return frame.env[v]
        except KeyError:
            raise InterpreterError(
                f"@{frame.fn.name}: use of a value not computed yet ({v.name or type(v).__name__})"
            ) from None


def _lookup(inst: Instruction) -> _Rule:
    for klass in type(inst).__mro__:
        if klass in _RULES:
            return _RULES[klass]
    raise InterpreterError(f"no interpreter rule for operation {inst.OPNAME!r}")
