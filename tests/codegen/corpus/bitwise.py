"""Bitwise operators with Python semantics: & | ^ ~ << >> and their augmented forms on
ints, bools and mixes (a bool for & | ^ of two bools, an int otherwise; ``~True`` is -2).

Ints span the whole 64-bit range: & | ^ ~ and >> of 64-bit values are exact (two's
complement), and >> by 64 or more is 0 or -1 as in CPython. ``<<`` wraps at 64 bits in
gradc (docs/abi.md), so its exports keep results in range or read only the low bits
(``& MASK``), which wrapping preserves; shift counts run past 64 and below 0
(ValueError("negative shift count")).
"""

import gradc
from gradc import bool_, f64, i64

MASK = (1 << 40) - 1
LOW = ~MASK  # module constants fold bitwise operators too

DOMAINS = {
    "and_or_xor": {
        "a": (-9223372036854775808, 9223372036854775807),
        "b": (-9223372036854775808, 9223372036854775807),
    },
    "invert": {"a": (-9223372036854775808, 9223372036854775807)},
    "mixed_with_bool": {"a": (-9223372036854775808, 9223372036854775807)},
    "rshift": {"a": (-9223372036854775808, 9223372036854775807), "n": (-3, 70)},
    "rshift_aug": {"a": (-9223372036854775808, 9223372036854775807), "n": (-3, 70)},
    "lshift_small": {"a": (-1048576, 1048576), "n": (-3, 42)},
    "lshift_low_bits": {"a": (-9223372036854775808, 9223372036854775807), "n": (-3, 70)},
    "lshift_aug_low_bits": {"a": (-9223372036854775808, 9223372036854775807), "n": (-3, 70)},
    "bool_shifts": {"n": (-2, 70)},
    "popcount": {"a": (-9223372036854775808, 9223372036854775807)},
    "parity_sum": {"n": (0, 200)},
    "precedence": {
        "a": (-9223372036854775808, 9223372036854775807),
        "b": (-9223372036854775808, 9223372036854775807),
        "c": (-40, 40),
    },
    "module_masks": {"a": (-9223372036854775808, 9223372036854775807)},
}


@gradc.export
def and_or_xor(a: i64, b: i64):
    return a & b, a | b, a ^ b, a & ~b, (a | b) ^ (a & b)


@gradc.export
def invert(a: i64):
    return ~a, ~~a, ~(a ^ -1), ~a & 255


@gradc.export
def bools(p: bool_, q: bool_):
    return p & q, p | q, p ^ q, (p & q) | (p ^ q)


@gradc.export
def mixed_with_bool(a: i64, p: bool_):
    return a & p, p | a, a ^ p, p & 3, True ^ a


@gradc.export
def rshift(a: i64, n: i64):
    return a >> n, (a >> n) >> 1


@gradc.export
def rshift_aug(a: i64, n: i64) -> i64:
    a >>= n
    return a


@gradc.export
def lshift_small(a: i64, n: i64) -> i64:
    return a << n


@gradc.export
def lshift_low_bits(a: i64, n: i64) -> i64:
    return (a << n) & 0xFFFFFFFFFFFF


@gradc.export
def lshift_aug_low_bits(a: i64, n: i64) -> i64:
    a <<= n
    a &= MASK
    return a


@gradc.export
def bool_shifts(p: bool_, n: i64):
    return p << (n % 62), p >> n, (p >> n) & 1


@gradc.export
def aug_assign(a: i64, b: i64, p: bool_):
    a &= b
    b |= 12
    a ^= b
    p ^= True
    p &= p
    p |= False
    return a, b, p


@gradc.export
def popcount(a: i64) -> i64:
    count = 0
    x = a
    for _ in range(64):
        count += x & 1
        x >>= 1
    return count


@gradc.export
def parity_sum(n: i64) -> i64:
    total = 0
    for i in range(n):
        if i & 1:
            total += i
        elif not i & 2:
            total -= 1
    return total


@gradc.export
def precedence(a: i64, b: i64, c: i64):
    return a & b | c ^ a, a | b & c, a ^ b >> (c & 63), ~a & b == c, (a >> 1) + (b >> 2) & c


@gradc.export
def module_masks(a: i64):
    return a & MASK, a & LOW, (a & MASK) | (a & LOW) == a


@gradc.export
def float_from_bits(a: i64) -> f64:
    return 0.5 * (a & 7) - (a >> 3 & 3)
