"""The compile errors of arithmetic on bools whose kind decides the result: Python's bool
is an int (``True + True`` is 2, ``abs(True)`` is 1), NumPy's is not (``np.True_ +
np.True_`` is ``True``, ``abs(np.True_)`` is ``np.True_``), and gradc's types do not say
which kind a bool value is (``rules._ambiguous_bools`` decides when to refuse)."""

from __future__ import annotations

from collections.abc import Callable

from gradc.compiler.infer import weak
from gradc.compiler.ir.core import Function, Instruction
from gradc.compiler.ir.promotion import Origin
from gradc.compiler.ir.types import ArrayType, ScalarType

#: Where NumPy's bools come from, as the messages say it.
_NUMPY_BOOLS = "NumPy's bool (from np.all, np.any, a bool array's element or a comparison of them)"


def ambiguous_bools_message(symbol: str) -> str:
    """The compile error of ``symbol`` (``"+"``, ``"-"``, ``"*"``, ``"unary -"``,
    ``"unary +"`` or ``"abs()"``) applied to bools that may be NumPy's."""
    if symbol == "unary +":
        return (
            "unary + of a bool is ambiguous: Python's bool gives an int (+True is 1), "
            f"{_NUMPY_BOOLS} has no 'positive' loop (NumPy's TypeError): convert with "
            "int(b) for Python's int"
        )
    if symbol == "abs()":
        return (
            "abs() of a bool is ambiguous: Python's bool gives an int (abs(True) is 1), "
            f"{_NUMPY_BOOLS} gives a bool: convert with int(b) for Python's int"
        )
    return (
        f"{symbol} of bools is ambiguous: Python's bools give an int (True + True "
        "is 2), NumPy's bools (from np.all, np.any, a bool array's element or a "
        "comparison of them) give a bool (logical or/and) or a TypeError: convert "
        "with int(b) for Python's int, or write 'b or c' / 'b and c'"
    )


#: NumPy's TypeError of ``+a`` for a bool array ``a`` (``np.positive`` has no bool loop).
_BOOL_POSITIVE = (
    "ufunc 'positive' did not contain a loop with signature matching types "
    "<class 'numpy.dtypes.BoolDType'> -> None (NumPy's TypeError)"
)


def check_positive(
    fn: Function, inst: Instruction, error: Callable[[str, Instruction], Exception]
) -> None:
    """Refuse ``+b`` (``Mul.positive``) in ``fn`` of a bool array (NumPy's TypeError) or
    of a bool scalar that may be NumPy's (compiler/infer/weak.py origins; Python's
    ``+True`` is the int 1).

    Raises:
        CompileError: ``error(message, inst)``.
    """
    if not getattr(inst, "positive", False):
        return
    operand = inst.operands()[0]
    t = operand.type
    if isinstance(t, ArrayType) and t.dtype.is_bool:
        raise error(_BOOL_POSITIVE, inst)
    if isinstance(t, ScalarType) and t.is_bool:
        origin = weak.origins(fn).get(operand, Origin.EITHER)
        if origin is not Origin.PYTHON:  # NumPy's bool, or either kind
            raise error(ambiguous_bools_message("unary +"), inst)
