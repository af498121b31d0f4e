"""Valid Python that gradc once rejected or answered with another message (issue #18,
class 9), run against CPython by tests/codegen/test_differential.py and, with every exception's
type and message compared, by tests/frontend/test_valid_python.py.

- Unreachable code is not analysed: a statement after an ``if``/``else`` whose branches
  all return (or raise, break, continue), after ``while True:`` without ``break``, or
  in a constant-false branch, reads nothing "before assignment".
- Array shapes are tuples of any int expressions: helper calls, arithmetic, ``len()``,
  ``a.shape[k]``, for every allocation function.
- ``-9223372036854775808`` is the int64 minimum in every context.
- ZeroDivisionError messages are CPython's for each operator and operand types:
  ``float(n) / float(m)`` is a float division.

No math functions: float results must match CPython bit for bit.
"""

import numpy as np

import gradc
from gradc import bool_, f64, i64

I64_MIN = -9223372036854775808
I64_MAX = 9223372036854775807

DOMAINS = {
    "shape_tuples": {"n": (1, 6)},
    "shape_tuple_helpers": {"n": (0, 5), "m": (0, 5)},
    "allocation_arguments": {"n": (0, 6)},
    "i64_min_uses": {"n": (-4611686018427387904, 4611686018427387904)},
    "float_pow_zero": {"x": (0.0, 100.0), "y": (-3.0, 3.0)},
    "int_pow_zero_base": {"a": (-2, 2), "n": (-3, 3)},
}


def _twice(n):
    return 2 * n


def _pick(c, x):
    if c:
        return x
    else:
        return -x
    return x + 1.0  # unreachable: both branches return


# -- unreachable code ------------------------------------------------------------------


@gradc.export
def after_if_else_return(x: f64, c: bool_) -> f64:
    if c:
        return x
    else:
        return 2.0 * x
    return x + 1.0


@gradc.export
def after_if_else_raise(x: f64, n: i64) -> f64:
    if n > 0:
        return x * n
    elif n < 0:
        raise ValueError("negative")
    else:
        raise ZeroDivisionError("zero")
    y = x + undefined_after_raise  # noqa: F821 - never runs
    return y


@gradc.export
def nested_all_return(x: f64, a: bool_, b: bool_) -> f64:
    if a:
        if b:
            return x
        else:
            return -x
        z = x  # unreachable inner join
    else:
        return x + 1.0
    return z + w  # noqa: F821 - unreachable outer join


@gradc.export
def after_return_in_loop(n: i64) -> i64:
    total = 0
    for i in range(n):
        if i % 2:
            total += i
            continue
            total -= 1000  # after continue
        else:
            total += 1
            if i > 5:
                break
                total = unbound_after_break  # noqa: F821
    return total


@gradc.export
def loop_body_always_returns(n: i64) -> i64:
    for i in range(n):
        return i * 10
        i = undefined_in_loop  # noqa: F821
    return -1


@gradc.export
def while_true_break(x: f64) -> f64:
    # y is assigned only in the loop: the loop's only exit is the break after it
    while True:
        y = x * 2.0
        if y > 10.0 or y < -10.0 or y == 0.0 or y != y:
            break
        x = y
    return y


@gradc.export
def while_true_return(n: i64) -> i64:
    k = 0
    while True:
        k += 1
        if k * k > n:
            return k
    return undefined_after_while_true  # noqa: F821


@gradc.export
def while_one_else(n: i64) -> i64:
    k = n
    while 1:
        k -= 3
        if k < 0:
            break
    else:
        k = unreachable_else  # noqa: F821
    return k


@gradc.export
def constant_conditions(x: f64) -> f64:
    if True:
        y = x + 1.0
    if False:
        x = undefined_if_false  # noqa: F821
    assert True
    return y


@gradc.export
def assert_false_ends_path(x: f64, c: bool_) -> f64:
    if c:
        r = x
    else:
        assert False, "no"
    return r


@gradc.export
def helper_unreachable_tail(x: f64, c: bool_) -> f64:
    return _pick(c, x)


# -- shape tuples ---------------------------------------------------------------------


