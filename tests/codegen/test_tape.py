"""The reverse-mode tape (compiler/codegen/tape.py, runtime ``gradc_rt2_tape_*``).

Hand-built IR pushes values of every kind the reverse-mode pass pushes — scalars of each
type, tuples, array descriptors — across many growth steps, pops them back and checks
LIFO order inside compiled code (each export returns a mismatch count and a checksum).
Groups of pushes and pops in one block (one reservation each) are checked against
single ones, interleaved pushes and pops against a Python model, and the runtime
functions directly through ctypes: growth, failure, the cached tape.
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.codegen.relocatable import check_object
from gradc.compiler.codegen.runtime import TAPE_CACHE_MAX_BYTES
from gradc.compiler.codegen.tape import (
    RUNTIME_TAPE_FREE,
    RUNTIME_TAPE_GROW,
    RUNTIME_TAPE_GROW_REFS,
    RUNTIME_TAPE_NEW,
    TAPE_INITIAL_BYTES,
    TAPE_INITIAL_REFS,
    entry_size,
    memory_size_align,
    registered_tape,
    tape_header_type,
)
from gradc.compiler.codegen.tape_grow import GROW_FUNCTION
from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Module, Value
from gradc.compiler.ir.types import (
    F32,
    F64,
    I1,
    I32,
    I64,
    NONE,
    TAPE,
    ArrayType,
    PointerType,
    ScalarType,
    TupleType,
    Type,
)
from gradc.compiler.options import CompilerOptions

from .conftest import descriptor

# -- IR helpers -----------------------------------------------------------------------


def push(b: Builder, tape: Value, v: Value) -> None:
    b.insert(ops.TapePush(tape, v, type=NONE))


def pop(b: Builder, tape: Value, t: Type) -> Value:
    return b.insert(ops.TapePop(tape, type=t))


def count(b: Builder, flag: Value) -> Value:
    """An i1 as 0/1 (i64)."""
    return b.cast(flag, I64)


def loop(
    b: Builder,
    n: Value,
    carried: Sequence[Value],
    body: Callable[[Value, list[Value]], list[Value]],
    label: str,
) -> list[Value]:
    """``for i in range(n)`` with loop-carried values; returns their final values."""
    entry = b.block
    header, blk, done = (b.new_block(f"{label}.{s}") for s in ("header", "body", "done"))
    zero, one = b.const(0, I64), b.const(1, I64)
    b.jump(header)
    b.position_at_end(header)
    i = b.phi(I64, f"{label}.i")
    phis = [b.phi(v.type) for v in carried]
    b.branch(b.cmp("lt", i, n), blk, done)
    b.position_at_end(blk)
    nxt = body(i, list(phis))
    i2 = b.add(i, one)
    latch = b.block
    b.jump(header)
    i.incoming = [(entry, zero), (latch, i2)]
    for p, init, v in zip(phis, carried, nxt):
        p.incoming = [(entry, init), (latch, v)]
    b.position_at_end(done)
    return list(phis)


def scalar_of(b: Builder, i: Value, t: ScalarType) -> Value:
    """A value of type ``t`` that depends on ``i`` (exact in every type for i < 2**20)."""
    if t == F64:
        return b.add(b.mul(b.cast(i, F64), b.const(0.5, F64)), b.const(-3.25, F64))
    if t == F32:
        return b.cast(b.sub(b.const(7, I64), i), F32)
    if t == I64:
        return b.sub(b.mul(i, b.const(1_000_003, I64)), b.const(1 << 40, I64))
    if t == I32:
        return b.cast(b.sub(b.const(12345, I64), b.mul(i, b.const(3, I64))), I32)
    assert t == I1
    return b.cmp("eq", b.insert(ops.Mod(i, b.const(3, I64), type=I64)), b.const(0, I64))


def differ(b: Builder, x: Value, y: Value) -> Value:
    """1 (i64) when ``x != y``, elementwise over (nested) tuples."""
    if isinstance(x.type, TupleType):
        total = b.const(0, I64)
        for k in range(len(x.type.elements)):
            total = b.add(total, differ(b, b.tuple_get(x, k), b.tuple_get(y, k)))
        return total
    return count(b, b.cmp("ne", x, y))


TUPLE = TupleType((F64, I1, I32))
NESTED = TupleType((TupleType((I64, F32)), F64, TupleType((I1,))))


def value_of(b: Builder, i: Value, t: Type) -> Value:
    if isinstance(t, TupleType):
        parts = []
        for k, e in enumerate(t.elements):
            parts.append(value_of(b, b.add(i, b.const(k, I64)), e))
        return b.make_tuple(parts)
    assert isinstance(t, ScalarType)
    return scalar_of(b, i, t)


def lifo_export(codegen: Any, m: Module, name: str, types: Sequence[Type]) -> None:
    """``name(n) -> mismatches``: per iteration push one value of each of ``types`` (one
    group), then pop everything back in reverse and compare with a recomputation."""
    b = codegen.function(m, name, [("n", I64)], I64)
    n = b.function.params[0]
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))

    def fwd(i: Value, _: list[Value]) -> list[Value]:
        values = [value_of(b, i, t) for t in types]
        for v in values:
            push(b, tape, v)
        return []

    loop(b, n, [], fwd, "fwd")

    def rev(k: Value, acc: list[Value]) -> list[Value]:
        i = b.sub(b.sub(n, k), b.const(1, I64))
        bad = acc[0]
        for t in reversed(types):
            got = pop(b, tape, t)
            bad = b.add(bad, differ(b, got, value_of(b, i, t)))
        return [bad]

    (bad,) = loop(b, n, [b.const(0, I64)], rev, "rev")
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(bad)


SINGLE_TYPES: list[Type] = [F64, F32, I64, I32, I1, TUPLE, NESTED]


@pytest.fixture(scope="module")
def lifo(codegen: Any) -> dict[str, Any]:
    m = Module("tape_lifo")
    for k, t in enumerate(SINGLE_TYPES):
        lifo_export(codegen, m, f"one_{k}", [t])
    lifo_export(codegen, m, "mixed", [I1, F64, TUPLE, F32, I64, NESTED, I32, I1])
    return codegen.build(m, [f"one_{k}" for k in range(len(SINGLE_TYPES))] + ["mixed"])


@pytest.mark.parametrize("k", range(len(SINGLE_TYPES)), ids=[str(t) for t in SINGLE_TYPES])
@pytest.mark.parametrize("n", [0, 1, 7, 100_000])
def test_lifo_each_type(lifo: dict[str, Any], rt: Any, k: int, n: int) -> None:
    empty_cache(rt)  # the tape starts without a buffer: 100_000 pushes grow it 8 times
    assert lifo[f"one_{k}"](n) == 0


@pytest.mark.parametrize("n", [0, 1, 513, 100_000])
def test_lifo_mixed_group(lifo: dict[str, Any], rt: Any, n: int) -> None:
    empty_cache(rt)
    assert lifo["mixed"](n) == 0


def test_repeated_calls_reuse_the_cached_tape(lifo: dict[str, Any]) -> None:
    for n in [100_000, 3, 50_000, 0, 100_000]:
        assert lifo["mixed"](n) == 0


def test_concurrent_calls_each_get_a_tape(lifo: dict[str, Any]) -> None:
    # ctypes releases the GIL: the calls run at once and race on the runtime's cache
    results: list[int] = []

    def work() -> None:
        for n in (20_000, 1, 30_000, 5_000):
            results.append(lifo["mixed"](n))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [0] * 32


def test_entry_sizes() -> None:
    from gradc.compiler.codegen.lower import value_type

    assert entry_size(value_type(I1)) == 8
    assert entry_size(value_type(F32)) == 8
    assert entry_size(value_type(F64)) == 8
    assert entry_size(value_type(TUPLE)) == 16  # {double, i1, i32}: 8 + 1 + 3 pad + 4
    assert entry_size(value_type(TupleType((I1, I1, I1)))) == 8
    assert entry_size(value_type(NESTED)) == 32  # {{i64, float}, double, {i1}}: 16+8+1
    for ndim in (1, 2, 3):
        assert entry_size(value_type(ArrayType(F64, ndim, "A"))) == 16 + 16 * ndim


# -- arrays -----------------------------------------------------------------------------


def elemaddr(b: Builder, a: Value, *idx: Value) -> Value:
    assert isinstance(a.type, ArrayType)
    return b.insert(ops.ElementAddr(a, tuple(idx), type=PointerType(a.type.dtype)))


@pytest.fixture(scope="module")
def array_fns(codegen: Any) -> dict[str, Any]:
    m = Module("tape_arrays")
    a1, a2, a3 = (ArrayType(F64, k, "A") for k in (1, 2, 3))

    # walk(a, v, n): per i push (i, a2, i*2.0, v1, a3 (by value), i1) then pop them all
    # back and read a[i % rows, 0], v[i % len], a3[0, 0, i % 2] through the popped
    # descriptors; returns the sum of the reads minus the sum through the originals
    # (0.0), plus 1e9 per mismatched scalar.
    b = codegen.function(m, "walk", [("a", a2), ("v", a1), ("c", a3), ("n", I64)], F64, line=10)
    a, v, c, n = b.function.params
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))

    def reads(i: Value, aa: Value, vv: Value, cc: Value) -> Value:
        rows = b.insert(ops.ArrayDim(aa, 0, type=I64))
        length = b.insert(ops.ArrayDim(vv, 0, type=I64))
        ra = b.insert(ops.Mod(i, rows, type=I64))
        rv = b.insert(ops.Mod(i, length, type=I64))
        rc = b.insert(ops.Mod(i, b.const(2, I64), type=I64))
        zero = b.const(0, I64)
        x = b.insert(ops.Load(elemaddr(b, aa, ra, zero), type=F64))
        y = b.insert(ops.Load(elemaddr(b, vv, rv), type=F64))
        z = b.insert(ops.Load(elemaddr(b, cc, zero, zero, rc), type=F64))
        last = b.insert(ops.Load(elemaddr(b, aa, b.const(-1, I64), b.const(-1, I64)), type=F64))
        return b.add(b.add(x, y), b.add(z, last))

    def fwd(i: Value, _: list[Value]) -> list[Value]:
        push(b, tape, i)
        push(b, tape, a)
        push(b, tape, b.mul(b.cast(i, F64), b.const(2.0, F64)))
        push(b, tape, v)
        push(b, tape, c)
        push(b, tape, b.cmp("lt", i, b.const(5, I64)))
        return []

    loop(b, n, [], fwd, "fwd")

    def rev(k: Value, acc: list[Value]) -> list[Value]:
        i = b.sub(b.sub(n, k), b.const(1, I64))
        small = pop(b, tape, I1)
        cc = pop(b, tape, a3)
        vv = pop(b, tape, a1)
        twice = pop(b, tape, F64)
        aa = pop(b, tape, a2)
        ii = pop(b, tape, I64)
        bad = b.add(
            b.add(differ(b, ii, i), differ(b, small, b.cmp("lt", i, b.const(5, I64)))),
            differ(b, twice, b.mul(b.cast(i, F64), b.const(2.0, F64))),
        )
        delta = b.sub(reads(i, aa, vv, cc), reads(i, a, v, c))
        penalty = b.mul(b.cast(bad, F64), b.const(1e9, F64))
        return [b.add(acc[0], b.add(delta, penalty))]

    (total,) = loop(b, n, [b.const(0.0, F64)], rev, "rev")
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(total)

    # owned(n): push a new owned array (the tape holds its reference, as ``lifetimes``
    # arranges for), pop it back after n scalar pushes and pops, and return it
    ac = ArrayType(F64, 2, "C")
    b = codegen.function(m, "owned", [("n", I64)], ac, line=40)
    (n,) = b.function.params
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    fresh = b.insert(ops.NewArray((b.const(3, I64), b.const(2, I64)), b.const(1.5, F64), type=ac))
    push(b, tape, fresh)

    def fill(i: Value, _: list[Value]) -> list[Value]:
        push(b, tape, i)
        return []

    def drain(i: Value, _: list[Value]) -> list[Value]:
        pop(b, tape, I64)
        return []

    loop(b, n, [], fill, "fill")
    loop(b, n, [], drain, "drain")
    back = pop(b, tape, ac)
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(back)
    # leak(n, d): push n fresh owned arrays, one per iteration, then compute 1.0 / d: a
    # ZeroDivisionError when d == 0, whose error exit frees the tape (its ``unwind``, as
    # ``lifetimes`` sets it); otherwise pop and release them all and return 1.0 / d
    b = codegen.function(m, "leak", [("n", I64), ("d", F64)], F64, line=60)
    n, d = b.function.params
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    a1c = ArrayType(F64, 1, "C")

    def allocate(i: Value, _: list[Value]) -> list[Value]:
        fresh = b.insert(ops.NewArray((b.const(4, I64),), b.cast(i, F64), type=a1c))
        push(b, tape, b.make_tuple([b.cast(i, F64), fresh]))
        return []

    loop(b, n, [], allocate, "allocate")
    quotient = b.insert(ops.Div(b.const(1.0, F64), d, type=F64))
    quotient.unwind = (tape,)

    def release(i: Value, _: list[Value]) -> list[Value]:
        back = pop(b, tape, TupleType((F64, a1c)))
        b.insert(ops.DecRef(back, type=NONE))
        return []

    loop(b, n, [], release, "release")
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(quotient)
    return codegen.build(m, ["walk", "owned", "leak"])


@pytest.mark.parametrize("n", [0, 3, 2_000])
def test_an_error_exit_releases_the_arrays_on_the_tape(
    codegen: Any, array_fns: dict[str, Any], n: int
) -> None:
    live = codegen.runtime.live
    assert array_fns["leak"](n, 4.0) == 0.25
    assert codegen.runtime.live == live
    for _ in range(3):
        with pytest.raises(ZeroDivisionError):
            array_fns["leak"](n, 0.0)
        assert codegen.runtime.live == live  # the n arrays on the tape were released


@pytest.mark.parametrize("n", [1, 17, 20_000])
def test_array_descriptors_round_trip(array_fns: dict[str, Any], n: int) -> None:
    base = np.arange(60.0).reshape(6, 10)
    a = base[::2, ::-3]  # strided and reversed: every descriptor field matters
    v = np.arange(7.0)[::-1]
    c = np.asfortranarray(np.arange(24.0).reshape(2, 3, 4))
    assert array_fns["walk"](a, v, c, n) == 0.0


def test_owned_descriptor_round_trip(codegen: Any, array_fns: dict[str, Any]) -> None:
    from .conftest import to_numpy

    live = codegen.runtime.live
    desc = array_fns["owned"](10_000)
    assert desc.meminfo and codegen.runtime.refcount(desc.meminfo) == 1
    np.testing.assert_array_equal(to_numpy(desc, F64), np.full((3, 2), 1.5))
    codegen.runtime.decref(desc.meminfo)
    assert codegen.runtime.live == live


def test_array_arguments_are_passed_by_descriptor(array_fns: dict[str, Any]) -> None:
    a = np.arange(12.0).reshape(3, 4)
    assert array_fns["walk"](descriptor(a), np.ones(2), np.zeros((2, 2, 2)), 9) == 0.0


# -- interleaving, calls ------------------------------------------------------------------


@pytest.fixture(scope="module")
def interleaved(codegen: Any) -> dict[str, Any]:
    m = Module("tape_interleaved")
    # callees that take the tape, as the reverse-mode sweeps do
    b = codegen.function(m, "push_two", [("tape", TAPE), ("x", I64)], NONE, line=1)
    tape, x = b.function.params
    push(b, tape, x)
    push(b, tape, b.cast(x, F64))
    b.ret(None)
    b = codegen.function(m, "pop_two", [("tape", TAPE)], I64, line=2)
    (tape,) = b.function.params
    y = pop(b, tape, F64)
    x = pop(b, tape, I64)
    b.ret(b.add(b.mul(x, b.const(3, I64)), b.cast(y, I64)))

    # mix(n): per i: push i (i64); call push_two(i * 10); if i % 3 == 2, pop 3 entries as
    # (pop_two, then an i64) and add them into the checksum with a weight; finally drain
    # everything left. The checksum is compared with the same algorithm in Python.
    b = codegen.function(m, "mix", [("n", I64)], I64, line=10)
    (n,) = b.function.params
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))

    def body(i: Value, acc: list[Value]) -> list[Value]:
        s, depth = acc
        push(b, tape, i)
        b.call("push_two", [tape, b.mul(i, b.const(10, I64))], NONE)
        depth = b.add(depth, b.const(1, I64))
        cond = b.cmp("eq", b.insert(ops.Mod(i, b.const(3, I64), type=I64)), b.const(2, I64))
        before = b.block
        then, join = b.new_block("drop.then"), b.new_block("drop.end")
        b.branch(cond, then, join)
        b.position_at_end(then)
        two = b.call("pop_two", [tape], I64)
        one = pop(b, tape, I64)
        s2 = b.add(b.mul(s, b.const(31, I64)), b.add(two, b.mul(one, b.const(7, I64))))
        d2 = b.sub(depth, b.const(1, I64))
        b.jump(join)
        b.position_at_end(join)
        s3, d3 = b.phi(I64), b.phi(I64)
        s3.incoming = [(before, s), (then, s2)]
        d3.incoming = [(before, depth), (then, d2)]
        return [s3, d3]

    s, depth = loop(b, n, [b.const(0, I64), b.const(0, I64)], body, "main")

    def drain(_: Value, acc: list[Value]) -> list[Value]:
        two = b.call("pop_two", [tape], I64)
        one = pop(b, tape, I64)
        return [b.add(b.mul(acc[0], b.const(31, I64)), b.add(two, b.mul(one, b.const(7, I64))))]

    (s,) = loop(b, depth, [s], drain, "drain")
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(s)
    return codegen.build(m, ["mix"])


def mix_model(n: int) -> int:
    stack: list[int | float] = []
    s = 0

    def wrap(x: int) -> int:
        return (x + (1 << 63)) % (1 << 64) - (1 << 63)

    def take() -> int:
        y = stack.pop()
        x = stack.pop()
        one = stack.pop()
        return int(x) * 3 + int(y) + int(one) * 7

    for i in range(n):
        stack += [i, i * 10, float(i * 10)]
        if i % 3 == 2:
            s = wrap(s * 31 + take())
    while stack:
        s = wrap(s * 31 + take())
    return s


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 30_000])
def test_interleaved_pushes_and_pops_through_calls(interleaved: dict[str, Any], n: int) -> None:
    assert interleaved["mix"](n) == mix_model(n)


@pytest.fixture(scope="module")
def two_tapes(codegen: Any) -> tuple[dict[str, Any], Module]:
    """Functions with two tape values: their headers stay in memory (no registers)."""
    m = Module("tape_two")
    b = codegen.function(m, "push_pair", [("t1", TAPE), ("t2", TAPE), ("x", I64)], NONE, line=1)
    t1, t2, x = b.function.params
    push(b, t1, b.mul(x, b.const(3, I64)))
    push(b, t2, b.mul(x, b.const(5, I64)))
    b.ret(None)
    # both(n): per i: push i on t1, call push_pair, push 7i on t2; then pop everything
    # back, folding the values into a checksum in pop order
    b = codegen.function(m, "both", [("n", I64)], I64, line=10)
    (n,) = b.function.params
    t1 = b.insert(ops.TapeNew(type=TAPE, name="t1"))
    t2 = b.insert(ops.TapeNew(type=TAPE, name="t2"))

    def forward(i: Value, acc: list[Value]) -> list[Value]:
        push(b, t1, i)
        b.call("push_pair", [t1, t2, i], NONE)
        push(b, t2, b.mul(i, b.const(7, I64)))
        return acc

    loop(b, n, [], forward, "fwd")
    k31 = b.const(31, I64)

    def backward(_: Value, acc: list[Value]) -> list[Value]:
        s = acc[0]
        for tape in (t2, t2, t1, t1):
            s = b.add(b.mul(s, k31), pop(b, tape, I64))
        return [s]

    (s,) = loop(b, n, [b.const(0, I64)], backward, "bwd")
    b.insert(ops.TapeFree(t1, type=NONE))
    b.insert(ops.TapeFree(t2, type=NONE))
    b.ret(s)
    return codegen.build(m, ["both"]), m


def two_tapes_model(n: int) -> int:
    s = 0
    for i in reversed(range(n)):
        for v in (7 * i, 5 * i, 3 * i, i):
            s = (s * 31 + v + (1 << 63)) % (1 << 64) - (1 << 63)
    return s


@pytest.mark.parametrize("n", [0, 1, 5, 2000])
def test_two_tapes_in_one_function(two_tapes: tuple[dict[str, Any], Module], n: int) -> None:
    assert two_tapes[0]["both"](n) == two_tapes_model(n)


def test_registered_tape_only_for_a_single_tape(
    codegen: Any, two_tapes: tuple[dict[str, Any], Module]
) -> None:
    m = two_tapes[1]
    assert registered_tape(m.functions["both"]) is None
    assert registered_tape(m.functions["push_pair"]) is None
    one = Module("tape_one")
    b = codegen.function(one, "param", [("tape", TAPE), ("x", F64)], NONE)
    push(b, b.function.params[0], b.function.params[1])
    b.ret(None)
    assert registered_tape(one.functions["param"]) is one.functions["param"].params[0]
    b = codegen.function(one, "local", [("x", F64)], F64)
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    push(b, tape, b.function.params[0])
    b.call("param", [tape, b.function.params[0]], NONE)
    pop(b, tape, F64)
    y = pop(b, tape, F64)
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(y)
    assert registered_tape(one.functions["local"]) is tape
    b = codegen.function(one, "escapes", [("x", F64)], TupleType((TAPE, F64)))
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    b.ret(b.insert(ops.MakeTuple((tape, b.function.params[0]), type=TupleType((TAPE, F64)))))
    assert registered_tape(one.functions["escapes"]) is None  # used other than by tape ops


# -- lowering shape -----------------------------------------------------------------------


def _text(codegen: Any, build: Callable[[Builder, Value], None]) -> str:
    m = Module("tape_shape")
    b = codegen.function(m, "g", [("x", F64)], F64)
    b.ret(b.function.params[0])
    b = codegen.function(m, "f", [("x", F64)], F64)
    tape = b.insert(ops.TapeNew(type=TAPE, name="tape"))
    build(b, tape)
    b.insert(ops.TapeFree(tape, type=NONE))
    b.ret(b.function.params[0])
    return str(lower_export(m, "f", "gradc_f_test", CompilerOptions()))


def test_a_block_of_pushes_is_one_reservation(codegen: Any) -> None:
    def build(b: Builder, tape: Value) -> None:
        x = b.function.params[0]
        for k in range(5):  # constants and increfs between the pushes do not split them
            push(b, tape, b.add(x, b.const(float(k), F64)))
            push(b, tape, b.const(k, I64))
        for t in [I64, F64] * 5:
            pop(b, tape, t)

    text = _text(codegen, build)
    assert len(re.findall(f'call i32 @"{RUNTIME_TAPE_GROW}"', text)) == 1
    assert len(_grow_sites(text)) == 1
    # scalars carry no array references: the reference stack is not touched
    assert RUNTIME_TAPE_GROW_REFS not in text and "tape.nrefs" not in text
    # f's only tape is registered: its header is read once after tapenew (the grow path
    # reads no ``top``), then each group reads ``cur`` from its register slot (the push
    # group at its grow check and again where the grow path rejoins, with no loop back
    # to the check; the pop group once) and stores it once
    assert len(re.findall(r'%"tape\.top(\.\d+)?" = load', text)) == 1
    assert len(re.findall(r'= load i8\*, i8\*\* %"tape\.cur\.slot"', text)) == 2 + 1
    assert len(re.findall(r'store i8\* %"tape\.(next|rest)', text)) == 2


def _grow_sites(text: str) -> list[str]:
    """The growth calls of push groups in LLVM IR text: a registered tape's call of the
    module's outlined growth function (compiler/codegen/tape_grow.py)."""
    return re.findall(f'call {{i8\\*, i8\\*}} @"{GROW_FUNCTION}"', text)


