"""NumPy 2's type promotion of scalar operands with NEP 50's weak Python scalars: the one
table whole-array arithmetic, NumPy's functions and operators on NumPy scalars read.

NEP 50 (https://numpy.org/neps/nep-0050-scalar-promotion.html): NumPy values (arrays,
``np.float32(x)``, an element ``a[i]``, a result of ``np.sqrt``) are *strong*: their
dtypes promote by NumPy's table (:func:`~.types.join`: ``float32`` with ``int64`` is
``float64``). Python's ``int``, ``float`` and ``bool`` are *weak*: one does not change
the type of a strong operand of its kind or a higher one (``np.float32(1) + 2.0`` is
``float32``, ``np.int32(3) + 4`` is ``int32``, ``np.True_ & False`` is ``bool``); of a
higher kind it brings its default type (``np.True_ + 1`` is ``int64``, ``np.int64(1) *
0.5`` is ``float64``). A ufunc of Python scalars only (``np.minimum(1, 2.5)``) converts
each to its default type (``float64``); Python's operators on them are Python's.

gradc's types (``f64``, ``i64``, ``i1``) do not say whether a value is a Python scalar or a
NumPy one: the :class:`Origin` of a value says it (compiler/infer/weak.py decides it
from where the value comes from). Where it is :data:`Origin.EITHER` and the two readings
give different types, the promotion is :data:`AMBIGUOUS` and the operation a compile
error rather than a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from gradc.compiler.ir.types import F32, F64, I1, I32, I64, ScalarType, join


class Origin(Enum):
    """Whether a scalar value is a Python scalar (weak) or a NumPy one (strong)."""

    PYTHON = "python"
    NUMPY = "numpy"
    EITHER = "either"  # the two on different paths, or not known


#: :func:`promote`'s answer when the result depends on an :data:`Origin.EITHER` operand.
AMBIGUOUS = "ambiguous"


def kind(t: ScalarType) -> int:
    """NumPy's kind order: bool < integer < floating."""
    return 0 if t.is_bool else 2 if t.is_float else 1


def weak_default(t: ScalarType) -> ScalarType:
    """The type a Python scalar of ``t``'s kind brings to strong operands of a lower kind
    (``int`` is ``int64``, ``float`` ``float64``)."""
    return F64 if t.is_float else I1 if t.is_bool else I64


def _join(a: ScalarType | None, b: ScalarType) -> ScalarType:
    if a is None:
        return b
    j = join(a, b)
    assert isinstance(j, ScalarType)
    return j


def _reading(types: Sequence[ScalarType], strong_at: Sequence[bool]) -> ScalarType:
    """The common type when the operands at ``strong_at`` are strong, the others weak."""
    strong: ScalarType | None = None
    for t, is_strong in zip(types, strong_at, strict=True):
        if is_strong:
            strong = _join(strong, t)
    if strong is None:  # Python scalars only: each its default type
        for t in types:
            strong = _join(strong, t)
        assert strong is not None
        return strong
    for t, is_strong in zip(types, strong_at, strict=True):
        if not is_strong and kind(t) > kind(strong):
            strong = _join(strong, weak_default(t))
    return strong


def always_strong(t: ScalarType) -> bool:
    """``f32`` values are always NumPy scalars (Python has no such type; an ``i32`` may be
    an export's parameter, a Python int in int32's range)."""
    return t == F32


def may_be_strong(t: ScalarType) -> bool:
    """``f32``/``i32``: where a scalar operator's result may follow NumPy's rules."""
    return t in (F32, I32)


def promote(
    types: Sequence[ScalarType], origin: Callable[[int], Origin], arrays: int = 0
) -> ScalarType | str:
    """NumPy's common type of operands of these types (NEP 50, the module docstring).

    Args:
        types: the operands' (element) types; the first ``arrays`` are arrays' dtypes
            (strong).
        origin: the origin of operand ``k`` (asked only where the answer depends on it:
            an ``f64``/``i64``/``i1`` scalar with a strong operand of a narrower type).

    Returns:
        the common type, or :data:`AMBIGUOUS` when it depends on an operand whose
        origin is not known.
    """
    n = len(types)
    known = [k < arrays or always_strong(types[k]) for k in range(n)]
    strong_reading = _reading(types, [True] * n)
    if any(known) and strong_reading == _reading(types, known):
        return strong_reading  # the undecided operands' origins change nothing
    origins = [Origin.NUMPY if known[k] else origin(k) for k in range(n)]
    either = [k for k in range(n) if origins[k] is Origin.EITHER]
    readings = set()
    for mask in range(1 << len(either)):
        strong_at = [o is Origin.NUMPY for o in origins]
        for bit, k in enumerate(either):
            strong_at[k] = bool(mask >> bit & 1)
        readings.add(_reading(types, strong_at))
    if len(readings) > 1:
        return AMBIGUOUS
    return readings.pop()
