"""Array operations (docs/abi.md: descriptors, byte strides, reference-counted owned
blocks): shapes, element addresses, loads and stores, allocation and reference counts."""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand, holds_array_operand
from gradc.compiler.ir.ops.scalar import Const
from gradc.compiler.ir.types import I64, ArrayType, PointerType


@final
@operation
class ArrayDim(Instruction):
    """``array.shape[axis]`` as ``i64`` (``axis`` is 0-based and in range)."""

    OPNAME: ClassVar[str] = "dim"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    ATTRS: ClassVar[tuple[str, ...]] = ("axis",)
    array: Value
    axis: int

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array operand, ``0 <= axis < ndim``, result ``i64``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if not 0 <= self.axis < t.ndim:
            return f"dim axis {self.axis} out of range for {t}"
        if self.type != I64:
            return f"dim result type is {self.type}, expected i64"
        return None


@final
@operation
class ElementAddr(Instruction):
    """The derived pointer to ``array[indices]`` (one ``i64`` index per axis).

    Python indexing: a negative index counts from the end once. With bounds checks on
    (``CompilerOptions.boundscheck``), an index still outside ``[0, shape[k])`` raises
    IndexError with NumPy's message ("index 5 is out of bounds for axis 0 with size 3").
    The result is a derived pointer whose base is ``array`` (DESIGN.md §2).

    ``in_range`` (printed ``{in_range}``): the indices are known to lie in
    ``[0, shape[k])`` (loops of ``lower-arrays`` over an array's own sizes), so compiled
    code neither wraps nor checks them.
    """

    OPNAME: ClassVar[str] = "elemaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    FLAGS: ClassVar[tuple[str, ...]] = ("in_range",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value
    indices: tuple[Value, ...]
    in_range: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, one ``i64`` index per axis, result ``ptr[dtype]``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if len(self.indices) != t.ndim:
            return f"elemaddr has {len(self.indices)} index(es) for {t}"
        for index in self.indices:
            if index.type != I64:
                return f"elemaddr index {ctx.show(index)} has type {index.type}, expected i64"
        if self.type != PointerType(t.dtype):
            return f"elemaddr result type is {self.type}, expected {PointerType(t.dtype)}"
        return None


@final
@operation
class Load(Instruction):
    """Read the scalar a derived pointer points to."""

    OPNAME: ClassVar[str] = "load"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer",)
    pointer: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A pointer operand, result the pointee type."""
        t = self.pointer.type
        if not isinstance(t, PointerType):
            return f"load from {ctx.show(self.pointer)} of non-pointer type {t}"
        if self.type != t.pointee:
            return f"load result type is {self.type}, expected {t.pointee}"
        return None


@final
@operation
class Store(Instruction):
    """Write ``value`` (of the pointee type) where a derived pointer points."""

    OPNAME: ClassVar[str] = "store"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "value")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    pointer: Value
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The value has the pointee type."""
        t = self.pointer.type
        if not isinstance(t, PointerType):
            return f"store to {ctx.show(self.pointer)} of non-pointer type {t}"
        if self.value.type != t.pointee:
            return f"store of {ctx.show(self.value)}: {self.value.type} through {t}"
        return None


@final
@operation
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

    def verify_(self, ctx: VerifyContext) -> str | None:
        """One ``i64`` per axis of a C-contiguous array result, ``fill`` of the dtype; on
        the stack, every dimension a non-negative ``const``."""
        t = self.type
        if not isinstance(t, ArrayType) or t.layout != "C":
            return f"newarray result type {t} is not a C-contiguous array"
        if len(self.shape) != t.ndim:
            return f"newarray has {len(self.shape)} dimension(s) for {t}"
        for d in self.shape:
            if d.type != I64:
                return f"newarray dimension {ctx.show(d)} has type {d.type}, expected i64"
        if self.fill is not None and self.fill.type != t.dtype:
            return (
                f"newarray fill {ctx.show(self.fill)} has type {self.fill.type}, expected {t.dtype}"
            )
        if self.on_stack:
            for d in self.shape:
                if not isinstance(d, Const) or not isinstance(d.value, int) or d.value < 0:
                    return f"on-stack newarray dimension {ctx.show(d)} is not a non-negative const"
        return None


@final
@operation
class CopyArray(Instruction):
    """A new C-contiguous owned copy of ``array`` (``a.copy()``); MemoryError on failure."""

    OPNAME: ClassVar[str] = "copyarray"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    MAY_RAISE: ClassVar[bool] = True
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The result is the C-contiguous array of the operand's dtype and rank."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        expected = ArrayType(t.dtype, t.ndim, "C")
        if self.type != expected:
            return f"copyarray result type is {self.type}, expected {expected}"
        return None