@gradc.export
def shape_tuples(n: i64) -> f64:
    a = np.zeros((2, _twice(n)))
    b = np.ones((_twice(n) + 1, len(a), a.shape[1] - n, 1))
    c = np.full((_twice(n), 3), 1.5)
    d = np.empty((max(_twice(n), 1),))
    e = np.zeros((a.shape[0] * 2, abs(n - 3)), dtype=np.int64)
    d[0] = 0.25
    return (
        a.shape[1] * 1000.0
        + b.size * 10.0
        + c.size * c[0, 0] * (n > 0)
        + d[0]
        + e.shape[0]
        + e.shape[1] * 0.5
    )


@gradc.export
def shape_tuple_helpers(n: i64, m: i64) -> i64:
    a = np.full((_twice(n), _twice(m) + 1), 3, dtype=np.int64)
    s = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += int(a[i, j]) * (i + 1) + j
    return s + a.size


@gradc.export
def allocation_arguments(n: i64, x: f64) -> f64:
    # NumPy's keyword names, list shapes, dtype=None: all valid NumPy
    a = np.zeros([2, _twice(n) + 1])
    b = np.full(shape=(len(a), 3), fill_value=x)
    c = np.ones(shape=[n + 1], dtype=None)
    d = np.full_like(a=b, fill_value=2.5)
    e = np.empty((n + 1,), dtype=np.float64)
    f = np.zeros_like(b, dtype=np.int64)
    e[0] = x
    return a.size + b[1, 2] + c.size * 10.0 + d[0, 0] + e[0] + f.size * 100.0


# -- the int64 minimum ---------------------------------------------------------------


@gradc.export
def i64_min_literal() -> i64:
    return -9223372036854775808


@gradc.export
def i64_min_uses(n: i64):
    lo = -9223372036854775808
    return (
        n > -9223372036854775808,
        n == I64_MIN,
        lo == I64_MIN,
        -(9223372036854775808) == lo,
        lo + n if n >= 0 else lo - n - 1,
        I64_MAX + -9223372036854775808,
        -9223372036854775807 - 1 == lo,
        float(lo),
        -(-9223372036854775807),  # noqa: B002 - nested signs are the point
        --5,  # noqa: B002
        +-3,
        -True,
    )


# -- ZeroDivisionError messages ----------------------------------------------------------


@gradc.export
def explicit_float_div(n: i64, m: i64) -> f64:
    return float(n) / float(m)  # "float division by zero", not "division by zero"


@gradc.export
def div_mixes(n: i64, m: i64, x: f64, y: f64):
    return float(n) / m, n / float(m), n / (m * 1.0), n / m, x / m, n / y, x / y


@gradc.export
def div_by_constant_zero(n: i64, x: f64, c: i64):
    if c == 0:
        return n / 0
    if c == 1:
        return x / 0
    if c == 2:
        return n / 0.0
    if c == 3:
        return float(n) / 0
    if c == 4:
        return 1 / (n - n)
    return 0.0


@gradc.export
def floordiv_mixes(n: i64, m: i64, x: f64, y: f64):
    return n // m, float(n) // m, n // y, x // m, x // y


@gradc.export
def mod_mixes(n: i64, m: i64, x: f64, y: f64):
    return n % m, float(n) % m, n % y, x % m, x % y


@gradc.export
def aug_div_mixes(n: i64, m: i64, x: f64, c: i64) -> f64:
    r = x
    if c == 0:
        r /= m
    elif c == 1:
        r //= m
    elif c == 2:
        r %= m
    else:
        r = n / m
    return r


@gradc.export
def bool_divisions(a: bool_, b: bool_):
    return a / b, a // b, a % b


@gradc.export
def float_pow_zero(x: f64, y: f64) -> f64:
    return x**y  # 0.0 ** negative: "0.0 cannot be raised to a negative power"


@gradc.export
def int_pow_zero_base(a: i64, n: i64) -> i64:
    if n < 0 and a != 0:
        return 0  # CPython's result would be a float, which an i64 result cannot hold
    return a**n  # 0 ** -n: ZeroDivisionError("0.0 cannot be raised to a negative power")