def test_calls_and_raising_operations_split_groups(codegen: Any) -> None:
    def build(b: Builder, tape: Value) -> None:
        x = b.function.params[0]
        push(b, tape, x)
        push(b, tape, b.mul(x, x))  # pure: the same group
        b.insert(ops.Div(x, x, type=F64))  # may raise: the group ends before it
        push(b, tape, x)
        b.call("g", [x], F64)  # a call may use the tape: the group ends
        push(b, tape, x)
        for _ in range(4):
            pop(b, tape, F64)

    text = _text(codegen, build)
    assert len(_grow_sites(text)) == 3


def test_object_references_only_runtime_tape_functions(codegen: Any) -> None:
    m = Module("tape_object")
    lifo_export(codegen, m, "t", [F64, TUPLE])
    objs = codegen.objects(m, ["t"])
    check_object(objs["t"], "t")
    from gradc.compiler.codegen.relocatable import relocations

    names = {r.symbol for r in relocations(objs["t"]) if r.symbol and not r.defined}
    assert {RUNTIME_TAPE_NEW, RUNTIME_TAPE_GROW, RUNTIME_TAPE_FREE} <= names


# -- the runtime functions ----------------------------------------------------------------


class _Header(ctypes.Structure):
    _fields_ = [
        ("base", ctypes.c_void_p),
        ("top", ctypes.c_int64),
        ("cap", ctypes.c_int64),
        ("refs", ctypes.POINTER(ctypes.c_void_p)),
        ("nrefs", ctypes.c_int64),
        ("refcap", ctypes.c_int64),
    ]


