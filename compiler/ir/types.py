"""IR types: immutable values stored on every SSA value.

Scalars are singletons compared by identity or equality (:data:`F64`, :data:`I64`, ...).
Aggregate types are frozen dataclasses compared structurally. The pointer facts the
GC-aware passes need (tracked array reference vs. derived interior pointer) live in the
type itself (STYLE.md rule 2).

Numeric promotion (:func:`join`) follows NumPy/Numba for the statically typed subset of
Python gradc compiles: ``bool < i32 < i64 < f32 < f64`` with ``i64 ⊔ f32 = f64``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gradc._dataclass import dataclass

_T = TypeVar("_T", bound="Type")


class Type:
    """Base of all IR types. Subclasses are immutable and hashable."""

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def contains(self, kind: type[_T], where: Callable[[_T], bool] | None = None) -> bool:
        """True when this type is a ``kind`` (for which ``where`` holds, if given) or a
        tuple holding one at any depth.

        ``t.contains(ArrayType)``: a value of type ``t`` holds an array reference (an
        array, or a tuple with one), the values reference counting and array shadows
        are about; ``t.contains(PointerType)``: it holds a derived pointer.
        """
        return isinstance(self, kind) and (where is None or where(self))


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    """A machine scalar.

    Attributes:
        name: ``f32 f64 i1 i8 i32 i64``; ``i1`` is Python's ``bool``.
        bits: width in bits.
        is_float: floating point (IEEE 754 binary32/binary64).
    """

    name: str
    bits: int
    is_float: bool

    @property
    def is_int(self) -> bool:
        """True for integers, including ``i1`` (bool)."""
        return not self.is_float

    @property
    def is_bool(self) -> bool:
        """True for ``i1``."""
        return self.bits == 1

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class NoneType(Type):
    """The type of ``None`` (a function that returns nothing)."""

    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True, slots=True)
class UnknownType(Type):
    """Placeholder before inference; never present in verified, typed IR."""

    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """A fixed-length heterogeneous tuple (a value, not a reference)."""

    elements: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple[" + ",".join(str(t) for t in self.elements) + "]"

    def contains(self, kind: type[_T], where: Callable[[_T], bool] | None = None) -> bool:
        """True when the tuple is a ``kind`` or an element contains one."""
        if isinstance(self, kind) and (where is None or where(self)):
            return True
        return any(e.contains(kind, where) for e in self.elements)


@dataclass(frozen=True, slots=True)
class ArrayType(Type):
    """A tracked reference to an array object (borrowed from the caller or owned).

    Attributes:
        dtype: element type (a scalar).
        ndim: number of dimensions, >= 1.
        layout: ``"A"`` any strides, ``"C"`` C-contiguous, ``"F"`` Fortran-contiguous.
    """

    dtype: ScalarType
    ndim: int
    layout: str = "A"

    def __str__(self) -> str:
        return f"array[{self.dtype},{self.ndim},{self.layout}]"


@dataclass(frozen=True, slots=True)
class PointerType(Type):
    """A derived pointer to array data: an interior address whose base is recoverable.

    Only element-address instructions produce values of this type; there are no
    pointer constants and no integer-to-pointer casts (DESIGN.md §2).
    """

    pointee: ScalarType

    def __str__(self) -> str:
        return f"ptr[{self.pointee}]"


@dataclass(frozen=True, slots=True)
class TapeType(Type):
    """The tape of a reverse-mode derivative: a LIFO stack of values owned by one call.

    The augmented forward sweep pushes what the reverse sweep needs, the reverse sweep
    pops it in the opposite order (docs/ad.md).
    """

    def __str__(self) -> str:
        return "tape"


F32 = ScalarType("f32", 32, True)
F64 = ScalarType("f64", 64, True)
I1 = ScalarType("i1", 1, False)
I8 = ScalarType("i8", 8, False)
I32 = ScalarType("i32", 32, False)
I64 = ScalarType("i64", 64, False)
BOOL = I1
NONE = NoneType()
UNKNOWN = UnknownType()
TAPE = TapeType()

SCALARS: dict[str, ScalarType] = {t.name: t for t in (F32, F64, I1, I8, I32, I64)}

# Numeric rank for promotion; i8 only appears as an array dtype.
_RANK = {I1: 0, I8: 1, I32: 2, I64: 3, F32: 4, F64: 5}


def is_numeric(t: Type) -> bool:
    """True for scalar types (bool counts as numeric, as in Python)."""
    return isinstance(t, ScalarType)


def join(a: Type, b: Type) -> Type | None:
    """Least upper bound of two types for phis and binary operands.

    ``UNKNOWN`` is the bottom element. Scalars promote numerically (``i64 ⊔ f32 = f64``);
    equal types join to themselves; arrays of one dtype and rank but different layouts
    join to layout ``"A"``; tuples join elementwise; anything else has no join and the
    result is ``None`` (the caller reports "cannot unify").
    """
    if a == b:
        return a
    if isinstance(a, UnknownType):
        return b
    if isinstance(b, UnknownType):
        return a
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        hi, lo = (a, b) if _RANK[a] >= _RANK[b] else (b, a)
        if hi is F32 and lo in (I64, I32):
            return F64
        return hi
    if (
        isinstance(a, ArrayType)
        and isinstance(b, ArrayType)
        and (a.dtype, a.ndim) == (b.dtype, b.ndim)
    ):
        return ArrayType(a.dtype, a.ndim, "A")  # layouts differ: any strides
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elements) == len(b.elements):
        parts = [join(x, y) for x, y in zip(a.elements, b.elements, strict=True)]
        if any(p is None for p in parts):
            return None
        return TupleType(tuple(p for p in parts if p is not None))
    return None


def parse_type(text: str) -> Type:
    """Parse the printed form of a type (``f64``, ``tuple[f64,i64]``, ``array[f64,2,C]``, ``?``).

    Raises:
        ValueError: the text is not a type.
    """
    parser = _TypeParser(text.replace(" ", ""))
    t = parser.parse()
    if parser.pos != len(parser.text):
        raise ValueError(f"trailing text in type {text!r}")
    return t


class _TypeParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] == "_"
        ):
            self.pos += 1
        if start == self.pos:
            raise ValueError(f"expected a type at {self.pos} in {self.text!r}")
        return self.text[start : self.pos]

    def _expect(self, ch: str) -> None:
        if not self.text.startswith(ch, self.pos):
            raise ValueError(f"expected {ch!r} at {self.pos} in {self.text!r}")
        self.pos += 1

    def parse(self) -> Type:
        if self.text.startswith("?", self.pos):  # UNKNOWN prints as "?"
            self.pos += 1
            return UNKNOWN
        word = self._word()
        if word in SCALARS:
            return SCALARS[word]
        if word == "bool":
            return I1
        if word == "none":
            return NONE
        if word == "tape":
            return TAPE
        if word == "tuple":
            self._expect("[")
            elems: list[Type] = []
            if not self.text.startswith("]", self.pos):
                elems.append(self.parse())
                while self.text.startswith(",", self.pos):
                    self.pos += 1
                    elems.append(self.parse())
            self._expect("]")
            return TupleType(tuple(elems))
        if word == "array":
            self._expect("[")
            dtype = self.parse()
            self._expect(",")
            ndim = int(self._word())
            self._expect(",")
            layout = self._word()
            self._expect("]")
            if not isinstance(dtype, ScalarType):
                raise ValueError(f"array dtype must be a scalar in {self.text!r}")
            return ArrayType(dtype, ndim, layout)
        if word == "ptr":
            self._expect("[")
            pointee = self.parse()
            self._expect("]")
            if not isinstance(pointee, ScalarType):
                raise ValueError(f"pointee must be a scalar in {self.text!r}")
            return PointerType(pointee)
        raise ValueError(f"unknown type {word!r} in {self.text!r}")


def python_name(t: Type) -> str:
    """The user-facing (signature string) name of a type.

    ``bool`` for ``i1``; arrays as in annotations: ``f64[:, :]``, ``f64[:, ::1]`` (C
    order), ``f64[::1, :]`` (Fortran order); tuples as ``tuple[f64,i64]``.
    """
    if t is I1:
        return "bool"
    if isinstance(t, TupleType):
        return "tuple[" + ",".join(python_name(e) for e in t.elements) + "]"
    if isinstance(t, ArrayType):
        axes = [":"] * t.ndim
        if t.layout == "C":
            axes[-1] = "::1"
        elif t.layout == "F":
            axes[0] = "::1"
        return f"{python_name(t.dtype)}[{', '.join(axes)}]"
    return str(t)
