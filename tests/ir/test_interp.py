"""The reference interpreter on hand-written IR, against Python's own operators."""

from __future__ import annotations

import math
import struct
import textwrap
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import (
    MESSAGES,
    InterpreterError,
    StepLimitExceeded,
    int_to_f32,
    round_f32,
    run_function,
    wrap_int,
)
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.verifier import verify_module

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
i64s = st.integers(min_value=I64_MIN, max_value=I64_MAX)
i32s = st.integers(min_value=I32_MIN, max_value=I32_MAX)


def load(text: str) -> Module:
    """Parse and verify (every test program is valid IR)."""
    mod = parse_module(textwrap.dedent(text))
    verify_module(mod)
    return mod


def binop(op: str, t: str) -> Module:
    return load(f"""
        func @f(%a: {t}, %b: {t}) -> {t} {{
        ^entry:
          %r = {op} %a, %b : {t}
          ret %r
        }}
    """)


def unop(op: str, t: str, rt: str | None = None) -> Module:
    return load(f"""
        func @f(%a: {t}) -> {rt or t} {{
        ^entry:
          %r = {op} %a : {rt or t}
          ret %r
        }}
    """)


def same(x: object, y: object) -> bool:
    """Equal, with NaN == NaN and the sign of zero compared."""
    if isinstance(x, float) and isinstance(y, float):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1, x) == math.copysign(1, y)
    return type(x) is type(y) and x == y


# ---------------------------------------------------------------------------------
# control flow

SUM = """
    func @sum(%n: i64) -> i64 export {
    ^entry:
      %zero = const 0 : i64
      %one = const 1 : i64
      br ^loop
    ^loop:
      %k = phi [^entry: %zero], [^body: %k1] : i64
      %s = phi [^entry: %zero], [^body: %s1] : i64
      %c = cmp lt %k, %n : i1
      condbr %c, ^body, ^exit
    ^body:
      %s1 = add %s, %k : i64
      %k1 = add %k, %one : i64
      br ^loop
    ^exit:
      ret %s
    }
"""


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_loop_with_phis(n: int) -> None:
    assert run_function(load(SUM), "sum", [n]) == sum(range(n))


def test_phis_read_their_values_simultaneously() -> None:
    # swap (a, b) = (b, a) n times: the phis must read the old values, not each other's new
    mod = load("""
        func @swap(%a: i64, %b: i64, %n: i64) -> tuple[i64,i64] {
        ^entry:
          %zero = const 0 : i64
          %one = const 1 : i64
          br ^loop
        ^loop:
          %x = phi [^entry: %a], [^loop: %y] : i64
          %y = phi [^entry: %b], [^loop: %x] : i64
          %k = phi [^entry: %zero], [^loop: %k1] : i64
          %k1 = add %k, %one : i64
          %c = cmp lt %k1, %n : i1
          condbr %c, ^loop, ^exit
        ^exit:
          %t = tuple(%x, %y) : tuple[i64,i64]
          ret %t
        }
    """)
    assert run_function(mod, "swap", [1, 2, 1]) == (1, 2)
    assert run_function(mod, "swap", [1, 2, 2]) == (2, 1)
    assert run_function(mod, "swap", [1, 2, 5]) == (1, 2)


def test_nested_loops() -> None:
    # pairs(n) = number of (i, j) with 0 <= i < j < n
    mod = load("""
        func @pairs(%n: i64) -> i64 {
        ^entry:
          %zero = const 0 : i64
          %one = const 1 : i64
          br ^outer
        ^outer:
          %i = phi [^entry: %zero], [^outer_latch: %i1] : i64
          %acc = phi [^entry: %zero], [^outer_latch: %acc_in] : i64
          %ci = cmp lt %i, %n : i1
          condbr %ci, ^inner_pre, ^exit
        ^inner_pre:
          %j0 = add %i, %one : i64
          br ^inner
        ^inner:
          %j = phi [^inner_pre: %j0], [^inner_body: %j1] : i64
          %acc_in = phi [^inner_pre: %acc], [^inner_body: %acc1] : i64
          %cj = cmp lt %j, %n : i1
          condbr %cj, ^inner_body, ^outer_latch
        ^inner_body:
          %acc1 = add %acc_in, %one : i64
          %j1 = add %j, %one : i64
          br ^inner
        ^outer_latch:
          %i1 = add %i, %one : i64
          br ^outer
        ^exit:
          ret %acc
        }
    """)
    for n in (0, 1, 2, 5, 17):
        assert run_function(mod, "pairs", [n]) == n * (n - 1) // 2


