"""Control flow and logic: if/elif/else, conditional expressions, chained comparisons,
short-circuit and/or (returning values, not bools), not, pass, raise, assert.

No math functions here: every float result must match CPython bit for bit.
"""

import gradc
from gradc import boolean, f64, i64

DOMAINS = {
    "assert_plain": {"a": (-5, 5)},
    "raise_in_branch": {"x": (-10.0, 10.0)},
    "chained_mixed": {"lo": (-5, 5), "hi": (-5, 5), "x": (-8.0, 8.0)},
    "chained_eq": {"a": (-2, 2), "b": (-2, 2), "c": (-2, 2)},
    "and_or_int": {"a": (-2, 2), "b": (-2, 2), "c": (-2, 2)},
    "or_chain_int": {"a": (-1, 1), "b": (-1, 1), "c": (-3, 3)},
    "and_or_float": {"x": (-2.0, 2.0), "y": (-2.0, 2.0)},
    "shortcircuit_div": {"b": (-3, 3)},
    "shortcircuit_or_mod": {"b": (-3, 3)},
    "chained_div_shortcircuit": {"y": (-1.0, 1.0)},
    "classify_int": {"a": (-20, 120)},
}


@gradc.export
def sign(x: f64) -> i64:
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


@gradc.export
def classify_int(a: i64) -> i64:
    if a < 0:
        r = -1
    elif a == 0:
        r = 0
    elif a < 10:
        r = 1
    elif a < 100:
        r = 2
    else:
        r = 3
    return r * 10 + a % 3


@gradc.export
def clamp(x: f64, lo: f64, hi: f64) -> f64:
    if lo > hi:
        lo, hi = hi, lo
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@gradc.export
def pass_stmt(a: i64) -> i64:
    if a > 0:
        pass
    else:
        a = -a
    return a


@gradc.export
def cond_expr(x: f64) -> f64:
    return x if x > 0 else -x * 2.0


@gradc.export
def nested_cond_expr(a: i64) -> i64:
    return 1 if a > 10 else (2 if a > 0 else (3 if a == 0 else 4))


@gradc.export
def cond_expr_guard(x: f64, y: f64) -> f64:
    # the untaken arm would raise ZeroDivisionError
    return x / y if y != 0.0 else x * 1e300


@gradc.export
def chained_lt(a: i64, b: i64, c: i64) -> boolean:
    return a < b < c


@gradc.export
def chained_mixed(x: f64, lo: i64, hi: i64) -> boolean:
    return lo <= x < hi


@gradc.export
def chained_eq(a: i64, b: i64, c: i64) -> boolean:
    return a == b == c


@gradc.export
def chained_zigzag(a: i64, b: i64, c: i64, d: i64) -> boolean:
    return a < b > c != d >= -5


@gradc.export
def chained_div_shortcircuit(x: f64, y: f64) -> boolean:
    # x / y is only evaluated when y != 0
    return y != 0 < x / y


@gradc.export
def chained_in_if(a: i64, x: f64) -> i64:
    if -10 < a <= x < 50.0:
        return 1
    elif 0 <= a == 3:
        return 2
    return 0


@gradc.export
def and_or_float(x: f64, y: f64):
    return x or y, x and y, x and y or 7.5  # noqa: RUF021


@gradc.export
def and_or_int(a: i64, b: i64, c: i64) -> i64:
    return a and b or c  # noqa: RUF021


@gradc.export
def or_chain_int(a: i64, b: i64, c: i64) -> i64:
    return a or b or c


@gradc.export
def shortcircuit_div(a: i64, b: i64) -> boolean:
    return b != 0 and a // b > 2


@gradc.export
def shortcircuit_or_mod(a: i64, b: i64) -> boolean:
    return b == 0 or a % b == 0


@gradc.export
def not_ops(a: i64, x: f64, flag: boolean):
    return not a, not x, not flag, not (a > 3 and x < 0)


@gradc.export
def bool_logic(p: boolean, q: boolean, r: boolean) -> boolean:
    return (p and not q) or (q and r)


@gradc.export
def bool_args_select(flag: boolean, x: f64, y: f64) -> f64:
    if flag:
        return x - y
    return y - x


@gradc.export
def if_and_or(x: f64, y: f64) -> i64:
    if x > 0 and y > 0:
        return 1
    elif x > 0 or y > 0:
        return 2
    elif not (x < -50 or y < -50):
        return 3
    return 4


@gradc.export
def truthiness_if(a: i64, x: f64) -> i64:
    r = 0
    if a:
        r += 1
    if x:
        r += 10
    if not a:
        r += 100
    return r


@gradc.export
def raise_in_branch(x: f64) -> f64:
    if x < 0:
        raise ValueError("negative input")
    return x * 2.0


@gradc.export
def raise_in_elif(a: i64) -> i64:
    if a > 40:
        return 1
    elif a < -40:
        raise ValueError("too small")
    return 0


@gradc.export
def assert_plain(a: i64) -> i64:
    assert a != 3
    return a + 1


@gradc.export
def assert_msg(x: f64) -> f64:
    assert x < 50.0, "x too large"
    return x


@gradc.export
def assert_compound(a: i64, b: i64) -> i64:
    assert a >= -40 and b >= -40, "out of range"
    return a - b
