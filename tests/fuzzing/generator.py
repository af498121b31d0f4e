"""A typed generator of random, valid gradc modules (the fuzzer's program source).

``generate(seed)`` returns the text of a whole module: up to two undecorated helpers, one
or two ``@gradc.export`` functions and derivative declarations (``gradc.grad``,
``gradc.value_and_grad``, ``gradc.vjp``, ``gradc.jvp`` with random ``wrt`` sets). The
module also holds ``FUZZ = {export: {param: spec}}``, a literal that tells the oracle
how to draw inputs (``"f64"``, ``"i64"``, ``"bool"``, or ``("f64", shape, layout)`` with
layout ``"C"``, ``"F"`` or ``"A"``); the minimizer never removes it.

The generator keeps a typed environment, so every program type-checks by construction:
variables keep one type (``f`` f64, ``i`` i64, ``b`` bool, arrays with a statically known
shape), names bound inside a block are forgotten when the block ends (no
maybe-unbound reads), integer values stay small (runtime trip counts are taken modulo a
constant, ``while`` loops carry a counter), and array indices are in bounds except for a
deliberate out-of-bounds constant now and then (CPython raises IndexError there too).

Covered: f64/i64/bool scalars; f64[:] and f64[:, :] arrays in C, F and A layouts;
arithmetic (``+ - * / // % **``, unary ``-``, ``abs``, ``min``, ``max``), comparisons
(chained too), ``and``/``or``/``not``, conditional expressions, ``math.*`` functions
(guarded and unguarded domains), ``int()``/``float()``/``math.floor``/``ceil``;
``if``/``elif``/``else``, ``for`` over ``range`` (constant, negative and runtime steps,
runtime bounds) and over 1-D arrays, bounded ``while``, ``break``/``continue``/``else``,
early returns, ``raise``/``assert``; array reads, stores and augmented stores,
``np.zeros``/``ones``/``full``/``zeros_like``/``copy``; helpers (returning floats, or
None after writing an array argument) called by the exports.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FLOAT_CONSTS = (0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 0.1, 1e-3, 10.0)
MATH1_SAFE = ("sin", "cos", "tanh", "atan", "exp_g", "log_g", "sqrt_g", "erf", "expm1_g")
MATH1_RAW = ("exp", "log", "sqrt", "asin", "acos", "log1p", "cosh", "sinh", "gamma", "lgamma")


@dataclass
class Var:
    name: str
    kind: str  # "f" | "i" | "b" | "a1" | "a2"
    shape: tuple[int, ...] = ()
    layout: str = "C"
    writable: bool = True


@dataclass
class Scope:
    vars: list[Var] = field(default_factory=list)


@dataclass
class FnCtx:
    """What the body being generated may use."""

    ret: str  # "f" | "i" | "b" | "t" (tuple of f64, i64) | "none"
    helpers: list[tuple[str, list[Var], str]]
    loop_depth: int = 0
    depth: int = 0


class Gen:
    """One module's generator state (a fresh ``random.Random`` per seed)."""

    def __init__(self, seed: int, size: int = 12, avoid_known: bool = False) -> None:
        self.r = random.Random(seed)
        self.avoid_known = avoid_known
        self.size = size
        self.counter = 0
        self.lines: list[str] = []
        self.env: list[Var] = []
        self.uses_math = False

    # ------------------------------------------------------------------ utilities

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def vars_of(self, kind: str) -> list[Var]:
        return [v for v in self.env if v.kind == kind]

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def fconst(self) -> str:
        if self.chance(0.7):
            return repr(self.r.choice(FLOAT_CONSTS))
        return repr(round(self.r.uniform(-4, 4), 3))

    # ------------------------------------------------------------------ expressions

    def index(self, n: int) -> str:
        """An index into an axis of length n: usually in bounds, sometimes negative."""
        roll = self.r.random()
        if roll < 0.02:
            return str(self.r.choice((n, -n - 1)))  # IndexError, as in CPython
        ints = self.vars_of("i")
        if roll < 0.35 and ints:
            return f"{self.r.choice(ints).name} % {n}"
        if roll < 0.45:
            return str(self.r.randint(-n, -1))
        return str(self.r.randint(0, n - 1))

    def elem(self, arr: Var) -> str:
        if arr.kind == "a1":
            return f"{arr.name}[{self.index(arr.shape[0])}]"
        return f"{arr.name}[{self.index(arr.shape[0])}, {self.index(arr.shape[1])}]"

    def arrays(self) -> list[Var]:
        return [v for v in self.env if v.kind in ("a1", "a2")]

    def fexpr(self, d: int, ctx: FnCtx) -> str:
        r = self.r
        if d <= 0 or self.chance(0.25):
            choices = ["const"]
            if self.vars_of("f"):
                choices += ["var"] * 4
            if self.arrays():
                choices += ["elem"] * 2
            c = r.choice(choices)
            if c == "var":
                return r.choice(self.vars_of("f")).name
            if c == "elem":
                return self.elem(r.choice(self.arrays()))
            return self.fconst()
        kinds = ["bin"] * 6 + ["math"] * 3 + ["neg", "abs", "minmax", "ifexp", "float", "mixed"]
        kinds += ["pow", "div"]
        fh = self.callable_helpers(ctx, "f")
        if fh:
            kinds += ["call"] * 2
        if self.arrays():
            kinds += ["shape"]
        k = r.choice(kinds)
        if k == "bin":
            op = r.choice(("+", "-", "*", "+", "*"))
            return f"({self.fexpr(d - 1, ctx)} {op} {self.fexpr(d - 1, ctx)})"
        if k == "div":
            a, b = self.fexpr(d - 1, ctx), self.fexpr(d - 1, ctx)
            roll = r.random()
            if roll < 0.6:
                return f"({a} / ({b} * {b} + 1.0))"
            if roll < 0.95:
                return f"({a} / {b})"
            return f"({a} {r.choice(('//', '%'))} {b})"
        if k == "pow":
            a = self.fexpr(d - 1, ctx)
            roll = r.random()
            if roll < 0.5 or self.avoid_known:
                return f"({a} ** {r.choice((2, 3, 2.0, -1, 0))})"
            if roll < 0.8:
                return f"(abs({a}) ** {self.fexpr(d - 1, ctx)})"
            return f"({a} ** {self.fexpr(d - 1, ctx)})"
        if k == "math":
            self.uses_math = True
            a = self.fexpr(d - 1, ctx)
            if self.chance(0.15):
                fn = r.choice(
                    ("hypot", "atan2", "copysign")
                    if self.avoid_known
                    else ("hypot", "atan2", "pow", "copysign")
                )
                if fn == "pow":
                    return f"math.pow(abs({a}) + 0.5, {self.fexpr(d - 1, ctx)})"
                return f"math.{fn}({a}, {self.fexpr(d - 1, ctx)})"
            if self.chance(0.75):
                fn = r.choice(MATH1_SAFE)
                if fn == "exp_g":
                    return f"math.exp(min({a}, 5.0))"
                if fn == "log_g":
                    return f"math.log(abs({a}) + 0.5)"
                if fn == "sqrt_g":
                    return f"math.sqrt({a} * {a} + 0.25)"
                if fn == "expm1_g":
                    return f"math.expm1(max({a}, -3.0) if {a} < 2.0 else 2.0)"
                return f"math.{fn}({a})"
            return f"math.{r.choice(MATH1_RAW)}({a})"
        if k == "neg":
            return f"(-{self.fexpr(d - 1, ctx)})"
        if k == "abs":
            return f"abs({self.fexpr(d - 1, ctx)})"
        if k == "minmax":
            return f"{r.choice(('min', 'max'))}({self.fexpr(d - 1, ctx)}, {self.fexpr(d - 1, ctx)})"
        if k == "ifexp":
            return f"({self.fexpr(d - 1, ctx)} if {self.bexpr(d - 1, ctx)} else {self.fexpr(d - 1, ctx)})"
        if k == "float":
            return f"float({self.iexpr(d - 1, ctx)})"
        if k == "mixed":
            return (
                f"({self.fexpr(d - 1, ctx)} {r.choice(('+', '*', '-'))} {self.iexpr(d - 1, ctx)})"
            )
        if k == "shape":
            a = r.choice(self.arrays())
            return f"({self.fexpr(d - 1, ctx)} * {a.name}.shape[{r.randrange(len(a.shape))}])"
        name, params, _ = r.choice(fh)
        return f"{name}({', '.join(self.arg_for(p, d - 1, ctx) for p in params)})"

    def callable_helpers(self, ctx: FnCtx, ret: str) -> list[tuple[str, list[Var], str]]:
        """Helpers returning ``ret`` whose array parameters some live array can fill."""
        return [
            h
            for h in ctx.helpers
            if h[2] == ret and all(self._passable(p, self.arrays()) for p in h[1])
        ]

    def arg_for(self, p: Var, d: int, ctx: FnCtx) -> str:
        if p.kind == "f":
            return self.fexpr(d, ctx)
        if p.kind == "i":
            return self.iexpr(d, ctx)
        if p.kind == "b":
            return self.bexpr(d, ctx)
        cands = [v for v in self.arrays() if v.kind == p.kind and v.shape == p.shape]
        cands = [v for v in cands if v.layout == p.layout or p.layout == "A"]
        return self.r.choice(cands).name

    def iexpr(self, d: int, ctx: FnCtx) -> str:
        r = self.r
        if d <= 0 or self.chance(0.3):
            if self.vars_of("i") and self.chance(0.6):
                return r.choice(self.vars_of("i")).name
            return str(r.randint(-3, 7))
        kinds = ["bin"] * 3 + ["divmod", "int", "abs", "minmax", "len", "floor", "boolint"]
        k = r.choice(kinds)
        if k == "bin":
            op = r.choice(("+", "-", "*"))
            rhs = self.iexpr(d - 1, ctx) if op != "*" else str(r.randint(-3, 3))
            return f"({self.iexpr(d - 1, ctx)} {op} {rhs})"
        if k == "divmod":
            rhs = str(r.choice((2, 3, -2, 5))) if self.chance(0.8) else self.iexpr(d - 1, ctx)
            return f"({self.iexpr(d - 1, ctx)} {r.choice(('//', '%'))} {rhs})"
        if k == "int":
            return f"int({self.fexpr(d - 1, ctx)})"
        if k == "abs":
            return f"abs({self.iexpr(d - 1, ctx)})"
        if k == "minmax":
            return f"{r.choice(('min', 'max'))}({self.iexpr(d - 1, ctx)}, {self.iexpr(d - 1, ctx)})"
        if k == "len" and self.arrays():
            a = r.choice(self.arrays())
            return r.choice((f"len({a.name})", f"{a.name}.shape[{r.randrange(len(a.shape))}]"))
        if k == "floor":
            self.uses_math = True
            return f"math.{r.choice(('floor', 'ceil', 'trunc'))}({self.fexpr(d - 1, ctx)})"
        if k == "boolint":
            return f"int({self.bexpr(d - 1, ctx)})"
        return str(r.randint(0, 4))

    def bexpr(self, d: int, ctx: FnCtx) -> str:
        r = self.r
        if d <= 0 or self.chance(0.2):
            if self.vars_of("b") and self.chance(0.5):
                return r.choice(self.vars_of("b")).name
            return f"({self.fexpr(0, ctx)} {r.choice(('<', '>', '<=', '>='))} {self.fconst()})"
        k = r.choice(("fcmp", "fcmp", "icmp", "and", "not", "chain", "mixcmp"))
        ops = ("<", ">", "<=", ">=", "==", "!=")
        if k == "fcmp":
            return f"({self.fexpr(d - 1, ctx)} {r.choice(ops[:4])} {self.fexpr(d - 1, ctx)})"
        if k == "icmp":
            return f"({self.iexpr(d - 1, ctx)} {r.choice(ops)} {self.iexpr(d - 1, ctx)})"
        if k == "mixcmp":
            return f"({self.fexpr(d - 1, ctx)} {r.choice(ops)} {self.iexpr(d - 1, ctx)})"
        if k == "and":
            return f"({self.bexpr(d - 1, ctx)} {r.choice(('and', 'or'))} {self.bexpr(d - 1, ctx)})"
        if k == "not":
            return f"(not {self.bexpr(d - 1, ctx)})"
        return f"({self.fexpr(d - 1, ctx)} < {self.fexpr(0, ctx)} <= {self.fexpr(d - 1, ctx)})"

    # ------------------------------------------------------------------ statements

    def block(self, indent: int, n: int, ctx: FnCtx) -> None:
        """Emit n statements (at least one line); names bound here die at its end."""
        saved = list(self.env)
        start = len(self.lines)
        for _ in range(n):
            self.stmt(indent, ctx)
        if len(self.lines) == start:
            self.emit(indent, "pass")
        # forget new names but keep the element-writes to outer arrays
        self.env = saved

    def stmt(self, ind: int, ctx: FnCtx) -> None:
        r = self.r
        d = r.randint(1, 3)
        kinds = ["assign"] * 5 + ["aug"] * 2 + ["store"] * 3 + ["alloc"]
        if ctx.depth < 3:
            kinds += ["if"] * 3 + ["for"] * 2 + ["forarr", "while"]
        if ctx.loop_depth > 0:
            kinds += ["brk"]
        kinds += ["raise"] if self.chance(0.3) and not self.avoid_known else []
        kinds += ["ret"] if ctx.depth > 0 and self.chance(0.3) else []
        if self.callable_helpers(ctx, "none"):
            kinds += ["callstmt"]
        k = r.choice(kinds)
        if k == "assign":
            fresh = self.chance(0.6) or not any(self.vars_of(t) for t in "fib")
            t = r.choice("fffib")
            if fresh:
                name = self.fresh("v")
                self.emit(ind, f"{name} = {self.expr_of(t, d, ctx)}")
                self.env.append(Var(name, t))
            else:
                v = r.choice([v for v in self.env if v.kind in "fib" and v.kind])
                self.emit(ind, f"{v.name} = {self.expr_of(v.kind, d, ctx)}")
        elif k == "aug":
            fv = self.vars_of("f")
            iv = self.vars_of("i")
            if fv and (not iv or self.chance(0.7)):
                op = r.choice(("+=", "-=", "*=", "+="))
                self.emit(ind, f"{r.choice(fv).name} {op} {self.fexpr(d, ctx)}")
            elif iv:
                self.emit(ind, f"{r.choice(iv).name} {r.choice(('+=', '-='))} {self.iexpr(d, ctx)}")
        elif k == "store":
            arrs = [a for a in self.arrays() if a.writable]
            if arrs:
                a = r.choice(arrs)
                op = r.choice(("=", "=", "+=", "*=", "-="))
                self.emit(ind, f"{self.elem(a)} {op} {self.fexpr(d, ctx)}")
        elif k == "alloc":
            self.alloc(ind, ctx)
        elif k == "if":
            self.if_stmt(ind, ctx)
        elif k == "for":
            self.for_range(ind, ctx)
        elif k == "forarr":
            a1 = self.vars_of("a1")
            if a1:
                a = r.choice(a1)
                v = self.fresh("e")
                self.emit(ind, f"for {v} in {a.name}:")
                self.env.append(Var(v, "f"))
                self.loop_body(ind, ctx)
                self.env.pop()
                self.loop_else(ind, ctx)
        elif k == "while":
            c = self.fresh("k")
            self.emit(ind, f"{c} = 0")
            lim = r.randint(0, 5)
            self.emit(ind, f"while {c} < {lim} and {self.bexpr(1, ctx)}:")
            self.emit(ind + 1, f"{c} += 1")
            self.loop_body(ind, ctx)
            self.loop_else(ind, ctx)
        elif k == "brk":
            self.emit(ind, f"if {self.bexpr(1, ctx)}:")
            self.emit(ind + 1, r.choice(("break", "continue")))
        elif k == "raise":
            self.emit(ind, f"if {self.bexpr(2, ctx)}:")
            if self.chance(0.5):
                exc = r.choice(("ValueError", "ZeroDivisionError", "OverflowError"))
                msg = r.choice(("", '"bad value"', "'x'"))
                self.emit(ind + 1, f"raise {exc}({msg})" if self.chance(0.8) else f"raise {exc}")
            else:
                self.emit(ind + 1, f'assert {self.bexpr(1, ctx)}, "assertion {self.counter}"')
        elif k == "ret":
            self.emit(ind, f"if {self.bexpr(1, ctx)}:")
            self.emit(ind + 1, self.ret_stmt(ctx))
        elif k == "callstmt":
            nh = self.callable_helpers(ctx, "none")
            if nh:
                name, params, _ = r.choice(nh)
                self.emit(ind, f"{name}({', '.join(self.arg_for(p, d, ctx) for p in params)})")

    def expr_of(self, t: str, d: int, ctx: FnCtx) -> str:
        if t == "f":
            return self.fexpr(d, ctx)
        if t == "i":
            return self.iexpr(d, ctx)
        return self.bexpr(d, ctx)

    def alloc(self, ind: int, ctx: FnCtx) -> None:
        r = self.r
        name = self.fresh("t")
        roll = r.random()
        arrs = self.arrays()
        if roll < 0.25 and arrs:
            src = r.choice(arrs)
            fn = r.choice(("np.zeros_like({})", "{}.copy()", "np.ones_like({})"))
            self.emit(ind, f"{name} = {fn.format(src.name)}")
            self.env.append(Var(name, src.kind, src.shape, "C"))
            return
        if self.chance(0.6):
            n = r.randint(1, 5)
            shape: tuple[int, ...] = (n,)
            shp = str(n)
        else:
            shape = (r.randint(1, 3), r.randint(1, 4))
            shp = f"({shape[0]}, {shape[1]})"
        how = r.choice(("zeros", "ones", "full"))
        if how == "full" and self.avoid_known:
            self.emit(ind, f"{name} = np.full({shp}, {self.fconst()})")
        elif how == "full":
            self.emit(ind, f"{name} = np.full({shp}, {self.fexpr(2, ctx)})")
        else:
            self.emit(ind, f"{name} = np.{how}({shp})")
        self.env.append(Var(name, "a1" if len(shape) == 1 else "a2", shape, "C"))

    def if_stmt(self, ind: int, ctx: FnCtx) -> None:
        sub = FnCtx(ctx.ret, ctx.helpers, ctx.loop_depth, ctx.depth + 1)
        self.emit(ind, f"if {self.bexpr(2, ctx)}:")
        self.block(ind + 1, self.r.randint(1, 3), sub)
        while self.chance(0.3):
            self.emit(ind, f"elif {self.bexpr(2, ctx)}:")
            self.block(ind + 1, self.r.randint(1, 2), sub)
        if self.chance(0.5):
            self.emit(ind, "else:")
            self.block(ind + 1, self.r.randint(1, 3), sub)

    def for_range(self, ind: int, ctx: FnCtx) -> None:
        r = self.r
        i = self.fresh("i")
        roll = r.random()
        if roll < 0.35:
            args = str(r.randint(0, 5))
        elif roll < 0.55:
            a, b = r.randint(-2, 4), r.randint(-2, 6)
            step = r.choice((1, 2, -1, -2, 3))
            if step < 0:
                a, b = b, a
            args = f"{a}, {b}, {step}"
        elif roll < 0.75 and self.arrays():
            arr = r.choice(self.arrays())
            args = (
                f"len({arr.name})"
                if self.chance(0.5)
                else f"{arr.name}.shape[{len(arr.shape) - 1}]"
            )
        elif roll < 0.9:
            args = f"{self.iexpr(1, ctx)} % 5"
        elif self.avoid_known:
            args = f"{r.randint(-1, 2)}, {r.randint(2, 6)}, {r.choice((1, 2))}"
        else:
            # a runtime step: nonzero unless the draw says otherwise (ValueError then)
            step = f"{self.iexpr(1, ctx)} % 3 + 1" if self.chance(0.8) else self.iexpr(1, ctx)
            args = f"{r.randint(-1, 2)}, {r.randint(2, 6)}, {step}"
        self.emit(ind, f"for {i} in range({args}):")
        self.env.append(Var(i, "i"))
        self.loop_body(ind, ctx)
        self.env.pop()
        self.loop_else(ind, ctx)

    def loop_body(self, ind: int, ctx: FnCtx) -> None:
        sub = FnCtx(ctx.ret, ctx.helpers, ctx.loop_depth + 1, ctx.depth + 1)
        self.block(ind + 1, self.r.randint(1, 3), sub)

    def loop_else(self, ind: int, ctx: FnCtx) -> None:
        if self.chance(0.15):
            self.emit(ind, "else:")
            sub = FnCtx(ctx.ret, ctx.helpers, ctx.loop_depth, ctx.depth + 1)
            self.block(ind + 1, 1, sub)

    def ret_stmt(self, ctx: FnCtx) -> str:
        if ctx.ret == "none":
            return "return"
        if ctx.ret == "t":
            return f"return {self.fexpr(2, ctx)}, {self.iexpr(1, ctx)}"
        return f"return {self.expr_of(ctx.ret, 2, ctx)}"

    def final_return(self, ctx: FnCtx) -> str:
        if ctx.ret == "f":
            terms = [v.name for v in self.vars_of("f")]
            self.r.shuffle(terms)
            terms = terms[:4]
            for a in self.arrays()[:2]:
                terms.append(self.elem(a))
            terms.append(self.fexpr(2, ctx))
            return "return " + " + ".join(terms)
        return self.ret_stmt(ctx)

    # ------------------------------------------------------------------ functions

    def param(self, idx: int) -> Var:
        r = self.r
        k = r.choice(("f", "f", "f", "i", "b", "a1", "a1", "a2"))
        if k == "a1":
            return Var(f"a{idx}", "a1", (r.randint(1, 5),), r.choice("CA"))
        if k == "a2":
            return Var(
                f"m{idx}",
                "a2",
                (r.randint(1, 3), r.randint(1, 4)),
                r.choice("CA" if self.avoid_known else "CFA"),
            )
        return Var({"f": "x", "i": "n", "b": "c"}[k] + str(idx), k)

    @staticmethod
    def annotation(p: Var) -> str:
        if p.kind == "f":
            return "f64"
        if p.kind == "i":
            return "i64"
        if p.kind == "b":
            return "bool"
        if p.kind == "a1":
            return "f64[::1]" if p.layout == "C" else "f64[:]"
        return {"C": "f64[:, ::1]", "F": "f64[::1, :]", "A": "f64[:, :]"}[p.layout]

    def function(
        self, name: str, params: list[Var], ret: str, helpers: list, *, export: bool, annotate: bool
    ) -> None:
        ctx = FnCtx(ret, helpers)
        self.env = list(params)
        rt = {"f": "f64", "i": "i64", "b": "bool", "t": "tuple[f64, i64]", "none": "None"}[ret]
        if export:
            if annotate or ret == "t":
                self.emit(0, "@gradc.export")
                sig = ", ".join(f"{p.name}: {self.annotation(p)}" for p in params)
                self.emit(0, f"def {name}({sig}) -> {rt}:")
            else:
                self.emit(
                    0, f"@gradc.export('{rt}({', '.join(self.annotation(p) for p in params)})')"
                )
                self.emit(0, f"def {name}({', '.join(p.name for p in params)}):")
        else:
            self.emit(0, f"def {name}({', '.join(p.name for p in params)}):")
        n = self.r.randint(2, self.size)
        for _ in range(n):
            self.stmt(1, ctx)
        self.emit(1, self.final_return(ctx) if ret != "none" else "return")
        self.emit(0, "")
        self.emit(0, "")

    def module(self) -> str:
        r = self.r
        helpers: list[tuple[str, list[Var], str]] = []
        body_start = len(self.lines)
        for h in range(r.choice((0, 0, 1, 1, 2))):
            params = [self.param(i) for i in range(r.randint(1, 3))]
            ret = (
                "none" if any(p.kind in ("a1", "a2") for p in params) and self.chance(0.4) else "f"
            )
            name = f"h{h}"
            self.function(name, params, ret, list(helpers), export=False, annotate=False)
            helpers.append((name, params, ret))
        fuzz: dict[str, dict[str, object]] = {}
        decls: list[str] = []
        for e in range(r.choice((1, 1, 2))):
            name = "f" if e == 0 else "g"
            params = [self.param(i) for i in range(r.randint(1, 4))]
            # helpers must be callable: only those whose array params an export can pass
            usable = list(helpers)
            ret = "f" if self.chance(0.8) else r.choice("ibt")
            self.function(name, params, ret, usable, export=True, annotate=self.chance(0.8))
            fuzz[name] = {
                p.name: (
                    ("f64", p.shape, p.layout)
                    if p.kind in ("a1", "a2")
                    else {"f": "f64", "i": "i64", "b": "bool"}[p.kind]
                )
                for p in params
            }
            diff = [p.name for p in params if p.kind in ("f", "a1", "a2")]
            if ret == "f" and diff:
                decls += self.declarations(name, diff)
        head = [
            "import math",
            "",
            "import numpy as np",
            "",
            "import gradc",
            "from gradc import f64, i64",
            "",
        ]
        head.append(f"FUZZ = {fuzz!r}")
        head += ["", ""]
        return "\n".join(head + self.lines[body_start:] + decls) + "\n"

    def _passable(self, p: Var, params: list[Var]) -> bool:
        if p.kind not in ("a1", "a2"):
            return True
        return any(
            q.kind == p.kind and q.shape == p.shape and (q.layout == p.layout or p.layout == "A")
            for q in params
        )

    def declarations(self, name: str, diff: list[str]) -> list[str]:
        r = self.r
        out = []
        for j in range(r.choice((1, 1, 2))):
            wrt = r.sample(diff, r.randint(1, len(diff)))
            wrt_text = repr(wrt[0]) if len(wrt) == 1 and self.chance(0.5) else repr(tuple(wrt))
            rev = r.choice(("grad", "grad", "value_and_grad", "vjp"))
            out.append(f"{rev[0]}{j}_{name} = gradc.{rev}({name}, wrt={wrt_text})")
            out.append(f"t{j}_{name} = gradc.jvp({name}, wrt={wrt_text})")
        return out


def generate(seed: int, size: int = 10, *, avoid_known: bool = False) -> str:
    """The source of one random module (deterministic in ``seed`` and the options).

    ``size`` bounds the number of top-level statements per function (nested blocks add
    more). Every module imports ``math``, ``numpy as np`` and ``gradc``. ``avoid_known``
    leaves out the constructs of issue #18's open bug classes, so that a run finds the
    others: ``raise``/``assert`` and runtime ``range`` steps (reverse-mode ICE),
    F-layout array parameters (forward mode), ``np.full`` with a computed fill value,
    ``x ** y``/``math.pow`` with a computed exponent (``0 ** x`` derivatives).
    """
    return Gen(seed, size, avoid_known).module()