RECURSION = """
    module @rec

    func @fact(%n: i64) -> i64 export {
    ^entry:
      %one = const 1 : i64
      %base = cmp le %n, %one : i1
      condbr %base, ^done, ^rec
    ^done:
      ret %one
    ^rec:
      %m = sub %n, %one : i64
      %r = call @fact(%m) : i64
      %p = mul %n, %r : i64
      ret %p
    }

    func @fib(%n: i64) -> i64 {
    ^entry:
      %two = const 2 : i64
      %small = cmp lt %n, %two : i1
      condbr %small, ^base, ^rec
    ^base:
      ret %n
    ^rec:
      %one = const 1 : i64
      %a = sub %n, %one : i64
      %b = sub %n, %two : i64
      %fa = call @fib(%a) : i64
      %fb = call @fib(%b) : i64
      %s = add %fa, %fb : i64
      ret %s
    }

    func @even(%n: i64) -> i1 {
    ^entry:
      %zero = const 0 : i64
      %z = cmp eq %n, %zero : i1
      condbr %z, ^yes, ^rec
    ^yes:
      %t = const true : i1
      ret %t
    ^rec:
      %one = const 1 : i64
      %m = sub %n, %one : i64
      %r = call @odd(%m) : i1
      ret %r
    }

    func @odd(%n: i64) -> i1 {
    ^entry:
      %zero = const 0 : i64
      %z = cmp eq %n, %zero : i1
      condbr %z, ^no, ^rec
    ^no:
      %f = const false : i1
      ret %f
    ^rec:
      %one = const 1 : i64
      %m = sub %n, %one : i64
      %r = call @even(%m) : i1
      ret %r
    }

    func @forever(%n: i64) -> i64 {
    ^entry:
      %r = call @forever(%n) : i64
      ret %r
    }

    func @spin() -> none {
    ^entry:
      br ^loop
    ^loop:
      br ^loop
    }
"""


def test_recursion() -> None:
    mod = load(RECURSION)
    assert run_function(mod, "fact", [10]) == math.factorial(10)
    assert run_function(mod, "fib", [15]) == 610
    assert run_function(mod, "even", [10]) is True
    assert run_function(mod, "odd", [7]) is True
    assert run_function(mod, "even", [7]) is False


def test_deep_recursion_does_not_use_the_python_stack() -> None:
    assert run_function(load(RECURSION), "even", [5001]) is False


def test_fact_wraps_around() -> None:
    expected = wrap_int(math.factorial(25), 64)
    assert run_function(load(RECURSION), "fact", [25]) == expected


def test_recursion_limit() -> None:
    with pytest.raises(RecursionError):
        run_function(load(RECURSION), "forever", [1], max_depth=200)


def test_step_limit() -> None:
    with pytest.raises(StepLimitExceeded, match="step limit of 1000") as info:
        run_function(load(RECURSION), "spin", [], step_limit=1000)
    assert isinstance(info.value, RuntimeError)


def test_none_result_and_select_and_tuples() -> None:
    mod = load("""
        func @f(%c: i1, %x: f64, %t: tuple[f64,i64]) -> tuple[f64,i64,i1] {
        ^entry:
          %e = extract %t, 1 : i64
          %ef = cast %e : f64
          %s = select %c, %x, %ef : f64
          %i = extract %t, 1 : i64
          %n = not %c : i1
          %r = tuple(%s, %i, %n) : tuple[f64,i64,i1]
          ret %r
        }

        func @v() -> none {
        ^entry:
          ret
        }
    """)
    assert run_function(mod, "f", [True, 2.5, (1.0, 7)]) == (2.5, 7, False)
    assert run_function(mod, "f", [False, 2.5, (1.0, 7)]) == (7.0, 7, True)
    assert run_function(mod, "v", []) is None


