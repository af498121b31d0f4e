"""Types at the C ABI, and the one parser of their text form (docs/abi.md "Signature").

A manifest signature, an object's ABI description, the fast-call wrapper generator and
the loader all spell types as ``gradc.compiler.ir.types.python_name`` writes them::

    f64  f32  i64  i32  bool  none                 scalars
    tuple[f64,tuple[i64,bool]]                     tuples (nesting allowed; results only)
    f64[:]  f64[:, :]                              arrays of any strides (layout "A")
    f64[:, ::1]  f64[::1]                          C-contiguous (layout "C")
    f64[::1, :]                                    Fortran-contiguous (layout "F", rank >= 2)
    array[f64,2,C]                                 arrays, as manifests before 1.1 wrote them

:func:`parse_type` turns such a string into an :class:`AbiType` (:class:`Scalar`,
:class:`Array`, :class:`Tuple`), whose ``str`` is the canonical spelling above (the legacy
``array[...]`` form is read, never written); :meth:`AbiType.to_data` and
:func:`type_from_data` are its structured form in the manifest (format 1.4,
``signature.types``). Whitespace between tokens is ignored.

The IR's own text form (``array[f64,2,C]``, ``i1``, ``ptr[f64]``, ``tape``) is a different
syntax for a larger set of types and has its own parser (``gradc.compiler.ir.types``).

Imports only the standard library and :mod:`gradc.artifacts.errors`.
"""

from __future__ import annotations

from gradc.artifacts.errors import ArtifactError

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DTYPES",
    "NUMPY_DTYPES",
    "SCALAR_NAMES",
    "AbiType",
    "Array",
    "Scalar",
    "Tuple",
    "TypeStringError",
    "parse_type",
    "type_from_data",
]

#: Scalar type names (``none``: a function returning nothing; never a parameter).
SCALAR_NAMES = ("f64", "f32", "i64", "i32", "bool", "none")

#: Element types of arrays.
DTYPES = ("f64", "f32", "i64", "i32", "bool")

#: NumPy dtype name of each array element type.
NUMPY_DTYPES: dict[str, str] = {
    "f64": "float64",
    "f32": "float32",
    "i64": "int64",
    "i32": "int32",
    "bool": "bool",
}

_LAYOUTS = ("A", "C", "F")


class TypeStringError(ArtifactError, ValueError):
    """A string (or structured value) is not a gradc ABI type."""


