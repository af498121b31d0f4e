"""``exp`` as straight-line LLVM IR: no call, no branch, so a loop over it vectorises.

A libm call per element keeps LLVM's loop vectoriser from vectorising an elementwise
loop on the default target (baseline x86-64 has no vector ``exp``), so the internal
``ieee_exp`` (``np.exp``, derivative code) is computed inline on the CPU instead;
Python's checked ``math.exp`` keeps libm's (CPython's exact value and its errors), and
GPU kernels keep libdevice's.

**Method**: Tang's table-driven exponential (P. T. P. Tang, "Table-driven implementation
of the exponential function in IEEE floating-point arithmetic", ACM TOMS 15 (1989)) with
a table of N = 32 values; the table entries are computed here from ``decimal``::

    x clamped to [-746, 710]              (exp is 0 below, inf above; NaN stays NaN)
    k  = round(x * N / ln 2)              (x * N/ln2 + 1.5 * 2**52: k in the low bits)
    hi = x - k * LN2_HI / N               (exact: LN2_HI has 32 significant bits)
    lo = k * LN2_LO / N                   (LN2_HI + LN2_LO = ln 2 to 2**-86)
    r  = hi - lo                          (|r| <= ln2 / 64 + tiny)
    p  = hi + (r*r * (1/2 + r/6 + r**2/24 + r**3/120 + r**4/720) - lo)   (= exp(r) - 1)
    j, m = k mod N, k div N               (2**(k/N) = 2**m * T[j])
    y  = T_hi[j] + (T_lo[j] + T_hi[j] * p)      (T_hi + T_lo = 2**(j/N) to 2**-106)
    exp(x) = y * 2**(m - m//2) * 2**(m//2)      (two exact scalings; one rounding if subnormal)

The truncation error of the polynomial is below 4e-18 and the rounding errors other than
the last addition's below 0.02 ulp, so the result is within 0.52 ulp of the exact value:
within 1 ulp of a correctly rounded libm's (glibc's ``exp`` is within 0.502 ulp), and
equal to it on most inputs. tests/codegen/test_vexp.py checks it against ``math.exp`` on
drawn inputs, the subnormal and overflow edges, infinities and NaN.
"""

from __future__ import annotations

import math
import struct

from llvmlite import ir as ll

__all__ = ["emit_exp"]

_F64 = ll.DoubleType()
_I64 = ll.IntType(64)

#: Table size (a power of two) and its log2.
_N = 32
_LOG2_N = 5
#: N/ln 2, and ln 2 / N split into 32 significant bits and the rest (Decimal(2).ln()).
_N_INV_LN2 = _N / math.log(2.0)
_LN2_HI_N = float.fromhex("0x1.62e42fee00000p-1") / _N
_LN2_LO_N = float.fromhex("0x1.a39ef35793c76p-33") / _N
#: 1.5 * 2**52: x + SHIFT rounds x to an integer held in the low mantissa bits.
_SHIFT = 6755399441055744.0
#: exp(x) is +inf above (exp(709.79) overflows) and +0 below (exp(-745.2) rounds to 0).
_X_MAX = 710.0
_X_MIN = -746.0
#: 1/n! for n = 2 .. 6 (each correctly rounded: n! is exact in a double).
_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(2, 7))
#: The table's symbol (internal to each object that uses it).
TABLE_SYMBOL = "gradc.exp.table"


def _table() -> list[float]:
    """``[T_hi[0], T_lo[0], T_hi[1], ...]``: 2**(j/N) as a sum of two doubles."""
    from decimal import Decimal, localcontext  # here: a scalar build never makes the table

    values = []
    with localcontext() as ctx:
        ctx.prec = 60
        for j in range(_N):
            exact = Decimal(2) ** (Decimal(j) / _N)
            hi = float(exact)
            values += [hi, float(exact - Decimal(hi))]
    return values


def emit_exp(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """``exp(x)`` for an LLVM ``double`` value, inline (see the module); the table is a
    private constant of the builder's module.

    Raises:
        TypeError: ``x`` is not a ``double`` (gradc's math functions compute in float64).
    """
    if not isinstance(x.type, ll.DoubleType):
        raise TypeError(f"exp of {x.type}")
    # comparisons false for NaN: a NaN goes through and comes out NaN
    xc = b.select(b.fcmp_ordered(">", x, _c(_X_MAX)), _c(_X_MAX), x)
    xc = b.select(b.fcmp_ordered("<", xc, _c(_X_MIN)), _c(_X_MIN), xc)
    shifted = b.fadd(b.fmul(xc, _c(_N_INV_LN2)), _c(_SHIFT))
    kf = b.fsub(shifted, _c(_SHIFT), name="kf")
    # the integer k from the bits (no fptosi: it is poison for NaN)
    k = b.sub(b.bitcast(shifted, _I64), ll.Constant(_I64, _bits(_SHIFT)), name="k")
    hi = b.fsub(xc, b.fmul(kf, _c(_LN2_HI_N)), name="hi")
    lo = b.fmul(kf, _c(_LN2_LO_N), name="lo")
    r = b.fsub(hi, lo, name="r")
    q = _c(_TAYLOR[-1])
    for coefficient in reversed(_TAYLOR[:-1]):
        q = b.fadd(b.fmul(q, r), _c(coefficient))
    p = b.fadd(hi, b.fsub(b.fmul(b.fmul(r, r), q), lo), name="expm1r")
    j = b.and_(k, ll.Constant(_I64, _N - 1), name="j")
    t_hi, t_lo = _lookup(b, j)
    y = b.fadd(t_hi, b.fadd(t_lo, b.fmul(t_hi, p)), name="expr")
    m = b.ashr(k, ll.Constant(_I64, _LOG2_N), name="m")
    half = b.ashr(m, ll.Constant(_I64, 1))
    rest = b.sub(m, half)
    return b.fmul(b.fmul(y, _pow2(b, rest)), _pow2(b, half), name="exp")


def _lookup(b: ll.IRBuilder, j: ll.Value) -> tuple[ll.Value, ll.Value]:
    """``T_hi[j], T_lo[j]`` (0 <= j < N) from the module's table."""
    module = b.module
    table = module.globals.get(TABLE_SYMBOL)
    if table is None:
        array = ll.ArrayType(_F64, 2 * _N)
        table = ll.GlobalVariable(module, array, name=TABLE_SYMBOL)
        table.linkage = "private"
        table.global_constant = True
        table.unnamed_addr = True
        table.align = 16
        table.initializer = ll.Constant(array, [_c(v) for v in _table()])
    zero = ll.Constant(_I64, 0)
    at = b.shl(j, ll.Constant(_I64, 1))
    t_hi = b.load(b.gep(table, [zero, at], inbounds=True), name="t_hi", align=8)
    t_lo_at = b.add(at, ll.Constant(_I64, 1))
    t_lo = b.load(b.gep(table, [zero, t_lo_at], inbounds=True), name="t_lo", align=8)
    return t_hi, t_lo


def _c(value: float) -> ll.Constant:
    return ll.Constant(_F64, value)


def _pow2(b: ll.IRBuilder, k: ll.Value) -> ll.Value:
    """2**k as a double, for -1022 <= k <= 1023 (here -539 <= k <= 512)."""
    biased = b.add(k, ll.Constant(_I64, 1023))
    return b.bitcast(b.shl(biased, ll.Constant(_I64, 52)), _F64)


def _bits(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])