# ---------------------------------------------------------------------------------
# exceptions


@pytest.mark.parametrize("kind", sorted(ops.EXCEPTION_KINDS))
def test_raise_each_kind(kind: str) -> None:
    mod = load(f'func @f() -> none {{\n^entry:\n  raise {kind} "went wrong: {kind}"\n}}\n')
    exc = __builtins__[kind] if isinstance(__builtins__, dict) else getattr(__builtins__, kind)
    with pytest.raises(exc) as info:
        run_function(mod, "f", [])
    assert type(info.value) is exc
    assert info.value.args == (f"went wrong: {kind}",)


def test_assertion_error_without_message() -> None:
    mod = load('func @f() -> none {\n^entry:\n  raise AssertionError ""\n}\n')
    with pytest.raises(AssertionError) as info:
        run_function(mod, "f", [])
    assert info.value.args == ()


NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("op", "t", "args", "exc", "message"),
    [
        ("floordiv", "i64", [1, 0], ZeroDivisionError, "integer division or modulo by zero"),
        ("floordiv", "i32", [-5, 0], ZeroDivisionError, "integer division or modulo by zero"),
        ("mod", "i64", [1, 0], ZeroDivisionError, "integer modulo by zero"),
        ("div", "f64", [1.0, 0.0], ZeroDivisionError, "float division by zero"),
        ("div", "f64", [1.0, -0.0], ZeroDivisionError, "float division by zero"),
        ("div", "f32", [1.0, 0.0], ZeroDivisionError, "float division by zero"),
        ("floordiv", "f64", [1.0, 0.0], ZeroDivisionError, "float floor division by zero"),
        ("mod", "f64", [1.0, 0.0], ZeroDivisionError, "float modulo"),
        ("pow", "i64", [2, -1], ValueError, MESSAGES["int_pow_negative"]),
        ("pow", "i64", [0, -1], ZeroDivisionError, "0.0 cannot be raised to a negative power"),
        ("pow", "f64", [0.0, -1.0], ZeroDivisionError, "0.0 cannot be raised to a negative power"),
        ("pow", "f64", [-8.0, 1 / 3], ValueError, MESSAGES["float_pow_fractional"]),
        ("pow", "f64", [10.0, 400.0], OverflowError, "(34, 'Numerical result out of range')"),
        ("pow", "f32", [10.0, 40.0], OverflowError, "(34, 'Numerical result out of range')"),
    ],
)
def test_arithmetic_exceptions(
    op: str, t: str, args: list[object], exc: type, message: str
) -> None:
    with pytest.raises(exc) as info:
        run_function(binop(op, t), "f", args)
    assert type(info.value) is exc
    assert info.value.args == (message,)


@pytest.mark.parametrize(
    ("fn", "args", "exc", "message"),
    [
        ("sqrt", [-1.0], ValueError, "math domain error"),
        ("log", [0.0], ValueError, "math domain error"),
        ("acos", [2.0], ValueError, "math domain error"),
        ("exp", [1000.0], OverflowError, "math range error"),
        ("cosh", [1000.0], OverflowError, "math range error"),
        ("gamma", [0.0], ValueError, "math domain error"),
        ("pow", [0.0, -1.0], ValueError, "math domain error"),
        ("pow", [10.0, 400.0], OverflowError, "math range error"),
        ("fmod", [1.0, 0.0], ValueError, "math domain error"),
        ("fmod", [-1.0, -0.0], ValueError, "math domain error"),
        ("fmod", [INF, 2.0], ValueError, "math domain error"),
        ("fmod", [-INF, INF], ValueError, "math domain error"),
    ],
)
def test_math_exceptions_are_cpythons(fn: str, args: list[float], exc: type, message: str) -> None:
    params = ", ".join(f"%a{i}: f64" for i in range(len(args)))
    uses = ", ".join(f"%a{i}" for i in range(len(args)))
    mod = load(f"func @f({params}) -> f64 {{\n^e:\n  %r = math {fn}({uses}) : f64\n  ret %r\n}}\n")
    with pytest.raises(exc) as info:
        run_function(mod, "f", args)
    assert info.value.args == (message,)