def test_header_layout_matches_the_runtime_type() -> None:
    assert memory_size_align(tape_header_type()) == (ctypes.sizeof(_Header), 8)


@pytest.fixture(scope="module")
def rt(codegen: Any) -> Any:
    tracker = codegen.runtime.tracker
    hp = ctypes.POINTER(_Header)

    class RT:
        new = ctypes.CFUNCTYPE(hp)(tracker[RUNTIME_TAPE_NEW])
        grow = ctypes.CFUNCTYPE(ctypes.c_int32, hp, ctypes.c_int64)(tracker[RUNTIME_TAPE_GROW])
        free = ctypes.CFUNCTYPE(None, hp)(tracker[RUNTIME_TAPE_FREE])
        grow_refs = ctypes.CFUNCTYPE(ctypes.c_int32, hp, ctypes.c_int64)(
            tracker[RUNTIME_TAPE_GROW_REFS]
        )

    return RT


def empty_cache(rt: Any) -> None:
    """Leave a tape without a buffer in the runtime's cache (the next tape_new's)."""
    held = rt.new()  # the cached tape, if any
    fresh = rt.new()  # a new one: no buffer
    rt.free(held)
    rt.free(fresh)  # displaces ``held``, which is freed


def test_empty_cache_helper(rt: Any) -> None:
    empty_cache(rt)
    t = rt.new()
    assert (t.contents.base, t.contents.top, t.contents.cap) == (None, 0, 0)
    rt.free(t)


