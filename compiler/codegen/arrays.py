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

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import BLOCK_HEADER_BYTES as HEADER_BYTES
from gradc.artifacts.abi.layout import INDEX_ERROR_TEMPLATE, TEMPLATE_FLAG
from gradc.artifacts.abi.symbols import RUNTIME_ALLOC, RUNTIME_DECREF, RUNTIME_INCREF, RUNTIME_LIVE
from gradc.compiler.diagnostics import InternalCompilerError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.types import I1, ArrayType, PointerType, ScalarType, TupleType, Type

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower import _FunctionLowering

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
]

#: TBAA kind of element loads and stores (``_ModuleLowering.tbaa``): array data never
#: overlaps the tape's header or buffer, so LLVM keeps tape state in registers across
#: element accesses.
DATA_TBAA = "array data"

_NEGATIVE_DIMENSIONS = "negative dimensions are not allowed"
_TOO_BIG = (
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."
)
_OUT_OF_MEMORY = "out of memory"

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()

#: Largest ``nbytes`` accepted: the block (header + data) must fit in ``int64_t``.
_MAX_NBYTES = (1 << 63) - 1 - HEADER_BYTES


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


# descriptor field indices
_DATA, _MEMINFO, _SHAPE, _STRIDES = 0, 1, 2, 3


# ---------------------------------------------------------------------------------
# operations


