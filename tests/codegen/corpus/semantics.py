"""Builtins and scalar types: int()/float()/bool() conversions, abs/min/max (mixed int and
float, NaN and signed-zero ordering as CPython does it), bool arguments and results,
f32/i32 arguments and results, builtin annotations (float/int/bool), truthiness of NaN.

Float results are compared within 1 ulp (this module uses math); f32 results after
rounding both sides to float32.
"""

import math

import gradc
from gradc import boolean, f32, f64, i32, i64

DOMAINS = {
    "int_of_float": {"x": (-1e6, 1e6)},
    "int_of_nonfinite": {"x": (-1.0, 1.0)},
    "float_of_int": {"n": (-1000000, 1000000)},
    "f32_div": {"y": (-4.0, 4.0)},
    "i32_arith": {"a": (-1000, 1000), "b": (-1000, 1000)},
    "i32_floordiv_mod": {"b": (-6, 6)},
    "truthiness_of_nan": {"x": "any"},
    "min_max_any": {"x": "any", "y": "any"},
}


@gradc.export
def int_of_float(x: f64) -> i64:
    return int(x)


@gradc.export
def int_of_nonfinite(x: f64) -> i64:
    # int(+-inf) raises OverflowError, int(nan) raises ValueError (x == 0.0)
    return int(x * math.inf)


@gradc.export
def float_of_int(n: i64) -> f64:
    return float(n) / 3


@gradc.export
def conversions_identity(n: i64, x: f64):
    return int(n), float(x), float(n), int(-x)


@gradc.export
def bool_of_numbers(x: f64, n: i64):
    return bool(x), bool(n), bool(x - x), bool(n * 0)


@gradc.export
def int_float_of_bool(b: boolean):
    return int(b) + int(not b) * 10, float(b), bool(b)


@gradc.export
def abs_mixed(a: i64, x: f64):
    return abs(a), abs(x), abs(-a), abs(x - a)


@gradc.export
def min_max_int(a: i64, b: i64, c: i64):
    return min(a, b), max(a, b, c), min(a, b, c), max(c, a)


@gradc.export
def min_max_float(x: f64, y: f64, z: f64):
    return min(x, y), max(x, y, z), min(z, y, x)


@gradc.export
def min_max_mixed(a: i64, x: f64) -> f64:
    # max(3, 2.5) is the int 3 in CPython; the arithmetic makes the result a float
    return max(a, x) * 1.0 + min(x, a) * 0.5


@gradc.export
def min_max_nan(x: f64):
    # CPython keeps the first argument unless a later one compares strictly greater/less
    n = math.nan
    return max(n, x), max(x, n), min(n, x), min(x, n)


@gradc.export
def min_max_any(x: f64, y: f64):
    return max(x, y), min(x, y)


@gradc.export
def max_signed_zero(x: f64) -> f64:
    # max(0.0, -0.0) is 0.0 and max(-0.0, 0.0) is -0.0: the first maximal argument
    return math.copysign(1.0, max(x * 0.0, -(x * 0.0)))


@gradc.export
def truthiness_of_nan(x: f64):
    return bool(x), x or 2.0, x and 3.0, not x


@gradc.export
def nan_propagation(x: f64) -> boolean:
    n = x * math.inf * 0.0
    return n != n and not (n == n)  # noqa: SIM201


@gradc.export
def bool_params(p: boolean, q: boolean) -> boolean:
    return p != q


@gradc.export
def bool_compare_results(a: i64, b: i64) -> boolean:
    return (a > 0) == (b > 0)


@gradc.export
def bool_in_arith_via_int(p: boolean, q: boolean) -> i64:
    return int(p) * 2 + int(q)


@gradc.export
def builtin_annotations(x: float, n: int, flag: bool) -> float:
    if flag:
        return x * n
    return x - n


@gradc.export
def f32_add(x: f32, y: f32) -> f32:
    return x + y


@gradc.export
def f32_mul(x: f32, y: f32) -> f32:
    return x * y


@gradc.export
def f32_div(x: f32, y: f32) -> f32:
    # y == 0.0 raises ZeroDivisionError
    return x / y


@gradc.export
def f32_sum_squares(x: f32, y: f32) -> f32:
    return x * x + y * y


@gradc.export
def f32_compare(x: f32, y: f32) -> boolean:
    return x < y or x == -y


@gradc.export
def f32_unary(x: f32) -> f32:
    return -abs(x)


@gradc.export("f32(f32, f32)")
def sig_f32_max(x, y):
    return max(x, y)


@gradc.export
def i32_arith(a: i32, b: i32) -> i32:
    return a * b - a // 3 + b % 5


@gradc.export
def i32_floordiv_mod(a: i32, b: i32):
    return a // b, a % b


@gradc.export("i32(i32, i32)")
def sig_i32_mix(a, b):
    return -a + 2 * b
