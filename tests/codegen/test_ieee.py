"""IEEE operations of derivative code: ``fdiv`` and ``math ieee_pow`` never raise."""

from __future__ import annotations

import math
from typing import Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import F64, TupleType


def test_fdiv_and_ieee_pow(codegen: Any) -> None:
    m = Module("ieee")
    b = codegen.function(m, "f", [("x", F64), ("y", F64)], TupleType((F64, F64)))
    x, y = b.function.params
    b.ret(b.make_tuple([b.binary(ops.FDiv, x, y), b.math("ieee_pow", x, y)]))
    f = codegen.build(m, ["f"])["f"]
    assert f(1.0, 4.0) == (0.25, 1.0)
    assert f(3.0, 2.0) == (1.5, 9.0)
    q, p = f(1.0, 0.0)
    assert q == math.inf and p == 1.0
    q, p = f(-1.0, 0.0)
    assert q == -math.inf
    q, p = f(0.0, -1.0)
    assert q == -0.0 and math.copysign(1.0, q) == -1.0 and p == math.inf
    q, p = f(-8.0, 1 / 3)
    assert math.isnan(p)
    q, p = f(0.0, 0.0)
    assert math.isnan(q) and p == 1.0
    q, p = f(10.0, 400.0)
    assert p == math.inf


#: Inputs where the checked ``math`` function raises or rounds to ±inf/0 (log(0),
#: sqrt(-1), exp(710), sin(inf), ...) and ordinary ones.
IEEE_INPUTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-300, 5e-324, 709.0, 710.0, -745.5]
IEEE_INPUTS += [1e308, -1e308, math.inf, -math.inf, math.nan, math.pi, 30.0, -30.0]


def test_ieee_twins_never_raise(codegen: Any) -> None:
    """``ieee_<fn>`` (derivative code) is C's ``fn``: ±inf or NaN where ``math.fn`` raises,
    the same value as ``math.fn`` elsewhere, and the reference interpreter agrees."""
    from gradc.compiler.ir.interp import run_function

    m = Module("ieee_twins")
    for name in ops.IEEE_MATH:
        b = codegen.function(m, f"ieee_{name}", [("x", F64)], F64)
        b.ret(b.math(f"ieee_{name}", *b.function.params))
    fns = codegen.build(m, list(m.functions))
    for name in ops.IEEE_MATH:
        for x in IEEE_INPUTS:
            got = fns[f"ieee_{name}"](x)  # raises nothing
            interp = run_function(m, f"ieee_{name}", [x])
            try:
                want = getattr(math, name)(x)
            except ValueError:  # domain: NaN, or -inf at the logarithms' poles
                pole = x == 0.0 if name in ("log", "log2", "log10") else x == -1.0
                want = -math.inf if name.startswith("log") and pole else math.nan
                if name == "atanh" and abs(x) == 1.0:  # C's atanh(±1) is ±inf
                    want = math.copysign(math.inf, x)
            except OverflowError:  # range: ±inf with the sign C gives
                want = math.copysign(math.inf, x) if name == "sinh" else math.inf
            for value in (got, interp):
                if math.isnan(want) or math.isinf(want) or want == 0.0:
                    assert value == want or (math.isnan(value) and math.isnan(want)), (
                        name,
                        x,
                        value,
                        want,
                    )
                else:
                    assert abs(value - want) <= 2 * math.ulp(want), (name, x, value, want)
