"""The AD rule registry (passes/ad/rules/): every operation has one rule or is handled by
the sweeps themselves, and each rule says what the tape keeps.

The derivatives the rules produce are checked against finite differences and dual
numbers by the AD corpus (tests/ad/corpus) and at their edges by
tests/ad/test_ad_reliability_rules.py; here the registry's own contracts.
"""

from __future__ import annotations

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction, Value
from gradc.compiler.ir.parser import parse_module
from gradc.passes.ad.rules import AD_RULES, NotDifferentiable, needs_of, rule_for, scalar_rule
from gradc.passes.ad.rules.base import Rebuild, SweepRule
from gradc.passes.ad.rules.math import MATH_RULES, MathRule
from gradc.passes.ad.rules.registry import rebuild_of

#: Operations without a rule, and why: the sweeps handle them structurally (constants,
#: phis, terminators), they never carry a derivative and are never rebuilt (``dataaddr``,
#: ``poison``), or inference replaces them before AD (the front-end operations).
WITHOUT_RULE = [
    "allocate",
    "arrayattr",
    # inference replaces it by elemaddr and atomicadd
    "atomicadditem",
    "basicindex",
    "br",
    "condbr",
    "const",
    "dataaddr",
    "flatget",
    "getitem",
    "inplace",
    "len",
    "npreduce",
    "numpy",
    "phi",
    "poison",
    "raise",
    "raisef",
    "ret",
    "setitem",
    "sharedarray",
    "syncthreads",
]


def test_every_operation_has_a_rule_or_a_reason_not_to() -> None:
    # a new operation must get a rule (passes/ad/rules/<family>.py) or a line above; the
    # whole-array operations lower-arrays replaces by loops before AD have none
    lowered = [c for c in ops.OPERATIONS.values() if c.LOWERED_TO_LOOPS]
    kept = [c for c in ops.OPERATIONS.values() if not c.LOWERED_TO_LOOPS]
    assert AD_RULES.missing(kept) == WITHOUT_RULE
    assert not any(c in AD_RULES for c in lowered)


def test_every_python_math_function_with_a_float_result_has_a_rule() -> None:
    missing = [
        name
        for name, fn in ops.MATH_FUNCTIONS.items()
        if not fn.internal and not fn.returns_bool and name not in MATH_RULES
    ]
    assert missing == []


def _function(body: str) -> tuple[dict[str, Instruction], dict[str, Value]]:
    """The named instructions and the parameters of ``@f(%x: f64, %y: f64)`` whose body is
    ``body`` (returning its last value)."""
    lines = body.strip().splitlines()
    last = lines[-1].split("=")[0].strip()
    text = "func @f(%x: f64, %y: f64) -> f64 {{\n^entry:\n  {}\n  ret {}\n}}\n".format(
        "\n  ".join(lines), last
    )
    fn = parse_module(text).functions["f"]
    insts = {inst.name: inst for inst in fn.instructions() if inst.name}
    return insts, {p.name: p for p in fn.params if p.name}


def test_mul_keeps_the_partner_of_each_active_side() -> None:
    insts, params = _function("%r = mul %x, %y : f64")
    r, x, y = insts["r"], params["x"], params["y"]
    assert needs_of(r, lambda v: v is x) == ([y], False)  # ā·y to x
    assert needs_of(r, lambda v: v is y) == ([x], False)
    assert needs_of(r, lambda v: v in (x, y)) == ([y, x], False)


def test_pow_keeps_its_result_only_for_an_active_exponent() -> None:
    insts, params = _function("%r = pow %x, %y : f64")
    r, x, y = insts["r"], params["x"], params["y"]
    assert needs_of(r, lambda v: v is x) == ([x, y], False)
    assert needs_of(r, lambda v: v is y) == ([x, y], True)  # ā·r·ln x to y


def test_fmod_keeps_its_operands_only_for_an_active_divisor() -> None:
    insts, params = _function("%r = math fmod(%x, %y) : f64")
    r, x, y = insts["r"], params["x"], params["y"]
    assert needs_of(r, lambda v: v is x) == ([], False)  # ā·1 to x
    assert needs_of(r, lambda v: v is y) == ([x, y], False)  # ā·(−trunc(x/y)) to y
    assert needs_of(r, lambda v: v in (x, y)) == ([x, y], False)


@pytest.mark.parametrize(
    ("fn", "operand", "result"),
    [
        ("sin", True, False),  # cos(x)
        ("exp", False, True),  # r
        ("sqrt", False, True),  # 1/(2r)
        ("gamma", True, True),  # r·ψ(x)
        ("floor", False, False),  # 0
    ],
)
def test_math_functions_keep_what_their_identity_reads(
    fn: str, operand: bool, result: bool
) -> None:
    insts, params = _function(f"%r = math {fn}(%x) : f64")
    x = params["x"]
    assert needs_of(insts["r"], lambda v: True) == ([x] if operand else [], result)


def test_linear_operations_keep_nothing() -> None:
    insts, _ = _function("%a = add %x, %y : f64\n%s = sub %a, %y : f64\n%r = neg %s : f64")
    for name in ("a", "s", "r"):
        assert needs_of(insts[name], lambda v: True) == ([], False)


def test_an_operation_without_a_rule_is_named() -> None:
    insts, _ = _function("%b = math isnan(%x) : i1\n%r = cmp lt %x, %y : i1")
    with pytest.raises(NotDifferentiable, match=r"^cmp$"):
        scalar_rule(insts["r"])
    rule = rule_for(insts["b"])
    assert isinstance(rule, MathRule)
    with pytest.raises(NotDifferentiable, match=r"^math\.isnan$"):
        rule.of(insts["b"])


def test_sweep_rules_have_no_transpose_of_their_own() -> None:
    insts, _ = _function("%t = tuple(%x, %y) : tuple[f64,f64]\n%r = extract %t, 0 : f64")
    assert isinstance(rule_for(insts["t"]), SweepRule)
    with pytest.raises(NotDifferentiable, match=r"^tuple$"):
        scalar_rule(insts["t"])


@pytest.mark.parametrize(
    ("line", "rebuild"),
    [
        ("%r = add %x, %y : f64", Rebuild.SCALAR),
        ("%r = mul %x, %y : f64", Rebuild.SCALAR),
        ("%r = fdiv %x, %y : f64", Rebuild.NEVER),
        ("%r = min %x, %y : f64", Rebuild.INTEGER),
        ("%r = mod %x, %y : f64", Rebuild.INTEGER),
        ("%r = math exp(%x) : f64", Rebuild.NEVER),
        ("%r = cmp lt %x, %y : i1", Rebuild.SCALAR),
    ],
)
def test_what_the_planner_may_rebuild(line: str, rebuild: Rebuild) -> None:
    insts, _ = _function(line if "i1" not in line else f"{line}\n%z = add %x, %y : f64")
    assert rebuild_of(insts["r"]) is rebuild