@pytest.mark.parametrize(
    ("t", "value", "exc", "message"),
    [
        ("i64", NAN, ValueError, "cannot convert float NaN to integer"),
        ("i64", INF, OverflowError, "cannot convert float infinity to integer"),
        ("i64", -INF, OverflowError, "cannot convert float infinity to integer"),
        ("i64", 2.0**63, OverflowError, "int too large to convert"),
        ("i32", 2.0**31, OverflowError, "int too large to convert"),
    ],
)
def test_cast_exceptions(t: str, value: float, exc: type, message: str) -> None:
    with pytest.raises(exc) as info:
        run_function(unop("cast", "f64", t), "f", [value])
    assert info.value.args == (message,)


# ---------------------------------------------------------------------------------
# wrap-around, rounding, casts


@pytest.mark.parametrize(
    ("op", "t", "a", "b", "expected"),
    [
        ("add", "i64", I64_MAX, 1, I64_MIN),
        ("sub", "i64", I64_MIN, 1, I64_MAX),
        ("mul", "i64", 2**62, 4, 0),
        ("mul", "i64", 3**39, 3**5, wrap_int(3**44, 64)),
        ("floordiv", "i64", I64_MIN, -1, I64_MIN),
        ("mod", "i64", I64_MIN, -1, 0),
        ("pow", "i64", 3, 100, wrap_int(3**100, 64)),
        ("pow", "i64", -3, 41, wrap_int((-3) ** 41, 64)),
        ("pow", "i64", 0, 0, 1),
        ("add", "i32", I32_MAX, 1, I32_MIN),
        ("mul", "i32", 65536, 65536, 0),
        ("pow", "i32", 2, 31, I32_MIN),
    ],
)
def test_int_wrap_around(op: str, t: str, a: int, b: int, expected: int) -> None:
    assert run_function(binop(op, t), "f", [a, b]) == expected


def test_unary_wrap_around() -> None:
    assert run_function(unop("neg", "i64"), "f", [I64_MIN]) == I64_MIN
    assert run_function(unop("abs", "i64"), "f", [I64_MIN]) == I64_MIN
    assert run_function(unop("abs", "i32"), "f", [I32_MIN]) == I32_MIN
    assert run_function(unop("neg", "i32"), "f", [5]) == -5


@pytest.mark.parametrize(
    ("src", "dst", "value", "expected"),
    [
        ("i64", "i32", 2**31, I32_MIN),  # truncates
        ("i64", "i32", -1, -1),
        ("i32", "i64", -7, -7),  # sign-extends
        ("i1", "i64", True, 1),  # zero-extends
        ("i64", "i1", 2, True),  # != 0
        ("i64", "i1", 0, False),
        ("f64", "i1", NAN, True),
        ("f64", "i1", -0.0, False),
        ("i64", "f64", 2**53 + 1, float(2**53)),
        ("f64", "i64", -2.9, -2),  # truncates toward zero
        ("f64", "i64", 2.0**63 - 1024, 2**63 - 1024),
        ("f64", "f32", 0.1, struct.unpack("f", struct.pack("f", 0.1))[0]),
        ("f64", "f32", 1e300, INF),
        ("f32", "f64", 0.5, 0.5),
        ("i64", "f32", 2**62 + 2**38 + 1, float(2**62 + 2**39)),  # no double rounding
        ("i1", "f64", True, 1.0),
    ],
)
def test_casts(src: str, dst: str, value: object, expected: object) -> None:
    assert same(run_function(unop("cast", src, dst), "f", [value]), expected)


def test_f32_arithmetic_is_rounded() -> None:
    got = run_function(binop("add", "f32"), "f", [0.1, 0.2])
    f = round_f32
    assert got == f(f(0.1) + f(0.2))
    assert got != 0.1 + 0.2
    assert run_function(binop("mul", "f32"), "f", [3e38, 10.0]) == INF
    assert int_to_f32(2**62 + 2**38 + 1) == float(2**62 + 2**39)
    assert int_to_f32(-(2**24 + 1)) == -float(2**24)  # tie to even
    assert int_to_f32(2**24 + 3) == float(2**24 + 4)


