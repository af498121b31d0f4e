"""raise with f-string messages: int fields (i64 and i32, negative, format specs, hex,
conversions), bool fields (substituted when lowering), f64 fields (repr, exponent and
fixed formats, every float), a variable named by several fields, literal braces, the
kinds the differential harness accepts.
tests/codegen/test_fstring_raise.py compares the messages with CPython's exactly.
"""

import gradc
from gradc import boolean, f64, i32, i64

DOMAINS = {
    "checked_index": {"i": (-20, 20), "n": (0, 10)},
    "three_fields": {"a": (-1000, 1000)},
    "bool_fields": {"k": (-5, 5)},
    "float_fields": {"x": "any", "n": (-10, 10)},
}


@gradc.export
def checked_index(i: i64, n: i64) -> i64:
    if not 0 <= i < n:
        raise ValueError(f"index {i} is out of bounds for size {n}")
    return i + 1


@gradc.export
def three_fields(a: i64, b: i32, x: f64) -> f64:
    if a < 0:
        raise ValueError(f"a={a:+06d} b={b!r} hex={a:x} {{not a field}}")
    if b > 500:
        raise OverflowError(f"{b:>8}|{a:<6}|{b + a:^9}")
    if x > 90.0:
        raise AssertionError(f"x too large (a={a})")
    return x * a


@gradc.export
def bool_fields(k: i64, flag: boolean) -> i64:
    big = k > 2
    if k < 0:
        raise ValueError(f"negative k={k}, flag={flag}, big={big!r:>6}")
    if flag and big:
        raise AssertionError(f"{flag}{big}{k:03}")
    return k


@gradc.export
def float_fields(x: f64, n: i64) -> f64:
    if x < -1.0:
        raise ValueError(f"x={x} (repr {x!r}, {x:.3e}, {x:>12.4f}) n={n}")
    if x * n > 50.0:
        raise OverflowError(f"{x * n} = {x} * {n}")
    return x * n
