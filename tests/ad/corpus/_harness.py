"""The AD oracle harness: corpus discovery, input drawing, finite differences, dual numbers.

A corpus module (``tests/ad/corpus/*.py``, names starting with ``_`` excluded) is ordinary
Python. For every ``@gradc.export`` function ``f`` it declares, with this naming
convention::

    d_f = gradc.grad(f, wrt=(<every float parameter, in order>,))   # reverse mode
    t_f = gradc.jvp(f, wrt=(<the same names>,))                     # forward mode

and it may describe the inputs of ``f`` in module-level dicts (all optional)::

    DOMAINS = {"f": {"x": (lo, hi), "n": (lo, hi), "a": (lo, hi)}}
        # float scalars, int scalars, and the elements of float arrays (inclusive);
        # defaults: floats and elements in [-2, 2], ints in [0, 4]
    SHAPES  = {"f": {"a": ("n",), "A": (2, "m")}}
        # array shapes: ints, or names of int parameters / DIMS entries (required for
        # every array parameter)
    DIMS    = {"f": {"m": (1, 3)}}      # ranges of symbolic dims that are not parameters
    KINKS   = {"f": lambda x, y: (x - y,)}
        # quantities that must stay away from 0 (|q| > KINK_MARGIN) for the inputs to be
        # usable: branch conditions, tie points of min/max, trip-count thresholds
    SLOW    = True
        # its tests are @pytest.mark.slow (a module slow to build whose operations other
        # default-run tests cover)

The oracles are the plain Python function (value), central finite differences of it
(derivatives), and, to check the harness itself, forward-mode dual numbers run through
the same plain source with ``math`` and ``np`` swapped for dual-aware shims.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from gradc.compiler.ir.special import digamma

CORPUS_DIR = Path(__file__).parent

DEFAULT_FLOAT = (-2.0, 2.0)
DEFAULT_INT = (0, 4)

#: Relative finite-difference step: h = FD_STEP * max(1, |x|).
FD_STEP = 1e-6
#: |ad - fd| <= FD_RTOL * |fd| + FD_ATOL * max(1, |f(x)|) (FD rounding error is about
#: eps * |f| / h ~ 2e-10 |f|, truncation h^2 f''' / 6).
FD_RTOL = 1e-5
FD_ATOL = 1e-7
#: Dot-product test: |<grad, v> - jvp(v)| <= DOT_RTOL * (sum |grad_i v_i| + |jvp(v)|)
#: + DOT_ATOL * sum |v_i| * max(1, |f|, max |grad_i|) (the tangent is a sum of partials that
#: may cancel: its rounding error scales with the terms, not with the result).
DOT_RTOL = 1e-9
DOT_ATOL = 1e-13
#: Value from jvp vs the plain function (libm may differ by an ulp, loops amplify it).
VALUE_RTOL = 1e-11
#: Inputs with a KINKS quantity closer to 0 than this are rejected.
KINK_MARGIN = 1e-3
#: Array parameters with more elements than this get FD on a fixed subset of elements.
MAX_FD_ELEMENTS = 6


# ------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "float" | "int" | "bool" | "array"
    ndim: int = 0
    layout: str = "A"  # arrays: "A" (any strides), "C" (f64[:, ::1]), "F" (f64[::1, :])

    @property
    def differentiable(self) -> bool:
        return self.kind in ("float", "array")


@dataclass(frozen=True)
class Case:
    """One differentiable export of a corpus module and its derivative exports."""

    module: str
    path: Path
    name: str
    params: tuple[Param, ...]
    grad_name: str | None
    grad_wrt: tuple[str, ...] | None
    jvp_name: str | None
    jvp_wrt: tuple[str, ...] | None
    domains: dict[str, Any] = field(hash=False, compare=False, repr=False)
    shapes: dict[str, tuple[Any, ...]] = field(hash=False, compare=False, repr=False)
    dims: dict[str, tuple[int, int]] = field(hash=False, compare=False, repr=False)
    line: int = 0
    slow: bool = False

    @property
    def id(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def float_params(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.differentiable)

    @property
    def wrt_indices(self) -> list[int]:
        names = [p.name for p in self.params]
        assert self.grad_wrt is not None
        return [names.index(n) for n in self.grad_wrt]


_SCALARS = {
    "f64": "float",
    "float": "float",
    "float64": "float",
    "i64": "int",
    "int": "int",
    "int64": "int",
    "bool": "bool",
    "boolean": "bool",
    "bool_": "bool",
}


def _param_of(arg: ast.arg) -> Param:
    node = arg.annotation
    if isinstance(node, ast.Attribute):  # gradc.f64
        node = ast.Name(node.attr)
    if isinstance(node, ast.Name) and node.id in _SCALARS:
        return Param(arg.arg, _SCALARS[node.id])
    if isinstance(node, ast.Subscript):
        base = node.value.attr if isinstance(node.value, ast.Attribute) else node.value
        name = base if isinstance(base, str) else getattr(base, "id", None)
        assert name in ("f64", "float64"), f"{arg.arg}: only f64 arrays in the AD corpus"
        axes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        unit = [isinstance(a, ast.Slice) and a.step is not None for a in axes]
        layout = "C" if unit[-1] else ("F" if unit[0] else "A")
        return Param(arg.arg, "array", len(axes), layout)
    raise AssertionError(f"parameter {arg.arg!r}: unsupported annotation {ast.dump(node)}")


def _is_gradc_call(node: ast.expr, attr: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "gradc"
    )


def _literal(tree: ast.Module, name: str) -> dict[str, Any]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            value = ast.literal_eval(stmt.value)
            assert isinstance(value, dict), f"{name} must be a dict"
            return value
    return {}


def _wrt_names(call: ast.Call, params: Sequence[str]) -> tuple[str, ...]:
    node: ast.expr | None = None
    for kw in call.keywords:
        if kw.arg == "wrt":
            node = kw.value
    if node is None and len(call.args) > 1:
        node = call.args[1]
    assert node is not None, "the corpus always spells wrt out"
    items = node.elts if isinstance(node, ast.Tuple | ast.List) else [node]
    out = []
    for item in items:
        value = ast.literal_eval(item)
        out.append(params[value] if isinstance(value, int) else value)
    return tuple(out)


def discover(path: Path) -> list[Case]:
    """Every export of a corpus module with its ``d_``/``t_`` declarations."""
    tree = ast.parse(path.read_text(), filename=str(path))
    domains = _literal(tree, "DOMAINS")
    shapes = _literal(tree, "SHAPES")
    dims = _literal(tree, "DIMS")
    slow = any(
        isinstance(stmt, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "SLOW" for t in stmt.targets)
        and ast.literal_eval(stmt.value) is True
        for stmt in tree.body
    )
    exports: dict[str, tuple[tuple[Param, ...], int]] = {}
    derivs: dict[str, tuple[str, str, tuple[str, ...]]] = {}  # decl name -> kind, target, wrt
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and any(
            (isinstance(d, ast.Attribute) and d.attr == "export") for d in stmt.decorator_list
        ):
            exports[stmt.name] = (tuple(_param_of(a) for a in stmt.args.args), stmt.lineno)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            for kind in ("grad", "jvp", "value_and_grad", "vjp"):
                if _is_gradc_call(stmt.value, kind):
                    assert isinstance(target, ast.Name)
                    call = stmt.value
                    assert isinstance(call, ast.Call)
                    fn = call.args[0]
                    assert isinstance(fn, ast.Name)
                    params = [p.name for p in exports[fn.id][0]]
                    derivs[target.id] = (kind, fn.id, _wrt_names(call, params))
    cases = []
    for name, (params, line) in exports.items():
        g = derivs.get(f"d_{name}")
        t = derivs.get(f"t_{name}")
        cases.append(
            Case(
                module=path.stem,
                path=path,
                name=name,
                params=params,
                grad_name=f"d_{name}" if g and g[0] == "grad" and g[1] == name else None,
                grad_wrt=g[2] if g else None,
                jvp_name=f"t_{name}" if t and t[0] == "jvp" and t[1] == name else None,
                jvp_wrt=t[2] if t else None,
                domains=domains.get(name, {}),
                shapes={k: tuple(v) for k, v in shapes.get(name, {}).items()},
                dims=dims.get(name, {}),
                line=line,
                slow=slow,
            )
        )
    return cases


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS_DIR.glob("*.py") if not p.name.startswith("_"))


def all_cases() -> list[Case]:
    return [c for p in corpus_files() for c in discover(p)]


@cache
def load_plain(path: Path) -> types.ModuleType:
    """Import a corpus module as plain Python (gradc's decorators are inert)."""
    return _load(path, f"gradc_ad_corpus_{path.stem}")


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain_fn(case: Case) -> Callable[..., Any]:
    return getattr(load_plain(case.path), case.name)


def kinks_fn(case: Case) -> Callable[..., Sequence[float]] | None:
    return getattr(load_plain(case.path), "KINKS", {}).get(case.name)


# ------------------------------------------------------------------------- inputs


def _int_range(case: Case, name: str) -> tuple[int, int]:
    if name in case.dims:
        return case.dims[name]
    lo, hi = case.domains.get(name, DEFAULT_INT)
    return int(lo), int(hi)


@st.composite
def inputs(draw: st.DrawFn, case: Case) -> tuple[Any, ...]:
    """Arguments of ``case`` (float64 arrays, C-contiguous or F for ``f64[::1, :]``),
    away from its kinks."""
    ints: dict[str, int] = {}
    for p in case.params:
        if p.kind == "int":
            ints[p.name] = draw(st.integers(*_int_range(case, p.name)), label=p.name)
    for dim in case.dims:
        if dim not in ints:
            ints[dim] = draw(st.integers(*case.dims[dim]), label=dim)
    args: list[Any] = []
    for p in case.params:
        if p.kind == "int":
            args.append(ints[p.name])
        elif p.kind == "bool":
            args.append(draw(st.booleans(), label=p.name))
        else:
            lo, hi = case.domains.get(p.name, DEFAULT_FLOAT)
            elements = st.floats(float(lo), float(hi), allow_nan=False, allow_subnormal=False)
            if p.kind == "float":
                args.append(draw(elements, label=p.name))
            else:
                spec = case.shapes[p.name]
                assert len(spec) == p.ndim, f"{case.id}: SHAPES[{p.name!r}] has wrong rank"
                shape = tuple(ints[d] if isinstance(d, str) else d for d in spec)
                flat = draw(
                    st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)),
                    label=p.name,
                )
                args.append(_in_layout(np.array(flat, dtype=np.float64).reshape(shape), p))
    kinks = kinks_fn(case)
    if kinks is not None:
        qs = kinks(*copy_args(args))
        assume(all(abs(q) > KINK_MARGIN for q in qs))
    return tuple(args)


