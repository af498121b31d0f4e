"""``log`` as straight-line LLVM IR: no call, no branch, so a loop over it vectorises
(the twin of :mod:`.vexp`; a libm ``log`` call per element keeps LLVM's loop vectoriser
from vectorising). The internal ``ieee_log`` (``np.log``) is computed inline on the CPU;
Python's checked ``math.log`` keeps libm's, GPU kernels libdevice's.

**Method** (the classic reduction of the 4.3BSD/fdlibm family, with a Taylor series
instead of a minimax polynomial)::

    x = 2**k * m,  sqrt(2)/2 <= m < sqrt(2)   (subnormals scaled by 2**54 first)
    f = m - 1,  s = f / (2 + f),  z = s*s     (|s| <= 0.1716, z <= 0.0295)
    log(1 + f) = log((1 + s) / (1 - s)) = 2s + s*R,  R = sum_{j>=1} 2 z**j / (2j + 1)
               = f - hfsq + s*(hfsq + R)      (hfsq = f*f/2: 2s = f - s*f exactly)
    log(x) = k*LN2_HI - ((hfsq - (s*(hfsq + R) + k*LN2_LO)) - f)

``R`` keeps the terms up to ``z**11`` (the first left out is below 2**-62 relative to
the result); ``k * LN2_HI`` is exact (``LN2_HI`` has 32 significant bits, ``|k| <=
1074``), ``LN2_HI + LN2_LO`` is ln 2 to 2**-86. The result is within 1 ulp of the exact
value (the reduction's analysis is fdlibm's: the final ``- f`` and ``k*LN2_HI +`` are
the only roundings of size near the result's ulp), so within 1 ulp of glibc's
correctly rounded ``log``. Special values, by selects: ``log(+-0) = -inf``, ``log(x <
0) = nan``, ``log(inf) = inf``, NaN stays NaN. tests/codegen/test_vlog.py checks it
against ``math.log`` on drawn inputs over the whole range, subnormals and the edges.
"""

from __future__ import annotations

import math

from llvmlite import ir as ll

__all__ = ["emit_log"]

_F64 = ll.DoubleType()
_I64 = ll.IntType(64)

#: ln 2 as 32 significant bits and the rest (the split vexp uses).
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
#: 2 / (2j + 1) for j = 1 .. 11: R's coefficients.
_SERIES = tuple(2.0 / (2 * j + 1) for j in range(1, 12))
#: The smallest normal double; below it x is scaled by 2**54.
_TINY = 2.0**-1022
_SCALE = 2.0**54
#: Mantissa bits, and the mantissa (high bits) from which m >= sqrt(2): m halved, k + 1.
_MANT = (1 << 52) - 1
_SQRT2_STEP = (0x100000 - 0x6A09E) << 32
_ONE_EXP = 0x3FF << 52


def emit_log(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """``log(x)`` for an LLVM ``double`` value, inline (see the module).

    Raises:
        TypeError: ``x`` is not a ``double`` (gradc's math functions compute in float64).
    """
    if not isinstance(x.type, ll.DoubleType):
        raise TypeError(f"log of {x.type}")
    subnormal = b.fcmp_ordered("<", x, _c(_TINY))
    xs = b.select(subnormal, b.fmul(x, _c(_SCALE)), x)
    bits = b.bitcast(xs, _I64)
    exponent = b.sub(b.lshr(bits, _i(52)), b.select(subnormal, _i(1023 + 54), _i(1023)))
    mant = b.and_(bits, _i(_MANT))
    step = b.and_(b.add(mant, _i(_SQRT2_STEP)), _i(1 << 52))  # 2**52 where m >= sqrt(2)
    k = b.add(exponent, b.lshr(step, _i(52)), name="k")
    m = b.bitcast(b.or_(mant, b.xor(step, _i(_ONE_EXP))), _F64)
    f = b.fsub(m, _c(1.0), name="f")
    s = b.fdiv(f, b.fadd(_c(2.0), f), name="s")
    z = b.fmul(s, s)
    r = _c(_SERIES[-1])
    for coefficient in reversed(_SERIES[:-1]):
        r = b.fadd(b.fmul(r, z), _c(coefficient))
    r = b.fmul(r, z, name="R")
    hfsq = b.fmul(b.fmul(_c(0.5), f), f, name="hfsq")
    kf = b.sitofp(k, _F64)
    tail = b.fadd(b.fmul(s, b.fadd(hfsq, r)), b.fmul(kf, _c(_LN2_LO)))
    y = b.fsub(b.fmul(kf, _c(_LN2_HI)), b.fsub(b.fsub(hfsq, tail), f), name="logr")
    # the special values (comparisons are false for NaN, which the last select keeps)
    y = b.select(b.fcmp_ordered("<", x, _c(0.0)), _c(math.nan), y)
    y = b.select(b.fcmp_ordered("==", x, _c(0.0)), _c(-math.inf), y)
    y = b.select(b.fcmp_ordered("==", x, _c(math.inf)), _c(math.inf), y)
    return b.select(b.fcmp_unordered("uno", x, x), x, y, name="log")


def _c(value: float) -> ll.Constant:
    return ll.Constant(_F64, value)


def _i(value: int) -> ll.Constant:
    return ll.Constant(_I64, value)
