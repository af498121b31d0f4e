"""``math`` module functions as the IR knows them, and the operation that calls them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value


@dataclass(frozen=True)
class MathFn:
    """A ``math`` module function as the IR knows it.

    Attributes:
        name: the Python name (``"sin"``), also the IR attribute.
        arity: number of float arguments.
        check: how lowering reports errors, after CPython's ``mathmodule.c``:
            ``"none"`` (never raises); ``"domain"`` (NaN from non-NaN input → ValueError
            "math domain error"; ±inf from finite input → ValueError too); ``"overflow"``
            (as domain, but ±inf from finite input → OverflowError "math range error");
            ``"pow"`` (``math.pow``'s own rules).
        returns_bool: the result is ``i1`` (``isnan``), else ``f64``.
        internal: not a Python ``math`` function; made by passes only (``ieee_pow``,
            ``ieee_log`` and the other :data:`IEEE_MATH` twins, ``digamma``).
        libm: the C math library function lowering calls (``"tgamma"`` for ``gamma``),
            ``""`` where it uses the LLVM intrinsic ``llvm.<name>`` instead (which LLVM
            lowers to an instruction or to the libm function ``name``) or inline code
            (``isnan``, the internal functions).
    """

    name: str
    arity: int
    check: str
    returns_bool: bool = False
    internal: bool = False
    libm: str = ""


#: The one-argument functions with a non-checking ``ieee_<name>`` twin (C's result, no
#: Python exception), for derivative code.
IEEE_MATH = ("sin", "cos", "sinh", "cosh", "exp", "log", "sqrt")

MATH_FUNCTIONS: dict[str, MathFn] = {
    f.name: f
    for f in (
        MathFn("sin", 1, "domain"),
        MathFn("cos", 1, "domain"),
        MathFn("tan", 1, "domain"),
        MathFn("asin", 1, "domain"),
        MathFn("acos", 1, "domain"),
        MathFn("atan", 1, "domain"),
        MathFn("sinh", 1, "overflow"),
        MathFn("cosh", 1, "overflow"),
        MathFn("tanh", 1, "domain"),
        MathFn("exp", 1, "overflow"),
        MathFn("expm1", 1, "overflow", libm="expm1"),
        MathFn("log", 1, "domain"),
        MathFn("log1p", 1, "domain", libm="log1p"),
        MathFn("log2", 1, "domain"),
        MathFn("log10", 1, "domain"),
        MathFn("sqrt", 1, "domain"),
        MathFn("fabs", 1, "none"),
        MathFn("floor", 1, "none"),
        MathFn("ceil", 1, "none"),
        MathFn("trunc", 1, "none"),
        MathFn("erf", 1, "domain", libm="erf"),
        MathFn("erfc", 1, "domain", libm="erfc"),
        MathFn("gamma", 1, "overflow", libm="tgamma"),
        MathFn("lgamma", 1, "overflow", libm="lgamma"),
        MathFn("atan2", 2, "none"),
        MathFn("hypot", 2, "none", libm="hypot"),
        MathFn("copysign", 2, "none"),
        MathFn("pow", 2, "pow", libm="pow"),
        MathFn("isnan", 1, "none", returns_bool=True),
        MathFn("isinf", 1, "none", returns_bool=True),
        MathFn("isfinite", 1, "none", returns_bool=True),
        # C pow without Python's checks, for derivative code (IEEE inf/NaN results)
        MathFn("ieee_pow", 2, "none", internal=True),
        # the same for the functions derivative rules evaluate (``ieee_log(0.0)`` is
        # -inf, ``ieee_sqrt(-1.0)`` NaN): a derivative never raises where its primal
        # did not (passes/ad/rules.py)
        *(MathFn(f"ieee_{name}", 1, "none", internal=True) for name in IEEE_MATH),
        # the digamma function psi = lgamma', for the rules of gamma/lgamma (special.py)
        MathFn("digamma", 1, "none", internal=True),
    )
}


@final
@dataclass(eq=False, slots=True)
class MathCall(Instruction):
    """A call of a ``math`` function (:data:`MATH_FUNCTIONS`) on ``f64`` arguments.

    ``math.floor/ceil/trunc`` compute the ``f64`` value here; the front end converts it to
    ``int`` with a :class:`Cast` as Python does.
    """

    OPNAME: ClassVar[str] = "math"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    MAY_RAISE: ClassVar[bool] = True
    fn: str
    args: tuple[Value, ...]