def test_runtime_grow_doubles_and_keeps_contents(rt: Any) -> None:
    t = rt.new()
    h = t.contents
    assert h.top == 0
    assert rt.grow(t, 10) == 0
    assert h.cap >= TAPE_INITIAL_BYTES and h.base
    ctypes.memset(h.base, 0xAB, 10)
    cap = h.cap
    assert rt.grow(t, cap + 1) == 0
    assert h.cap == 2 * cap
    assert ctypes.string_at(h.base, 10) == b"\xab" * 10
    assert rt.grow(t, 5 * cap) == 0  # more than double: exactly what is needed
    assert h.cap == 5 * cap
    rt.free(t)


def test_runtime_grow_failure_leaves_the_tape(rt: Any) -> None:
    t = rt.new()
    assert rt.grow(t, 100) == 0
    base, cap = t.contents.base, t.contents.cap
    assert rt.grow(t, (1 << 62) + 1) == 1  # over the limit
    assert rt.grow(t, 1 << 62) == 1  # realloc fails
    assert (t.contents.base, t.contents.cap) == (base, cap)
    rt.free(t)


def test_runtime_caches_one_freed_tape(rt: Any) -> None:
    t = rt.new()
    assert rt.grow(t, 100_000) == 0
    t.contents.top = 4000
    address, base, cap = ctypes.addressof(t.contents), t.contents.base, t.contents.cap
    rt.free(t)
    u = rt.new()  # the cached tape comes back empty, with its buffer
    assert ctypes.addressof(u.contents) == address
    assert (u.contents.top, u.contents.base, u.contents.cap) == (0, base, cap)
    v = rt.new()  # the cache is empty now: a fresh tape
    assert ctypes.addressof(v.contents) != address
    assert (v.contents.base, v.contents.top, v.contents.cap) == (None, 0, 0)
    rt.free(u)
    rt.free(v)  # displaces u, which is freed
    w = rt.new()
    assert ctypes.addressof(w.contents) == ctypes.addressof(v.contents)
    rt.free(w)
    rt.free(ctypes.POINTER(_Header)())  # NULL: no-op