class Record:
    """An immutable record of the fields named by ``_fields`` (in order): compared and
    hashed by them, printed as ``Name(field=value, ...)``, refusing assignment
    (``AttributeError``), pickled and copied by them (``__init__`` takes them in order) —
    what ``@dataclass(frozen=True, slots=True)`` gave, without
    importing ``dataclasses`` when a process loads an artifact (issue 13: start-up)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return type(self), self._values()  # pickle and copy: the fields, in order

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


class AbiType:
    """Base of the ABI types; immutable, compared structurally, printed canonically."""

    @property
    def holds_arrays(self) -> bool:
        """Whether the type is or contains an array."""
        raise NotImplementedError

    def to_data(self) -> dict[str, Any]:
        """The structured form written into the manifest (``{"kind": ..., ...}``)."""
        raise NotImplementedError


class Scalar(Record, AbiType):
    """A scalar passed by value: ``name`` in :data:`SCALAR_NAMES`."""

    __slots__ = ("name",)
    _fields = __slots__
    name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)

    def __str__(self) -> str:
        return self.name

    @property
    def holds_arrays(self) -> bool:
        return False

    def to_data(self) -> dict[str, Any]:
        return {"kind": "scalar", "name": self.name}


class Array(Record, AbiType):
    """An array passed as a descriptor (docs/abi.md "Arrays").

    Attributes:
        dtype: element type, in :data:`DTYPES`.
        ndim: rank, >= 1.
        layout: ``"A"`` any strides, ``"C"`` C-contiguous, ``"F"`` Fortran-contiguous.
    """

    __slots__ = ("dtype", "layout", "ndim")
    _fields = ("dtype", "ndim", "layout")
    dtype: str
    ndim: int
    layout: str

    def __init__(self, dtype: str, ndim: int, layout: str = "A") -> None:
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "ndim", ndim)
        object.__setattr__(self, "layout", layout)

    def __str__(self) -> str:
        axes = [":"] * self.ndim
        if self.layout == "C":
            axes[-1] = "::1"
        elif self.layout == "F":
            axes[0] = "::1"
        return f"{self.dtype}[{', '.join(axes)}]"

    @property
    def holds_arrays(self) -> bool:
        return True

    @property
    def numpy_dtype(self) -> str:
        """The NumPy dtype name of the elements (``"float64"``)."""
        return NUMPY_DTYPES[self.dtype]

    def to_data(self) -> dict[str, Any]:
        return {"kind": "array", "dtype": self.dtype, "ndim": self.ndim, "layout": self.layout}


class Tuple(Record, AbiType):
    """A tuple: a C struct of its elements in order, with natural alignment."""

    __slots__ = ("elements",)
    _fields = __slots__
    elements: tuple[AbiType, ...]

    def __init__(self, elements: tuple[AbiType, ...]) -> None:
        object.__setattr__(self, "elements", elements)

    def __str__(self) -> str:
        return "tuple[" + ",".join(str(e) for e in self.elements) + "]"

    @property
    def holds_arrays(self) -> bool:
        return any(e.holds_arrays for e in self.elements)

    def to_data(self) -> dict[str, Any]:
        return {"kind": "tuple", "elements": [e.to_data() for e in self.elements]}


def parse_type(text: str, where: str = "a manifest signature") -> AbiType:
    """The :class:`AbiType` of a type string (see the module docstring for the syntax).

    Raises:
        TypeStringError: ``text`` is not a gradc ABI type; the message names it and
            ``where`` it was found.
    """
    parser = _Parser(text)
    try:
        t = parser.type()
        parser.skip()
        if parser.pos != len(text):
            raise ValueError
    except ValueError:
        raise TypeStringError(f"unknown gradc type {text!r} in {where}") from None
    return t


class _Parser:
    """Recursive descent over one type string; raises ValueError on anything else."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, token: str) -> bool:
        self.skip()
        return self.text.startswith(token, self.pos)

    def expect(self, token: str) -> None:
        if not self.peek(token):
            raise ValueError
        self.pos += len(token)

    def word(self) -> str:
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] == "_"
        ):
            self.pos += 1
        return self.text[start : self.pos]

    def type(self) -> AbiType:
        word = self.word()
        if word == "tuple":
            return self.tuple()
        if word == "array":
            return self.legacy_array()
        if word in DTYPES and self.peek("["):
            return self.array(word)
        if word in SCALAR_NAMES:
            return Scalar(word)
        raise ValueError

    def tuple(self) -> Tuple:
        self.expect("[")
        elements: list[AbiType] = []
        while not self.peek("]"):
            if elements:
                self.expect(",")
            elements.append(self.type())
        self.expect("]")
        return Tuple(tuple(elements))

    def array(self, dtype: str) -> Array:
        """``dtype[axis, ...]`` with each axis ``:`` or ``::1``."""
        self.expect("[")
        unit: list[bool] = []
        while not self.peek("]"):
            if unit:
                self.expect(",")
            if self.peek("::1"):
                self.expect("::1")
                unit.append(True)
            else:
                self.expect(":")
                unit.append(False)
        self.expect("]")
        ndim = len(unit)
        if ndim == 0:
            raise ValueError
        if not any(unit):
            return Array(dtype, ndim, "A")
        if unit[-1] and not any(unit[:-1]):
            return Array(dtype, ndim, "C")
        if unit[0] and not any(unit[1:]):
            return Array(dtype, ndim, "F")
        raise ValueError

    def legacy_array(self) -> Array:
        """``array[dtype,ndim,layout]`` (manifests before 1.1)."""
        self.expect("[")
        dtype = self.word()
        self.expect(",")
        ndim = self.word()
        self.expect(",")
        layout = self.word()
        self.expect("]")
        if dtype not in DTYPES or not ndim.isdigit() or int(ndim) < 1 or layout not in _LAYOUTS:
            raise ValueError
        return Array(dtype, int(ndim), layout)


def type_from_data(data: object) -> AbiType:
    """The :class:`AbiType` of its structured form (:meth:`AbiType.to_data`).

    Raises:
        TypeStringError: ``data`` is not the structured form of an ABI type.
    """
    m: dict[str, Any] = data if isinstance(data, dict) else {}
    kind = m.get("kind")
    if kind == "scalar" and m.get("name") in SCALAR_NAMES:
        return Scalar(str(m["name"]))
    if kind == "array":
        dtype, ndim, layout = m.get("dtype"), m.get("ndim"), m.get("layout")
        if dtype in DTYPES and type(ndim) is int and ndim >= 1 and layout in _LAYOUTS:
            return Array(str(dtype), ndim, str(layout))
    if kind == "tuple" and isinstance(m.get("elements"), list):
        return Tuple(tuple(type_from_data(e) for e in m["elements"]))
    raise TypeStringError(f"not a structured gradc type: {data!r}")