def test_const_f32_is_rounded() -> None:
    mod = load("func @f() -> f32 {\n^e:\n  %c = const 0.1 : f32\n  ret %c\n}\n")
    assert run_function(mod, "f", []) == round_f32(0.1)


@pytest.mark.parametrize(
    ("a", "b"), [(1.0, NAN), (NAN, 1.0), (0.0, -0.0), (-0.0, 0.0), (2.0, 1.0), (1.0, 2.0)]
)
def test_min_max_follow_python(a: float, b: float) -> None:
    assert same(run_function(binop("min", "f64"), "f", [a, b]), min(a, b))
    assert same(run_function(binop("max", "f64"), "f", [a, b]), max(a, b))


@pytest.mark.parametrize("pred", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize(("a", "b"), [(1.0, NAN), (NAN, NAN), (1.0, 2.0), (2.0, 2.0), (-0.0, 0.0)])
def test_cmp_follows_python(pred: str, a: float, b: float) -> None:
    mod = load(
        f"func @f(%a: f64, %b: f64) -> i1 {{\n^e:\n  %r = cmp {pred} %a, %b : i1\n  ret %r\n}}\n"
    )
    py = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}
    assert run_function(mod, "f", [a, b]) is py[pred]


@pytest.mark.parametrize(
    ("fn", "x", "expected"),
    [
        ("floor", -0.5, -1.0),
        ("floor", 0.5, 0.0),
        ("ceil", -0.5, -0.0),
        ("trunc", -0.5, -0.0),
        ("floor", -0.0, -0.0),
        ("floor", INF, INF),
        ("ceil", NAN, NAN),
        ("floor", 1e300, 1e300),
        ("fabs", -2.0, 2.0),
        ("sin", 0.5, math.sin(0.5)),
        ("lgamma", 3.5, math.lgamma(3.5)),
    ],
)
def test_math_results(fn: str, x: float, expected: float) -> None:
    mod = load(f"func @f(%a: f64) -> f64 {{\n^e:\n  %r = math {fn}(%a) : f64\n  ret %r\n}}\n")
    assert same(run_function(mod, "f", [x]), expected)


def test_math_predicates_return_bools() -> None:
    mod = load("func @f(%a: f64) -> i1 {\n^e:\n  %r = math isnan(%a) : i1\n  ret %r\n}\n")
    assert run_function(mod, "f", [NAN]) is True
    assert run_function(mod, "f", [1.0]) is False


def test_float_pow_special_cases_follow_python() -> None:
    mod = binop("pow", "f64")
    for a, b in [
        (-8.0, 3.0),
        (-INF, 0.5),
        (0.0, 0.0),
        (NAN, 0.0),
        (1.0, NAN),
        (0.0, -INF),
        (2.0, -1074.0),
    ]:
        assert same(run_function(mod, "f", [a, b]), a**b), (a, b)


# ---------------------------------------------------------------------------------
# Python's floor division and modulo: every sign combination, against Python itself


