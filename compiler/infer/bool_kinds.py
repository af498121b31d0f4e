"""The compile errors of arithmetic on bools whose kind decides the result: Python's bool
is an int (``True + True`` is 2, ``abs(True)`` is 1), NumPy's is not (``np.True_ +
np.True_`` is ``True``, ``abs(np.True_)`` is ``np.True_``), and gradc's types do not say
which kind a bool value is (``rules._ambiguous_bools`` decides when to refuse)."""

from __future__ import annotations

#: Where NumPy's bools come from, as the messages say it.
_NUMPY_BOOLS = "NumPy's bool (from np.all, np.any, a bool array's element or a comparison of them)"


def ambiguous_bools_message(symbol: str) -> str:
    """The compile error of ``symbol`` (``"+"``, ``"-"``, ``"*"``, ``"unary -"`` or
    ``"abs()"``) applied to bools that may be NumPy's."""
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
