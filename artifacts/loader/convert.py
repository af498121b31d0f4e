"""Argument and result conversion of scalars and tuples at the C ABI (docs/abi.md
"Signature").

A :class:`CType` says how one ABI type (``gradc.artifacts.abi.types``) crosses the C
ABI: its ctypes type, the conversion of a Python argument (TypeError naming the expected
type, OverflowError out of range) and of the value read from ``*out``. Arrays are
:mod:`gradc.artifacts.loader.arrays`'; :func:`gradc.artifacts.loader.calls.ctype_of`
picks the one of a type.
"""

from __future__ import annotations

import ctypes
import operator
from collections.abc import Callable, Sequence

from gradc.artifacts.abi.types import Record, Scalar

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FLOAT_CHECKS", "SCALARS", "CType", "same", "scalar_ctype", "tuple_ctype"]


class CType(Record):
    """How one gradc type crosses the C ABI.

    Attributes:
        text: the gradc type string (``"f64"``, ``"tuple[f64,i64]"``, ``"f64[:, ::1]"``).
        ctype: its ctypes type as ``*out`` and inside tuples (an array's descriptor).
        param_ctype: its ctypes type as a parameter when not ``ctype`` (a pointer to an
            array's descriptor).
        convert: Python argument -> ctypes argument, or None when ctypes' own conversion
            is already exact (f64/f32 accept anything with ``__float__``); raises
            TypeError/OverflowError/ValueError with a message that the caller prefixes
            with the parameter name.
        result: the value read from ``*out`` (``out.value`` for scalars, the struct for
            tuples) -> the Python result. Unused when ``array_result`` is set.
        scalar: ``*out`` is a simple ctypes scalar (read through ``.value``).
        argument_ok: values of this type can be passed as arguments.
        result_ok: values of this type can be returned.
        array_result: for types holding arrays: (the value read from ``*out``, the call's
            arguments) -> the Python result (borrowed arrays are found among the arguments).
    """

    __slots__ = _fields = (
        "text",
        "ctype",
        "convert",
        "result",
        "scalar",
        "argument_ok",
        "result_ok",
        "array_result",
        "param_ctype",
    )
    text: str
    ctype: Any
    convert: Callable[[Any], Any] | None
    result: Callable[[Any], Any]
    scalar: bool
    argument_ok: bool
    result_ok: bool
    array_result: Callable[[Any, Sequence[Any]], Any] | None
    param_ctype: Any

    def __init__(
        self,
        text: str,
        ctype: Any,
        convert: Callable[[Any], Any] | None,
        result: Callable[[Any], Any],
        scalar: bool = True,
        argument_ok: bool = True,
        result_ok: bool = True,
        array_result: Callable[[Any, Sequence[Any]], Any] | None = None,
        param_ctype: Any = None,
    ) -> None:
        values = (text, ctype, convert, result, scalar, argument_ok, result_ok)
        for name, value in zip(self._fields, (*values, array_result, param_ctype)):
            object.__setattr__(self, name, value)


_INT_RANGES = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1)}


def _int_converter(name: str) -> Callable[[Any], int]:
    lo, hi = _INT_RANGES[name]

    def convert(v: Any) -> int:
        if type(v) is int:
            n: int = v
        else:
            if isinstance(v, float) or _numpy_kind(v) in ("f", "c"):
                raise TypeError(f"must be {name} (int), got {type(v).__name__}")
            try:
                n = operator.index(v)
            except TypeError:
                raise TypeError(f"must be {name} (int), got {type(v).__name__}") from None
        if not lo <= n <= hi:
            raise OverflowError(f"int {n} out of range for {name}")
        return n

    return convert


def _float_check(name: str) -> Callable[[Any], float]:
    """Slow-path check of a float parameter (ctypes converts on the fast path)."""

    def convert(v: Any) -> float:
        if isinstance(v, float) or _numpy_kind(v) == "f":
            return float(v)
        try:
            return float(operator.index(v))  # int, bool, numpy integers
        except TypeError:
            raise TypeError(f"must be {name} (float), got {type(v).__name__}") from None

    return convert


def _bool_converter(v: Any) -> int:
    if v is True or v is False:
        return int(v)
    if _numpy_kind(v) == "b":
        return int(bool(v))
    raise TypeError(f"must be bool, got {type(v).__name__}")


def _numpy_kind(v: Any) -> str | None:
    """The dtype kind of a numpy scalar (``"f"``, ``"i"``, ``"b"`` ...), else None."""
    dtype = getattr(v, "dtype", None)
    if dtype is None or getattr(v, "shape", None) != ():
        return None
    kind = getattr(dtype, "kind", None)
    return kind if isinstance(kind, str) else None


def same(v: Any) -> Any:
    return v


def _none(v: Any) -> None:
    return None


#: The scalar types by name (``none``: a result only, one ignored byte).
SCALARS: dict[str, CType] = {
    "f64": CType("f64", ctypes.c_double, None, same),
    "f32": CType("f32", ctypes.c_float, None, same),
    "i64": CType("i64", ctypes.c_int64, _int_converter("i64"), same),
    "i32": CType("i32", ctypes.c_int32, _int_converter("i32"), same),
    "bool": CType("bool", ctypes.c_uint8, _bool_converter, bool),
    "none": CType("none", ctypes.c_uint8, None, _none, argument_ok=False),
}
#: Slow-path checks of float parameters (ctypes converts them on the fast path).
FLOAT_CHECKS = {"f64": _float_check("f64"), "f32": _float_check("f32")}


def tuple_ctype(text: str, elements: list[CType]) -> CType:
    """A tuple: a ctypes Structure of its ``elements`` (fields ``e0``, ``e1`` ...); results only."""
    fields = [(f"e{i}", e.ctype) for i, e in enumerate(elements)]
    struct = type(f"gradc_{text}", (ctypes.Structure,), {"_fields_": fields})
    getters = [(operator.attrgetter(f"e{i}"), e) for i, e in enumerate(elements)]
    if any(e.array_result is not None for e in elements):
        parts = [(get, e.array_result or _ignore_args(e.result)) for get, e in getters]

        def read_arrays(s: Any, args: Sequence[Any]) -> tuple[Any, ...]:
            return tuple([conv(get(s), args) for get, conv in parts])

        return CType(text, struct, None, same, scalar=False, argument_ok=False,
                     array_result=read_arrays)  # fmt: skip
    if len(elements) > 1 and all(e.result is same for e in elements):
        # Scalar fields of ints and floats read as Python values already: one C call.
        result: Callable[[Any], Any] = operator.attrgetter(*(name for name, _ in fields))
    else:
        scalars = [(get, e.result) for get, e in getters]

        def read_tuple(s: Any) -> tuple[Any, ...]:
            return tuple([conv(get(s)) for get, conv in scalars])

        result = read_tuple

    # Tuples are results only (the code generator rejects tuple parameters).
    return CType(text, struct, None, result, scalar=False, argument_ok=False)


def _ignore_args(convert: Callable[[Any], Any]) -> Callable[[Any, Sequence[Any]], Any]:
    def read(value: Any, args: Sequence[Any]) -> Any:
        return convert(value)

    return read


def scalar_ctype(t: Scalar) -> CType:
    """The :class:`CType` of a scalar."""
    return SCALARS[t.name]
