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