@st.composite
def directions(draw: st.DrawFn, case: Case, args: tuple[Any, ...]) -> list[Any]:
    """A tangent for every ``wrt`` parameter (elements in [-1, 1])."""
    out: list[Any] = []
    unit = st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False)
    for i in case.wrt_indices:
        a = args[i]
        if isinstance(a, np.ndarray):
            flat = draw(st.lists(unit, min_size=a.size, max_size=a.size))
            out.append(
                _in_layout(np.array(flat, dtype=np.float64).reshape(a.shape), case.params[i])
            )
        else:
            out.append(draw(unit))
    return out


def _in_layout(a: np.ndarray, p: Param) -> np.ndarray:
    return np.asfortranarray(a) if p.layout == "F" else a


def copy_args(args: Sequence[Any]) -> list[Any]:
    """Copies of the arrays in ``args``, each in its own memory order (C or F)."""
    return [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]


def strided(a: np.ndarray) -> np.ndarray:
    """The values of ``a`` as a non-contiguous view: every axis reversed, every other
    element of a buffer padded with NaN."""
    buf = np.full(tuple(2 * n + 1 for n in a.shape), np.nan)
    view = buf[tuple(slice(2 * n - 1, None, -2) if n else slice(0, 0) for n in a.shape)]
    view[...] = a
    return view


