"""Lowering of ``math`` calls with CPython's error rules (Modules/mathmodule.c)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.codegen.special import emit_digamma
from gradc.compiler.codegen.vexp import emit_exp
from gradc.compiler.codegen.vlog import emit_log
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower_function import FunctionLowering

_I1 = ll.IntType(1)

_DOMAIN_ERROR = "math domain error"
_RANGE_ERROR = "math range error"


@LOWERING.register(ops.MathCall)
def _math(fl: FunctionLowering, inst: Instruction) -> ll.Value:
    """A ``math`` function with CPython's error rules (Modules/mathmodule.c).

    ``math_1``/``math_2``: a NaN result from non-NaN arguments is ValueError("math
    domain error"); an infinite result from finite arguments is ValueError for
    ``check == "domain"`` and OverflowError("math range error") for ``"overflow"``.
    ``gamma``/``lgamma`` (CPython's ``m_tgamma``/``m_lgamma``) also raise ValueError
    at the non-positive integers, where libm returns a pole. ``math.pow`` follows
    ``math_pow``: for finite arguments a NaN result, or an infinite one from a zero
    base, is ValueError; any other infinite result is OverflowError.
    """
    assert isinstance(inst, ops.MathCall)
    fn = ops.MATH_FUNCTIONS.get(inst.fn)
    if fn is None:
        raise fl.ice(f"unknown math function {inst.fn!r}")
    if len(inst.args) != fn.arity:
        raise fl.ice(f"math.{fn.name} takes {fn.arity} arguments")
    for a in inst.args:
        if not fl.scalar(a).is_float:
            raise fl.ice(f"math.{fn.name} of {a.type} (inference converts to f64)")
    args = [fl.value(a) for a in inst.args]
    unchecked = _unchecked(fl, fn.name, args)
    if unchecked is not None:
        return unchecked
    return _checked(fl, fn, args)


def _unchecked(fl: FunctionLowering, name: str, args: list[ll.Value]) -> ll.Value | None:
    """The functions computed without Python's checks: the predicates, the internal
    ``ieee_*`` twins and ``digamma`` (derivative code); None for the others."""
    b = fl.b
    x = args[0]
    match name:
        case "isnan":
            return fl.is_nan(x)
        case "isinf":
            return fl.is_inf(x)
        case "isfinite":
            return fl.is_finite(x)
        case "ieee_exp" if not fl.ml.gpu:  # np.exp, derivative code: inline, CPU loops vectorise
            return emit_exp(b, x)
        case "ieee_log" if not fl.ml.gpu and isinstance(x.type, ll.DoubleType):  # np.log: too
            return emit_log(b, x)
        case "ieee_pow":  # C pow, no Python checks (derivative code)
            return fl.call_intrinsic("pow", *args)
        case _ if name.startswith("ieee_"):  # ieee_log etc.: C's result, no checks
            libm = ops.MATH_FUNCTIONS[name].libm  # log1p, expm1: no LLVM intrinsic
            if libm:
                return b.call(fl.ml.libm(libm, x.type, 1), args)
            return fl.call_intrinsic(name.removeprefix("ieee_"), *args)
        case "norm_sqrt":  # np.std, the 2-norm: C's sqrt, no checks
            return fl.call_intrinsic("sqrt", x)
        case "rint":  # NumPy's np.rint/np.round: round half to even, no checks
            return fl.call_intrinsic("rint", x)
        case "digamma":  # derivative code of gamma/lgamma
            return emit_digamma(
                b, x, fl.call_intrinsic, lambda v: b.call(fl.ml.libm("tan", x.type, 1), [v])
            )
    return None


def _checked(fl: FunctionLowering, fn: ops.MathFn, args: list[ll.Value]) -> ll.Value:
    """A Python ``math`` function and its checks (:func:`_math`)."""
    b = fl.b
    x = args[0]
    ty = x.type
    if fn.name in ("gamma", "lgamma"):
        zero = fl.fconst(ty, 0.0)
        pole = fl.all_of(
            [
                b.fcmp_ordered("<=", x, zero),
                fl.is_finite(x),
                b.fcmp_ordered("==", x, fl.call_intrinsic("floor", x)),
            ]
        )
        fl.raise_if(pole, "ValueError", _DOMAIN_ERROR)
    if fn.name == "sqrt":
        # the domain rule, decided on the argument: only x < 0 (not -0.0, not NaN)
        # gives NaN from non-NaN, and sqrt of a finite number is finite
        negative = b.fcmp_ordered("<", x, fl.fconst(ty, 0.0))
        fl.raise_if(negative, "ValueError", _DOMAIN_ERROR)
        return fl.call_intrinsic("sqrt", x)
    if fn.name == "pow":
        r = fl.libm_pow(*args)
    elif fn.libm:  # no LLVM intrinsic: the libm function (``f`` suffix for f32)
        r = b.call(fl.ml.libm(fn.libm, ty, fn.arity), args)
    else:
        r = fl.call_intrinsic(fn.name, *args)
    if fn.check == "none":
        return r
    if fn.check == "pow":
        finite = fl.all_of([fl.is_finite(a) for a in args])
        fl.raise_if(b.and_(finite, fl.is_nan(r)), "ValueError", _DOMAIN_ERROR)
        inf = b.and_(finite, fl.is_inf(r))
        x_zero = b.fcmp_ordered("==", x, fl.fconst(ty, 0.0))
        fl.raise_if(b.and_(inf, x_zero), "ValueError", _DOMAIN_ERROR)
        fl.raise_if(inf, "OverflowError", _RANGE_ERROR)
        return r
    if fn.check not in ("domain", "overflow"):
        raise fl.ice(f"unknown math check {fn.check!r}")
    no_nan_in = b.xor(fl.any_of([fl.is_nan(a) for a in args]), ll.Constant(_I1, 1))
    fl.raise_if(b.and_(fl.is_nan(r), no_nan_in), "ValueError", _DOMAIN_ERROR)
    finite_in = fl.all_of([fl.is_finite(a) for a in args])
    inf_from_finite = b.and_(fl.is_inf(r), finite_in)
    if fn.check == "overflow":
        fl.raise_if(inf_from_finite, "OverflowError", _RANGE_ERROR)
    else:
        fl.raise_if(inf_from_finite, "ValueError", _DOMAIN_ERROR)
    return r
