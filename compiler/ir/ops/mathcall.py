"""``math`` module functions as the IR knows them, and the operation that calls them."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, final

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.types import F64, I1


class MathName(StrEnum):
    """The ``math`` functions the IR knows (:data:`MATH_FUNCTIONS` holds their facts)."""

    SIN = "sin"
    COS = "cos"
    TAN = "tan"
    ASIN = "asin"
    ACOS = "acos"
    ATAN = "atan"
    ASINH = "asinh"
    ACOSH = "acosh"
    ATANH = "atanh"
    CBRT = "cbrt"
    SINH = "sinh"
    COSH = "cosh"
    TANH = "tanh"
    EXP = "exp"
    EXPM1 = "expm1"
    LOG = "log"
    LOG1P = "log1p"
    LOG2 = "log2"
    LOG10 = "log10"
    SQRT = "sqrt"
    FABS = "fabs"
    FLOOR = "floor"
    CEIL = "ceil"
    TRUNC = "trunc"
    ERF = "erf"
    ERFC = "erfc"
    GAMMA = "gamma"
    LGAMMA = "lgamma"
    ATAN2 = "atan2"
    HYPOT = "hypot"
    COPYSIGN = "copysign"
    FMOD = "fmod"
    POW = "pow"
    ISNAN = "isnan"
    ISINF = "isinf"
    ISFINITE = "isfinite"
    IEEE_POW = "ieee_pow"
    IEEE_SIN = "ieee_sin"
    IEEE_COS = "ieee_cos"
    IEEE_TAN = "ieee_tan"
    IEEE_ASIN = "ieee_asin"
    IEEE_ACOS = "ieee_acos"
    IEEE_ATAN = "ieee_atan"
    IEEE_SINH = "ieee_sinh"
    IEEE_COSH = "ieee_cosh"
    IEEE_TANH = "ieee_tanh"
    IEEE_EXP = "ieee_exp"
    IEEE_EXPM1 = "ieee_expm1"
    IEEE_LOG = "ieee_log"
    IEEE_LOG1P = "ieee_log1p"
    IEEE_LOG2 = "ieee_log2"
    IEEE_LOG10 = "ieee_log10"
    IEEE_SQRT = "ieee_sqrt"
    IEEE_ASINH = "ieee_asinh"
    IEEE_ACOSH = "ieee_acosh"
    IEEE_ATANH = "ieee_atanh"
    IEEE_CBRT = "ieee_cbrt"
    #: C's ``rint`` (round half to even; NumPy's ``np.rint``/``np.round``), internal
    RINT = "rint"
    DIGAMMA = "digamma"
    #: the square root of a sum of squares (``np.std``, the 2-norm), internal
    NORM_SQRT = "norm_sqrt"


class MathCheck(StrEnum):
    """How lowering reports a ``math`` function's errors, after CPython's
    ``mathmodule.c``: ``none`` (never raises); ``domain`` (NaN from non-NaN input →
    ValueError "math domain error"; ±inf from finite input → ValueError too);
    ``overflow`` (as domain, but ±inf from finite input → OverflowError "math range
    error"); ``pow`` (``math.pow``'s own rules)."""

    NONE = "none"
    DOMAIN = "domain"
    OVERFLOW = "overflow"
    POW = "pow"


@dataclass(frozen=True)
class MathFn:
    """A ``math`` module function as the IR knows it.

    Attributes:
        name: the Python name (``"sin"``), also the IR attribute.
        arity: number of float arguments.
        check: how lowering reports errors (:class:`MathCheck`).
        returns_bool: the result is ``i1`` (``isnan``), else ``f64``.
        internal: not a Python ``math`` function; made by passes only (``ieee_pow``,
            ``ieee_log`` and the other :data:`IEEE_MATH` twins, ``digamma``).
        libm: the C math library function lowering calls (``"tgamma"`` for ``gamma``),
            ``""`` where it uses the LLVM intrinsic ``llvm.<name>`` instead (which LLVM
            lowers to an instruction or to the libm function ``name``) or inline code
            (``isnan``, the internal functions).
    """

    name: MathName
    arity: int
    check: MathCheck
    returns_bool: bool = False
    internal: bool = False
    libm: str = ""


#: The one-argument functions with a non-checking ``ieee_<name>`` twin (C's result, no
#: Python exception), for derivative code and for NumPy's functions on scalars
#: (``np.log(0.0)`` is -inf, ``np.sqrt(-1.0)`` NaN: NumPy warns, never raises).
IEEE_MATH: tuple[MathName, ...] = (
    MathName.SIN,
    MathName.COS,
    MathName.TAN,
    MathName.ASIN,
    MathName.ACOS,
    MathName.ATAN,
    MathName.SINH,
    MathName.COSH,
    MathName.TANH,
    MathName.EXP,
    MathName.EXPM1,
    MathName.LOG,
    MathName.LOG1P,
    MathName.LOG2,
    MathName.LOG10,
    MathName.SQRT,
    MathName.ASINH,
    MathName.ACOSH,
    MathName.ATANH,
    MathName.CBRT,
)

_LIBM: dict[MathName, str] = {
    MathName.EXPM1: "expm1",
    MathName.LOG1P: "log1p",
    MathName.ASINH: "asinh",
    MathName.ACOSH: "acosh",
    MathName.ATANH: "atanh",
    MathName.CBRT: "cbrt",
}


def _ieee_twin(name: MathName) -> MathFn:
    """``ieee_<name>``: ``name``'s C function (its ``libm``) without Python's checks."""
    return MathFn(
        MathName(f"ieee_{name}"), 1, MathCheck.NONE, internal=True, libm=_LIBM.get(name, "")
    )


#: Every function's facts by its name.
MATH_FUNCTIONS: dict[str, MathFn] = {
    f.name: f
    for f in (
        MathFn(MathName.SIN, 1, MathCheck.DOMAIN),
        MathFn(MathName.COS, 1, MathCheck.DOMAIN),
        MathFn(MathName.TAN, 1, MathCheck.DOMAIN),
        MathFn(MathName.ASIN, 1, MathCheck.DOMAIN),
        MathFn(MathName.ACOS, 1, MathCheck.DOMAIN),
        MathFn(MathName.ATAN, 1, MathCheck.DOMAIN),
        # CPython's math_1 (can_overflow 0): acosh(x < 1), atanh(±1) raise ValueError
        MathFn(MathName.ASINH, 1, MathCheck.DOMAIN, libm=_LIBM[MathName.ASINH]),
        MathFn(MathName.ACOSH, 1, MathCheck.DOMAIN, libm=_LIBM[MathName.ACOSH]),
        MathFn(MathName.ATANH, 1, MathCheck.DOMAIN, libm=_LIBM[MathName.ATANH]),
        MathFn(MathName.CBRT, 1, MathCheck.DOMAIN, libm=_LIBM[MathName.CBRT]),
        MathFn(MathName.SINH, 1, MathCheck.OVERFLOW),
        MathFn(MathName.COSH, 1, MathCheck.OVERFLOW),
        MathFn(MathName.TANH, 1, MathCheck.DOMAIN),
        MathFn(MathName.EXP, 1, MathCheck.OVERFLOW),
        MathFn(MathName.EXPM1, 1, MathCheck.OVERFLOW, libm=_LIBM[MathName.EXPM1]),
        MathFn(MathName.LOG, 1, MathCheck.DOMAIN),
        MathFn(MathName.LOG1P, 1, MathCheck.DOMAIN, libm=_LIBM[MathName.LOG1P]),
        MathFn(MathName.LOG2, 1, MathCheck.DOMAIN),
        MathFn(MathName.LOG10, 1, MathCheck.DOMAIN),
        MathFn(MathName.SQRT, 1, MathCheck.DOMAIN),
        MathFn(MathName.FABS, 1, MathCheck.NONE),
        MathFn(MathName.FLOOR, 1, MathCheck.NONE),
        MathFn(MathName.CEIL, 1, MathCheck.NONE),
        MathFn(MathName.TRUNC, 1, MathCheck.NONE),
        MathFn(MathName.ERF, 1, MathCheck.DOMAIN, libm="erf"),
        MathFn(MathName.ERFC, 1, MathCheck.DOMAIN, libm="erfc"),
        MathFn(MathName.GAMMA, 1, MathCheck.OVERFLOW, libm="tgamma"),
        MathFn(MathName.LGAMMA, 1, MathCheck.OVERFLOW, libm="lgamma"),
        MathFn(MathName.ATAN2, 2, MathCheck.NONE),
        MathFn(MathName.HYPOT, 2, MathCheck.NONE, libm="hypot"),
        MathFn(MathName.COPYSIGN, 2, MathCheck.NONE),
        # CPython's math_fmod: NaN from non-NaN operands (y == ±0, x infinite) is
        # ValueError; fmod(x, ±inf) is x for finite x, in C as in CPython
        MathFn(MathName.FMOD, 2, MathCheck.DOMAIN, libm="fmod"),
        MathFn(MathName.POW, 2, MathCheck.POW, libm="pow"),
        MathFn(MathName.ISNAN, 1, MathCheck.NONE, returns_bool=True),
        MathFn(MathName.ISINF, 1, MathCheck.NONE, returns_bool=True),
        MathFn(MathName.ISFINITE, 1, MathCheck.NONE, returns_bool=True),
        # C pow without Python's checks, for derivative code (IEEE inf/NaN results)
        MathFn(MathName.IEEE_POW, 2, MathCheck.NONE, internal=True),
        # the same for the functions derivative rules evaluate (``ieee_log(0.0)`` is
        # -inf, ``ieee_sqrt(-1.0)`` NaN): a derivative never raises where its primal
        # did not (passes/ad/rules/math.py); NumPy's functions on scalars call them too
        *(_ieee_twin(name) for name in IEEE_MATH),
        # C's rint (llvm.rint: round half to even), for NumPy's np.rint/np.round
        MathFn(MathName.RINT, 1, MathCheck.NONE, internal=True),
        # the digamma function psi = lgamma', for the rules of gamma/lgamma (special.py)
        MathFn(MathName.DIGAMMA, 1, MathCheck.NONE, internal=True),
        # C's sqrt of a sum of squares (np.std, the 2-norm): its derivative is 0 at 0,
        # the subgradient at the apex of the norm's cone (passes/ad/rules/math.py)
        MathFn(MathName.NORM_SQRT, 1, MathCheck.NONE, internal=True),
    )
}


@final
@operation
class MathCall(Instruction):
    """A call of a ``math`` function (:data:`MATH_FUNCTIONS`) on ``f64`` arguments.

    ``math.floor/ceil/trunc`` compute the ``f64`` value here; the front end converts it to
    ``int`` with a :class:`Cast` as Python does.
    """

    OPNAME: ClassVar[str] = "math"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    MAY_RAISE: ClassVar[bool] = True
    fn: MathName
    args: tuple[Value, ...]

    def verify_attrs(self, ctx: VerifyContext) -> str | None:
        """The function is in :data:`MATH_FUNCTIONS`, called with its arity."""
        fn = MATH_FUNCTIONS.get(self.fn)
        if fn is None:
            return f"unknown math function {self.fn!r}"
        if len(self.args) != fn.arity:
            return f"math.{fn.name} takes {fn.arity} argument(s), got {len(self.args)}"
        return None

    def verify_(self, ctx: VerifyContext) -> str | None:
        """``f64`` arguments, result ``f64`` (``i1`` for ``isnan``, ``isinf``,
        ``isfinite``)."""
        fn = MATH_FUNCTIONS[self.fn]
        for arg in self.args:
            if arg.type != F64:
                return f"math.{fn.name} argument {ctx.show(arg)} has type {arg.type}, expected f64"
        expected = I1 if fn.returns_bool else F64
        if self.type != expected:
            return f"math.{fn.name} result type is {self.type}, expected {expected}"
        return None