# ------------------------------------------------------------------------- finite differences


def _call(fn: Callable[..., Any], args: Sequence[Any]) -> float:
    value = fn(*copy_args(args))
    assert isinstance(value, float | int) and not isinstance(value, bool), value
    return float(value)


def fd_elements(a: np.ndarray) -> list[tuple[int, ...]]:
    """The element indices of ``a`` checked one by one (all of them for small arrays)."""
    idx = list(np.ndindex(a.shape))
    if len(idx) <= MAX_FD_ELEMENTS:
        return idx
    step = len(idx) / MAX_FD_ELEMENTS
    return [idx[int(k * step)] for k in range(MAX_FD_ELEMENTS)]


def fd_partial(fn: Callable[..., Any], args: Sequence[Any], i: int, index: Any = None) -> float:
    """Central difference of ``fn`` along argument ``i`` (element ``index`` of an array)."""
    x = args[i] if index is None else float(args[i][index])
    h = FD_STEP * max(1.0, abs(x))
    lo, hi = x - h, x + h

    def at(v: float) -> float:
        moved = copy_args(args)
        if index is None:
            moved[i] = v
        else:
            moved[i][index] = v
        return _call(fn, moved)

    return (at(hi) - at(lo)) / (hi - lo)


def fd_gradient(fn: Callable[..., Any], args: Sequence[Any], wrt: Sequence[int]) -> list[Any]:
    """FD gradient, one entry per ``wrt`` index: a float, or an array with NaN for the
    elements not checked (large arrays)."""
    out: list[Any] = []
    for i in wrt:
        a = args[i]
        if isinstance(a, np.ndarray):
            g = np.full(a.shape, np.nan)
            for index in fd_elements(a):
                g[index] = fd_partial(fn, args, i, index)
            out.append(g)
        else:
            out.append(fd_partial(fn, args, i))
    return out


def fd_directional(
    fn: Callable[..., Any], args: Sequence[Any], wrt: Sequence[int], v: Sequence[Any]
) -> float:
    """Central difference of ``fn`` along direction ``v`` of the ``wrt`` arguments."""
    scale = max(
        [1.0]
        + [
            float(np.max(np.abs(args[i]), initial=0.0))
            if isinstance(args[i], np.ndarray)
            else abs(args[i])
            for i in wrt
        ]
    )
    h = FD_STEP * scale

    def at(t: float) -> float:
        moved = copy_args(args)
        for i, d in zip(wrt, v):
            moved[i] = moved[i] + t * d
        return _call(fn, moved)

    return (at(h) - at(-h)) / (2 * h)


def fd_close(ad: float, fd: float, fvalue: float) -> bool:
    return abs(ad - fd) <= FD_RTOL * abs(fd) + FD_ATOL * max(1.0, abs(fvalue))