class ArrayLowering:
    """Lowers the array operations of one function, on behalf of its function lowering.

    Args:
        fl: the function's lowering state (builder, values, error exits, declarations).
    """

    def __init__(self, fl: _FunctionLowering) -> None:
        self.fl = fl
        # one IndexError exit per raise site: phis collect (index, axis, size)
        self._index_errors: dict[int, tuple[ll.Block, ll.PhiInstr, ll.PhiInstr, ll.PhiInstr]] = {}

    @property
    def b(self) -> ll.IRBuilder:
        return self.fl.b

    def lower(self, inst: Instruction) -> ll.Value | None:
        """Lower one array operation; returns its value (None for stores and refcounts)."""
        match inst:
            case ops.ArrayDim():
                return self._dim(inst)
            case ops.ElementAddr():
                return self._elemaddr(inst)
            case ops.ElementOffset():
                return self._elemoffset(inst)
            case ops.Addr():
                return self._addr(inst)
            case ops.ArrayAddress():
                self._array_type(inst.array.type)
                return self.b.ptrtoint(self._field(self.fl.value(inst.array), _DATA), _I64)
            case ops.PointerAdd():
                return self._ptradd(inst)
            case ops.Load():
                return self._load(inst)
            case ops.Store():
                self._store(inst)
                return None
            case ops.NewArray():
                return self._newarray(inst)
            case ops.CopyArray():
                return self._copyarray(inst)
            case ops.AccumulateArray():
                self._accumulate(inst)
                return None
            case ops.IncRef():
                self._refcount(inst, RUNTIME_INCREF)
                return None
            case ops.DecRef():
                self._refcount(inst, RUNTIME_DECREF)
                return None
        raise self.fl.ice(f"no array lowering for operation {inst.OPNAME!r}")

    # -- helpers ----------------------------------------------------------------------

    def _array_type(self, t: object) -> ArrayType:
        if not isinstance(t, ArrayType):
            raise self.fl.ice(f"expected an array operand, got {t}")
        return t

    def _field(self, desc: ll.Value, field: int, axis: int | None = None) -> ll.Value:
        idx = [field] if axis is None else [field, axis]
        return self.b.extract_value(desc, idx)

    def _i64(self, v: ll.Value, t: ScalarType) -> ll.Value:
        """An integer index as ``i64`` (inference gives ``i64``; bools zero-extend)."""
        if t.is_float:
            raise self.fl.ice(f"array index of type {t}")
        if t.bits == 64:
            return v
        return self.b.zext(v, _I64) if t == I1 else self.b.sext(v, _I64)

    def _block(self, label: str) -> ll.Block:
        return self.fl.llfn.append_basic_block(label)

    def _runtime(self, name: str) -> ll.Function:
        if name == RUNTIME_ALLOC:
            fn = self.fl.ml.declare(name, _I8P, [_I64], readnone=False)
            fn.return_value.add_attribute("noalias")
        else:
            fn = self.fl.ml.declare(name, ll.VoidType(), [_I8P], readnone=False)
        return fn

    def _memset(self, dst: ll.Value, nbytes: ll.Value) -> None:
        fn = self.fl.ml.llmod.declare_intrinsic("llvm.memset", [_I8P, _I64])
        self.b.call(fn, [dst, ll.Constant(_I8, 0), nbytes, ll.Constant(_I1, 0)])

    def _memcpy(self, dst: ll.Value, src: ll.Value, nbytes: ll.Value) -> None:
        fn = self.fl.ml.llmod.declare_intrinsic("llvm.memcpy", [_I8P, _I8P, _I64])
        self.b.call(fn, [dst, src, nbytes, ll.Constant(_I1, 0)])

    # -- dim, elemaddr, load, store -----------------------------------------------------

    def _dim(self, inst: ops.ArrayDim) -> ll.Value:
        at = self._array_type(inst.array.type)
        if not 0 <= inst.axis < at.ndim:
            raise self.fl.ice(f"dim axis {inst.axis} of a rank-{at.ndim} array")
        return self._field(self.fl.value(inst.array), _SHAPE, inst.axis)

    def _index_error_exit(self) -> tuple[ll.Block, ll.PhiInstr, ll.PhiInstr, ll.PhiInstr]:
        """The function's IndexError exit for the current raise site (created once)."""
        site = self.fl.site()
        exit_ = self._index_errors.get(site)
        if exit_ is None:
            block = self._block("raise.IndexError")
            eb = ll.IRBuilder(block)
            index = eb.phi(_I64, "oob.index")
            axis = eb.phi(_I64, "oob.axis")
            size = eb.phi(_I64, "oob.size")
            self.fl.fill_error(eb, "IndexError", INDEX_ERROR_TEMPLATE, data=(index, axis, size))
            exit_ = (block, index, axis, size)
            self._index_errors[site] = exit_
        return exit_

    def _elemaddr(self, inst: ops.ElementAddr) -> ll.Value:
        at = self._array_type(inst.array.type)
        pt = self._check_pointer_type(inst, at)
        desc = self.fl.value(inst.array)
        offset = self._element_offset(desc, at, inst.indices, check=self.fl.ml.options.boundscheck)
        base = self.b.bitcast(self._field(desc, _DATA), pointer_type(pt))
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
            i = self._i64(self.fl.value(index), index.type)
            n = self._field(desc, _SHAPE, axis)
            j = b.select(b.icmp_signed("<", i, zero), b.add(i, n), i, name=f"idx{axis}")
            if check:
                # unsigned: a still-negative j is huge, so one compare checks both ends
                oob = b.icmp_unsigned(">=", j, n, name=f"oob{axis}")
                block, p_index, p_axis, p_size = self._index_error_exit()
                ok = self._block(self.fl.continuation())
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

    def _elemoffset(self, inst: ops.ElementOffset) -> ll.Value:
        """The byte offset of ``elemaddr`` without its check: ``element offset << log2``."""
        at = self._array_type(inst.array.type)
        offset = self._element_offset(self.fl.value(inst.array), at, inst.indices, check=False)
        shift = itemsize(at.dtype).bit_length() - 1
        if shift == 0:
            return offset
        return self.b.shl(offset, ll.Constant(_I64, shift), flags=["nsw"])

    def _addr(self, inst: ops.Addr) -> ll.Value:
        """``data + offset`` bytes, as a typed pointer."""
        at = self._array_type(inst.array.type)
        pt = self._check_pointer_type(inst, at)
        data = self._field(self.fl.value(inst.array), _DATA)
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
        stride = self._field(desc, _STRIDES, axis)
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

    # -- allocation ---------------------------------------------------------------------

    def _allocate(
        self, at: ArrayType, shape: Sequence[ll.Value], *, check_negative: bool
    ) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
        """A new owned C-contiguous block of ``shape``.

        Returns ``(descriptor, data pointer, nbytes, element count)``. Raises
        ValueError for negative dimensions (when ``check_negative``), MemoryError when
        the size overflows or the runtime returns NULL.
        """
        b = self.b
        zero = ll.Constant(_I64, 0)
        one = ll.Constant(_I64, 1)
        size = itemsize(at.dtype)
        if check_negative:
            negative = [b.icmp_signed("<", s, zero) for s in shape]
            self.fl.raise_if(self.fl.any_of(negative), "ValueError", _NEGATIVE_DIMENSIONS)
        nbytes: ll.Value = ll.Constant(_I64, size)
        count: ll.Value = one
        overflows: list[ll.Value] = []
        for s in shape:  # NumPy's order: itemsize * shape[0] * shape[1] * ...
            pair = b.umul_with_overflow(nbytes, s)
            nbytes = b.extract_value(pair, 0)
            overflows.append(b.extract_value(pair, 1))
            count = b.mul(count, s)
        overflows.append(b.icmp_unsigned(">", nbytes, ll.Constant(_I64, _MAX_NBYTES)))
        self.fl.raise_if(self.fl.any_of(overflows), "MemoryError", _TOO_BIG)
        meminfo = b.call(self._runtime(RUNTIME_ALLOC), [nbytes], name="meminfo")
        is_null = b.icmp_unsigned("==", meminfo, ll.Constant(_I8P, None))
        self.fl.raise_if(is_null, "MemoryError", _OUT_OF_MEMORY)
        data = b.gep(meminfo, [ll.Constant(_I64, HEADER_BYTES)], inbounds=True, name="data")
        return self._c_descriptor(at, shape, data, meminfo, count), data, nbytes, count

    def _c_descriptor(
        self,
        at: ArrayType,
        shape: Sequence[ll.Value],
        data: ll.Value,
        meminfo: ll.Value,
        count: ll.Value,
    ) -> ll.Value:
        """The descriptor of a C-contiguous array of ``shape`` at ``data``."""
        b = self.b
        zero = ll.Constant(_I64, 0)
        size = itemsize(at.dtype)
        # C order; an empty array has all strides 0, as NumPy 2 gives it
        empty = b.icmp_unsigned("==", count, zero)
        strides: list[ll.Value] = [zero] * at.ndim
        step: ll.Value = ll.Constant(_I64, size)
        for axis in reversed(range(at.ndim)):
            strides[axis] = b.select(empty, zero, step)
            if axis:
                step = b.mul(step, shape[axis])
        desc: ll.Value = ll.Constant(descriptor_type(at), ll.Undefined)
        desc = b.insert_value(desc, data, _DATA)
        desc = b.insert_value(desc, meminfo, _MEMINFO)
        for axis in range(at.ndim):
            desc = b.insert_value(desc, shape[axis], [_SHAPE, axis])
            desc = b.insert_value(desc, strides[axis], [_STRIDES, axis])
        return desc

    def _stack_allocate(
        self, inst: ops.NewArray, at: ArrayType
    ) -> tuple[ll.Value, ll.Value, ll.Value, ll.Value]:
        """Frame memory for a ``newarray {on_stack}`` (constant shape; an ``alloca`` in the prologue,
        so LLVM sizes the frame statically); ``meminfo`` is NULL: no reference count."""
        b = self.b
        dims = []
        for d in inst.shape:
            if not isinstance(d, ops.Const) or type(d.value) is not int or d.value < 0:
                raise self.fl.ice(f"on-stack newarray dimension {d!r} is not a non-negative const")
            dims.append(d.value)
        count = 1
        for n in dims:
            count *= n
        nbytes = count * itemsize(at.dtype)
        slot = self.fl.prologue.alloca(ll.ArrayType(_I8, max(nbytes, 1)), name="stack")
        slot.align = HEADER_BYTES
        data = b.bitcast(slot, _I8P, name="data")
        shape = [ll.Constant(_I64, n) for n in dims]
        count_v = ll.Constant(_I64, count)
        desc = self._c_descriptor(at, shape, data, ll.Constant(_I8P, None), count_v)
        return desc, data, ll.Constant(_I64, nbytes), count_v

    def _newarray(self, inst: ops.NewArray) -> ll.Value:
        b = self.b
        at = self._array_type(inst.type)
        if len(inst.shape) != at.ndim:
            raise self.fl.ice(f"newarray with {len(inst.shape)} sizes for {at}")
        shape = []
        for s in inst.shape:
            if not isinstance(s.type, ScalarType):
                raise self.fl.ice(f"array size of type {s.type}")
            shape.append(self._i64(self.fl.value(s), s.type))
        if inst.on_stack:
            desc, data, nbytes, count = self._stack_allocate(inst, at)
        else:
            desc, data, nbytes, count = self._allocate(at, shape, check_negative=True)
        fill = inst.fill
        if fill is None:
            return desc
        if fill.type != at.dtype:
            raise self.fl.ice(f"newarray of {at} filled with {fill.type}")
        if _is_zero_bits(fill):
            self._memset(data, nbytes)
            return desc
        value = self.fl.value(fill)
        if at.dtype == I1:
            value = b.zext(value, _I8)
        elem = b.bitcast(data, memory_type(at.dtype).as_pointer())
        pre = b.block
        loop = self._block("fill.loop")
        done = self._block("fill.done")
        b.cbranch(b.icmp_unsigned("==", count, ll.Constant(_I64, 0)), done, loop)
        b.position_at_end(loop)
        i = b.phi(_I64, "fill.i")
        b.store(value, b.gep(elem, [i], inbounds=True), align=alignment(at.dtype))
        nxt = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
        i.add_incoming(ll.Constant(_I64, 0), pre)
        i.add_incoming(nxt, loop)
        b.cbranch(b.icmp_unsigned("<", nxt, count), loop, done)
        b.position_at_end(done)
        return desc

    def _copyarray(self, inst: ops.CopyArray) -> ll.Value:
        """A C-ordered owned copy: ``memcpy`` when the source is C-contiguous, else loops.

        Contiguity is decided at run time with NumPy's rule: every axis of length > 1
        has the stride of the C layout (axes of length 1 may have any stride), or the
        array is empty.
        """
        b = self.b
        src_type = self._array_type(inst.array.type)
        at = self._array_type(inst.type)
        if (src_type.dtype, src_type.ndim) != (at.dtype, at.ndim):
            raise self.fl.ice(f"copyarray of {src_type} typed {at}")
        src = self.fl.value(inst.array)
        shape = [self._field(src, _SHAPE, k) for k in range(at.ndim)]
        strides = [self._field(src, _STRIDES, k) for k in range(at.ndim)]
        desc, data, nbytes, count = self._allocate(at, shape, check_negative=False)
        src_data = self._field(src, _DATA)
        one = ll.Constant(_I64, 1)
        contiguous: ll.Value | None = None
        if src_type.layout != "C":
            conds = [b.icmp_unsigned("==", count, ll.Constant(_I64, 0))]
            expected: ll.Value = ll.Constant(_I64, itemsize(at.dtype))
            axis_ok = []
            for k in reversed(range(at.ndim)):
                axis_ok.append(
                    b.or_(
                        b.icmp_signed("==", shape[k], one),
                        b.icmp_signed("==", strides[k], expected),
                    )
                )
                if k:
                    expected = b.mul(expected, shape[k])
            conds.append(self.fl.all_of(axis_ok))
            contiguous = self.fl.any_of(conds)
        done = self._block("copy.done")
        if contiguous is None:  # statically C-contiguous
            self._memcpy(data, src_data, nbytes)
            b.branch(done)
        else:
            fast = self._block("copy.memcpy")
            slow = self._block("copy.strided")
            b.cbranch(contiguous, fast, slow)
            b.position_at_end(fast)
            self._memcpy(data, src_data, nbytes)
            b.branch(done)
            b.position_at_end(slow)
            # not contiguous implies not empty: every axis has length >= 1 (do-while loops)
            dst = b.bitcast(data, memory_type(at.dtype).as_pointer())
            self._copy_loops(at.dtype, 0, shape, strides, src_data, ll.Constant(_I64, 0), dst)
            b.branch(done)
        b.position_at_end(done)
        return desc

    def _copy_loops(
        self,
        dtype: ScalarType,
        axis: int,
        shape: Sequence[ll.Value],
        strides: Sequence[ll.Value],
        src: ll.Value,
        dst_index: ll.Value,
        dst: ll.Value,
    ) -> ll.Value:
        """Copy axis ``axis`` onwards from ``src`` (i8*) to ``dst[dst_index...]``.

        Emits one do-while loop per axis (all lengths are >= 1 here), leaves the builder
        after the loop and returns the next destination index.
        """
        b = self.b
        pre = b.block
        body = self._block(f"copy.axis{axis}")
        b.branch(body)
        b.position_at_end(body)
        i = b.phi(_I64, f"copy.i{axis}")
        p = b.phi(_I8P, f"copy.src{axis}")
        d = b.phi(_I64, f"copy.dst{axis}")
        if axis == len(shape) - 1:
            elem_ptr = memory_type(dtype).as_pointer()
            v = b.load(b.bitcast(p, elem_ptr), align=alignment(dtype))
            b.store(v, b.gep(dst, [d], inbounds=True), align=alignment(dtype))
            d_next = b.add(d, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
        else:
            d_next = self._copy_loops(dtype, axis + 1, shape, strides, p, d, dst)
        latch = b.block
        i_next = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
        p_next = b.gep(p, [strides[axis]])
        i.add_incoming(ll.Constant(_I64, 0), pre)
        i.add_incoming(i_next, latch)
        p.add_incoming(src, pre)
        p.add_incoming(p_next, latch)
        d.add_incoming(dst_index, pre)
        d.add_incoming(d_next, latch)
        after = self._block(f"copy.axis{axis}.done")
        b.cbranch(b.icmp_unsigned("<", i_next, shape[axis]), body, after)
        b.position_at_end(after)
        return d_next

    def _accumulate(self, inst: ops.AccumulateArray) -> None:
        """``target += source`` elementwise (same shape, any strides), in C order."""
        b = self.b
        tt = self._array_type(inst.target.type)
        st = self._array_type(inst.source.type)
        if (tt.dtype, tt.ndim) != (st.dtype, st.ndim) or tt.dtype == I1:
            raise self.fl.ice(f"arrayacc of {st} into {tt}")
        target, source = self.fl.value(inst.target), self.fl.value(inst.source)
        shape = [self._field(target, _SHAPE, k) for k in range(tt.ndim)]
        operands = [
            (self._field(d, _DATA), [self._field(d, _STRIDES, k) for k in range(tt.ndim)])
            for d in (target, source)
        ]
        zero = ll.Constant(_I64, 0)
        empty = self.fl.any_of([b.icmp_signed("<=", n, zero) for n in shape])
        loops = self._block("acc.loops")
        done = self._block("acc.done")
        b.cbranch(empty, done, loops)
        b.position_at_end(loops)
        elem = memory_type(tt.dtype).as_pointer()
        align = alignment(tt.dtype)

        def body(pointers: list[ll.Value]) -> None:
            dst, src = (b.bitcast(p, elem) for p in pointers)
            x, y = b.load(dst, align=align), b.load(src, align=align)
            total = b.fadd(x, y, flags=self.fl.fast) if tt.dtype.is_float else b.add(x, y)
            b.store(total, dst, align=align)

        self._strided_loops("acc", 0, shape, operands, body)
        b.branch(done)
        b.position_at_end(done)

    def _strided_loops(
        self,
        label: str,
        axis: int,
        shape: Sequence[ll.Value],
        operands: Sequence[tuple[ll.Value, Sequence[ll.Value]]],
        body: Callable[[list[ll.Value]], None],
    ) -> None:
        """A C-order loop nest over ``shape`` from ``axis`` on, advancing one ``i8*`` per
        operand ``(start, byte strides)``; ``body`` gets the current pointers.

        Do-while loops: every length must be >= 1 (the caller tests for empty arrays).
        The builder is left after the nest.
        """
        b = self.b
        pre = b.block
        loop = self._block(f"{label}.axis{axis}")
        b.branch(loop)
        b.position_at_end(loop)
        i = b.phi(_I64, f"{label}.i{axis}")
        pointers = [b.phi(_I8P, f"{label}.p{axis}") for _ in operands]
        if axis == len(shape) - 1:
            body(list(pointers))
        else:
            inner = [(p, strides) for p, (_, strides) in zip(pointers, operands)]
            self._strided_loops(label, axis + 1, shape, inner, body)
        latch = b.block
        i_next = b.add(i, ll.Constant(_I64, 1), flags=["nuw", "nsw"])
        i.add_incoming(ll.Constant(_I64, 0), pre)
        i.add_incoming(i_next, latch)
        for p, (start, strides) in zip(pointers, operands):
            p.add_incoming(start, pre)
            p.add_incoming(b.gep(p, [strides[axis]]), latch)
        after = self._block(f"{label}.axis{axis}.done")
        b.cbranch(b.icmp_unsigned("<", i_next, shape[axis]), loop, after)
        b.position_at_end(after)

    # -- reference counts ---------------------------------------------------------------

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
            self.b.call(fn, [self._field(v, _MEMINFO)])
        elif isinstance(t, TupleType):
            for i, et in enumerate(t.elements):
                if _holds_arrays(et):
                    self._refcount_value(self.b.extract_value(v, i), et, fn)


def _holds_arrays(t: Type) -> bool:
    if isinstance(t, ArrayType):
        return True
    return isinstance(t, TupleType) and any(_holds_arrays(e) for e in t.elements)


def _is_zero_bits(v: object) -> bool:
    """True for a constant whose memory representation is all zero bytes (not -0.0)."""
    if not isinstance(v, ops.Const):
        return False
    x = v.value
    if isinstance(x, float):
        return x == 0.0 and math.copysign(1.0, x) > 0.0
    return int(x) == 0
