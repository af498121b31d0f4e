"""``cast`` with Python's meaning: ``int(x)`` for float → int, ``bool(x)``, ``float(n)``."""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import F32, F64, I1, I32, I64, Type

TYPES = {"f64": F64, "f32": F32, "i64": I64, "i32": I32, "bool": I1}
PAIRS = [(a, b) for a in TYPES for b in TYPES if a != b]

EDGES = [2.0**63, -(2.0**63), 2.0**63 - 1024, -(2.0**63) - 2048, 2.0**31, -(2.0**31)]
EDGES += [2.0**31 - 0.5, -(2.0**31) - 0.5, -(2.0**31) - 1.0, 0.0, -0.0, 0.9, -0.9]
EDGES += [math.nan, math.inf, -math.inf, 1e300, -1e300, 5e-324]


def f32(x: float) -> float:
    """``x`` rounded to binary32 (the value an f32 holds)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def to_int(x: float, bits: int) -> int:
    """``int(x)`` with CPython's errors, plus gradc's range check for a ``bits``-bit int."""
    n = int(x)  # ValueError for NaN, OverflowError for ±inf: CPython's own messages
    if not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
        raise OverflowError("int too large to convert")
    return n


def wrap(v: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return (v + half) % (1 << bits) - half


def python_cast(value: Any, src: str, dst: str) -> Any:
    if dst == "bool":
        return bool(value)
    if src in ("f64", "f32") and dst in ("i64", "i32"):
        return to_int(value, 64 if dst == "i64" else 32)
    if dst == "f64":
        return float(value)
    if dst == "f32" and src in ("i64", "i32"):
        return float(np.float32(np.int64(value)))  # one rounding, as C (not via f64)
    if dst == "f32":
        return f32(float(value))
    return wrap(int(value), 64 if dst == "i64" else 32)


def values_of(src: str) -> st.SearchStrategy[Any]:
    match src:
        case "f64":
            return st.one_of(st.floats(), st.sampled_from(EDGES))
        case "f32":
            return st.floats(width=32)
        case "i64":
            # 2**60 + 2**36 + 1: rounding through f64 first would give a different f32
            return st.one_of(
                st.integers(-(2**63), 2**63 - 1), st.just(2**60 + 2**36 + 1), st.just(-(2**63))
            )
        case "i32":
            return st.integers(-(2**31), 2**31 - 1)
    return st.booleans()


@pytest.fixture(scope="module")
def fns(codegen: Any) -> dict[str, Any]:
    m = Module("casts")
    for src, dst in PAIRS:
        t_src: Type = TYPES[src]
        b = codegen.function(m, f"{src}_{dst}", [("x", t_src)], TYPES[dst], line=40)
        b.ret(b.cast(b.function.params[0], TYPES[dst]))
    return codegen.build(m, list(m.functions))


def same(a: Any, b: Any) -> bool:
    if isinstance(b, float):
        if math.isnan(b):
            return isinstance(a, float) and math.isnan(a)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(("src", "dst"), PAIRS)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_cast_matches_python(fns: Any, codegen: Any, src: str, dst: str, data: Any) -> None:
    x = data.draw(values_of(src))
    got = codegen.outcome(fns[f"{src}_{dst}"], x)
    want = codegen.outcome(python_cast, x, src, dst)
    if got[0] == want[0] == "ok":
        assert same(got[1], want[1]), (src, dst, x, got, want)
    else:
        assert got == want, (src, dst, x)


@pytest.mark.parametrize("x", EDGES)
def test_float_to_int_edges(fns: Any, codegen: Any, x: float) -> None:
    for dst, bits in (("i64", 64), ("i32", 32)):
        assert codegen.outcome(fns[f"f64_{dst}"], x) == codegen.outcome(to_int, x, bits), (x, dst)


@given(x=st.floats())
@example(x=math.nan)
@example(x=-math.inf)
@settings(max_examples=50, deadline=None)
def test_float_to_int_messages(fns: Any, x: float) -> None:
    try:
        want: Any = to_int(x, 64)
    except (ValueError, OverflowError) as exc:
        with pytest.raises(type(exc), match="^" + str(exc) + "$") as info:
            fns["f64_i64"](x)
        assert info.value.line == 40  # type: ignore[attr-defined]
    else:
        assert fns["f64_i64"](x) == want