def assert_grad_matches_fd(
    where: str, ad: Sequence[Any], fd: Sequence[Any], names: Sequence[str], fvalue: float
) -> None:
    assert len(ad) == len(fd), f"{where}: gradient has {len(ad)} entries, expected {len(fd)}"
    bad = []
    for name, a, e in zip(names, ad, fd):
        if isinstance(e, np.ndarray):
            assert isinstance(a, np.ndarray), f"{where}: d/d{name} is {a!r}, expected an array"
            assert a.shape == e.shape, f"{where}: d/d{name} has shape {a.shape}, not {e.shape}"
            for index in np.ndindex(e.shape):
                if not math.isnan(e[index]) and not fd_close(float(a[index]), e[index], fvalue):
                    bad.append(f"d/d{name}{list(index)} = {a[index]!r}, FD {e[index]!r}")
        else:
            assert isinstance(a, float), f"{where}: d/d{name} is {a!r}, expected a float"
            if not fd_close(a, e, fvalue):
                bad.append(f"d/d{name} = {a!r}, FD {e!r}")
    assert not bad, f"{where}: " + "; ".join(bad)


def dot(grad: Sequence[Any], v: Sequence[Any]) -> float:
    """``<grad, v>`` over all ``wrt`` arguments."""
    return sum(float(np.sum(np.asarray(g) * np.asarray(d))) for g, d in zip(grad, v))


def dot_close(grad: Sequence[Any], v: Sequence[Any], tangent: float, fvalue: float) -> bool:
    """The dot-product test: ``<grad, v>`` equals the forward-mode ``tangent``."""
    total = dot(grad, v)
    size = sum(float(np.sum(np.abs(np.asarray(g) * np.asarray(d)))) for g, d in zip(grad, v))
    vsize = sum(float(np.sum(np.abs(np.asarray(d)))) for d in v)
    gmax = max([float(np.max(np.abs(g), initial=0.0)) for g in grad], default=0.0)
    tol = DOT_RTOL * (size + abs(tangent)) + DOT_ATOL * vsize * max(1.0, abs(fvalue), gmax)
    return abs(total - tangent) <= tol


# ------------------------------------------------------------------------- dual numbers


class Dual:
    """``val + tan·ε`` with ε² = 0: exact forward-mode derivatives of plain Python code."""

    __slots__ = ("tan", "val")

    def __init__(self, val: float, tan: float = 0.0) -> None:
        self.val = float(val)
        self.tan = float(tan)

    def __repr__(self) -> str:
        return f"Dual({self.val!r}, {self.tan!r})"

    # arithmetic
    def __add__(self, o: Any) -> Dual:
        o = lift(o)
        return Dual(self.val + o.val, self.tan + o.tan)

    __radd__ = __add__

    def __sub__(self, o: Any) -> Dual:
        o = lift(o)
        return Dual(self.val - o.val, self.tan - o.tan)

    def __rsub__(self, o: Any) -> Dual:
        return lift(o) - self

    def __mul__(self, o: Any) -> Dual:
        o = lift(o)
        return Dual(self.val * o.val, self.tan * o.val + self.val * o.tan)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> Dual:
        o = lift(o)
        r = self.val / o.val
        return Dual(r, (self.tan - r * o.tan) / o.val)

    def __rtruediv__(self, o: Any) -> Dual:
        return lift(o) / self

    def __neg__(self) -> Dual:
        return Dual(-self.val, -self.tan)

    def __pos__(self) -> Dual:
        return self

    def __abs__(self) -> Dual:
        return Dual(abs(self.val), _sign(self.val) * self.tan)

    def __pow__(self, o: Any) -> Dual:
        if isinstance(o, Dual):
            r = self.val**o.val
            dlog = o.tan * math.log(self.val) * r if o.tan != 0.0 else 0.0
            return Dual(r, o.val * self.val ** (o.val - 1) * self.tan + dlog)
        r = self.val**o
        return Dual(r, o * self.val ** (o - 1) * self.tan if o != 0 else 0.0)

    def __rpow__(self, o: Any) -> Dual:
        return lift(o) ** self

    # comparisons on the value (branches take the primal path)
    def __lt__(self, o: Any) -> bool:
        return self.val < lift(o).val

    def __le__(self, o: Any) -> bool:
        return self.val <= lift(o).val

    def __gt__(self, o: Any) -> bool:
        return self.val > lift(o).val

    def __ge__(self, o: Any) -> bool:
        return self.val >= lift(o).val

    def __eq__(self, o: object) -> bool:
        return isinstance(o, Dual | float | int) and self.val == lift(o).val

    def __ne__(self, o: object) -> bool:
        return not self == o

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        raise TypeError("float() of a Dual loses the derivative: not allowed in the corpus")

    def __int__(self) -> int:
        raise TypeError("int() of a Dual: not allowed in the corpus")


