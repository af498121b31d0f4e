"""A small random-program smoke check of the front end against CPython.

Random functions of the constructs the front end expands itself — ``if``/``elif``/``else``
whose branches return or raise, ``for``/``while True`` loops with ``break``/``continue``,
unreachable code after any of these (reading names that are never defined), constant
conditions, int and float division, floor division and modulo by values that may be
zero, shape tuples with helper calls, the int64 minimum — are compiled as one module and
run on the same inputs as CPython: the same value, or the same exception type and
message. Ints stay small (every int assignment is reduced ``% 1000``) so that gradc's
64-bit ints never wrap where CPython's would not.

This is a smoke check with fixed seeds, not the fuzzer (issue #18 has its own); a failing
seed prints the function's source.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PARAMS = "x: f64, y: f64, n: i64, m: i64, c: bool_"
FLOATS = ("a", "b")
INTS = ("i", "j")
HEADER = """\
import numpy as np

import gradc
from gradc import bool_, f64, i64


def h(k):
    return abs(k) % 4 + 1


def _never_called(k):
    return undefined_name + k  # noqa: F821
"""


class _Gen:
    """Source text of random functions; ``self.rng`` drives every choice."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.loop_depth = 0
        self.counter = 0

    def int_atom(self) -> str:
        r = self.rng
        return r.choice(
            [*INTS, "n", "m", str(r.randint(-3, 7)), "h(n)", "len(np.zeros((h(m), 2)))"]
        )

    def int_expr(self, depth: int = 2) -> str:
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            return self.int_atom()
        a, b = self.int_expr(depth - 1), self.int_expr(depth - 1)
        return r.choice(
            [
                f"({a} + {b})",
                f"({a} - {b})",
                f"({a} * {r.randint(-3, 3)})",
                f"({a} // {b})",
                f"({a} % {b})",
                f"({a} + -9223372036854775808 - -9223372036854775808)",
                f"np.zeros(({a} % 3 + 1, h({b}))).shape[1]",
            ]
        )

    def float_atom(self) -> str:
        r = self.rng
        return r.choice([*FLOATS, "x", "y", repr(r.choice([0.0, 0.5, -1.5, 2.0, 3.25]))])

    def float_expr(self, depth: int = 2) -> str:
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            return self.float_atom()
        a, b = self.float_expr(depth - 1), self.float_expr(depth - 1)
        i, k = self.int_expr(depth - 1), self.int_expr(depth - 1)
        return r.choice(
            [
                f"({a} + {b})",
                f"({a} - {b})",
                f"({a} * {b})",
                f"({a} / {b})",
                f"({a} // {b})",
                f"({a} % {b})",
                f"({i} / {k})",
                f"(float({i}) / float({k}))",
                f"({a} / {k})",
                f"({i} / {b})",
                f"float({i})",
                f"float(np.full((h({i}), 2), {a})[0, 1])",
            ]
        )

    def cond(self) -> str:
        r = self.rng
        return r.choice(
            [
                "c",
                "not c",
                f"{self.float_expr(1)} < {self.float_expr(1)}",
                f"{self.int_expr(1)} >= {self.int_expr(1)}",
                "True",
                "False",
                f"{self.int_expr(1)} == -9223372036854775808",
            ]
        )

    def dead(self, indent: str) -> list[str]:
        """Unreachable statements: they read names that are never defined."""
        r = self.rng
        return r.choice(
            [
                [f"{indent}a = never_defined + 1.0  # noqa: F821"],
                [f"{indent}i = undefined_int  # noqa: F821", f"{indent}return i"],
                [f"{indent}return b + missing  # noqa: F821"],
            ]
        )

    def exit_stmt(self, indent: str) -> list[str]:
        r = self.rng
        options = [
            [f"{indent}return {self.float_expr()}"],
            [f'{indent}raise ValueError("v{r.randint(0, 99)}")'],
        ]
        if self.loop_depth:
            options += [[f"{indent}break"], [f"{indent}continue"]]
        out = r.choice(options)
        if r.random() < 0.5:
            out += self.dead(indent)
        return out

    def block(self, indent: str, depth: int) -> list[str]:
        r = self.rng
        out: list[str] = []
        for _ in range(r.randint(1, 3)):
            out += self.stmt(indent, depth)
        return out

    def stmt(self, indent: str, depth: int) -> list[str]:
        r = self.rng
        kind = r.choice(["float", "int", "int", "if", "if", "loop", "while", "exit"])
        if depth == 0 or kind == "float":
            return [f"{indent}{r.choice(FLOATS)} = {self.float_expr()}"]
        if kind == "int":
            return [f"{indent}{r.choice(INTS)} = ({self.int_expr()}) % 1000"]
        if kind == "exit":
            return self.exit_stmt(indent)
        inner = indent + "    "
        if kind == "if":
            out = [f"{indent}if {self.cond()}:", *self.block(inner, depth - 1)]
            if r.random() < 0.4:
                out += [f"{indent}elif {self.cond()}:", *self.block(inner, depth - 1)]
            if r.random() < 0.7:
                out += [f"{indent}else:", *self.block(inner, depth - 1)]
            if r.random() < 0.5:  # every branch leaves: what follows is unreachable
                out = [f"{indent}if {self.cond()}:", *self.exit_stmt(inner)]
                out += [f"{indent}else:", *self.exit_stmt(inner)]
                out += self.dead(indent)
            return out
        self.counter += 1
        t = f"t{self.counter}"
        self.loop_depth += 1
        try:
            if kind == "loop":
                head = [f"{indent}for {t} in range({self.int_expr(1)} % 5):"]
                body = [f"{inner}{INTS[0]} = ({INTS[0]} + {t}) % 1000"]
            else:  # ``while True`` leaves only by break (or return/raise)
                head = [f"{indent}{t} = 0", f"{indent}while True:"]
                body = [f"{inner}{t} += 1", f"{inner}if {t} > 3:", f"{inner}    break"]
            body += self.block(inner, depth - 1)
        finally:
            self.loop_depth -= 1
        out = head + body
        if kind == "loop" and r.random() < 0.3:  # not inside the loop: no break here
            out += [f"{indent}else:", *self.block(inner, depth - 1)]
        return out

    def function(self, name: str) -> str:
        lines = [f"@gradc.export\ndef {name}({PARAMS}) -> f64:"]
        init = [f"    {v} = {self.rng.choice(['x', 'y', '0.5', '-0.0'])}" for v in FLOATS]
        init += [f"    {v} = {self.rng.randint(-5, 5)}" for v in INTS]
        body = self.block("    ", 3)
        tail = ["    return a + b + float(i - j)"]
        return "\n".join(lines + init + body + tail) + "\n"