def test_runtime_does_not_cache_huge_tapes(rt: Any) -> None:
    small = rt.new()
    rt.free(small)  # cached
    big = rt.new()
    assert ctypes.addressof(big.contents) == ctypes.addressof(small.contents)
    big.contents.cap = TAPE_CACHE_MAX_BYTES + 8  # pretend (free only reads cap and base)
    rt.free(big)  # freed, not cached
    fresh = rt.new()
    assert fresh.contents.cap == 0
    rt.free(fresh)


def test_runtime_grow_refs_doubles_and_keeps_entries(rt: Any) -> None:
    t = rt.new()
    h = t.contents
    assert (h.nrefs, h.refcap) == (0, 0)
    assert rt.grow_refs(t, 3) == 0
    assert h.refcap == TAPE_INITIAL_REFS
    for i in range(3):
        h.refs[i] = 0x1000 * (i + 1)
    assert rt.grow_refs(t, TAPE_INITIAL_REFS + 1) == 0
    assert h.refcap == 2 * TAPE_INITIAL_REFS
    assert [h.refs[i] for i in range(3)] == [0x1000, 0x2000, 0x3000]
    assert rt.grow_refs(t, (1 << 58) + 1) == 1  # over the limit: unchanged
    assert h.refcap == 2 * TAPE_INITIAL_REFS
    rt.free(t)  # nrefs is 0: the fake pointers are not released