@settings(max_examples=400)
@given(i64s, i64s)
@example(7, 2)
@example(-7, 2)
@example(7, -2)
@example(-7, -2)
@example(I64_MIN, -1)
@example(0, -3)
def test_int_floordiv_mod_match_python(a: int, b: int) -> None:
    if b == 0:
        b = 1
    assert run_function(binop("floordiv", "i64"), "f", [a, b]) == wrap_int(a // b, 64)
    assert run_function(binop("mod", "i64"), "f", [a, b]) == a % b


@settings(max_examples=200)
@given(i32s, i32s.filter(lambda b: b != 0))
def test_i32_floordiv_mod_match_python(a: int, b: int) -> None:
    assert run_function(binop("floordiv", "i32"), "f", [a, b]) == wrap_int(a // b, 32)
    assert run_function(binop("mod", "i32"), "f", [a, b]) == a % b


floats = st.floats(allow_nan=True, allow_infinity=True)


@settings(max_examples=400)
@given(floats, floats.filter(lambda b: b != 0.0))
@example(7.5, 2.0)
@example(-7.5, 2.0)
@example(7.5, -2.0)
@example(-7.5, -2.0)
@example(-0.0, 3.0)
@example(1.0, INF)
@example(-1.0, INF)
@example(INF, 1.0)
def test_float_floordiv_mod_match_python(a: float, b: float) -> None:
    assert same(run_function(binop("floordiv", "f64"), "f", [a, b]), a // b)
    assert same(run_function(binop("mod", "f64"), "f", [a, b]), a % b)


def _outcome(fn: Callable[[], object]) -> tuple[str, object]:
    try:
        return "value", fn()
    except ValueError as exc:
        return "raise", (type(exc), exc.args)


@settings(max_examples=400)
@given(floats, floats)
@example(7.5, 2.0)
@example(-7.5, 2.0)
@example(7.5, -2.0)
@example(-0.0, 3.0)
@example(0.0, -3.0)
@example(1.0, INF)
@example(-1.0, -INF)
@example(INF, NAN)
@example(NAN, 0.0)
@example(1.0, 0.0)
@example(1e300, 1e-300)
def test_math_fmod_matches_cpython(a: float, b: float) -> None:
    mod = load(
        "func @f(%a: f64, %b: f64) -> f64 {\n^e:\n  %r = math fmod(%a, %b) : f64\n  ret %r\n}\n"
    )
    got = _outcome(lambda: run_function(mod, "f", [a, b]))
    want = _outcome(lambda: math.fmod(a, b))
    if got[0] == want[0] == "value":
        assert same(got[1], want[1])
    else:
        assert got == want


@settings(max_examples=200)
@given(i64s, i64s, st.sampled_from(["add", "sub", "mul"]))
def test_i64_arithmetic_wraps(a: int, b: int, op: str) -> None:
    py = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    assert run_function(binop(op, "i64"), "f", [a, b]) == wrap_int(py, 64)


@settings(max_examples=200)
@given(floats, floats, st.sampled_from(["add", "sub", "mul", "div"]))
def test_f64_arithmetic_matches_python(a: float, b: float, op: str) -> None:
    if op == "div" and b == 0.0:
        return
    py = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b if b else 0.0}[op]
    assert same(run_function(binop(op, "f64"), "f", [a, b]), py)


# ---------------------------------------------------------------------------------
# arguments and broken IR


def test_argument_checks() -> None:
    mod = load(SUM)
    with pytest.raises(TypeError, match="takes 1 argument"):
        run_function(mod, "sum", [])
    with pytest.raises(TypeError, match="expected an int for i64"):
        run_function(mod, "sum", [1.5])
    with pytest.raises(OverflowError, match="out of range for i64"):
        run_function(mod, "sum", [2**63])
    with pytest.raises(KeyError):
        run_function(mod, "nope", [])


def test_float_arguments_accept_ints() -> None:
    assert run_function(binop("add", "f64"), "f", [1, 2]) == 3.0


def test_malformed_ir_raises_interpreter_error() -> None:
    mod = parse_module("func @f(%a: i64) -> i64 {\n^e:\n  %r = div %a, %a : i64\n  ret %r\n}\n")
    with pytest.raises(InterpreterError, match="floats only"):
        run_function(mod, "f", [1])
    mod = parse_module("func @f(%a: i64) -> i64 {\n^e:\n  %r = add %a, %a : i64\n}\n")
    with pytest.raises(InterpreterError, match="fell off the end"):
        run_function(mod, "f", [1])


# ---------------------------------------------------------------------------------
# arrays

ARRAYS = """
    module @arrays

    func @total(%a: array[f64,1,A]) -> f64 {
    ^entry:
      %n = dim %a, 0 : i64
      %zero = const 0 : i64
      %one = const 1 : i64
      %fz = const 0.0 : f64
      br ^loop
    ^loop:
      %k = phi [^entry: %zero], [^body: %k1] : i64
      %s = phi [^entry: %fz], [^body: %s1] : f64
      %c = cmp lt %k, %n : i1
      condbr %c, ^body, ^exit
    ^body:
      %p = elemaddr %a, (%k) : ptr[f64]
      %x = load %p : f64
      %s1 = add %s, %x : f64
      %k1 = add %k, %one : i64
      br ^loop
    ^exit:
      ret %s
    }

    func @get(%a: array[i64,2,C], %i: i64, %j: i64) -> i64 {
    ^entry:
      %p = elemaddr %a, (%i, %j) : ptr[i64]
      %x = load %p : i64
      ret %x
    }

    func @scale(%a: array[f32,1,C], %f: f32, %i: i64) -> none {
    ^entry:
      %p = elemaddr %a, (%i) : ptr[f32]
      %x = load %p : f32
      %y = mul %x, %f : f32
      store %p, %y
      ret
    }

    func @make(%n: i64, %v: f64) -> tuple[array[f64,1,C],array[f64,1,C],array[i1,1,C]] {
    ^entry:
      %a = newarray(%n), %v : array[f64,1,C]
      %b = copyarray %a : array[f64,1,C]
      %z = newarray(%n) : array[i1,1,C]
      incref %b
      decref %b
      %zero = const 0 : i64
      %p = elemaddr %a, (%zero) : ptr[f64]
      %w = const -1.0 : f64
      store %p, %w
      %t = tuple(%a, %b, %z) : tuple[array[f64,1,C],array[f64,1,C],array[i1,1,C]]
      ret %t
    }
"""


def test_tape_is_last_in_first_out() -> None:
    mod = load("""
        func @f(%x: f64, %i: i64) -> tuple[i64,f64] {
        ^entry:
          %t = tapenew : tape
          tapepush %t, %x
          tapepush %t, %i
          %j = tapepop %t : i64
          %y = tapepop %t : f64
          tapefree %t
          %r = tuple(%j, %y) : tuple[i64,f64]
          ret %r
        }

        func @leak(%x: f64) -> f64 {
        ^entry:
          %t = tapenew : tape
          tapepush %t, %x
          tapefree %t
          ret %x
        }
    """)
    assert run_function(mod, "f", [2.5, 7]) == (7, 2.5)
    with pytest.raises(InterpreterError, match="tapefree of a tape holding 1 value"):
        run_function(mod, "leak", [1.0])


def test_array_loop() -> None:
    np = pytest.importorskip("numpy")
    a = np.array([0.5, 1.25, -3.0, 8.0])
    assert run_function(load(ARRAYS), "total", [a]) == sum(a.tolist())
    assert run_function(load(ARRAYS), "total", [a[::-2]]) == 8.0 + 1.25  # strided view


def test_array_indexing_follows_numpy() -> None:
    np = pytest.importorskip("numpy")
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    mod = load(ARRAYS)
    for i, j in [(0, 0), (1, 2), (-1, -3), (-2, 1)]:
        got = run_function(mod, "get", [a, i, j])
        assert got == a[i, j] and type(got) is int
    for i, j in [(2, 0), (0, 3), (-3, 0), (0, -4)]:
        with pytest.raises(IndexError) as info:
            run_function(mod, "get", [a, i, j])
        with pytest.raises(IndexError) as numpy_info:
            a[i, j]
        assert str(info.value) == str(numpy_info.value)


def test_store_writes_in_place_with_f32_rounding() -> None:
    np = pytest.importorskip("numpy")
    a = np.array([1.0, 0.1, 3.0], dtype=np.float32)
    expected = np.float32(0.1) * np.float32(3.3)
    assert run_function(load(ARRAYS), "scale", [a, 3.3, 1]) is None
    assert a[1] == expected and a[0] == 1.0


def test_new_and_copied_arrays() -> None:
    np = pytest.importorskip("numpy")
    a, b, z = run_function(load(ARRAYS), "make", [3, 2.5])  # type: ignore[misc]
    assert a.tolist() == [-1.0, 2.5, 2.5] and a.flags.c_contiguous
    assert b.tolist() == [2.5, 2.5, 2.5]  # a copy: the store into a did not reach it
    assert z.dtype == np.bool_ and z.tolist() == [False] * 3
    with pytest.raises(ValueError, match=r"^negative dimensions are not allowed$"):
        run_function(load(ARRAYS), "make", [-1, 0.0])


def test_pointer_arithmetic_and_offsets() -> None:
    np = pytest.importorskip("numpy")
    mod = load("""
        func @f(%a: array[f64,2,A], %i: i64, %j: i64, %step: i64) -> f64 {
        ^entry:
          %o = elemoffset %a, (%i, %j) : i64
          %p = addr %a, %o : ptr[f64]
          %q = ptradd %p, %step : ptr[f64]
          %x = load %q : f64
          ret %x
        }
    """)
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    for a in (base, base[::-1, ::2], base.T, base[1:3, ::-3]):
        for i, j in [(0, 0), (1, 1), (a.shape[0] - 1, a.shape[1] - 1)]:
            assert run_function(mod, "f", [a, i, j, 0]) == a[i, j]
        if a.shape[1] > 1:  # one step along axis 1
            assert run_function(mod, "f", [a, 0, 0, a.strides[1]]) == a[0, 1]
    with pytest.raises(InterpreterError, match="not at an element"):
        run_function(mod, "f", [base, 0, 0, 3])
    with pytest.raises(InterpreterError, match="not at an element"):
        run_function(mod, "f", [base, 3, 5, 8])  # one past the end


def test_dataaddr_is_the_address_of_the_first_element() -> None:
    np = pytest.importorskip("numpy")
    mod = load("""
        func @f(%a: array[f64,1,A], %b: array[f64,1,A]) -> i64 {
        ^entry:
          %x = dataaddr %a : i64
          %y = dataaddr %b : i64
          %d = sub %y, %x : i64
          ret %d
        }
    """)
    base = np.arange(10.0)
    assert run_function(mod, "f", [base, base[3:]]) == 3 * base.itemsize
    assert run_function(mod, "f", [base, base[::-1]]) == 9 * base.itemsize


def test_poison_may_flow_but_not_be_observed() -> None:
    mod = load("""
        func @f(%c: i1, %x: f64) -> f64 {
        ^entry:
          %u = poison : f64
          %s = select %c, %x, %u : f64
          condbr %c, ^a, ^b
        ^a:
          br ^j
        ^b:
          br ^j
        ^j:
          %p = phi [^a: %s], [^b: %u] : f64
          %r = add %p, %x : f64
          ret %r
        }
    """)
    assert run_function(mod, "f", [True, 2.0]) == 4.0
    with pytest.raises(InterpreterError, match="add observes a poison value"):
        run_function(mod, "f", [False, 2.0])


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1.0, 0.0, INF),
        (-1.0, 0.0, -INF),
        (1.0, -0.0, -INF),
        (0.0, 0.0, NAN),
        (NAN, 0.0, NAN),
        (1.0, 4.0, 0.25),
    ],
)
def test_fdiv_is_ieee(a: float, b: float, expected: float) -> None:
    assert same(run_function(binop("fdiv", "f64"), "f", [a, b]), expected)