def _inputs(seed: int) -> list[tuple[Any, ...]]:
    r = random.Random(seed)
    fixed = [(0.0, 0.0, 0, 0, False), (1.5, -2.0, 3, -4, True), (-0.0, 2.0, 1, 1, True)]
    drawn = [
        (
            r.choice([0.0, r.uniform(-5, 5)]),
            r.choice([0.0, r.uniform(-5, 5)]),
            r.randint(-6, 6),
            r.randint(-6, 6),
            r.random() < 0.5,
        )
        for _ in range(12)
    ]
    return fixed + drawn


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "value", fn(*args)
    except (ZeroDivisionError, ValueError, OverflowError, IndexError) as exc:
        return "raise", (type(exc).__name__, str(exc))


def _same(want: tuple[str, Any], got: tuple[str, Any]) -> bool:
    if want[0] != got[0] or want[0] == "raise":
        return want == got
    e, a = want[1], got[1]
    return type(a) is float and (e == a or (math.isnan(e) and math.isnan(a)))


#: a few seconds per seed; the slow ones run with ``-m slow`` (56 seeds passed when added)
SEEDS = [
    *range(3),
    *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(3, 40)),
]
PER_MODULE = 12


@pytest.mark.parametrize("seed", SEEDS)
def test_random_programs_match_cpython(
    seed: int, tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    gen = _Gen(seed)
    sources = {f"f{k}": gen.function(f"f{k}") for k in range(PER_MODULE)}
    text = HEADER + "\n\n" + "\n\n".join(sources.values())
    path = tmp_path / f"smoke{seed}.py"
    path.write_text(text)
    plain: dict[str, Any] = {}
    exec(compile(text, str(path), "exec"), plain)  # the oracle: @gradc.export is inert
    library = compile_module(path)
    for name, source in sources.items():
        for args in _inputs(seed):
            want = _outcome(plain[name], args)
            got = _outcome(getattr(library, name), args)
            assert _same(want, got), f"{name}{args}: CPython {want}, gradc {got}\n{source}"
