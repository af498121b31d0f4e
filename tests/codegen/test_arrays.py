"""Array lowering (docs/abi.md "Arrays"): descriptors, element access, owned blocks.

Hand-built IR is compiled, linked against the session's runtime library and called with
descriptors of real NumPy arrays (any layout: C, F, strided, reversed, transposed).
Results are compared with NumPy; owned results are read back through their descriptors
and released with ``gradc_rt1_decref``, and the runtime's live-block counter checks that
nothing leaks.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Module, Value
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    NONE,
    ArrayType,
    PointerType,
    ScalarType,
    TupleType,
)
from gradc.compiler.options import CompilerOptions

from .conftest import NUMPY_DTYPES, descriptor, to_numpy

DTYPES = [F64, F32, I64, I32, I8, I1]

# -- IR helpers -----------------------------------------------------------------------


def elemaddr(b: Builder, a: Value, *idx: Value) -> Value:
    assert isinstance(a.type, ArrayType)
    return b.insert(ops.ElementAddr(a, tuple(idx), type=PointerType(a.type.dtype)))


def load(b: Builder, p: Value) -> Value:
    assert isinstance(p.type, PointerType)
    return b.insert(ops.Load(p, type=p.type.pointee))


def store(b: Builder, p: Value, v: Value) -> None:
    b.insert(ops.Store(p, v, type=NONE))


def dim(b: Builder, a: Value, axis: int) -> Value:
    return b.insert(ops.ArrayDim(a, axis, type=I64))


def newarray(b: Builder, shape: Sequence[Value], fill: Value | None, t: ArrayType) -> Value:
    return b.insert(ops.NewArray(tuple(shape), fill, type=t))


def copyarray(b: Builder, a: Value) -> Value:
    assert isinstance(a.type, ArrayType)
    return b.insert(ops.CopyArray(a, type=ArrayType(a.type.dtype, a.type.ndim, "C")))


def incref(b: Builder, a: Value) -> None:
    b.insert(ops.IncRef(a, type=NONE))


def decref(b: Builder, a: Value) -> None:
    b.insert(ops.DecRef(a, type=NONE))


def sample(dtype: ScalarType, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Distinct-ish values of ``dtype`` (bools alternate irregularly)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == I1:
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dtype.is_float:
        return rng.normal(size=n).astype(NUMPY_DTYPES[dtype]).reshape(shape)
    return rng.integers(-100, 100, n).astype(NUMPY_DTYPES[dtype]).reshape(shape)


def layouts(base: np.ndarray) -> dict[str, np.ndarray]:
    """Views of one 2-D array in every layout the ABI must handle."""
    return {
        "C": base,
        "F": np.asfortranarray(base),
        "strided": np.ascontiguousarray(np.repeat(np.repeat(base, 2, 0), 3, 1))[::2, ::3],
        "reversed": np.ascontiguousarray(base[::-1, ::-1])[::-1, ::-1],
        "transposed": np.ascontiguousarray(base.T).T,
        "broadcast": np.broadcast_to(base[:1], base.shape),  # stride 0 on axis 0
    }


@pytest.fixture
def no_leaks(codegen: Any) -> Any:
    """Asserts that the test frees every block it allocates."""
    before = codegen.runtime.live
    yield codegen.runtime
    assert codegen.runtime.live == before


# -- reading and writing ------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_read_every_layout(codegen: Any, dtype: ScalarType) -> None:
    m = Module(f"read_{dtype}")
    at = ArrayType(dtype, 2, "A")
    b = codegen.function(m, "get", [("a", at), ("i", I64), ("j", I64)], dtype)
    a, i, j = b.function.params
    b.ret(load(b, elemaddr(b, a, i, j)))
    get = codegen.build(m, ["get"])["get"]
    base = sample(dtype, (3, 5))
    for name, view in layouts(base).items():
        got = [[get(view, r, c) for c in range(5)] for r in range(3)]
        assert got == view.tolist(), name


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_write_every_layout(codegen: Any, dtype: ScalarType) -> None:
    m = Module(f"write_{dtype}")
    at = ArrayType(dtype, 2, "A")
    b = codegen.function(m, "put", [("a", at), ("i", I64), ("j", I64), ("v", dtype)], NONE)
    a, i, j, v = b.function.params
    store(b, elemaddr(b, a, i, j), v)
    b.ret(None)
    put = codegen.build(m, ["put"])["put"]
    values = sample(dtype, (3, 4), seed=1)
    for name, view in layouts(np.zeros((3, 4), NUMPY_DTYPES[dtype])).items():
        if name == "broadcast":
            continue  # read-only
        for r in range(3):
            for c in range(4):
                put(view, r, c, values[r, c].item())
        np.testing.assert_array_equal(view, values, err_msg=name)


def test_bool_store_writes_one_byte_zero_or_one(codegen: Any) -> None:
    m = Module("bool_bytes")
    b = codegen.function(m, "put", [("a", ArrayType(I1, 1, "C")), ("v", I1)], NONE)
    a, v = b.function.params
    store(b, elemaddr(b, a, b.const(1, I64)), v)
    b.ret(None)
    put = codegen.build(m, ["put"])["put"]
    arr = np.zeros(3, np.bool_)
    put(arr, 1)
    assert arr.view(np.uint8).tolist() == [0, 1, 0]
    put(arr, 0)
    assert arr.view(np.uint8).tolist() == [0, 0, 0]


def test_dim_and_rank3(codegen: Any) -> None:
    m = Module("rank3")
    at = ArrayType(F64, 3, "A")
    b = codegen.function(m, "shape", [("a", at)], TupleType((I64, I64, I64)))
    (a,) = b.function.params
    b.ret(b.make_tuple([dim(b, a, 0), dim(b, a, 1), dim(b, a, 2)]))
    b = codegen.function(m, "get", [("a", at), ("i", I64), ("j", I64), ("k", I64)], F64)
    a, i, j, k = b.function.params
    b.ret(load(b, elemaddr(b, a, i, j, k)))
    fns = codegen.build(m, ["shape", "get"])
    arr = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4).transpose(2, 0, 1)[::-1]
    assert fns["shape"](arr) == (4, 2, 3)
    for idx in np.ndindex(*arr.shape):
        assert fns["get"](arr, *idx) == arr[idx]


def test_negative_indices_wrap_once(codegen: Any) -> None:
    m = Module("wrap")
    b = codegen.function(m, "get", [("a", ArrayType(I64, 2, "A")), ("i", I64), ("j", I64)], I64)
    a, i, j = b.function.params
    b.ret(load(b, elemaddr(b, a, i, j)))
    get = codegen.build(m, ["get"])["get"]
    arr = np.arange(12).reshape(3, 4)[:, ::-1]
    for r in range(-3, 3):
        for c in range(-4, 4):
            assert get(arr, r, c) == arr[r, c]


# -- bounds checks ----------------------------------------------------------------------


def _numpy_message(arr: np.ndarray, idx: tuple[int, ...]) -> str:
    with pytest.raises(IndexError) as info:
        arr[idx]
    return str(info.value)


def test_index_error_has_numpy_message_and_data(codegen: Any) -> None:
    m = Module("oob")
    b = codegen.function(m, "get", [("a", ArrayType(F64, 2, "A")), ("i", I64), ("j", I64)], F64)
    a, i, j = b.function.params
    with b.at(Loc("oob.py", 42, 8)):
        p = elemaddr(b, a, i, j)
    b.ret(load(b, p))
    get = codegen.build(m, ["get"])["get"]
    arr = np.zeros((3, 4))
    cases = {(5, 0): (5, 0, 3), (3, 0): (3, 0, 3), (-4, 0): (-4, 0, 3), (0, -5): (-5, 1, 4)}
    cases |= {(1, 4): (4, 1, 4), (9, 9): (9, 0, 3), (-(2**63), 0): (-(2**63), 0, 3)}
    for idx, data in cases.items():
        with pytest.raises(IndexError) as info:
            get(arr, *idx)
        assert info.value.data == (*data, 1)  # type: ignore[attr-defined]
        assert info.value.line == 42  # type: ignore[attr-defined]
        if abs(idx[0]) < 2**62:
            assert str(info.value) == _numpy_message(arr, idx)
    empty = np.zeros((0, 2))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        get(empty, 0, 0)


def test_index_error_raw_record(codegen: Any) -> None:
    """The record itself: kind 5, a constant template, data = (index, axis, size, 1)."""
    m = Module("oob_raw")
    b = codegen.function(m, "get", [("a", ArrayType(I32, 1, "C")), ("i", I64)], I32, line=9)
    a, i = b.function.params
    b.ret(load(b, elemaddr(b, a, i)))
    get = codegen.build(m, ["get"])["get"]
    from .conftest import GradcError

    err = GradcError()
    out = ctypes.c_int32()
    arr = np.arange(7, dtype=np.int32)
    status = get.cfunc(ctypes.byref(descriptor(arr)), -8, ctypes.byref(out), ctypes.byref(err))
    assert (status, err.kind, err.site) == (5, 5, 1)  # the only raise site
    assert get.sites[err.site - 1].line == 9
    assert err.message == b"index {0} is out of bounds for axis {1} with size {2}"
    assert list(err.data) == [-8, 0, 7, 1]


def test_constant_raise_clears_template_flag(codegen: Any) -> None:
    m = Module("plain_raise")
    b = codegen.function(m, "f", [("x", I64)], I64)
    b.raise_("IndexError", "list index {0} out of range")
    get = codegen.build(m, ["f"])["f"]
    from .conftest import GradcError

    err = GradcError()
    err.data[3] = 1  # garbage from the caller must not turn the message into a template
    out = ctypes.c_int64()
    assert get.cfunc(0, ctypes.byref(out), ctypes.byref(err)) == 5
    assert err.message == b"list index {0} out of range"
    assert err.data[3] == 0


def test_boundscheck_off_has_no_checks_but_still_wraps(codegen: Any) -> None:
    m = Module("nocheck")
    b = codegen.function(m, "get", [("a", ArrayType(I64, 1, "A")), ("i", I64)], I64)
    a, i = b.function.params
    b.ret(load(b, elemaddr(b, a, i)))
    options = CompilerOptions(boundscheck=False)
    text = str(lower_export(m, "get", "get", options))
    assert "out of bounds" not in text and "IndexError" not in text
    get = codegen.build(m, ["get"], options)["get"]
    big = np.arange(100, 120)
    view = big[:5]
    assert get(view, 7) == 107  # past the shape, inside the buffer: read, unchecked
    assert get(view, -1) == 104  # the negative wrap still happens
    assert get(big[10:15], -7) == 108  # -7 + 5 = -2: one wrap only


# -- allocation -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_newarray_with_fill(codegen: Any, no_leaks: Any, dtype: ScalarType) -> None:
    m = Module(f"new_{dtype}")
    at = ArrayType(dtype, 2, "C")
    b = codegen.function(m, "full", [("n", I64), ("k", I64), ("v", dtype)], at)
    n, k, v = b.function.params
    b.ret(newarray(b, [n, k], v, at))
    b = codegen.function(m, "zeros", [("n", I64), ("k", I64)], at)
    n, k = b.function.params
    b.ret(newarray(b, [n, k], b.const(False if dtype == I1 else 0, dtype), at))
    fns = codegen.build(m, ["full", "zeros"])
    npdt = NUMPY_DTYPES[dtype]
    fill = sample(dtype, (1,), seed=3)[0].item() if dtype != I1 else True
    for shape in [(3, 5), (1, 1), (0, 4), (4, 0), (7, 1)]:
        desc = fns["full"](*shape, fill)
        expected = np.full(shape, fill, npdt)
        assert tuple(desc.shape) == shape
        assert tuple(desc.strides) == np.empty(shape, npdt).strides
        assert desc.data == desc.meminfo + 64 and desc.data % 64 == 0
        assert no_leaks.refcount(desc.meminfo) == 1
        assert no_leaks.nbytes(desc.meminfo) == expected.nbytes
        np.testing.assert_array_equal(to_numpy(desc, dtype), expected)
        no_leaks.decref(desc.meminfo)
        desc = fns["zeros"](*shape)
        np.testing.assert_array_equal(to_numpy(desc, dtype), np.zeros(shape, npdt))
        no_leaks.decref(desc.meminfo)


def test_zero_fill_uses_memset_but_negative_zero_does_not(codegen: Any) -> None:
    m = Module("memset")
    at = ArrayType(F64, 1, "C")
    for name, value in (("pos", 0.0), ("neg", -0.0)):
        b = codegen.function(m, name, [("n", I64)], at)
        b.ret(newarray(b, [b.function.params[0]], b.const(value, F64), at))
    pos = str(lower_export(m, "pos", "pos", CompilerOptions()))
    neg = str(lower_export(m, "neg", "neg", CompilerOptions()))
    assert "llvm.memset" in pos and "llvm.memset" not in neg
    fns = codegen.build(m, ["pos", "neg"])
    desc = fns["neg"](5)
    out = to_numpy(desc, F64)
    assert out.tolist() == [0.0] * 5 and np.signbit(out).all()
    codegen.runtime.decref(desc.meminfo)
    desc = fns["pos"](5)
    assert not np.signbit(to_numpy(desc, F64)).any()
    codegen.runtime.decref(desc.meminfo)


def test_empty_newarray_has_shape_and_strides(codegen: Any, no_leaks: Any) -> None:
    m = Module("empty")
    at = ArrayType(I32, 3, "C")
    b = codegen.function(m, "empty", [("a", I64), ("b", I64), ("c", I64)], at)
    b.ret(newarray(b, list(b.function.params), None, at))
    empty = codegen.build(m, ["empty"])["empty"]
    for shape in [(2, 3, 4), (0, 3, 4), (2, 0, 4), (5, 1, 0)]:
        desc = empty(*shape)
        assert tuple(desc.shape) == shape
        assert tuple(desc.strides) == np.empty(shape, np.int32).strides
        no_leaks.decref(desc.meminfo)


def test_newarray_errors(codegen: Any, no_leaks: Any) -> None:
    m = Module("new_errors")
    at = ArrayType(F64, 2, "C")
    b = codegen.function(m, "make", [("n", I64), ("k", I64)], at, line=3)
    n, k = b.function.params
    b.ret(newarray(b, [n, k], b.const(1.0, F64), at))
    make = codegen.build(m, ["make"])["make"]
    with pytest.raises(ValueError, match=r"^negative dimensions are not allowed$") as info:
        make(-1, 3)
    assert info.value.line == 3  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="negative dimensions"):
        make(0, -1)  # NumPy checks every axis even when the size is 0
    for shape in [(2**61, 2), (2**62, 2**62), (2**31, 2**31), (2**63 - 1, 1)]:
        with pytest.raises(MemoryError, match="array is too big"):
            make(*shape)
    with pytest.raises(MemoryError, match=r"^out of memory$"):
        make(2**59, 1)  # 4 EiB: representable, but no allocator gives it


# -- results, copies, control flow ---------------------------------------------------------


def test_tuple_of_arrays_result(codegen: Any, no_leaks: Any) -> None:
    m = Module("pair")
    a1 = ArrayType(F64, 1, "C")
    a2 = ArrayType(I1, 2, "C")
    b = codegen.function(m, "pair", [("n", I64)], TupleType((a1, I64, a2)))
    (n,) = b.function.params
    x = newarray(b, [n], b.const(2.5, F64), a1)
    y = newarray(b, [n, b.const(2, I64)], b.const(True, I1), a2)
    b.ret(b.make_tuple([x, n, y]))
    pair = codegen.build(m, ["pair"])["pair"]
    dx, count, dy = pair(3)
    assert count == 3
    np.testing.assert_array_equal(to_numpy(dx, F64), np.full(3, 2.5))
    np.testing.assert_array_equal(to_numpy(dy, I1), np.ones((3, 2), bool))
    assert no_leaks.live >= 2
    no_leaks.decref(dx.meminfo)
    no_leaks.decref(dy.meminfo)


@pytest.mark.parametrize("dtype", [F64, I32, I1], ids=str)
def test_copyarray_every_layout(codegen: Any, no_leaks: Any, dtype: ScalarType) -> None:
    m = Module(f"copy_{dtype}")
    b = codegen.function(m, "copy", [("a", ArrayType(dtype, 2, "A"))], ArrayType(dtype, 2, "C"))
    b.ret(copyarray(b, b.function.params[0]))
    copy = codegen.build(m, ["copy"])["copy"]
    views = layouts(sample(dtype, (4, 6), seed=5))
    views["empty"] = np.zeros((0, 3), NUMPY_DTYPES[dtype])[:, ::2]
    views["row"] = sample(dtype, (1, 6))[:, ::-1]  # length-1 axis: any stride counts as C
    for name, view in views.items():
        desc = copy(view)
        assert desc.data % 64 == 0
        assert tuple(desc.strides) == np.ascontiguousarray(view).strides, name
        np.testing.assert_array_equal(to_numpy(desc, dtype), view, err_msg=name)
        no_leaks.decref(desc.meminfo)


def test_copyarray_rank3_and_static_c(codegen: Any, no_leaks: Any) -> None:
    m = Module("copy3")
    b = codegen.function(m, "copy", [("a", ArrayType(I64, 3, "A"))], ArrayType(I64, 3, "C"))
    b.ret(copyarray(b, b.function.params[0]))
    b = codegen.function(m, "copy_c", [("a", ArrayType(I64, 3, "C"))], ArrayType(I64, 3, "C"))
    b.ret(copyarray(b, b.function.params[0]))
    fns = codegen.build(m, ["copy", "copy_c"])
    arr = np.arange(5 * 6 * 7).reshape(5, 6, 7)
    for view in (arr, arr[::2, 1::2, ::-3], arr.transpose(1, 2, 0), np.asfortranarray(arr)):
        desc = fns["copy"](view)
        np.testing.assert_array_equal(to_numpy(desc, I64), view)
        no_leaks.decref(desc.meminfo)
    desc = fns["copy_c"](arr)
    np.testing.assert_array_equal(to_numpy(desc, I64), arr)
    no_leaks.decref(desc.meminfo)
    text = str(lower_export(m, "copy_c", "copy_c", CompilerOptions()))
    assert "copy.strided" not in text  # a C-typed source is copied with memcpy only


def test_sum_loop_select_phi_and_calls(codegen: Any) -> None:
    """Arrays flow through selects, phis and internal calls (by descriptor pointer)."""
    m = Module("flow")
    at = ArrayType(F64, 1, "A")
    # total(a): sum of a[i] for i in range(len(a)), a loop with phis
    b = codegen.function(m, "total", [("a", at)], F64)
    (a,) = b.function.params
    n = dim(b, a, 0)
    entry = b.block
    head, body, done = b.new_block("head"), b.new_block("body"), b.new_block("done")
    zero, one = b.const(0, I64), b.const(1, I64)
    acc0 = b.const(0.0, F64)
    b.jump(head)
    b.position_at_end(head)
    i = b.phi(I64, "i")
    acc = b.phi(F64, "acc")
    b.branch(b.cmp("lt", i, n), body, done)
    b.position_at_end(body)
    acc2 = b.add(acc, load(b, elemaddr(b, a, i)))
    i2 = b.add(i, one)
    b.jump(head)
    i.incoming = [(entry, zero), (body, i2)]
    acc.incoming = [(entry, acc0), (body, acc2)]
    b.position_at_end(done)
    b.ret(acc)
    # pick(p, x, y): select; then a phi of arrays; sums through a call
    b = codegen.function(m, "pick", [("p", I1), ("x", at), ("y", at)], TupleType((F64, F64)))
    p, x, y = b.function.params
    s = b.select(p, x, y)
    then, other, join = b.new_block("then"), b.new_block("other"), b.new_block("join")
    b.branch(p, then, other)
    b.position_at_end(then)
    b.jump(join)
    b.position_at_end(other)
    b.jump(join)
    b.position_at_end(join)
    ph = b.phi(at, "chosen")
    ph.incoming = [(then, y), (other, x)]
    b.ret(b.make_tuple([b.call("total", [s], F64), b.call("total", [ph], F64)]))
    fns = codegen.build(m, ["total", "pick"])
    x_arr = np.arange(10.0)[::-1]
    y_arr = np.asfortranarray(np.ones((3, 3)))[:, 0] * 7
    assert fns["total"](x_arr) == 45.0
    assert fns["pick"](True, x_arr, y_arr) == (45.0, 21.0)
    assert fns["pick"](False, x_arr, y_arr) == (21.0, 45.0)


def test_owned_arrays_across_calls_and_refcounts(codegen: Any, no_leaks: Any) -> None:
    m = Module("owned")
    at = ArrayType(F64, 1, "C")
    b = codegen.function(m, "make", [("n", I64)], at)
    b.ret(newarray(b, [b.function.params[0]], b.const(1.5, F64), at))
    b = codegen.function(m, "use", [("n", I64)], F64)
    arr = b.call("make", [b.function.params[0]], at)
    x = load(b, elemaddr(b, arr, b.const(-1, I64)))
    decref(b, arr)
    b.ret(x)
    b = codegen.function(m, "shared", [("n", I64)], TupleType((at, at)))
    arr = b.call("make", [b.function.params[0]], at)
    incref(b, arr)
    b.ret(b.make_tuple([arr, arr]))
    b = codegen.function(m, "borrowed", [("a", ArrayType(F64, 1, "A"))], I64)
    incref(b, b.function.params[0])
    decref(b, b.function.params[0])
    b.ret(dim(b, b.function.params[0], 0))
    fns = codegen.build(m, ["use", "shared", "borrowed"])
    assert fns["use"](4) == 1.5
    d1, d2 = fns["shared"](2)
    assert d1.meminfo == d2.meminfo and no_leaks.refcount(d1.meminfo) == 2
    no_leaks.decref(d1.meminfo)
    assert no_leaks.refcount(d2.meminfo) == 1
    no_leaks.decref(d2.meminfo)
    assert fns["borrowed"](np.zeros(6)) == 6  # NULL meminfo: refcounts are no-ops


def test_decayed_pointers_elemoffset_addr_ptradd_poison(codegen: Any) -> None:
    """The forms ``phi-decay`` leaves: (base, byte offset) pairs rebuilt with ``addr``."""
    m = Module("decayed")
    at = ArrayType(F64, 1, "A")
    ptr = PointerType(F64)
    b = codegen.function(
        m, "f", [("p", I1), ("a", at), ("c", at), ("i", I64)], TupleType((F64, F64))
    )
    p, a, c, i = b.function.params
    oa = b.insert(ops.ElementOffset(a, (i,), type=I64))
    oc = b.insert(ops.ElementOffset(c, (i,), type=I64))
    base = b.select(p, a, c)
    q = b.insert(ops.Addr(base, b.select(p, oa, oc), type=ptr))
    step = b.insert(ops.ElementOffset(base, (b.const(1, I64),), type=I64))  # the byte stride
    q2 = b.insert(ops.PointerAdd(q, step, type=ptr))
    b.ret(b.make_tuple([load(b, q), load(b, q2)]))
    # a poison (base, offset) along the edge where the pointer is dead
    b = codegen.function(m, "g", [("p", I1), ("a", at), ("i", I64)], F64)
    p, a, i = b.function.params
    left, right, join = b.new_block("left"), b.new_block("right"), b.new_block("join")
    use, skip = b.new_block("use"), b.new_block("skip")
    b.branch(p, left, right)
    b.position_at_end(left)
    o = b.insert(ops.ElementOffset(a, (i,), type=I64))
    b.jump(join)
    b.position_at_end(right)
    pb = b.insert(ops.Poison(type=at))
    po = b.insert(ops.Poison(type=I64))
    b.jump(join)
    b.position_at_end(join)
    base_phi = b.phi(at, "q.base")
    off_phi = b.phi(I64, "q.offset")
    base_phi.incoming = [(left, a), (right, pb)]
    off_phi.incoming = [(left, o), (right, po)]
    b.branch(p, use, skip)
    b.position_at_end(use)
    b.ret(load(b, b.insert(ops.Addr(base_phi, off_phi, type=ptr))))
    b.position_at_end(skip)
    b.ret(b.const(-1.0, F64))
    fns = codegen.build(m, ["f", "g"])
    x = np.arange(10.0)[::-2]  # 9, 7, 5, 3, 1 (negative stride)
    y = np.arange(100.0, 120.0)[::4]  # 100, 104, ...
    assert fns["f"](True, x, y, 1) == (7.0, 5.0)
    assert fns["f"](False, x, y, 2) == (108.0, 112.0)
    assert fns["f"](True, x, y, -3) == (5.0, 3.0)  # elemoffset wraps like elemaddr
    assert fns["g"](True, x, 3) == 3.0
    assert fns["g"](False, x, 3) == -1.0


def test_dataaddr_is_the_descriptor_data_address(codegen: Any) -> None:
    """``dataaddr`` gives the address of element [0, ..., 0] as NumPy reports it."""
    m = Module("dataaddr")
    at = ArrayType(F64, 2, "A")
    b = codegen.function(m, "f", [("a", at)], I64)
    b.ret(b.insert(ops.ArrayAddress(b.function.params[0], type=I64)))
    fns = codegen.build(m, ["f"])
    base = np.zeros((4, 6))
    for a in (base, base[1:, 2:], base[::-1, ::-2], base.T):
        assert fns["f"](a) == a.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", [F64, F32, I64], ids=str)
def test_arrayacc_adds_elementwise_any_layout(codegen: Any, dtype: ScalarType) -> None:
    m = Module(f"acc_{dtype}")
    at = ArrayType(dtype, 2, "A")
    b = codegen.function(m, "acc", [("t", at), ("s", at)], NONE)
    t, src = b.function.params
    b.insert(ops.AccumulateArray(t, src, type=NONE))
    b.ret(None)
    acc = codegen.build(m, ["acc"])["acc"]
    source = sample(dtype, (4, 5), seed=7)
    for name, s_view in layouts(source).items():
        for t_name, t_view in layouts(sample(dtype, (4, 5), seed=8)).items():
            if t_name == "broadcast":
                continue
            before = t_view.copy()
            acc(t_view, s_view)
            np.testing.assert_array_equal(t_view, before + s_view, err_msg=f"{t_name}+={name}")
    empty = np.zeros((0, 3), NUMPY_DTYPES[dtype])
    acc(empty, empty)  # no iterations


def test_array_relabel_cast_is_free(codegen: Any) -> None:
    m = Module("relabel")
    c = ArrayType(I64, 1, "C")
    a = ArrayType(I64, 1, "A")
    b = codegen.function(m, "f", [("x", c), ("y", a), ("p", I1)], I64)
    x, y, p = b.function.params
    chosen = b.select(p, b.insert(ops.Cast(x, type=a)), y)
    b.ret(load(b, elemaddr(b, chosen, b.const(-1, I64))))
    f = codegen.build(m, ["f"])["f"]
    assert f(np.arange(4), np.arange(10)[::3], True) == 3
    assert f(np.arange(4), np.arange(10)[::3], False) == 9


def test_refcounts_of_tuples_act_on_every_array_inside(codegen: Any, no_leaks: Any) -> None:
    m = Module("tuple_rc")
    at = ArrayType(F64, 1, "C")
    tt = TupleType((at, I64, TupleType((at, F64))))
    b = codegen.function(m, "f", [("n", I64)], TupleType((at, at)))
    (n,) = b.function.params
    x = newarray(b, [n], b.const(1.0, F64), at)
    y = newarray(b, [n], b.const(2.0, F64), at)
    t = b.make_tuple([x, n, b.make_tuple([y, b.const(0.5, F64)])])
    assert t.type == tt
    b.insert(ops.IncRef(t, type=NONE))  # x and y: 2 references each
    b.insert(ops.IncRef(t, type=NONE))  # 3
    b.insert(ops.DecRef(t, type=NONE))  # 2
    b.ret(b.make_tuple([x, y]))
    f = codegen.build(m, ["f"])["f"]
    dx, dy = f(3)
    assert no_leaks.refcount(dx.meminfo) == no_leaks.refcount(dy.meminfo) == 2
    for d in (dx, dy, dx, dy):
        no_leaks.decref(d.meminfo)


# -- the runtime ------------------------------------------------------------------------------


def test_runtime_alloc_incref_decref_live(codegen: Any) -> None:
    rt = codegen.runtime
    before = rt.live
    blocks = [rt.alloc(n) for n in (0, 1, 100, 4096)]
    assert all(p and p % 64 == 0 for p in blocks)
    assert rt.live == before + 4
    assert [rt.nbytes(p) for p in blocks] == [0, 1, 100, 4096]
    ctypes.memset(blocks[3] + 64, 0xAB, 4096)  # the data area is usable
    p = blocks[0]
    rt.incref(p)
    assert rt.refcount(p) == 2
    rt.decref(p)
    assert rt.refcount(p) == 1 and rt.live == before + 4
    for p in blocks:
        rt.decref(p)
    assert rt.live == before
    rt.incref(None)
    rt.decref(None)
    assert rt.alloc(-1) is None
    assert rt.alloc(2**63 - 1) is None
    assert rt.alloc(2**62) is None  # the allocator refuses
    assert rt.live == before


def test_runtime_refcounts_are_atomic(codegen: Any) -> None:
    rt = codegen.runtime
    before = rt.live
    p = rt.alloc(8)
    rounds = 20000

    def hammer() -> None:  # ctypes releases the GIL around each foreign call
        for _ in range(rounds):
            rt.incref(p)
        for _ in range(rounds):
            rt.decref(p)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert rt.refcount(p) == 1
    rt.decref(p)
    assert rt.live == before