def _defer_to_arrays(method: Callable[[Dual, Any], Any]) -> Callable[[Dual, Any], Any]:
    """A binary operator of Dual that leaves an array operand to NumPy (``a * x`` with
    ``x`` an object array of Duals is elementwise)."""

    def wrapped(self: Dual, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            return NotImplemented
        return method(self, o)

    return wrapped


for _name in (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
    "__truediv__", "__rtruediv__", "__pow__", "__rpow__",
):  # fmt: skip
    setattr(Dual, _name, _defer_to_arrays(getattr(Dual, _name)))


def lift(x: Any) -> Dual:
    if isinstance(x, Dual):
        return x
    if isinstance(x, np.generic):
        x = x.item()
    assert isinstance(x, float | int), f"cannot lift {x!r}"
    return Dual(float(x), 0.0)


def _sign(x: float) -> float:
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def _unary(fn: Callable[[float], float], deriv: Callable[[float, float], float]):
    def apply(x: Any) -> Any:
        if not isinstance(x, Dual):
            return fn(x)
        r = fn(x.val)
        return Dual(r, deriv(x.val, r) * x.tan)

    return apply


def _dual_math() -> types.SimpleNamespace:
    m = types.SimpleNamespace(**{k: getattr(math, k) for k in dir(math) if not k.startswith("_")})
    two_over_sqrt_pi = 2.0 / math.sqrt(math.pi)
    rules: dict[str, Callable[[float, float], float]] = {
        "sin": lambda a, r: math.cos(a),
        "cos": lambda a, r: -math.sin(a),
        "tan": lambda a, r: 1.0 + r * r,
        "asin": lambda a, r: 1.0 / math.sqrt(1.0 - a * a),
        "acos": lambda a, r: -1.0 / math.sqrt(1.0 - a * a),
        "atan": lambda a, r: 1.0 / (1.0 + a * a),
        "asinh": lambda a, r: 1.0 / math.sqrt(a * a + 1.0),
        "acosh": lambda a, r: 1.0 / math.sqrt(a * a - 1.0),
        "atanh": lambda a, r: 1.0 / (1.0 - a * a),
        "cbrt": lambda a, r: 1.0 / (3.0 * r * r),
        "sinh": lambda a, r: math.cosh(a),
        "cosh": lambda a, r: math.sinh(a),
        "tanh": lambda a, r: 1.0 - r * r,
        "exp": lambda a, r: r,
        "expm1": lambda a, r: r + 1.0,
        "log": lambda a, r: 1.0 / a,
        "log1p": lambda a, r: 1.0 / (1.0 + a),
        "log2": lambda a, r: 1.0 / (a * math.log(2.0)),
        "log10": lambda a, r: 1.0 / (a * math.log(10.0)),
        "sqrt": lambda a, r: 0.5 / r,
        "fabs": lambda a, r: _sign(a),
        "erf": lambda a, r: two_over_sqrt_pi * math.exp(-a * a),
        "erfc": lambda a, r: -two_over_sqrt_pi * math.exp(-a * a),
        # psi = lgamma' from gradc's reference implementation; the finite differences
        # of math.lgamma/math.gamma, not these duals, are the oracle for the compiled code
        "lgamma": lambda a, r: digamma(a),
        "gamma": lambda a, r: r * digamma(a),
    }
    for name, rule in rules.items():
        setattr(m, name, _unary(getattr(math, name), rule))
    for name in ("floor", "ceil", "trunc"):
        fn = getattr(math, name)
        setattr(m, name, lambda x, fn=fn: fn(x.val if isinstance(x, Dual) else x))
    for name in ("isnan", "isinf", "isfinite"):
        fn = getattr(math, name)
        setattr(m, name, lambda x, fn=fn: fn(x.val if isinstance(x, Dual) else x))

    def atan2(y: Any, x: Any) -> Any:
        y, x = lift(y), lift(x)
        den = x.val * x.val + y.val * y.val
        return Dual(math.atan2(y.val, x.val), (x.val * y.tan - y.val * x.tan) / den)

    def hypot(a: Any, b: Any) -> Any:
        a, b = lift(a), lift(b)
        r = math.hypot(a.val, b.val)
        return Dual(r, (a.val * a.tan + b.val * b.tan) / r)

    def pow_(a: Any, b: Any) -> Any:
        if isinstance(b, Dual):
            return lift(a) ** b
        return lift(a) ** float(b)

    def copysign(a: Any, b: Any) -> Any:
        a, b = lift(a), lift(b)
        r = math.copysign(a.val, b.val)
        return Dual(r, math.copysign(1.0, a.val) * math.copysign(1.0, b.val) * a.tan)

    def fmod(x: Any, y: Any) -> Any:
        # fmod(x, y) = x - trunc(x/y)*y with trunc(x/y) constant between jumps
        x, y = lift(x), lift(y)
        return Dual(math.fmod(x.val, y.val), x.tan - math.trunc(x.val / y.val) * y.tan)

    m.atan2, m.hypot, m.pow, m.copysign, m.fmod = atan2, hypot, pow_, copysign, fmod
    return m


def _value(x: Any) -> float:
    return x.val if isinstance(x, Dual) else x


def _on_value(fn: Callable[[float], Any]) -> Callable[[Any], Any]:
    """``fn`` of a Dual's value (a piecewise-constant function or a predicate)."""
    return lambda x: fn(_value(x))


def _dual_numpy_math() -> dict[str, Any]:
    """NumPy's math functions on scalars, dual-aware (by the same rules as ``math``'s)."""
    m = _dual_math()
    same = "exp expm1 log log1p log2 log10 sqrt sin cos tan sinh cosh tanh fabs hypot copysign"
    fns: dict[str, Any] = {name: getattr(m, name) for name in same.split()}
    renamed = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2"}
    fns.update({name: getattr(m, m_name) for name, m_name in renamed.items()})
    for name in ("floor", "ceil", "trunc", "isnan", "isinf", "isfinite"):
        fns[name] = _on_value(getattr(np, name))
    fns.update(
        power=m.pow,
        abs=abs,
        absolute=abs,
        square=lambda x: x * x,
        reciprocal=lambda x: 1.0 / x,
        deg2rad=lambda x: x * (math.pi / 180.0),
        rad2deg=lambda x: x * (180.0 / math.pi),
        sign=lambda x: _sign(_value(x)),
        minimum=lambda a, b: a if _value(a) < _value(b) else b,
        maximum=lambda a, b: a if _value(a) > _value(b) else b,
        logaddexp=lambda a, b: m.log(m.exp(a) + m.exp(b)),
    )
    fns.update(fmin=fns["minimum"], fmax=fns["maximum"])  # the corpus has no NaN inputs
    fns.update(
        where=lambda c, x, y: x if _value(c) else y,
        clip=lambda x, lo, hi: fns["minimum"](fns["maximum"](x, lo), hi),
    )
    return {name: _elementwise(fn) for name, fn in fns.items()}


def _elementwise(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` applied element by element when an operand is an (object) array."""

    def apply(*args: Any) -> Any:
        if any(isinstance(a, np.ndarray) for a in args):
            return np.frompyfunc(fn, len(args), 1)(*args)
        return fn(*args)

    return apply


def _on_arrays(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` elementwise when an operand is an array (NumPy's ufuncs on object arrays
    would call methods that Duals do not have)."""

    def apply(*args: Any) -> Any:
        if any(isinstance(a, np.ndarray) for a in args):
            return np.frompyfunc(fn, len(args), 1)(*args)
        return fn(*args)

    return apply


def _dual_sqrt(v: Any) -> Any:
    sqrt = _dual_math().sqrt
    if isinstance(v, np.ndarray):
        return np.frompyfunc(sqrt, 1, 1)(v)
    return sqrt(v)


def _dual_var(a: Any, axis: Any, ddof: int, keepdims: bool) -> Any:
    mean = np.mean(a, axis=axis, keepdims=True)
    d = a - mean
    n = a.size // mean.size
    return np.sum(d * d, axis=axis, keepdims=keepdims) / (n - ddof)


def _dual_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """``np.linalg.norm`` of a vector or (Frobenius) a matrix, on object arrays; with
    ``axis``, NumPy's vector norms along it (the Frobenius norm over two axes)."""
    if axis is not None:
        if ord == 1:
            return np.sum(np.abs(x), axis=axis, keepdims=keepdims)
        if ord == np.inf:
            return np.max(np.abs(x), axis=axis, keepdims=keepdims)
        return _dual_sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
    flat = x.ravel()
    if ord == 1:
        r = np.sum(np.abs(flat))
    elif ord == np.inf:
        r = max(np.abs(flat), default=0.0)
    else:
        r = _dual_sqrt(np.sum(flat * flat))
    if keepdims:
        out = np.empty((1,) * x.ndim, dtype=object)
        out[...] = r
        return out
    return r


def _dual_lu_solve(a: Any, b: Any) -> tuple[Any, Any]:
    """Gaussian elimination with partial pivoting on object arrays (Duals): ``(a⁻¹ b,
    det a)`` for a 2-D ``b``; the pivots compared by value."""
    n = a.shape[0]
    u = np.array(a, dtype=object).copy()
    x = np.array(b, dtype=object).copy()
    det: Any = 1.0
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(getattr(u[i, k], "val", u[i, k])))
        if p != k:
            u[[k, p]], x[[k, p]], det = u[[p, k]], x[[p, k]], -det
        det = det * u[k, k]
        for i in range(k + 1, n):
            f = u[i, k] / u[k, k]
            u[i, k:] = u[i, k:] - f * u[k, k:]
            x[i] = x[i] - f * x[k]
    for i in range(n - 1, -1, -1):
        x[i] = (x[i] - u[i, i + 1 :] @ x[i + 1 :]) / u[i, i]
    return x, det


def _dual_inv(a: Any) -> Any:
    return _dual_lu_solve(a, np.eye(a.shape[0], dtype=object))[0]


def _dual_solve(a: Any, b: Any) -> Any:
    x, _ = _dual_lu_solve(a, np.asarray(b, dtype=object).reshape(b.shape[0], -1))
    return x.reshape(np.shape(b))


def _dual_det(a: Any) -> Any:
    return _dual_lu_solve(a, np.empty((a.shape[0], 0), dtype=object))[1]


class _DualNumpy(types.ModuleType):
    """``numpy`` whose allocation functions make object arrays (so they can hold Duals)
    and whose math functions take Duals."""

    def __init__(self) -> None:
        super().__init__("numpy_dual")
        self._math = _dual_numpy_math()
        self.linalg = types.SimpleNamespace(
            norm=_dual_norm, inv=_dual_inv, solve=_dual_solve, det=_dual_det
        )

    @staticmethod
    def var(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
    ) -> Any:
        """NumPy's two passes, on object arrays (NumPy's own var calls ``conjugate``)."""
        return _dual_var(a, axis, ddof, keepdims)

    @staticmethod
    def std(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
    ) -> Any:
        return _dual_sqrt(_dual_var(a, axis, ddof, keepdims))

    def __getattr__(self, name: str) -> Any:
        if name in self._math:
            return _on_arrays(self._math[name])
        return getattr(np, name)

    @staticmethod
    def zeros(shape: Any, dtype: Any = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype).kind in "iub":  # indices, masks: no duals
            return np.zeros(shape, dtype=dtype)
        return np.full(shape, 0.0, dtype=object)

    @staticmethod
    def ones(shape: Any, dtype: Any = None) -> np.ndarray:
        return np.full(shape, 1.0, dtype=object)

    @staticmethod
    def empty(shape: Any, dtype: Any = None) -> np.ndarray:
        return np.full(shape, 0.0, dtype=object)

    @staticmethod
    def zeros_like(a: Any, dtype: Any = None) -> np.ndarray:
        return np.full(np.shape(a), 0.0, dtype=object)

    @staticmethod
    def full(shape: Any, value: Any, dtype: Any = None) -> np.ndarray:
        out = np.empty(shape, dtype=object)
        for index in np.ndindex(out.shape):
            out[index] = value
        return out


@cache
def load_dual(path: Path) -> types.ModuleType:
    """A second copy of the corpus module whose ``math`` and ``np`` are dual-aware."""
    module = _load(path, f"gradc_ad_corpus_dual_{path.stem}")
    module.math = _dual_math()  # type: ignore[attr-defined]
    module.np = _DualNumpy()  # type: ignore[attr-defined]
    return module


def _dualize(a: Any, tangent: Any) -> Any:
    if isinstance(a, np.ndarray):
        out = np.empty(a.shape, dtype=object)
        t = np.broadcast_to(np.asarray(tangent, dtype=np.float64), a.shape)
        for index in np.ndindex(a.shape):
            out[index] = Dual(float(a[index]), float(t[index]))
        return out
    return Dual(a, tangent)


def dual_directional(
    path: Path, name: str, args: Sequence[Any], wrt: Sequence[int], v: Sequence[Any]
) -> tuple[float, float]:
    """``(f(args), derivative along v)`` of function ``name`` of the module at ``path``,
    run on dual numbers (exact up to rounding); ``v`` holds one tangent per ``wrt``."""
    fn = getattr(load_dual(path), name)
    moved = list(copy_args(args))
    for i, d in zip(wrt, v):
        moved[i] = _dualize(args[i], d)
    r = fn(*moved)
    if isinstance(r, Dual):
        return r.val, r.tan
    assert isinstance(r, float | int), r
    return float(r), 0.0


def dual_jvp(case: Case, args: Sequence[Any], v: Sequence[Any]) -> tuple[float, float]:
    """``(f(args), directional derivative along v)`` of a corpus case, with dual numbers."""
    return dual_directional(case.path, case.name, args, case.wrt_indices, v)


def dual_gradient(case: Case, args: Sequence[Any]) -> tuple[float, list[Any]]:
    """``(f(args), exact gradient)``: one dual pass per element of every ``wrt`` argument."""
    zeros = [
        np.zeros(args[i].shape) if isinstance(args[i], np.ndarray) else 0.0
        for i in case.wrt_indices
    ]
    value, _ = dual_jvp(case, args, zeros)
    grads: list[Any] = []
    for k, i in enumerate(case.wrt_indices):
        a = args[i]
        seed = list(zeros)
        if isinstance(a, np.ndarray):
            g = np.zeros(a.shape)
            for index in np.ndindex(a.shape):
                seed[k] = np.zeros(a.shape)
                seed[k][index] = 1.0
                g[index] = dual_jvp(case, args, seed)[1]
            grads.append(g)
        else:
            seed[k] = 1.0
            grads.append(dual_jvp(case, args, seed)[1])
    return value, grads


# ------------------------------------------------------------------------- the four checks
#
# ``lib`` is anything with the corpus exports as attributes: a loaded artifact
# (gradc.load), or the reference interpreter running the differentiated IR.


def check_reverse(case: Case, lib: Any, args: tuple[Any, ...]) -> None:
    """(a) ``d_f(args)`` against central differences of the plain function."""
    plain = plain_fn(case)
    value = plain(*copy_args(args))
    result = getattr(lib, case.grad_name)(*copy_args(args))
    assert isinstance(result, tuple), f"{case.grad_name} returned {result!r}, expected a tuple"
    fd = fd_gradient(plain, args, case.wrt_indices)
    assert_grad_matches_fd(f"{case.grad_name}{args!r}", list(result), fd, case.grad_wrt, value)


def check_forward(case: Case, lib: Any, args: tuple[Any, ...], v: Sequence[Any]) -> None:
    """(b) ``t_f(args, v)`` against central differences along ``v``."""
    plain = plain_fn(case)
    value = plain(*copy_args(args))
    result = getattr(lib, case.jvp_name)(*copy_args(args), *copy_args(v))
    assert isinstance(result, tuple) and len(result) == 2, f"{case.jvp_name} -> {result!r}"
    tangent = result[1]
    assert isinstance(tangent, float), f"{case.jvp_name}: tangent {tangent!r}"
    fd = fd_directional(plain, args, case.wrt_indices, v)
    assert fd_close(tangent, fd, value), (
        f"{case.jvp_name}{args!r} along {v!r}: {tangent!r}, FD {fd!r}"
    )


def check_dot_product(case: Case, lib: Any, args: tuple[Any, ...], v: Sequence[Any]) -> None:
    """(c) ``<d_f(args), v> == t_f(args, v)`` (reverse and forward mode agree)."""
    grad = getattr(lib, case.grad_name)(*copy_args(args))
    assert isinstance(grad, tuple), f"{case.grad_name} returned {grad!r}"
    value, tangent = getattr(lib, case.jvp_name)(*copy_args(args), *copy_args(v))
    assert dot_close(list(grad), v, tangent, value), (
        f"{case.id}{args!r} v={v!r}: <grad, v> = {dot(list(grad), v)!r}, jvp = {tangent!r}"
    )


def check_jvp_value(case: Case, lib: Any, args: tuple[Any, ...], v: Sequence[Any]) -> None:
    """(d) the primal value returned by ``t_f`` equals the plain function's."""
    expected = plain_fn(case)(*copy_args(args))
    value, _ = getattr(lib, case.jvp_name)(*copy_args(args), *copy_args(v))
    assert isinstance(value, float), f"{case.jvp_name}: value {value!r}"
    assert abs(value - expected) <= VALUE_RTOL * max(1.0, abs(expected)), (
        f"{case.jvp_name}{args!r}: value {value!r}, plain {expected!r}"
    )


# ------------------------------------------------------------------------- the IR oracle


def build_ir_module(path: Path) -> Any:
    """The typed, differentiated and optimised IR module of ``path``: the phases of
    ``gradc.compiler.driver.build_module`` before lowering (parse, infer, ``lower-arrays``,
    derivative exports, the default pass pipeline with the verifier after every pass).

    Raises:
        CompileError: as ``build_module`` would.
    """
    from gradc.compiler.driver import add_derivative_exports
    from gradc.compiler.frontend.module_scan import scan_module
    from gradc.compiler.frontend.source import SourceFile
    from gradc.compiler.infer import infer_module
    from gradc.compiler.ir.verifier import verify_module
    from gradc.passes.registry import DEFAULT_PIPELINE
    from gradc.passes.registry import get as get_pass

    source = SourceFile.read(path)
    info = scan_module(source, path.stem)
    module = get_pass("lower-arrays").run(infer_module(info))
    add_derivative_exports(module, info, source)
    verify_module(module)
    for name in DEFAULT_PIPELINE:
        module = get_pass(name).run(module)
        verify_module(module)
    return module


class InterpLibrary:
    """The exports of an IR module, run by the reference interpreter (attribute access
    like a loaded artifact)."""

    STEP_LIMIT = 10_000_000

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Callable[..., Any]:
        from gradc.compiler.ir.interp import run_function

        module = self.__dict__["_module"]
        if name not in module.functions or not module.functions[name].exported:
            raise AttributeError(name)

        def call(*args: Any) -> Any:
            return run_function(module, name, list(args), step_limit=self.STEP_LIMIT)

        return call


# ------------------------------------------------------------------------- a known-good library


class DualLibrary:
    """The derivative exports of corpus cases computed with dual numbers: what a correct
    compiled library returns (used to test the checks themselves).

    ``error`` perturbs the results (first gradient entry, and the tangent) by that much,
    relative to ``1 + |value|``: a wrong library the checks must reject.
    """

    def __init__(self, cases: Sequence[Case], error: float = 0.0) -> None:
        self._cases = {c.name: c for c in cases}
        self._error = error

    def __getattr__(self, name: str) -> Callable[..., Any]:
        cases = self.__dict__["_cases"]
        error = self.__dict__["_error"]
        prefix, _, fname = name.partition("_")
        if fname not in cases or prefix not in ("d", "t"):
            raise AttributeError(name)
        case = cases[fname]
        n = len(case.params)

        def grad(*args: Any) -> tuple[Any, ...]:
            _, g = dual_gradient(case, args)
            if error and g:
                first = g[0]
                if isinstance(first, np.ndarray):
                    if first.size:
                        first.flat[0] += error * (1.0 + abs(first.flat[0]))
                else:
                    g[0] = first + error * (1.0 + abs(first))
            return tuple(g)

        def jvp(*args: Any) -> tuple[float, float]:
            value, tangent = dual_jvp(case, args[:n], args[n:])
            return value, tangent + error * (1.0 + abs(tangent))

        return grad if prefix == "d" else jvp