@final
@operation
class AccumulateArray(Instruction):
    """``target += source`` elementwise (same shape; any strides). Derivative code uses
    it to add one shadow array into another (the adjoint of ``a.copy()``)."""

    OPNAME: ClassVar[str] = "arrayacc"
    OPERANDS: ClassVar[tuple[str, ...]] = ("target", "source")
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    target: Value
    source: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Two arrays of one dtype (a float) and rank."""
        target = array_operand(ctx, self, self.target)
        if isinstance(target, str):
            return target
        source = array_operand(ctx, self, self.source)
        if isinstance(source, str):
            return source
        if (target.dtype, target.ndim) != (source.dtype, source.ndim):
            return f"arrayacc of {source} into {target}: dtype and rank must match"
        if not target.dtype.is_float:
            return f"arrayacc target {target} must hold floats"
        return None


@final
@operation
class IncRef(Instruction):
    """Add an owner to the array's block (no-op for borrowed arrays); see ``lifetimes``."""

    OPNAME: ClassVar[str] = "incref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The operand holds an array (an array, or a tuple with one)."""
        return holds_array_operand(ctx, self, self.array)


@final
@operation
class DecRef(Instruction):
    """Drop an owner of the array's block, freeing it at zero (no-op for borrowed)."""

    OPNAME: ClassVar[str] = "decref"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """The operand holds an array (an array, or a tuple with one)."""
        return holds_array_operand(ctx, self, self.array)


@final
@operation
class ElementOffset(Instruction):
    """The byte offset of ``array[indices]`` from the array's data (no bounds check).

    A negative index counts from the end once, as in :class:`ElementAddr` (the code
    generator wraps it branch-free), but is not checked: ``elemaddr %a, (%i)`` is
    ``addr %a, (elemoffset %a, (%i))`` once the index has been checked; ``phi-decay``
    uses this form to carry (base, offset) pairs.

    ``in_range`` (printed ``{in_range}``): the indices are known to lie in
    ``[0, shape[k])`` (the reverse sweep's indices, wrapped once for an element and its
    shadow and checked by the forward sweep), so compiled code does not wrap them.
    """

    OPNAME: ClassVar[str] = "elemoffset"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "indices")
    FLAGS: ClassVar[tuple[str, ...]] = ("in_range",)
    array: Value
    indices: tuple[Value, ...]
    in_range: bool = False

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array, one ``i64`` index per axis, result ``i64``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if len(self.indices) != t.ndim:
            return f"elemoffset has {len(self.indices)} index(es) for {t}"
        for index in self.indices:
            if index.type != I64:
                return f"elemoffset index {ctx.show(index)} has type {index.type}, expected i64"
        if self.type != I64:
            return f"elemoffset result type is {self.type}, expected i64"
        return None


@final
@operation
class Addr(Instruction):
    """The derived pointer ``array.data + offset`` (bytes); its base is ``array``."""

    OPNAME: ClassVar[str] = "addr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array", "offset")
    array: Value
    offset: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array and an ``i64`` offset, result ``ptr[dtype]``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if self.offset.type != I64:
            return f"addr offset {ctx.show(self.offset)} has type {self.offset.type}, expected i64"
        if self.type != PointerType(t.dtype):
            return f"addr result type is {self.type}, expected {PointerType(t.dtype)}"
        return None


@final
@operation
class PointerAdd(Instruction):
    """``pointer + offset`` bytes: a derived pointer with the same base."""

    OPNAME: ClassVar[str] = "ptradd"
    OPERANDS: ClassVar[tuple[str, ...]] = ("pointer", "offset")
    pointer: Value
    offset: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A pointer and an ``i64`` offset, result the pointer's type."""
        t = self.pointer.type
        if not isinstance(t, PointerType):
            return f"ptradd of {ctx.show(self.pointer)} of non-pointer type {t}"
        if self.offset.type != I64:
            return (
                f"ptradd offset {ctx.show(self.offset)} has type {self.offset.type}, expected i64"
            )
        if self.type != t:
            return f"ptradd result type is {self.type}, expected {t}"
        return None


@final
@operation
class ArrayAddress(Instruction):
    """The address of ``array[0, ..., 0]`` (the descriptor's ``data``) as an ``i64``.

    Only for comparing where two arrays lie (the overlap checks of derivative exports,
    :mod:`gradc.passes.ad.aliasing`); no pointer is ever made from it (DESIGN.md §2).
    """

    OPNAME: ClassVar[str] = "dataaddr"
    OPERANDS: ClassVar[tuple[str, ...]] = ("array",)
    array: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """An array operand, result ``i64``."""
        t = array_operand(ctx, self, self.array)
        if isinstance(t, str):
            return t
        if self.type != I64:
            return f"dataaddr result type is {self.type}, expected i64"
        return None
