"""Lowering of array values and operations (docs/abi.md "Arrays").

**Representation.** Inside a lowered function an array value of rank N is its descriptor
*by value*, the LLVM literal struct::

    { i8* data, i8* meminfo, [N x i64] shape, [N x i64] strides }   ; strides in BYTES

so arrays flow through phis, selects, tuples, calls and returns like any other SSA value
(LLVM's SROA keeps the fields in registers). At the C ABI an array *parameter* is a
pointer to such a descriptor (loaded once in the prologue; calls between lowered
functions store the argument into a stack slot and pass its address, which inlining
removes), and an array *result* is the descriptor by value inside ``*out`` (nested in a
tuple result's struct).

A derived pointer (``ptr[T]``, made by ``elemaddr``, ``addr`` or ``ptradd``) is a typed
LLVM pointer to the element's memory type: ``T*`` for numbers, ``i8*`` for ``bool`` (NumPy
stores a bool as one byte, 0 or 1; registers hold ``i1``). ``elemaddr`` computes
``data + Σ idx_k·stride_k`` as a ``getelementptr`` on ``T*`` with strides in elements
(byte stride >> log2 itemsize: arrays are assumed aligned, so on every axis of length > 1
the byte stride is a multiple of the itemsize); ``elemoffset`` is the same sum in bytes
(wrapped, unchecked), ``addr``/``ptradd`` add byte offsets (``phi-decay``'s forms).

**Owned memory.** ``newarray``/``copyarray`` call the runtime (:mod:`.runtime`)::

    meminfo = gradc_rt1_alloc(nbytes)    ; 64-byte header {refcount, nbytes, pad}
    data    = meminfo + 64               ; 64-byte aligned, C-contiguous strides

``incref``/``decref`` call ``gradc_rt1_incref``/``gradc_rt1_decref`` on ``meminfo``
(which do nothing for NULL, i.e. for borrowed arrays); on a tuple, on every array in it.
Artifact objects only *declare* the ``gradc_rt1_*`` functions: their relocations name
them, and the loader resolves them against the runtime library it linked once per
process.

**Alias information.** ``load`` and ``store`` of elements carry the TBAA tag
:data:`DATA_TBAA`, a sibling of the tape's tags: element memory is never the tape's.
Elements of different dtypes share the tag (a bool array and an int8 view may overlap).

**Index errors.** ``elemaddr`` wraps a negative index once (``i + shape[k]``); with
``options.boundscheck`` an index still outside ``[0, shape[k])`` raises IndexError with
the message template ``"index {0} is out of bounds for axis {1} with size {2}"`` and
``err->data = {original index, axis, size, 1}``: ``data[3] == 1`` tells the loader to
format the message with ``message.format(*data[:3])`` (docs/abi.md, "Error record").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import BLOCK_HEADER_BYTES as HEADER_BYTES
from gradc.artifacts.abi.layout import INDEX_ERROR_TEMPLATE, TEMPLATE_FLAG
from gradc.artifacts.abi.symbols import RUNTIME_ALLOC, RUNTIME_DECREF, RUNTIME_INCREF, RUNTIME_LIVE
from gradc.compiler.codegen.dispatch import LOWERING, LowerRule
from gradc.compiler.diagnostics import InternalCompilerError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I1, ArrayType, PointerType, ScalarType, TupleType, Type

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

__all__ = [
    "DATA_TBAA",
    "HEADER_BYTES",
    "INDEX_ERROR_TEMPLATE",
    "RUNTIME_ALLOC",
    "RUNTIME_DECREF",
    "RUNTIME_INCREF",
    "RUNTIME_LIVE",
    "TEMPLATE_FLAG",
    "ArrayLowering",
    "alignment",
    "descriptor_type",
    "itemsize",
    "memory_type",
    "pointer_type",
]

#: TBAA kind of element loads and stores (``_ModuleLowering.tbaa``): array data never
#: overlaps the tape's header or buffer, so LLVM keeps tape state in registers across
#: element accesses.
DATA_TBAA = "array data"


_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()


# ---------------------------------------------------------------------------------
# types


def memory_type(dtype: ScalarType) -> ll.Type:
    """The LLVM type of one element in memory (``bool`` is one byte: ``i8``)."""
    if dtype.is_float:
        return ll.DoubleType() if dtype.bits == 64 else ll.FloatType()
    if dtype == I1:
        return _I8
    return ll.IntType(dtype.bits)


def itemsize(dtype: ScalarType) -> int:
    """Bytes per element, as NumPy's ``dtype.itemsize`` (``bool``: 1)."""
    return max(1, dtype.bits // 8)


def alignment(dtype: ScalarType) -> int:
    """Alignment assumed for element loads and stores (the natural one: the itemsize)."""
    return itemsize(dtype)


def descriptor_type(t: ArrayType) -> ll.LiteralStructType:
    """``{i8* data, i8* meminfo, [N x i64] shape, [N x i64] strides}`` for rank N."""
    if t.ndim < 1:
        raise InternalCompilerError(f"codegen: array type {t} of rank < 1")
    dims = ll.ArrayType(_I64, t.ndim)
    return ll.LiteralStructType([_I8P, _I8P, dims, dims])


def pointer_type(t: PointerType) -> ll.PointerType:
    """The LLVM type of a derived pointer: a pointer to the element's memory type."""
    return memory_type(t.pointee).as_pointer()


#: Field indices of an array descriptor (:func:`descriptor_type`).
DATA, MEMINFO, SHAPE, STRIDES = 0, 1, 2, 3


# ---------------------------------------------------------------------------------
# operations


class ArrayLowering:
    """Lowers the array operations of one function, on behalf of its function lowering.

    Args:
        fl: the function's lowering state (builder, values, error exits, declarations).
    """

    def __init__(self, fl: FunctionLowering) -> None:
        self.fl = fl
        # one IndexError exit per raise site: phis collect (index, axis, size)
        self._index_errors: dict[int, tuple[ll.Block, ll.PhiInstr, ll.PhiInstr, ll.PhiInstr]] = {}

    @property
    def b(self) -> ll.IRBuilder:
        return self.fl.b

    # -- helpers ----------------------------------------------------------------------

    def array_type(self, t: object) -> ArrayType:
        """``t``, which must be an array type (an internal error otherwise)."""
        if not isinstance(t, ArrayType):
            raise self.fl.ice(f"expected an array operand, got {t}")
        return t

    def field(self, desc: ll.Value, field: int, axis: int | None = None) -> ll.Value:
        """Field ``field`` (:data:`DATA`, :data:`SHAPE`...) of descriptor ``desc``, at
        ``axis`` for the shape and strides."""
        idx = [field] if axis is None else [field, axis]
        return self.b.extract_value(desc, idx)

    def i64(self, v: ll.Value, t: ScalarType) -> ll.Value:
        """An integer index as ``i64`` (inference gives ``i64``; bools zero-extend)."""
        if t.is_float:
            raise self.fl.ice(f"array index of type {t}")
        if t.bits == 64:
            return v
        return self.b.zext(v, _I64) if t == I1 else self.b.sext(v, _I64)

    def block(self, label: str) -> ll.Block:
        """A new LLVM block of the function."""
        return self.fl.llfn.append_basic_block(label)

    def _runtime(self, name: str) -> ll.Function:
        if name == RUNTIME_ALLOC:
            fn = self.fl.ml.declare(name, _I8P, [_I64], readnone=False)
            fn.return_value.add_attribute("noalias")
        else:
            fn = self.fl.ml.declare(name, ll.VoidType(), [_I8P], readnone=False)
        return fn

    def memset(self, dst: ll.Value, nbytes: ll.Value) -> None:
        """Zero ``nbytes`` bytes at ``dst`` (``i8*``)."""
        fn = self.fl.ml.llmod.declare_intrinsic("llvm.memset", [_I8P, _I64])
        self.b.call(fn, [dst, ll.Constant(_I8, 0), nbytes, ll.Constant(_I1, 0)])

    def memcpy(self, dst: ll.Value, src: ll.Value, nbytes: ll.Value) -> None:
        """Copy ``nbytes`` bytes from ``src`` to ``dst`` (``i8*``, not overlapping)."""
        fn = self.fl.ml.llmod.declare_intrinsic("llvm.memcpy", [_I8P, _I8P, _I64])
        self.b.call(fn, [dst, src, nbytes, ll.Constant(_I1, 0)])

    # -- dim, elemaddr, load, store -----------------------------------------------------

    def _dim(self, inst: ops.ArrayDim) -> ll.Value:
        at = self.array_type(inst.array.type)
        if not 0 <= inst.axis < at.ndim:
            raise self.fl.ice(f"dim axis {inst.axis} of a rank-{at.ndim} array")
        return self.field(self.fl.value(inst.array), SHAPE, inst.axis)

    def _dataaddr(self, inst: ops.ArrayAddress) -> ll.Value:
        self.array_type(inst.array.type)
        return self.b.ptrtoint(self.field(self.fl.value(inst.array), DATA), _I64)

    def _index_error_exit(self) -> tuple[ll.Block, ll.PhiInstr, ll.PhiInstr, ll.PhiInstr]:
        """The function's IndexError exit for the current raise site (created once)."""
        site = self.fl.site()
        exit_ = self._index_errors.get(site)
        if exit_ is None:
            block = self.block("raise.IndexError")
            eb = ll.IRBuilder(block)
            index = eb.phi(_I64, "oob.index")
            axis = eb.phi(_I64, "oob.axis")
            size = eb.phi(_I64, "oob.size")
            self.fl.fill_error(eb, "IndexError", INDEX_ERROR_TEMPLATE, data=(index, axis, size))
            exit_ = (block, index, axis, size)
            self._index_errors[site] = exit_
        return exit_

    def _elemaddr(self, inst: ops.ElementAddr) -> ll.Value:
        at = self.array_type(inst.array.type)
        pt = self._check_pointer_type(inst, at)
        desc = self.fl.value(inst.array)
        if inst.in_range:  # lower-arrays' own loops: no wrap, no check
            offset = self._in_range_offset(desc, at, inst.indices)
        else:
            check = self.fl.ml.options.boundscheck
            offset = self._element_offset(desc, at, inst.indices, check=check)
        base = self.b.bitcast(self.field(desc, DATA), pointer_type(pt))
        return self.b.gep(base, [offset], inbounds=True)

    def _check_pointer_type(self, inst: Instruction, at: ArrayType) -> PointerType:
        if not isinstance(inst.type, PointerType) or inst.type.pointee != at.dtype:
            raise self.fl.ice(f"{inst.OPNAME} into {at} typed {inst.type}")
        return inst.type

    def _element_offset(
        self, desc: ll.Value, at: ArrayType, indices: Sequence[Value], *, check: bool
    ) -> ll.Value:
        """``Σ idx_k · stride_k`` in elements (see :meth:`_element_stride`).

        Each index is wrapped once (``i < 0 → i + shape[k]``); with ``check``, an index
        still outside ``[0, shape[k])`` leaves through the IndexError exit.
        """
        b = self.b
        if len(indices) != at.ndim:
            raise self.fl.ice(f"{len(indices)} indices into a rank-{at.ndim} array")
        zero = ll.Constant(_I64, 0)
        offset: ll.Value = zero
        for axis, index in enumerate(indices):
            if not isinstance(index.type, ScalarType):
                raise self.fl.ice(f"array index of type {index.type}")
            i = self.i64(self.fl.value(index), index.type)
            n = self.field(desc, SHAPE, axis)
            j = b.select(b.icmp_signed("<", i, zero), b.add(i, n), i, name=f"idx{axis}")
            if check:
                # unsigned: a still-negative j is huge, so one compare checks both ends
                oob = b.icmp_unsigned(">=", j, n, name=f"oob{axis}")
                block, p_index, p_axis, p_size = self._index_error_exit()
                ok = self.block(self.fl.continuation())
                exit_ = self.fl.unwind_to(block)  # releases held arrays first, if any
                b.cbranch(oob, exit_, ok).set_weights([1, 1 << 20])
                p_index.add_incoming(i, exit_ if exit_ is not block else b.block)
                p_axis.add_incoming(
                    ll.Constant(_I64, axis), exit_ if exit_ is not block else b.block
                )
                p_size.add_incoming(n, exit_ if exit_ is not block else b.block)
                b.position_at_end(ok)
            term = b.mul(j, self._element_stride(desc, at, axis), flags=["nsw"])
            offset = term if offset is zero else b.add(offset, term, flags=["nsw"])
        return offset

    def _in_range_offset(self, desc: ll.Value, at: ArrayType, indices: Sequence[Value]) -> ll.Value:
        """``Σ idx_k · stride_k`` in elements for indices known to be in range."""
        offset: ll.Value | None = None
        for axis, index in enumerate(indices):
            assert isinstance(index.type, ScalarType)
            i = self.i64(self.fl.value(index), index.type)
            term = self.b.mul(i, self._element_stride(desc, at, axis), flags=["nsw"])
            offset = term if offset is None else self.b.add(offset, term, flags=["nsw"])
        return offset if offset is not None else ll.Constant(_I64, 0)

    def _elemoffset(self, inst: ops.ElementOffset) -> ll.Value:
        """The byte offset of ``elemaddr`` without its check: ``element offset << log2``
        (indices not wrapped when ``in_range``)."""
        at = self.array_type(inst.array.type)
        desc = self.fl.value(inst.array)
        if inst.in_range:
            offset = self._in_range_offset(desc, at, inst.indices)
        else:
            offset = self._element_offset(desc, at, inst.indices, check=False)
        shift = itemsize(at.dtype).bit_length() - 1
        if shift == 0:
            return offset
        return self.b.shl(offset, ll.Constant(_I64, shift), flags=["nsw"])

    def _addr(self, inst: ops.Addr) -> ll.Value:
        """``data + offset`` bytes, as a typed pointer."""
        at = self.array_type(inst.array.type)
        pt = self._check_pointer_type(inst, at)
        data = self.field(self.fl.value(inst.array), DATA)
        addr = self.b.gep(data, [self.fl.value(inst.offset)], inbounds=True)
        return self.b.bitcast(addr, pointer_type(pt))

    def _ptradd(self, inst: ops.PointerAdd) -> ll.Value:
        """``pointer + offset`` bytes, as a typed pointer of the same pointee."""
        self._pointee(inst.pointer.type)
        raw = self.b.bitcast(self.fl.value(inst.pointer), _I8P)
        addr = self.b.gep(raw, [self.fl.value(inst.offset)], inbounds=True)
        return self.b.bitcast(addr, self.fl.value(inst.pointer).type)

    def _element_stride(self, desc: ll.Value, at: ArrayType, axis: int) -> ll.Value:
        """The stride of ``axis`` in elements.

        Byte strides are divided by the itemsize (a shift): aligned arrays (NumPy's
        ``flags.aligned``, which the code generator assumes) have strides that are
        multiples of it on every axis of length > 1, and an axis of length 1 only ever
        has index 0. Element strides let LLVM's vectoriser version loops on "stride
        == 1". The contiguous axis of a ``C`` (last) or ``F`` (first) array is 1.
        """
        if (at.layout == "C" and axis == at.ndim - 1) or (at.layout == "F" and axis == 0):
            return ll.Constant(_I64, 1)
        stride = self.field(desc, STRIDES, axis)
        shift = itemsize(at.dtype).bit_length() - 1
        if shift == 0:
            return stride
        return self.b.ashr(stride, ll.Constant(_I64, shift))

    def _pointee(self, v: object) -> ScalarType:
        if not isinstance(v, PointerType):
            raise self.fl.ice(f"expected a derived pointer, got {v}")
        return v.pointee

    def _load(self, inst: ops.Load) -> ll.Value:
        dtype = self._pointee(inst.pointer.type)
        raw = self.b.load(self.fl.value(inst.pointer), align=alignment(dtype))
        raw.set_metadata("tbaa", self.fl.ml.tbaa(DATA_TBAA))
        if dtype == I1:
            return self.b.icmp_unsigned("!=", raw, ll.Constant(_I8, 0))
        return raw

    def _store(self, inst: ops.Store) -> None:
        dtype = self._pointee(inst.pointer.type)
        if inst.value.type != dtype:
            raise self.fl.ice(f"store of {inst.value.type} through ptr[{dtype}]")
        v = self.fl.value(inst.value)
        if dtype == I1:
            v = self.b.zext(v, _I8)
        st = self.b.store(v, self.fl.value(inst.pointer), align=alignment(dtype))
        st.set_metadata("tbaa", self.fl.ml.tbaa(DATA_TBAA))

    # -- reference counts ---------------------------------------------------------------

    def _incref(self, inst: ops.IncRef) -> None:
        self._refcount(inst, RUNTIME_INCREF)

    def _decref(self, inst: ops.DecRef) -> None:
        self._refcount(inst, RUNTIME_DECREF)

    def _refcount(self, inst: ops.IncRef | ops.DecRef, name: str) -> None:
        """Call the runtime on the ``meminfo`` of the array, or of every array inside a
        tuple (``lifetimes`` counts references of tuples that hold arrays)."""
        t = inst.array.type
        if not isinstance(t, (ArrayType, TupleType)):
            raise self.fl.ice(f"{inst.OPNAME} of {t}")
        self._refcount_value(self.fl.value(inst.array), t, self._runtime(name))

    def runtime_function(self, name: str) -> ll.Function:
        """The declaration of runtime function ``name`` (``gradc_rt1_decref``…)."""
        return self._runtime(name)

    def refcount_value(self, v: ll.Value, t: Type, fn: ll.Function) -> None:
        """Call ``fn`` on the meminfo of array ``v`` (or of every array in tuple ``v``)."""
        self._refcount_value(v, t, fn)

    def _refcount_value(self, v: ll.Value, t: Type, fn: ll.Function) -> None:
        if isinstance(t, ArrayType):
            self.b.call(fn, [self.field(v, MEMINFO)])
        elif isinstance(t, TupleType):
            for i, et in enumerate(t.elements):
                if et.contains(ArrayType):
                    self._refcount_value(self.b.extract_value(v, i), et, fn)


# ---------------------------------------------------------------------------------
# rules: the element operations are methods of ArrayLowering (they share its IndexError
# exits); allocation, copies and accumulation are rules of :mod:`.array_alloc`


def _on_arrays(method: Callable[[ArrayLowering, Any], ll.Value | None]) -> LowerRule:
    """The lowering rule running ``method`` of the function's :class:`ArrayLowering`."""

    def rule(fl: FunctionLowering, inst: Instruction) -> ll.Value | None:
        return method(fl.arrays, inst)

    return rule


LOWERING.set([ops.ArrayDim], _on_arrays(ArrayLowering._dim))
LOWERING.set([ops.ElementAddr], _on_arrays(ArrayLowering._elemaddr))
LOWERING.set([ops.ElementOffset], _on_arrays(ArrayLowering._elemoffset))
LOWERING.set([ops.Addr], _on_arrays(ArrayLowering._addr))
LOWERING.set([ops.ArrayAddress], _on_arrays(ArrayLowering._dataaddr))
LOWERING.set([ops.PointerAdd], _on_arrays(ArrayLowering._ptradd))
LOWERING.set([ops.Load], _on_arrays(ArrayLowering._load))
LOWERING.set([ops.Store], _on_arrays(ArrayLowering._store))
LOWERING.set([ops.IncRef], _on_arrays(ArrayLowering._incref))
LOWERING.set([ops.DecRef], _on_arrays(ArrayLowering._decref))