def test_array_argument_checks() -> None:
    np = pytest.importorskip("numpy")
    mod = load(ARRAYS)
    with pytest.raises(TypeError, match="expected array"):
        run_function(mod, "get", [np.zeros((2, 3)), 0, 0])  # float64, not int64
    with pytest.raises(TypeError, match="C-contiguous"):
        run_function(mod, "get", [np.zeros((3, 2), dtype=np.int64).T, 0, 0])
    with pytest.raises(TypeError, match="NumPy array"):
        run_function(mod, "total", [[1.0, 2.0]])


@pytest.mark.parametrize(
    ("kind", "message"), [("", "float division by zero"), (", int", "division by zero")]
)
def test_div_message_follows_its_kind(kind: str, message: str) -> None:
    # ``div ..., int`` is Python's int / int (inference marks it); explicit float(n) /
    # float(m) is a plain float division although both operands are casts from ints
    mod = load(
        "func @f(%n: i64, %m: i64) -> f64 {\n^e:\n  %a = cast %n : f64\n  %b = cast %m : f64\n"
        f"  %r = div %a, %b{kind} : f64\n  ret %r\n}}\n"
    )
    with pytest.raises(ZeroDivisionError) as info:
        run_function(mod, "f", [1, 0])
    assert info.value.args == (message,)
