"""Random whole-array NumPy modules for the fuzzer (issue 11's array subset, issue 18).

``generate_arrays(seed)`` returns a module of two exports over the same parameters
(arrays of f64/f32/i64/bool with shapes that broadcast, including size-1 and 0-length
axes, and f64/i64/bool scalars):

* ``f`` returns an array or a scalar: operators, ufuncs (``np.logical_*`` too),
  comparisons and ``np.where``, ``np.clip``/``a.clip``, ``np.diff``, ``np.full_like`` with
  a dtype, reductions with ``axis``/``keepdims`` (``np.linalg.norm`` along an axis too), slices with steps on either axis, views used in
  expressions, slice assignment and in-place updates (of copies and of parameters);
* ``g`` returns an f64 scalar (a reduction) and is differentiated (``gradc.grad``,
  ``gradc.jvp``, ``gradc.value_and_grad``) with respect to its f64 parameters; it writes
  only local copies.

Types are not modelled by hand: every candidate expression is evaluated by NumPy on
dummy values of the parameters' dtypes and shapes, so dtypes (NEP 50), shapes and the
exceptions NumPy raises for a shape are NumPy's own. A candidate NumPy refuses with a
TypeError is dropped; one raising ValueError/IndexError (a broadcast mismatch, an index
out of range) is kept now and then, so the exception paths are exercised.

The ``FUZZ`` table gives each parameter as ``'f64'``/``'i64'``/``'bool'`` or
``(dtype, shape, 'A')`` (see ``tests/fuzzing/array_oracle.py``).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np

DTYPES = ("f64", "f64", "f64", "f32", "i64", "bool")
NP = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "bool": np.bool_}
NAME = {np.dtype(v): k for k, v in NP.items()}
FLOAT_UFUNCS = ("sqrt", "exp", "sin", "cos", "tanh", "log1p", "arctan", "expm1")
ANY_UFUNCS = ("abs", "absolute", "square", "sign", "floor", "ceil", "trunc", "logical_not")
BINARY_UFUNCS = (
    "minimum",
    "maximum",
    "fmin",
    "fmax",
    "arctan2",
    "hypot",
    "copysign",
    "logical_and",
    "logical_or",
    "logical_xor",
)
REDUCTIONS = (
    "sum",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "any",
    "all",
    "var",
    "std",
    "argmax",
    "cumsum",
)
SLICES = (":", "1:", ":-1", "::2", "::-1", "1::2", "::-2", "-2:", "1:3", "2:0")
OPS = ("+", "-", "*", "/", "//", "%", "**", "+", "*", "-")
CMPS = ("<", "<=", ">", ">=", "==", "!=")


def _dummy(t: Any, rng: random.Random) -> Any:
    if isinstance(t, tuple):
        dt, shape = NP[t[0]], t[1]
        vals = np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(shape)))])
        return (vals.reshape(shape) * (3 if dt is np.int64 else 1)).astype(dt)
    return {"f64": 0.75, "i64": 2, "bool": True}[t]


class ArrayGen:
    """One module's generator (see the module docstring)."""

    def __init__(self, seed: int, size: int) -> None:
        self.r = random.Random(seed)
        self.size = size
        self.counter = 0
        self.lines: list[str] = []
        self.env: dict[str, Any] = {}
        self.poisoned = False
        self.param_names: set[str] = set()

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------ evaluation

    def eval(self, expr: str) -> tuple[Any, BaseException | None]:
        env = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self.env.items()}
        env["np"] = np
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return eval(expr, env), None
        except Exception as exc:
            return None, exc

    def typed(self, expr: str) -> Any | None:
        """The NumPy value of ``expr`` on the dummies, or None when it is not usable."""
        value, exc = self.eval(expr)
        if exc is not None or not _plain(value):
            return None
        return value

    # ------------------------------------------------------------ expressions

    def arrays(self, pred: Any = None) -> list[str]:
        return [
            k
            for k, v in self.env.items()
            if isinstance(v, np.ndarray) and v.ndim >= 1 and (pred is None or pred(v))
        ]

    def scalars(self) -> list[str]:
        return [k for k, v in self.env.items() if not isinstance(v, np.ndarray)]

    def view(self, name: str) -> str:
        v = self.env[name]
        k = self.r.random()
        if k < 0.15 and v.ndim == 2:
            return f"{name}.T"
        if k < 0.3 and v.shape[0] > 0:
            return f"{name}[{self.r.choice([0, -1, v.shape[0] - 1, 1 % v.shape[0]])}]"
        if k < 0.4 and v.ndim == 2 and v.shape[1] > 0:
            return f"{name}[:, {self.r.choice([0, -1])}]"
        axes = [self.r.choice(SLICES) for _ in range(self.r.randint(1, v.ndim))]
        return f"{name}[{', '.join(axes)}]"

    def leaf(self) -> str:
        k = self.r.random()
        arrays = self.arrays()
        if k < 0.45 and arrays:
            return self.r.choice(arrays)
        if k < 0.65 and arrays:
            return self.view(self.r.choice(arrays))
        if k < 0.82 and self.scalars():
            return self.r.choice(self.scalars())
        return self.r.choice(["2.0", "0.5", "3", "1", "-1.5", "True", "0.0", "2"])

    def expr(self, d: int) -> str:
        if d <= 0 or self.chance(0.25):
            return self.leaf()
        k = self.r.random()
        a = self.expr(d - 1)
        if k < 0.3:
            return f"({a} {self.r.choice(OPS)} {self.expr(d - 1)})"
        if k < 0.38:
            return f"({a} {self.r.choice(CMPS)} {self.expr(d - 1)})"
        if k < 0.44:
            return f"({a} {self.r.choice(['&', '|', '^'])} {self.expr(d - 1)})"
        if k < 0.5:
            return self.r.choice([f"(-{a})", f"abs({a})", f"(~{a})"])
        if k < 0.6:
            fn = self.r.choice(FLOAT_UFUNCS + ANY_UFUNCS)
            return f"np.{fn}({a})"
        if k < 0.67:
            return f"np.{self.r.choice(BINARY_UFUNCS)}({a}, {self.expr(d - 1)})"
        if k < 0.74:
            return f"np.where({self.expr(d - 1)} > {self.leaf()}, {a}, {self.expr(d - 1)})"
        if k < 0.77 and isinstance(self.typed(a), np.ndarray):
            hi = self.r.choice(["1.0", "0.5", "2"])
            return f"({a}).clip(-1.0, {hi})" if self.chance(0.4) else f"np.clip({a}, -1.0, {hi})"
        if k < 0.8:
            return self.array_function(a)
        return self.reduction(a)

    def array_function(self, a: str) -> str:
        """``np.diff``, ``np.linalg.norm`` along an axis or ``np.full_like`` of ``a``."""
        value = self.typed(a)
        if not isinstance(value, np.ndarray):
            return a
        k = self.r.random()
        axis = self.r.randrange(-value.ndim, value.ndim)
        if k < 0.45:
            return f"np.diff({a}, axis={axis})" if self.chance(0.5) else f"np.diff({a})"
        if k < 0.75:
            order = self.r.choice(["", "1, ", "2, ", "np.inf, "])
            keep = ", keepdims=True" if self.chance(0.3) else ""
            return f"np.linalg.norm({a}, {order}axis={axis}{keep})"
        dtype = self.r.choice(["bool", "np.float64", "np.int64", "None"])
        fill = self.r.choice([*self.scalars(), "1", "-1.5", "True", "0.0"])
        return f"np.full_like({a}, {fill}, dtype={dtype})"

    def reduction(self, a: str) -> str:
        fn = self.r.choice(REDUCTIONS)
        value = self.typed(a)
        if not isinstance(value, np.ndarray):
            return a
        nd = value.ndim
        args = []
        if nd and self.chance(0.6):
            args.append(f"axis={self.r.randrange(-nd, nd)}")
            if self.chance(0.4):
                args.append("keepdims=True")
        extra = "".join(", " + x for x in args)
        if self.chance(0.3) and nd:
            return f"({a}).{fn}({', '.join(args)})"
        return f"np.{fn}({a}{extra})"

    # ------------------------------------------------------------ statements

    def pick(self, tries: int, depth: int, want: Any = None) -> tuple[str, Any] | None:
        for _ in range(tries):
            e = self.expr(depth)
            value, exc = self.eval(e)
            if exc is None and _plain(value) and (want is None or want(value)):
                return e, value
            if (
                want is None
                and isinstance(exc, ValueError | IndexError)
                and not self.poisoned
                and self.chance(0.08)
            ):
                return e, exc
        return None

    def stmt(self, writes_params: bool) -> None:
        k = self.r.random()
        own = [n for n in self.arrays() if n not in self.param_names or writes_params]
        if k < 0.45 or not own:
            got = self.pick(8, 2)
            if got is None:
                return
            name = self.fresh("t")
            if self.chance(0.3) and isinstance(got[1], np.ndarray) and got[1].ndim:
                self.assign(name, f"({got[0]}).copy()")
            else:
                self.assign(name, got[0], got[1])
            return
        target = self.r.choice(own)
        lhs = self.view(target) if self.chance(0.7) else target
        if lhs.endswith(".T") or (lhs == target and k < 0.6):
            lhs = f"{target}[...]" if lhs.endswith(".T") else lhs
        op = self.r.choice(["=", "+=", "-=", "*=", "="])
        if lhs == target and op == "=":
            op = "+="
        got = self.pick(8, 2)
        if got is None or isinstance(got[1], BaseException):
            return
        text = f"{lhs} {op} {got[0]}"
        env = dict(self.env, np=np)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(text, env)
        except Exception:
            return
        self.lines.append(text)

    def assign(self, name: str, expr: str, value: Any = None) -> None:
        if value is None:
            value, _ = self.eval(expr)
        self.lines.append(f"{name} = {expr}")
        if isinstance(value, BaseException):
            self.poisoned = True
            return
        self.env[name] = value

    def body(self, writes_params: bool) -> None:
        for _ in range(self.r.randint(1, self.size)):
            self.stmt(writes_params)

    # ------------------------------------------------------------ module

    def params(self) -> dict[str, Any]:
        base = [self.r.choice([0, 1, 2, 3, 3, 4, 4, 5]) for _ in range(2)]
        if self.chance(0.6):
            base[0] = base[0] or 2
            base[1] = base[1] or 3
        out: dict[str, Any] = {}
        for i in range(self.r.randint(1, 3)):
            dt = self.r.choice(DTYPES) if i else "f64"
            k = self.r.random()
            shape: tuple[int, ...]
            if k < 0.4:
                shape = tuple(base)
            elif k < 0.6:
                shape = (base[1],)
            elif k < 0.7:
                shape = (base[0], 1)
            elif k < 0.8:
                shape = (1, base[1])
            elif k < 0.9:
                shape = (base[0],)
            else:
                shape = (self.r.randint(0, 5),) * self.r.randint(1, 2)
            out[f"a{i}"] = (dt, shape, "A")
        for i in range(self.r.randint(0, 2)):
            out[f"s{i}"] = self.r.choice(["f64", "f64", "i64", "bool"])
        return out

    def function(self, name: str, params: dict[str, Any], diff: bool) -> None:
        self.env = {k: _dummy(t, self.r) for k, t in params.items()}
        self.param_names = set(params)
        self.lines = []
        self.poisoned = False
        if diff:
            for p, t in params.items():
                if isinstance(t, tuple) and self.chance(0.5):
                    self.assign(f"c{p}", f"{p}.copy()")
        self.body(writes_params=not diff)
        if diff:
            got = self.pick(20, 2, lambda v: _dt(v) == "f64")
            ret = "np.sum(a0)"
            if got:
                ret = f"np.sum({got[0]})" if isinstance(got[1], np.ndarray) else got[0]
            rt = "f64"
        else:
            got = self.pick(20, 3)
            ret, value = (
                (got[0], got[1])
                if got and not isinstance(got[1], BaseException)
                else ("a0", self.env["a0"])
            )
            rt = _annotation(value)
        sig = ", ".join(f"{p}: {_annotation_of(t)}" for p, t in params.items())
        self.out.append("@gradc.export")
        self.out.append(f"def {name}({sig}) -> {rt}:")
        self.out.extend("    " + line for line in self.lines)
        self.out.append(f"    return {ret}")
        self.out.append("")
        self.out.append("")

    def module(self) -> str:
        params = self.params()
        self.out: list[str] = [
            "import numpy as np",
            "",
            "import gradc",
            "from gradc import f32, f64, i64",
            "",
            f"FUZZ = {{'f': {params!r}, 'g': {params!r}}}",
            "",
            "",
        ]
        self.function("f", params, diff=False)
        self.function("g", params, diff=True)
        wrt = [p for p, t in params.items() if (t[0] if isinstance(t, tuple) else t) == "f64"]
        w = repr(wrt[0]) if len(wrt) == 1 else repr(tuple(wrt))
        self.out.append(f"d_g = gradc.grad(g, wrt={w})")
        self.out.append(f"t_g = gradc.jvp(g, wrt={w})")
        if self.chance(0.3):
            self.out.append(f"v_g = gradc.value_and_grad(g, wrt={w})")
        return "\n".join(self.out) + "\n"


def _plain(value: Any) -> bool:
    """A value gradc can type: an array of a fuzzed dtype (rank 1..2), or a scalar."""
    if isinstance(value, np.ndarray):
        return 1 <= value.ndim <= 2 and value.dtype in NAME
    if isinstance(value, np.generic):
        return value.dtype in NAME
    return type(value) in (float, int, bool)


def _dt(value: Any) -> str:
    if isinstance(value, np.ndarray | np.generic):
        return NAME[value.dtype]
    return {float: "f64", int: "i64", bool: "bool"}[type(value)]


def _annotation(value: Any) -> str:
    dt = _dt(value)
    if isinstance(value, np.ndarray):
        text = f"{dt}[{', '.join([':'] * value.ndim)}]"
        return f'"{text}"' if dt == "bool" else text
    return dt


def _annotation_of(t: Any) -> str:
    if isinstance(t, tuple):
        text = f"{t[0]}[{', '.join([':'] * len(t[1]))}]"
        return f'"{text}"' if t[0] == "bool" else text
    return str(t)


def generate_arrays(seed: int, size: int = 6) -> str:
    """The array module of ``seed`` (deterministic; see the module docstring)."""
    return ArrayGen(seed, size).module()


__all__ = ["generate_arrays"]
