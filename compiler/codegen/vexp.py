"""``exp`` as straight-line LLVM IR: no call, no branch, so a loop over it vectorises.

A libm call per element keeps LLVM's loop vectoriser from vectorising an elementwise
loop on the default target (baseline x86-64 has no vector ``exp``), so the internal
``ieee_exp`` (``np.exp``, derivative code) is computed inline instead; Python's checked
``math.exp`` keeps libm's (CPython's exact value and its errors).

**Method** (Cody and Waite's reduction; Tang, "Table-driven implementation of the
exponential function", ACM TOMS 15 (1989), without the table)::

    x clamped to [-746, 710]              (exp is 0 below, inf above; NaN stays NaN)
    k  = round(x / ln 2)                  (x * 1/ln2 + 1.5 * 2**52, the integer in the low bits)
    hi = x - k * LN2_HI                   (exact: LN2_HI has 32 significant bits, |k| <= 1077)
    lo = k * LN2_LO                       (LN2_HI + LN2_LO = ln 2 to 2**-86)
    r  = hi - lo                          (|r| <= ln2/2 + tiny)
    p  = r*r * (1/2! + r*(1/3! + ... + r/13!))   (Taylor: truncation < 5e-18 relative)
    y  = (1 + hi) + (carry + (p - lo))    (= exp(r); 1 + hi exact as a pair (Fast2Sum))
    exp(x) = y * 2**(k - k//2) * 2**(k//2)   (two exact scalings; one rounding if subnormal)

The result is within 1 ulp of the exact value, so within 1 ulp of a correctly rounded
libm (glibc's ``exp`` is); tests/codegen/test_vexp.py checks it against ``math.exp`` on
drawn inputs, the subnormal and overflow edges, infinities and NaN (about 1.5% of drawn
inputs differ from glibc's by 1 ulp, none by more).
"""

from __future__ import annotations

import math

from llvmlite import ir as ll

__all__ = ["emit_exp"]

_F64 = ll.DoubleType()
_I64 = ll.IntType(64)

#: 1/ln 2, and ln 2 split into 32 significant bits and the rest (Decimal(2).ln()).
_INV_LN2 = 1.4426950408889634
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
#: 1.5 * 2**52: x + SHIFT rounds x to an integer held in the low mantissa bits.
_SHIFT = 6755399441055744.0
#: exp(x) is +inf above (exp(709.79) overflows) and +0 below (exp(-745.2) rounds to 0).
_X_MAX = 710.0
_X_MIN = -746.0
#: 1/n! for n = 2 .. 13 (each correctly rounded: n! is exact in a double).
_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(2, 14))


def emit_exp(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """``exp(x)`` for an LLVM ``double`` value, inline (see the module).

    Raises:
        TypeError: ``x`` is not a ``double`` (gradc's math functions compute in float64).
    """
    if not isinstance(x.type, ll.DoubleType):
        raise TypeError(f"exp of {x.type}")
    # comparisons false for NaN: a NaN goes through and comes out NaN
    xc = b.select(b.fcmp_ordered(">", x, _c(_X_MAX)), _c(_X_MAX), x)
    xc = b.select(b.fcmp_ordered("<", xc, _c(_X_MIN)), _c(_X_MIN), xc)
    shifted = b.fadd(b.fmul(xc, _c(_INV_LN2)), _c(_SHIFT))
    kf = b.fsub(shifted, _c(_SHIFT), name="kf")
    # the integer k from the bits (no fptosi: it is poison for NaN)
    k = b.sub(b.bitcast(shifted, _I64), ll.Constant(_I64, _bits(_SHIFT)), name="k")
    hi = b.fsub(xc, b.fmul(kf, _c(_LN2_HI)), name="hi")
    lo = b.fmul(kf, _c(_LN2_LO), name="lo")
    r = b.fsub(hi, lo, name="r")
    q = _c(_TAYLOR[-1])
    for coefficient in reversed(_TAYLOR[:-1]):
        q = b.fadd(b.fmul(q, r), _c(coefficient))
    p = b.fmul(b.fmul(r, r), q, name="p")
    # 1 + hi as a double-double (Fast2Sum: |hi| < 1), then the small terms, one rounding
    one_hi = b.fadd(_c(1.0), hi, name="one_hi")
    carry = b.fadd(b.fsub(_c(1.0), one_hi), hi, name="carry")
    y = b.fadd(one_hi, b.fadd(carry, b.fsub(p, lo)), name="expr")
    half = b.ashr(k, ll.Constant(_I64, 1))
    rest = b.sub(k, half)
    return b.fmul(b.fmul(y, _pow2(b, rest)), _pow2(b, half), name="exp")


def _c(value: float) -> ll.Constant:
    return ll.Constant(_F64, value)


def _pow2(b: ll.IRBuilder, k: ll.Value) -> ll.Value:
    """2**k as a double, for -1022 <= k <= 1023 (here |k| <= 539)."""
    biased = b.add(k, ll.Constant(_I64, 1023))
    return b.bitcast(b.shl(biased, ll.Constant(_I64, 52)), _F64)


def _bits(value: float) -> int:
    import struct

    return int(struct.unpack("<q", struct.pack("<d", value))[0])
