"""Array operations (docs/abi.md: descriptors, byte strides, reference-counted owned
blocks): shapes, element addresses, loads and stores, allocation and reference counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value


@final
@dataclass(eq=False, slots=True)
class ArrayDim(Instruction):
    """``array.shape[axis]`` as ``i64`` (``axis`` is 0-based and in range)."""

    OPNAME: ClassVar[str] = "dim"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("axis",)
    array: Value
    axis: int


@final
@dataclass(eq=False, slots=True)
class ElementAddr(Instruction):
    """The derived pointer to ``array[indices]`` (one ``i64`` index per axis).

    Python indexing: a negative index counts from the end once. With bounds checks on
    (``CompilerOptions.boundscheck``), an index still outside ``[0, shape[k])`` raises
    IndexError with NumPy's message ("index 5 is out of bounds for axis 0 with size 3").
    The result is a derived pointer whose base is ``array`` (DESIGN.md §2).
    """

    OPNAME: ClassVar[str] = "elemaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    MAY_RAISE: ClassVar[bool] = True
    array: Value
    indices: tuple[Value, ...]


@final
@dataclass(eq=False, slots=True)
class Load(Instruction):
    """Read the scalar a derived pointer points to."""

    OPNAME: ClassVar[str] = "load"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer",)
    pointer: Value


@final
@dataclass(eq=False, slots=True)
class Store(Instruction):
    """Write ``value`` (of the pointee type) where a derived pointer points."""

    OPNAME: ClassVar[str] = "store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "value")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    pointer: Value
    value: Value


@final
@dataclass(eq=False, slots=True)
class NewArray(Instruction):
    """A new C-contiguous array owned by compiled code (reference count 1).

    ``shape`` holds one ``i64`` per axis; the result type gives dtype and rank. ``fill``
    is the initial value of every element (of the dtype), or None for uninitialised
    memory (``np.empty``). Raises ValueError("negative dimensions are not allowed") and
    MemoryError when the allocation fails.

    ``on_stack`` (printed ``{on_stack}``): the array does not outlive its function's
    frame. The ``stack-promote`` pass (passes/gc/stack_promote.py) sets it on a
    ``newarray`` of constant shape whose array provably does not escape; it is lowered
    to stack memory with no reference count (its descriptor's ``meminfo`` is NULL, like
    a borrowed argument's), so ``lifetimes`` treats it as borrowed and it is never
    freed. Every dimension is then a non-negative ``const``: it never raises.
    """

    OPNAME: ClassVar[str] = "newarray"
    OPERANDS: ClassVar[tuple[str, ...]] = ("shape", "fill")
    FLAGS: ClassVar[tuple[str, ...]] = ("on_stack",)
    shape: tuple[Value, ...]
    fill: Value | None = None
    on_stack: bool = False

    @property
    def MAY_RAISE(self) -> bool:  # type: ignore[override]  # the one attribute-dependent trait
        """A heap allocation may raise; a stack one (constant, checked shape) never does."""
        return not self.on_stack


@final
@dataclass(eq=False, slots=True)
class CopyArray(Instruction):
    """A new C-contiguous owned copy of ``array`` (``a.copy()``); MemoryError on failure."""

    OPNAME: ClassVar[str] = "copyarray"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value


@final
@dataclass(eq=False, slots=True)
class AccumulateArray(Instruction):
    """``target += source`` elementwise (same shape; any strides). Derivative code uses
    it to add one shadow array into another (the adjoint of ``a.copy()``)."""

    OPNAME: ClassVar[str] = "arrayacc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("target", "source")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    target: Value
    source: Value


@final
@dataclass(eq=False, slots=True)
class IncRef(Instruction):
    """Add an owner to the array's block (no-op for borrowed arrays); see ``lifetimes``."""

    OPNAME: ClassVar[str] = "incref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value


@final
@dataclass(eq=False, slots=True)
class DecRef(Instruction):
    """Drop an owner of the array's block, freeing it at zero (no-op for borrowed)."""

    OPNAME: ClassVar[str] = "decref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value


@final
@dataclass(eq=False, slots=True)
class ElementOffset(Instruction):
    """The byte offset of ``array[indices]`` from the array's data (no bounds check).

    A negative index counts from the end once, as in :class:`ElementAddr` (the code
    generator wraps it branch-free), but is not checked: ``elemaddr %a, (%i)`` is
    ``addr %a, (elemoffset %a, (%i))`` once the index has been checked; ``phi-decay``
    uses this form to carry (base, offset) pairs.
    """

    OPNAME: ClassVar[str] = "elemoffset"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    array: Value
    indices: tuple[Value, ...]


@final
@dataclass(eq=False, slots=True)
class Addr(Instruction):
    """The derived pointer ``array.data + offset`` (bytes); its base is ``array``."""

    OPNAME: ClassVar[str] = "addr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "offset")
    array: Value
    offset: Value


@final
@dataclass(eq=False, slots=True)
class PointerAdd(Instruction):
    """``pointer + offset`` bytes: a derived pointer with the same base."""

    OPNAME: ClassVar[str] = "ptradd"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "offset")
    pointer: Value
    offset: Value


@final
@dataclass(eq=False, slots=True)
class ArrayAddress(Instruction):
    """The address of ``array[0, ..., 0]`` (the descriptor's ``data``) as an ``i64``.

    Only for comparing where two arrays lie (the overlap checks of derivative exports,
    :mod:`gradc.passes.ad.aliasing`); no pointer is ever made from it (DESIGN.md §2).
    """

    OPNAME: ClassVar[str] = "dataaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    array: Value