def test_runtime_free_releases_the_references_left_on_the_tape(rt: Any, codegen: Any) -> None:
    """What an error exit leaves on the reference stack is released (one decref each)."""
    runtime = codegen.runtime
    live = runtime.live
    blocks = [runtime.alloc(64) for _ in range(5)]
    shared = blocks[0]
    runtime.incref(shared)  # a second owner outside the tape
    t = rt.new()
    assert rt.grow_refs(t, 6) == 0
    h = t.contents
    for i, b in enumerate([*blocks, None]):  # NULL (a stack array) is skipped by decref
        h.refs[i] = b
    h.nrefs = 6
    rt.free(t)
    assert runtime.live == live + 1  # only ``shared`` survives, with its other owner
    assert runtime.refcount(shared) == 1
    u = rt.new()  # the cached tape comes back with no references
    assert u.contents.nrefs == 0 and u.contents.refcap >= 6
    rt.free(u)
    runtime.decref(shared)
    assert runtime.live == live


def test_growth_check_is_not_a_loop(codegen: Any) -> None:
    """A push group's grow path rejoins the store forward: no loop per push site (LLVM's
    loop passes were quadratic in their number: issue #18, class 8). The function below
    has no loop of its own, so the CFG of its LLVM IR must be acyclic."""

    def build(b: Builder, tape: Value) -> None:
        x = b.function.params[0]
        for k in range(3):  # three groups: a call between them splits the reservations
            push(b, tape, b.add(x, b.const(float(k), F64)))
            b.insert(ops.MathCall("sin", (x,), type=F64))
        for _ in range(3):
            pop(b, tape, F64)

    text = _text(codegen, build)
    body = text[text.index('define i32 @"gradc_f_test"') :]
    body = body[: body.index("\n}")]
    assert len(_grow_sites(body)) >= 2
    succs: dict[str, list[str]] = {}
    current = ""
    for line in body.splitlines():
        label = re.match(r'^"?([\w.]+)"?:', line)
        if label:
            current = label.group(1)
            succs[current] = []
        elif line.strip().startswith("br "):
            succs[current] += re.findall(r'label %"?([\w.]+)"?', line)
    state: dict[str, int] = {}  # 1: on the DFS stack, 2: done

    def visit(block: str) -> None:
        state[block] = 1
        for nxt in succs.get(block, []):
            assert state.get(nxt) != 1, f"{block} -> {nxt} closes a loop"
            if nxt not in state:
                visit(nxt)
        state[block] = 2

    for block in succs:
        if block not in state:
            visit(block)


