"""Random straight-line IR: printer/parser round trip, verifier, interpreter == compiled.

Hypothesis draws a program from a small grammar over ``f64``, ``i64`` and ``i1`` values:
``add sub mul`` (both types), ``fdiv`` (f64), ``neg min max`` (both), ``cmp`` (every
predicate, both types), ``select`` (any type), ``const`` (special values: signed zeros,
infinities, NaN, the int extremes) and ``cast`` i64 -> f64. Operands are earlier values of
the right type (parameters included); the function returns the tuple of every value it
computes, so each operation is observed. Nothing in the grammar raises: int arithmetic
wraps, fdiv is IEEE.

For each program:

1. ``print -> parse -> print`` gives the same text, and the parsed module verifies;
2. the reference interpreter on the original and on the parsed module agree;
3. the parsed module, lowered with ``lower_export``, emitted and linked with LLJIT (the
   ``codegen`` fixture of tests/codegen/conftest.py), gives the interpreter's result on
   several drawn argument vectors — floats bit for bit (the sign of zero counts), any NaN
   matching any NaN (LLVM's constant folding and the hardware differ in NaN signs).
"""

from __future__ import annotations

import itertools
import math
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.types import F64, I1, I64, TupleType
from gradc.compiler.ir.verifier import verify_module

I64_MIN, I64_MAX = -(2**63), 2**63 - 1

FLOAT_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.25, 1e308, -1e308, 5e-324, 1e-300]
FLOAT_SPECIAL += [math.inf, -math.inf, math.nan]
INT_SPECIAL = [0, 1, -1, 2, -3, 7, I64_MIN, I64_MAX, I64_MIN + 1, 2**32, -(2**31)]

# Special values about half of the time: the corners (NaN, signed zeros, infinities,
# wrapping) are where an interpreter and a code generator part ways.
floats = st.one_of(
    st.sampled_from(FLOAT_SPECIAL),
    st.sampled_from([math.nan, 0.0, -0.0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-100, 100),
)
ints = st.one_of(
    st.sampled_from(INT_SPECIAL), st.integers(I64_MIN, I64_MAX), st.integers(-100, 100)
)

N_FLOAT_PARAMS = 3
N_INT_PARAMS = 2

#: (opcode, result type) choices of the grammar; operand types follow from the opcode.
CHOICES = [
    *[(op, t) for op in ("add", "sub", "mul", "min", "max") for t in ("f64", "i64")],
    ("fdiv", "f64"),
    ("neg", "f64"),
    ("neg", "i64"),
    ("cmp", "f64"),
    ("cmp", "i64"),
    *[("select", t) for t in ("f64", "i64", "i1")],
    ("const", "f64"),
    ("const", "i64"),
    ("cast", "f64"),
]

BINARY = {"add": ops.Add, "sub": ops.Sub, "mul": ops.Mul, "fdiv": ops.FDiv}
BINARY |= {"min": ops.Min, "max": ops.Max}
TYPES = {"f64": F64, "i64": I64, "i1": I1}

_names = itertools.count()


@st.composite
def programs(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """A program: a list of steps ``(opcode, type, operand indices or constant, pred)``.

    Operand indices point into the pools of values of each type, which start with the
    parameters (f64 and i64) and grow as steps are added; ``i1`` starts empty, so a
    ``select`` before any ``cmp`` first adds one.
    """
    pools = {"f64": N_FLOAT_PARAMS, "i64": N_INT_PARAMS, "i1": 0}
    steps: list[tuple[Any, ...]] = []

    def pick(t: str) -> int:
        return draw(st.integers(0, pools[t] - 1))

    for _ in range(draw(st.integers(1, 24))):
        op, t = draw(st.sampled_from(CHOICES))
        if op == "select" and pools["i1"] == 0:
            ct = draw(st.sampled_from(["f64", "i64"]))
            pred = draw(st.sampled_from(ops.CMP_PREDICATES))
            steps.append(("cmp", ct, (pick(ct), pick(ct)), pred))
            pools["i1"] += 1
        if op == "const":
            steps.append((op, t, draw(floats if t == "f64" else ints), None))
        elif op == "cast":
            steps.append((op, t, (pick("i64"),), None))
        elif op == "neg":
            steps.append((op, t, (pick(t),), None))
        elif op == "cmp":
            pred = draw(st.sampled_from(ops.CMP_PREDICATES))
            steps.append((op, t, (pick(t), pick(t)), pred))
            pools["i1"] += 1
            continue
        elif op == "select":
            steps.append((op, t, (pick("i1"), pick(t), pick(t)), None))
        else:
            steps.append((op, t, (pick(t), pick(t)), None))
        pools[t] += 1
    return steps


def build(codegen: Any, steps: list[tuple[Any, ...]]) -> tuple[Module, str]:
    """The module holding one function made of ``steps``; returns it and the name."""
    name = f"rand{next(_names)}"
    module = Module(name="rand")
    params = [(f"x{i}", F64) for i in range(N_FLOAT_PARAMS)]
    params += [(f"n{i}", I64) for i in range(N_INT_PARAMS)]
    result = []
    for op, t, _, _ in steps:
        result.append("i1" if op == "cmp" else t)
    b = codegen.function(module, name, params, TupleType(tuple(TYPES[t] for t in result)))
    func = module.functions[name]
    values = []
    pools: dict[str, list[Any]] = {
        "f64": list(func.params[:N_FLOAT_PARAMS]),
        "i64": list(func.params[N_FLOAT_PARAMS:]),
        "i1": [],
    }
    for op, t, args, pred in steps:
        if op == "const":
            v = b.const(args, TYPES[t])
        elif op == "cast":
            v = b.insert(ops.Cast(pools["i64"][args[0]], type=F64))
        elif op == "neg":
            v = b.unary(ops.Neg, pools[t][args[0]])
        elif op == "cmp":
            v = b.cmp(pred, pools[t][args[0]], pools[t][args[1]])
            t = "i1"
        elif op == "select":
            v = b.select(pools["i1"][args[0]], pools[t][args[1]], pools[t][args[2]])
        else:
            v = b.binary(BINARY[op], pools[t][args[0]], pools[t][args[1]])
        pools[t].append(v)
        values.append(v)
    b.ret(b.make_tuple(values))
    return module, name


def same(x: Any, y: Any) -> bool:
    """Equal results; floats bit for bit except that NaNs match whatever their sign."""
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
    if isinstance(x, float) and isinstance(y, float):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return struct.pack("<d", x) == struct.pack("<d", y)
    return type(x) is type(y) and x == y


arguments = st.tuples(*([floats] * N_FLOAT_PARAMS), *([ints] * N_INT_PARAMS))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(steps=programs(), argvs=st.lists(arguments, min_size=1, max_size=8))
def test_random_straightline(codegen: Any, steps: list[tuple[Any, ...]], argvs: list[Any]) -> None:
    module, name = build(codegen, steps)
    verify_module(module)
    text = print_module(module)
    parsed = parse_module(text)
    assert print_module(parsed) == text
    verify_module(parsed)
    compiled = codegen.build(parsed, [name])[name]
    for args in argvs:
        want = run_function(module, name, list(args))
        assert same(run_function(parsed, name, list(args)), want)
        got = compiled(*args)
        assert same(got, want), f"compiled {got!r} != interpreted {want!r}\n{text}\nargs={args}"