@pytest.mark.parametrize("fails", [False, True])
def test_outlined_growth_returns_the_new_pointers_or_fills_the_error_record(fails: bool) -> None:
    # compiler/codegen/tape_grow.py against a stand-in for the runtime's growth function,
    # which moves the buffer (or fails, leaving the header): the returned ``cur``/``end``
    # are the moved buffer's, or NULL with the MemoryError record of the push's site
    import llvmlite.binding as llvm
    from llvmlite import ir as ll

    from gradc.artifacts.abi.codes import EXCEPTION_CODES
    from gradc.compiler.codegen.tape import tape_type
    from gradc.compiler.codegen.tape_grow import grow_function

    moved = ctypes.create_string_buffer(4096)
    llmod = ll.Module("grow_test")
    runtime = ll.Function(
        llmod, ll.FunctionType(ll.IntType(32), [tape_type(), ll.IntType(64)]), "fake_grow"
    )
    b = ll.IRBuilder(runtime.append_basic_block())
    header = b.bitcast(runtime.args[0], ll.IntType(64).as_pointer())
    if fails:
        b.ret(ll.Constant(ll.IntType(32), 1))
    else:  # base = moved, cap = need (the requested size)
        b.store(ll.Constant(ll.IntType(64), ctypes.addressof(moved)), header)
        b.store(runtime.args[1], b.gep(header, [ll.Constant(ll.IntType(32), 2)]))
        b.ret(ll.Constant(ll.IntType(32), 0))
    message = ll.GlobalVariable(llmod, ll.ArrayType(ll.IntType(8), 14), "msg")
    message.initializer = ll.Constant(message.type.pointee, bytearray(b"out of memory\0"))
    text = message.gep([ll.Constant(ll.IntType(32), 0)] * 2)
    code = EXCEPTION_CODES["MemoryError"]
    i64 = ll.IntType(64)
    record_type = ll.LiteralStructType(
        [ll.IntType(32), ll.IntType(32), ll.IntType(8).as_pointer(), ll.ArrayType(i64, 4)]
    )
    root = llmod.add_metadata([ll.MetaDataString(llmod, "test")])
    scalar = llmod.add_metadata([ll.MetaDataString(llmod, "header"), root, ll.Constant(i64, 0)])
    tag = llmod.add_metadata([scalar, scalar, ll.Constant(i64, 0)])
    fn = grow_function(llmod, runtime, record_type.as_pointer(), tag, (0, 2), (code, text))
    fn.linkage = "external"
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    engine = llvm.create_mcjit_compiler(
        llvm.parse_assembly(str(llmod)), llvm.Target.from_default_triple().create_target_machine()
    )
    engine.finalize_object()

    class Pair(ctypes.Structure):
        _fields_ = [("cur", ctypes.c_void_p), ("end", ctypes.c_void_p)]

    record = (ctypes.c_int64 * 6)()
    tape = _Header(base=ctypes.addressof(moved) + 64, top=0, cap=100)
    call = ctypes.CFUNCTYPE(
        Pair, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int32
    )(engine.get_function_address(fn.name))
    cur = ctypes.addressof(moved) + 64 + 96  # 96 bytes used
    pair = call(ctypes.addressof(tape), cur, 8, ctypes.addressof(record), 42)
    if fails:
        assert (pair.cur, pair.end) == (None, None)
        assert record[0] & 0xFFFFFFFF == code and record[0] >> 32 == 42
        assert ctypes.string_at(record[1]) == b"out of memory" and record[5] == 0
        assert (tape.base, tape.cap) == (ctypes.addressof(moved) + 64, 100)
    else:
        assert pair.cur == ctypes.addressof(moved) + 96  # the same bytes in use, moved
        assert pair.end == ctypes.addressof(moved) + 96 + 8  # the runtime's new cap
        assert list(record) == [0] * 6
