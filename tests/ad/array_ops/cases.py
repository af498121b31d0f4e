"""The derivative cases of every differentiable array operation (tests/ad/test_ad_array_ops.py).

Each :class:`OpCase` is one export applying one operation, keyed by the front end's table
entry it exercises (:func:`table_keys`): ``ufunc:<name>`` (compiler/ir/ufuncs.py UFUNCS, the
names a user reaches), ``reduction:<name>`` (ARRAY_REDUCTIONS), ``builtin:<name>``
(BUILTIN_REDUCTIONS), ``function:<name>``/``method:<name>`` (ARRAY_FUNCTIONS/ARRAY_METHODS),
``construct:<name>`` (CONSTRUCT_FUNCTIONS), ``linalg:<name>`` (LINALG_FUNCTIONS),
``view:<name>`` (VIEW_METHODS), ``reorder:<name>`` (REORDER_FUNCTIONS), ``solve:<name>``
(``np.linalg.<name>`` of SOLVE_FUNCTIONS), ``einsum:<subscripts>`` (EINSUM_FORMS),
``batched:matmul`` (``@``/``np.matmul`` of 3-D operands), ``indexing:<form>``
(scripts/gen_supported.py INDEXING) and ``statement:<construct>`` (its STATEMENTS). A key may have several cases (axis/keepdims
variants, layouts of operands).

Operands: ``x, y, z`` are f64 arrays, ``s, t`` f64 scalars; array shapes are tuples of the
dims ``m, n`` (drawn, 0..3 or 1..3, see ``min_dim``) and integers. ``domain`` bounds every
float element; ``kink`` maps the operands to quantities kept away from 0 (ties of
min/max, integer points of floor, ...) so central differences see a smooth function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Kink = Callable[..., list[Any]]


@dataclass(frozen=True)
class OpCase:
    """One export ``def <name>(<sig>) -> <ret>`` whose body is ``body`` (an expression,
    returned, or statements ending in a ``return``)."""

    key: str
    sig: str
    body: str
    ret: str
    shapes: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    domain: dict[str, tuple[float, float]] = field(default_factory=dict)
    kink: Kink | None = None
    min_dim: int = 0
    #: no operand in the ``broadcast`` layout (its equal rows would sit on a kink)
    no_broadcast: bool = False

    @property
    def annotations(self) -> list[tuple[str, str]]:
        """(name, annotation) per parameter."""
        parts = re.split(r",\s*(?![^\[]*\])", self.sig)
        return [tuple(p.strip() for p in part.split(":", 1)) for part in parts]  # type: ignore[misc]

    @property
    def params(self) -> list[tuple[str, int, bool]]:
        """(name, ndim, is_float) per parameter (ndim 0 for a scalar)."""
        return [(name, ann.count(",") + 1 if "[" in ann else 0, ann.startswith("f64"))
                for name, ann in self.annotations]  # fmt: skip

    def layout_of(self, k: int, drawn: str) -> str:
        """The layout of parameter ``k``: ``drawn``, or the one its annotation fixes."""
        ann = self.annotations[k][1]
        if ann.endswith("::1]"):
            return "C"
        if "[::1" in ann:
            return "F"
        return "C" if drawn == "broadcast" and self.no_broadcast else drawn

    def shape_of(self, name: str, ndim: int) -> tuple[Any, ...]:
        return self.shapes.get(name) or {0: (), 1: ("n",), 2: ("m", "n")}[ndim]

    def source(self, fname: str) -> str:
        lines = [f"def {fname}({self.sig}) -> {self.ret}:"]
        if "\n" in self.body or self.body.startswith(("return", "z =")):
            lines += ["    " + ln for ln in self.body.strip().splitlines()]
        else:
            lines.append(f"    return {self.body}")
        return "\n".join(lines)


X2 = "x: f64[:, :]"
XY = "x: f64[:, :], y: f64[:, :]"
XV = "x: f64[:, :], y: f64[:]"
M = "f64[:, :]"
V = "f64[:]"
POS = {"x": (0.3, 2.0), "y": (0.3, 2.0)}
UNIT = {"x": (-0.9, 0.9)}


def _frac(a: Any) -> list[Any]:
    """Distances to the nearest integer and half-integer (kinks of floor/round/...)."""
    a = np.asarray(a)
    return [a * 2.0 - np.round(a * 2.0)]


def _unary(name: str, domain: dict[str, tuple[float, float]] | None = None,
           kink: Kink | None = None, body: str | None = None) -> OpCase:  # fmt: skip
    return OpCase(f"ufunc:{name}", X2, body or f"np.{name}(x)", M, domain=domain or {},
                  kink=kink)  # fmt: skip


def _binary(name: str, body: str, domain: dict[str, tuple[float, float]] | None = None,
            kink: Kink | None = None) -> list[OpCase]:  # fmt: skip
    """Two cases: equal 2-D shapes, and a 2-D operand broadcast against a 1-D row."""
    return [
        OpCase(f"ufunc:{name}", XY, body, M, domain=domain or {}, kink=kink),
        OpCase(f"ufunc:{name}", XV, body, M, domain=domain or {}, kink=kink),
    ]


UNARY = [
    _unary("negative", body="-x"),
    _unary("absolute", body="abs(x)", kink=lambda x: [x]),
    _unary("absolute", kink=lambda x: [x]),
    _unary("abs", kink=lambda x: [x]),
    _unary("fabs", kink=lambda x: [x]),
    _unary("exp"), _unary("expm1"), _unary("log", POS), _unary("log1p", POS),
    _unary("log2", POS), _unary("log10", POS), _unary("sqrt", POS), _unary("cbrt", POS),
    _unary("sin"), _unary("cos"), _unary("tan", {"x": (-1.2, 1.2)}),
    _unary("arcsin", UNIT), _unary("arccos", UNIT), _unary("arctan"), _unary("arcsinh"),
    _unary("arccosh", {"x": (1.2, 3.0)}), _unary("arctanh", UNIT), _unary("sinh"),
    _unary("cosh"), _unary("tanh"), _unary("deg2rad"), _unary("rad2deg"),
    _unary("floor", kink=_frac), _unary("ceil", kink=_frac), _unary("trunc", kink=_frac),
    _unary("rint", kink=_frac), _unary("round", kink=_frac), _unary("square"),
    _unary("reciprocal", POS), _unary("sign", kink=lambda x: [x]),
]  # fmt: skip

BINARY = [
    *_binary("add", "x + y"), *_binary("subtract", "x - y"), *_binary("multiply", "x * y"),
    *_binary("true_divide", "x / y", {"y": (0.5, 2.0)}),
    *_binary("floor_divide", "x // y", {"y": (0.5, 2.0)}, lambda x, y: _frac(x / y)),
    *_binary("remainder", "x % y", {"y": (0.5, 2.0)}, lambda x, y: _frac(x / y)),
    *_binary("power", "x ** y", {"x": (0.3, 2.0)}),
    *_binary("power", "np.power(x, y)", {"x": (0.3, 2.0)}),
    *_binary("arctan2", "np.arctan2(x, y)", {"y": (0.3, 2.0)}),
    *_binary("hypot", "np.hypot(x, y)", {"x": (0.3, 2.0)}),
    *_binary("copysign", "np.copysign(x, y)", kink=lambda x, y: [x, y]),
    *_binary("minimum", "np.minimum(x, y)", kink=lambda x, y: [x - y]),
    *_binary("maximum", "np.maximum(x, y)", kink=lambda x, y: [x - y]),
    *_binary("fmin", "np.fmin(x, y)", kink=lambda x, y: [x - y]),
    *_binary("fmax", "np.fmax(x, y)", kink=lambda x, y: [x - y]),
    OpCase("ufunc:add", "x: f64[:, :], s: f64", "x + s", M),
    OpCase("ufunc:multiply", "x: f64[:, :], s: f64", "s * x", M),
    OpCase("ufunc:true_divide", "x: f64[:, :], s: f64", "s / (x + 3.0)", M),
    OpCase("ufunc:power", "x: f64[:, :]", "x ** 3", M),
    OpCase("ufunc:power", "x: f64[:, :], s: f64", "x ** s", M, domain={"x": (0.3, 2.0)}),
    OpCase("ufunc:subtract", "x: f64[:, :], y: f64[:, :]", "x - y", M, shapes={"y": ("m", 1)}),
    OpCase("ufunc:multiply", "x: f64[:, :], y: f64[:, :]", "x * y", M,
           shapes={"x": ("m", 1), "y": (1, "n")}),
    OpCase("ufunc:where", XY, "np.where(x > y, x * y, np.sin(y))", M, kink=lambda x, y: [x - y]),
    OpCase("ufunc:where", "x: f64[:, :], y: f64[:], s: f64", "np.where(x > 0.0, y, s)", M,
           kink=lambda x, y, s: [x]),
    OpCase("ufunc:clip", "x: f64[:, :], s: f64, t: f64", "np.clip(x, s - 1.0, t + 1.0)", M,
           domain={"s": (-0.5, 0.5), "t": (-0.5, 0.5)},
           kink=lambda x, s, t: [x - s + 1.0, x - t - 1.0]),
    OpCase("ufunc:clip", XV, "np.clip(x, y - 1.0, y + 1.0)", M,
           kink=lambda x, y: [x - y + 1.0, x - y - 1.0]),
]  # fmt: skip


def _red(name: str, call: str, ret: str, min_dim: int = 0, **kw: Any) -> OpCase:
    return OpCase(f"reduction:{name}", X2, call, ret, min_dim=min_dim, **kw)


_TIES = {
    "kink": lambda x: [x.ravel()[:, None] - x.ravel()[None, :] + np.eye(x.size)],
    "no_broadcast": True,
}

REDUCTIONS = [
    _red("sum", "np.sum(x)", "f64"), _red("sum", "x.sum(axis=0)", V),
    _red("sum", "np.sum(x, axis=1, keepdims=True)", M),
    _red("sum", "np.sum(x, axis=(0, 1))", "f64"),
    _red("prod", "np.prod(x)", "f64"), _red("prod", "x.prod(axis=1)", V),
    _red("prod", "np.prod(x, axis=0, keepdims=True)", M),
    _red("mean", "np.mean(x)", "f64", 1), _red("mean", "x.mean(axis=0)", V, 1),
    _red("mean", "np.mean(x, axis=-1, keepdims=True)", M, 1),
    _red("var", "np.var(x)", "f64", 1), _red("var", "x.var(axis=1, ddof=1)", V, 2),
    _red("std", "np.std(x)", "f64", 1, kink=lambda x: [np.std(x)], no_broadcast=True),
    _red("std", "x.std(axis=0, keepdims=True)", M, 2, kink=lambda x: [np.std(x, axis=0)], no_broadcast=True),
    _red("min", "np.min(x)", "f64", 1, **_TIES), _red("min", "x.min(axis=0)", V, 1, **_TIES),
    _red("max", "np.max(x)", "f64", 1, **_TIES),
    _red("max", "x.max(axis=1, keepdims=True)", M, 1, **_TIES),
    _red("amin", "np.amin(x, axis=1)", V, 1, **_TIES),
    _red("amax", "np.amax(x)", "f64", 1, **_TIES),
    _red("cumsum", "np.cumsum(x)", V), _red("cumsum", "x.cumsum(axis=0)", M),
    _red("cumsum", "np.cumsum(x, axis=1)", M),
    _red("cumprod", "np.cumprod(x)", V), _red("cumprod", "x.cumprod(axis=1)", M),
    OpCase("reduction:linalg.norm", "x: f64[:]", "np.linalg.norm(x)", "f64", min_dim=1,
           kink=lambda x: [np.sum(x * x)]),
    OpCase("reduction:sum", "x: f64[:, :, :]", "np.sum(x, axis=(0, 2), keepdims=True)",
           "f64[:, :, :]", shapes={"x": ("m", 2, "n")}),
    OpCase("reduction:cumsum", "x: f64[:, :, :]", "np.cumsum(x, axis=1)", "f64[:, :, :]",
           shapes={"x": ("m", 2, "n")}),
    _red("mean", "np.mean(x, axis=(0, 1))", "f64", 1),
    _red("std", "np.std(x, ddof=1)", "f64", 2),
    _red("prod", "np.prod(x, axis=(0, 1))", "f64"),
    OpCase("reduction:linalg.norm", "x: f64[:]", "np.linalg.norm(x, 1)", "f64", min_dim=1,
           kink=lambda x: [x]),
    OpCase("reduction:linalg.norm", X2, "np.linalg.norm(x, axis=1)", V, min_dim=1),
    OpCase("builtin:sum", "x: f64[:]", "sum(x)", "f64"),
    OpCase("builtin:min", "x: f64[:]", "min(x)", "f64", min_dim=1, **_TIES),
    OpCase("builtin:max", "x: f64[:]", "max(x)", "f64", min_dim=1, **_TIES),
]  # fmt: skip

SHAPE_OPS = [
    OpCase("function:diff", X2, "np.diff(x)", M),
    OpCase("function:diff", X2, "np.diff(x, axis=0)", M),
    OpCase("method:clip", "x: f64[:, :], s: f64", "x.clip(s - 1.0, 1.0)", M,
           domain={"s": (-0.5, 0.5)}, kink=lambda x, s: [x - s + 1.0, x - 1.0]),
    OpCase("construct:concatenate", XY, "np.concatenate((x, 2.0 * y))", M),
    OpCase("construct:concatenate", XY, "np.concatenate((x, y), axis=1)", M),
    OpCase("construct:stack", XY, "np.stack((x, y * y))", "f64[:, :, :]"),
    OpCase("construct:stack", "x: f64[:], y: f64[:]", "np.stack((x, y), axis=1)", M),
    OpCase("construct:stack", XY, "np.stack((x, y), axis=-1)", "f64[:, :, :]"),
    OpCase("construct:vstack", "x: f64[:], y: f64[:]", "np.vstack((x, y, x * y))", M),
    OpCase("construct:hstack", XY, "np.hstack((x, np.sin(y)))", M),
    OpCase("construct:array", "s: f64, t: f64", "np.array([[s, t * s], [1.0, np.sin(t)]])", M),
    OpCase("allocator:full", "x: f64[:], s: f64", "np.full(x.shape[0], s) * x", V),
    OpCase("allocator:full_like", X2, "np.full_like(x, x[0, 0] * 2.0) + x", M, min_dim=1),
    OpCase("construct:arange", "s: f64, t: f64", "np.arange(s, s + 3.25, 0.5) * t", V),
    OpCase("construct:linspace", "s: f64, t: f64", "np.linspace(s, t, 5)", V),
    OpCase("linalg:matmul", XY, "x @ y", M, shapes={"y": ("n", "m")}),
    OpCase("linalg:matmul", XV, "x @ y", V),
    OpCase("linalg:matmul", "x: f64[:], y: f64[:, :]", "np.matmul(x, y)", V,
           shapes={"y": ("n", "m")}),
    OpCase("linalg:dot", "x: f64[:], y: f64[:]", "np.dot(x, y)", "f64"),
    OpCase("linalg:dot", XV, "np.dot(x, y)", V),
    OpCase("linalg:dot", XY, "np.dot(x.T, y)", M),
    OpCase("linalg:inner", "x: f64[:], y: f64[:]", "np.inner(x, y)", "f64"),
    OpCase("linalg:inner", XY, "np.inner(x, y)", M),
    OpCase("linalg:matmul", XY, "x.T @ y", M),
    OpCase("linalg:vdot", "x: f64[:], y: f64[:]", "np.vdot(x, y)", "f64"),
    OpCase("linalg:outer", "x: f64[:], y: f64[:]", "np.outer(x, y)", M,
           shapes={"y": ("m",)}),
    OpCase("linalg:trace", X2, "np.trace(x)", "f64"),
    OpCase("view:transpose", X2, "x.transpose() * 2.0", M),
    OpCase("view:transpose", "x: f64[:, :, :]", "np.sin(x.transpose(2, 0, 1))", "f64[:, :, :]",
           shapes={"x": ("m", 2, "n")}),
    OpCase("view:reshape", "x: f64[:, ::1]", "x.reshape(x.size) * x[0, 0]", V, min_dim=1),
    OpCase("view:reshape", X2, "np.exp(x.copy().reshape(x.shape[1], x.shape[0]))", M),
    OpCase("view:ravel", "x: f64[:, ::1]", "x.ravel() * 3.0", V),
    OpCase("view:flatten", X2, "np.cos(x.flatten())", V),
]  # fmt: skip

_IDX = "`a[i]`, `a[i, j]`, negative indices"
_ROW = "`a[i]` of a 2-D array, `a[i][j]`"
_SLICE = "`a[lo:hi:step]` on any axis, negative steps, `...`, `None`/`np.newaxis`"
_FANCY = "`a[idx]` with an integer array, `a[mask]` with a bool array"
_GATHER = (
    "`a[rows, cols]`, `a[rows, j]`, `a[i, cols]` (an integer index per axis, arrays among them)"
)

INDEXING = [
    OpCase(f"indexing:{_IDX}", X2, "x[0, -1] * x[-1, 0]", "f64", min_dim=1),
    OpCase(f"indexing:{_IDX}", "x: f64[:]", "x[-1] * x[0]", "f64", min_dim=1),
    OpCase(f"indexing:{_ROW}", X2, "x[1] * x[0][1]", V, min_dim=2),
    OpCase(f"indexing:{_ROW}", X2, "np.sin(x[-1])", V, min_dim=1),
    OpCase(f"indexing:{_SLICE}", X2, "x[1:] * x[:-1]", M),
    OpCase(f"indexing:{_SLICE}", X2, "x[::-1, ::2] * 2.0", M),
    OpCase(f"indexing:{_SLICE}", X2, "x[..., 1:] - x[:, None, 0]", M, min_dim=1),
    OpCase(f"indexing:{_SLICE}", "x: f64[:]", "x[:, np.newaxis] * x[None, ::-1]", M),
    OpCase(f"indexing:{_FANCY}", "x: f64[:], i: i64[:]", "x[i] * 2.0", V, min_dim=1),
    OpCase(f"indexing:{_GATHER}", "x: f64[:, :], i: i64[:]", "x[i, i[::-1]] * x[i, -1]", V,
           shapes={"x": ("n", "n")}, min_dim=1),
    OpCase(f"indexing:{_FANCY}", "x: f64[:]", "x[x > 0.0] * 3.0", V, kink=lambda x: [x]),
    OpCase("indexing:`a.flat[i]`", X2, "x.flat[1] * x.flat[0]", "f64", min_dim=2),
    OpCase("indexing:`a.T`", XY, "x.T * y.T", M),
    OpCase("indexing:`a.copy()`, `a.astype(dtype)`", X2, "x.copy() * x.astype(np.float64)", M),
    OpCase("indexing:`a.reshape(...)`, `a.ravel()`", "x: f64[:, ::1]", "np.sin(x.reshape(-1))",
           V),
]  # fmt: skip

_SLICE_ASSIGN = "`a[i] = v`, `a[i, j] = v`, `a[1:] = b`, `a[...] = 0.0`"
_AUG = "`x += e` (every arithmetic and bitwise operator)"

STATEMENTS = [
    OpCase(f"statement:{_SLICE_ASSIGN}", XV, "z = x * 1.0\nz[1:, ::-1] = y\nreturn z", M),
    OpCase(f"statement:{_SLICE_ASSIGN}", XY, "z = x * y\nz[0] = y[-1]\nz[:, 0] = 2.0\nreturn z",
           M, min_dim=1),
    OpCase(f"statement:{_SLICE_ASSIGN}", "x: f64[:, :], s: f64",
           "z = np.zeros_like(x)\nz[...] = s * s\nz[0, -1] = x[-1, 0] * s\nreturn z", M,
           min_dim=1),
    OpCase(f"statement:{_AUG}", XV, "z = x * 1.0\nz += y\nz *= x\nz /= 2.0 + y * y\n"
           "z -= np.sin(x)\nreturn z", M),
    OpCase(f"statement:{_AUG}", XV, "z = x + 0.0\nz[1:] -= z[:-1] * y\nz[:, ::-1] *= y\n"
           "return z", M),
]  # fmt: skip

#: Cases where rules meet special values or aliasing: products over exact zeros (a rule
#: dividing by the operand fails there), a branch ``np.where`` discards whose derivative is
#: NaN, an operand used twice in one product, overlapping slice copies, writes into an
#: operand.
EDGES = [
    OpCase("reduction:prod", X2, "np.prod(np.maximum(x, 0.0), axis=1)", V,
           kink=lambda x: [x], no_broadcast=True),
    OpCase("reduction:cumprod", "x: f64[:]", "np.cumprod(np.maximum(x, 0.0))", V,
           kink=lambda x: [x]),
    OpCase("ufunc:where", X2, "np.where(x > 0.0, np.sqrt(x), 0.0)", M, kink=lambda x: [x]),
    OpCase("ufunc:where", X2, "np.where(x > 0.0, np.log(x), x)", M, kink=lambda x: [x]),
    OpCase("linalg:matmul", "x: f64[:, :]", "x @ x.T", M),
    OpCase("linalg:dot", "x: f64[:]", "np.dot(x, x)", "f64"),
    OpCase(f"statement:{_SLICE_ASSIGN}", X2, "z = x * 1.0\nz[1:] = z[:-1]\nreturn z", M),
    OpCase(f"statement:{_SLICE_ASSIGN}", "x: f64[:]", "z = x * 1.0\nz[:-1] = z[1:] * z[:-1]\n"
           "return z", V),
    OpCase(f"statement:{_SLICE_ASSIGN}", X2, "z = x * 2.0\nz[::-1] = z\nreturn z", M),
    OpCase(f"statement:{_AUG}", X2, "z = x * 1.0\nz[:, ::-1] += z\nreturn z", M),
    OpCase(f"statement:{_AUG}", X2, "z = x * 1.0\nz += z.T\nreturn z", M, shapes={"x": ("m", "m")}),
    OpCase(f"statement:{_AUG}", X2, "x += x.T\nreturn x * 1.0", M, shapes={"x": ("m", "m")},
           no_broadcast=True),
    OpCase(f"indexing:{_SLICE}", X2, "z = x * 2.0\nreturn z[::-1]", M),
    OpCase("indexing:`a.T`", X2, "z = np.sin(x)\nreturn z.T", M),
    OpCase("reduction:cumsum", "x: f64[:]", "np.cumsum(x[::-1])[::-1]", V),
    OpCase(f"statement:{_AUG}", X2, "acc = np.zeros(x.shape[1])\nfor i in range(x.shape[0]):\n"
           "    acc += x[i] * x[i]\nreturn acc", V),
    OpCase(f"statement:{_AUG}", X2, "acc = np.zeros(x.shape[1])\nfor row in x:\n"
           "    acc = acc * 0.5 + np.sin(row)\nreturn acc", V),
    OpCase(f"statement:{_AUG}", XV, "z = x * 1.0\nfor i in range(x.shape[0]):\n    z[i] *= y\n"
           "    z[i, ::-1] += z[i]\nreturn z", M),
    OpCase(f"statement:{_AUG}", X2, "x *= 2.0\ny = x[:, ::-1]\ny += x\nreturn x * 1.0", M,
           no_broadcast=True),
    OpCase(f"statement:{_AUG}", XV, "x[1:] *= y\nx[0] += np.sum(x)\nreturn x * x", M,
           min_dim=1, no_broadcast=True),
]  # fmt: skip

_SORT_METHOD = "`a.sort(axis=-1, kind=None)`"

#: np.diag/tril/triu/roll/sort/median (REORDER_FUNCTIONS): loads in a permuted order, so
#: the derivative follows the permutation (sorted elements kept apart: ``_TIES``).
REORDER = [
    OpCase("reorder:diag", "x: f64[:]", "np.diag(x)", M),
    OpCase("reorder:diag", "x: f64[:]", "np.diag(x, 1) * 2.0", M),
    OpCase("reorder:diag", X2, "np.diag(x)", V),
    OpCase("reorder:diag", X2, "np.sin(np.diag(x, -1))", V),
    OpCase("reorder:tril", X2, "np.tril(x)", M),
    OpCase("reorder:tril", X2, "np.tril(x * x, -1)", M),
    OpCase("reorder:tril", "x: f64[:, :, :]", "np.tril(x, 1)", "f64[:, :, :]",
           shapes={"x": (2, "m", "n")}),
    OpCase("reorder:triu", X2, "np.triu(x, 1)", M),
    OpCase("reorder:triu", X2, "np.triu(x.T) * 3.0", M),
    OpCase("reorder:roll", X2, "np.roll(x, 2)", M),
    OpCase("reorder:roll", X2, "np.roll(x, -1, axis=1) * x", M),
    OpCase("reorder:roll", X2, "np.roll(x, 4, axis=0)", M),
    OpCase("reorder:roll", "x: f64[:]", "np.roll(x * x, -3)", V),
    OpCase("reorder:sort", X2, "np.sort(x)", M, **_TIES),
    OpCase("reorder:sort", X2, "np.sort(x * 2.0, axis=None)", V, **_TIES),
    OpCase("reorder:sort", "x: f64[:]", "np.sort(x[::-1]) * x", V, **_TIES),
    OpCase("reorder:median", X2, "np.median(x)", "f64", min_dim=1, **_TIES),
    OpCase("reorder:sort", X2, "np.sort(x, axis=0)", M, **_TIES),
    OpCase("reorder:sort", "x: f64[:, :, :]", "np.sort(x, axis=-2) * x", "f64[:, :, :]",
           shapes={"x": (2, "m", "n")}, **_TIES),
    OpCase("reorder:median", X2, "np.median(x, axis=0)", V, min_dim=1, **_TIES),
    OpCase(f"statement:{_SORT_METHOD}", X2, "z = x * 2.0\nz[:, ::-1].sort(axis=0)\nreturn z", M,
           **_TIES),
    OpCase(f"statement:{_SORT_METHOD}", X2, "x.sort()\nreturn x * x", M, **_TIES),
    OpCase("reduction:sum", "x: f64[:, :], s: f64", "np.sum(x, axis=0, initial=s)", V),
    OpCase("reduction:prod", "x: f64[:, :], s: f64", "x.prod(axis=1, keepdims=True, initial=s)",
           M),
    OpCase("reorder:median", X2, "np.median(x * x, axis=1)", V, min_dim=1, **_TIES),
    OpCase("reorder:median", X2, "np.median(x, axis=-1) * 2.0", V, min_dim=1, **_TIES),
    OpCase("reorder:median", "x: f64[:]", "np.median(x)", "f64", min_dim=1, **_TIES),
    OpCase("reduction:max", "x: f64[:, :], s: f64", "np.max(x, initial=s)", "f64",
           kink=lambda x, s: [*_TIES["kink"](x), x - s], no_broadcast=True),
    OpCase("reduction:min", "x: f64[:, :], s: f64", "x.min(axis=1, initial=s)", V,
           kink=lambda x, s: [*_TIES["kink"](x), x - s], no_broadcast=True),
]  # fmt: skip

_SQ = {"x": ("m", "m")}
#: x * 0.5 + 4 I is diagonally dominant; + 4 I[::-1] makes the partial pivoting swap rows.
_DOM = "x * 0.5 + 4.0 * np.eye(x.shape[0])"
_SWAP = "x * 0.5 + 4.0 * np.eye(x.shape[0])[::-1]"
_DOM3 = "x * 0.5 + 4.0 * np.eye(x.shape[1])"
_SWAP3 = "x * 0.5 + 4.0 * np.eye(x.shape[1])[::-1]"

SOLVE = [
    OpCase("solve:inv", X2, f"np.linalg.inv({_DOM})", M, shapes=_SQ),
    OpCase("solve:inv", X2, f"np.linalg.inv({_SWAP})", M, shapes=_SQ),
    OpCase("solve:solve", XV, f"np.linalg.solve({_DOM}, y)", V, shapes={**_SQ, "y": ("m",)}),
    OpCase("solve:solve", XY, f"np.linalg.solve({_SWAP}, y)", M,
           shapes={**_SQ, "y": ("m", "n")}),
    OpCase("solve:det", X2, "np.linalg.det(x)", "f64", shapes=_SQ),
    OpCase("solve:det", X2, f"np.linalg.det({_SWAP})", "f64", shapes=_SQ),
    # the lower triangle of a diagonally dominant matrix: positive definite; the upper
    # triangle is not read (its derivative 0)
    OpCase("solve:cholesky", X2, f"np.linalg.cholesky({_DOM})", M, shapes=_SQ),
    OpCase("solve:cholesky", "x: f64[:, :, :]", f"np.linalg.cholesky({_DOM3})", "f64[:, :, :]",
           shapes={"x": (2, "m", "m")}),
    # stacks (..., m, m): b's batch axis of 1 broadcast, so its adjoint is a sum
    OpCase("solve:inv", "x: f64[:, :, :]", f"np.linalg.inv({_DOM3})", "f64[:, :, :]",
           shapes={"x": (2, "m", "m")}),
    OpCase("solve:det", "x: f64[:, :, :]", f"np.linalg.det({_SWAP3})", V,
           shapes={"x": (2, "m", "m")}),
    OpCase("solve:solve", "x: f64[:, :, :], y: f64[:, :, :]", f"np.linalg.solve({_SWAP3}, y)",
           "f64[:, :, :]", shapes={"x": (2, "m", "m"), "y": (1, "m", "n")}),
    OpCase("solve:solve", "x: f64[:, :, :], y: f64[:]", f"np.linalg.solve({_DOM3}, y)", M,
           shapes={"x": (2, "m", "m"), "y": ("m",)}),
]  # fmt: skip

_B3 = "f64[:, :, :]"
EINSUM = [
    OpCase("einsum:ij,j->i", XV, "np.einsum('ij,j->i', x, y)", V),
    OpCase("einsum:ij,jk->ik", XY, "np.einsum('ij,jk->ik', x, y)", M, shapes={"y": ("n", "m")}),
    OpCase("einsum:i,i->", "x: f64[:], y: f64[:]", "np.einsum('i,i->', x, y)", "f64"),
    OpCase("einsum:ij->ji", X2, "np.einsum('ij->ji', x) * 2.0", M),
    OpCase("einsum:ii->", X2, "np.einsum('ii->', x)", "f64", shapes=_SQ),
    OpCase("einsum:ij,ij->", XY, "np.einsum('ij,ij->', x, y)", "f64"),
    OpCase("einsum:i,j->ij", "x: f64[:], y: f64[:]", "np.einsum('i,j->ij', x, y)", M,
           shapes={"x": ("m",)}),
    OpCase("einsum:bij,bjk->bik", f"x: {_B3}, y: {_B3}", "np.einsum('bij,bjk->bik', x, y)", _B3,
           shapes={"x": (2, "m", "n"), "y": (2, "n", "m")}),
    OpCase("einsum:ij,ij->i", XY, "np.einsum('ij,ij->i', x, y)", V),
    OpCase("einsum:ij,ij->j", XY, "np.einsum('ij,ij->j', x, y)", V),
    OpCase("einsum:ij->i", X2, "np.einsum('ij->i', x)", V),
    OpCase("einsum:ij->j", X2, "np.einsum('ij->j', x)", V),
    OpCase("einsum:ij,kj->ik", XY, "np.einsum('ij,kj->ik', x, y)", M),
    OpCase("einsum:ij,ik->jk", XY, "np.einsum('ij,ik->jk', x, y)", M),
    OpCase("einsum:i,ij->j", "x: f64[:], y: f64[:, :]", "np.einsum('i,ij->j', x, y)", V,
           shapes={"x": ("m",)}),
    OpCase("einsum:ij,i->j", XV, "np.einsum('ij,i->j', x, y)", V, shapes={"y": ("m",)}),
    OpCase("batched:matmul", f"x: {_B3}, y: {_B3}", "x @ y", _B3,
           shapes={"x": (2, "m", "n"), "y": (2, "n", "m")}),
    OpCase("batched:matmul", f"x: {_B3}, y: {_B3}", "np.matmul(x, y)", _B3,
           shapes={"x": (2, "m", "n"), "y": (1, "n", "m")}),
    OpCase("batched:matmul", f"x: {_B3}, y: f64[:]", "x @ y", M, shapes={"x": (2, "m", "n")}),
    OpCase("batched:matmul", f"x: f64[:], y: {_B3}", "x @ y", M,
           shapes={"x": ("m",), "y": (2, "m", "n")}),
    OpCase("batched:matmul", f"x: f64[:, :], y: {_B3}", "x @ y", _B3,
           shapes={"y": (2, "n", "m")}),
]  # fmt: skip

_MASK = "`a[mask] = v`, `a[mask] += v` (a bool mask of `a`'s shape)"

MASK_WRITES = [
    OpCase(f"indexing:{_MASK}", "x: f64[:, :], s: f64", "z = x * 1.0\nz[x > 0.0] = s\nreturn z",
           M, kink=lambda x, s: [x]),
    OpCase(f"indexing:{_MASK}", XY, "z = x * 1.0\nm = x > 0.5\nz[m] = y[m] * x[m]\nreturn z",
           M, kink=lambda x, y: [x - 0.5]),
    OpCase(f"indexing:{_MASK}", XV, "z = x * 1.0\nz[x > 0.0] = y\nreturn z", M,
           shapes={"y": (1,)}, kink=lambda x, y: [x]),
    OpCase(f"indexing:{_MASK}", XY, "z = x * 1.0\nz[x < 0.0] += y[x < 0.0]\nreturn z", M,
           kink=lambda x, y: [x]),
    OpCase(f"indexing:{_MASK}", "x: f64[:, :], s: f64", "z = x * 1.0\nz[z < 0.0] += s * s\n"
           "return z", M, kink=lambda x, s: [x]),
    OpCase(f"indexing:{_MASK}", X2, "x[x > 0.0] = 1.0\nx[x < 0.0] += np.sin(x[x < 0.0])\n"
           "return x * 1.0", M, kink=lambda x: [x], no_broadcast=True),
]  # fmt: skip


def _sum_ties(x: Any) -> list[Any]:
    """The gap between the largest two column sums and row sums of ``abs(x)`` (the max
    picks one)."""
    sums = [np.sort(np.abs(x).sum(axis=k))[::-1] for k in (0, 1)]
    return [s[:1] - s[1:2] if s.size > 1 and x.size else s[:0] for s in sums]


_IDX_WRITE = "`a[idx] = v`, `a[idx] += v` (an integer array `idx`)"

INDEX_WRITES = [
    OpCase(f"indexing:{_IDX_WRITE}", XV,
           "z = x * 1.0\nz[np.array([2, 0, 0, -1]) % z.shape[0]] = y * y\nreturn z", M, min_dim=1),
    OpCase(f"indexing:{_IDX_WRITE}", "x: f64[:, :], s: f64",
           "z = np.sin(x)\nz[np.array([1, 1, 0]) % z.shape[0]] += s * z[0]\nreturn z", M,
           min_dim=1),
    OpCase("construct:vstack", XV, "np.vstack((x, y, x[0] * y))", M, min_dim=1),
    OpCase("reduction:linalg.norm", X2, "np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf)",
           "f64", kink=lambda x: [x, *_sum_ties(x)], no_broadcast=True),
    # entries main gained without a case (np.flip, np.trapezoid, np.logaddexp)
    OpCase("function:flip", X2, "np.flip(x, 0) * x", M),
    OpCase("function:trapezoid", X2, "np.trapezoid(x * x, dx=0.5, axis=0)", V),
    OpCase("ufunc:logaddexp", XY, "np.logaddexp(x, y * 2.0)", M),
    OpCase("function:transpose", X2, "np.transpose(x) * 2.0", M),
    OpCase("function:transpose", "x: f64[:, :, :]", "np.sin(np.transpose(x, (2, 0, 1)))",
           "f64[:, :, :]", shapes={"x": (2, "m", "n")}),
]  # fmt: skip

CASES: list[OpCase] = [*UNARY, *BINARY, *REDUCTIONS, *SHAPE_OPS, *INDEXING, *STATEMENTS, *EDGES,
                       *REORDER, *SOLVE, *EINSUM, *MASK_WRITES, *INDEX_WRITES]  # fmt: skip

#: Table entries with no derivative to check (integer, boolean or constant results), each
#: with the reason; every other entry of :func:`table_keys` needs a case in CASES.
NOT_DIFFERENTIABLE = {
    "reduction:argmin": "an integer result",
    "reduction:argmax": "an integer result",
    "reduction:any": "a bool result",
    "reduction:all": "a bool result",
    "allocator:zeros": "a constant array",
    "allocator:ones": "a constant array",
    "allocator:empty": "undefined elements",
    "allocator:zeros_like": "a constant array",
    "allocator:ones_like": "a constant array",
    "allocator:empty_like": "undefined elements",
    "construct:eye": "a constant array",
    "construct:identity": "a constant array",
    "reorder:argsort": "an integer result",
    "function:count_nonzero": "an integer result",
    "indexing:`a.shape`, `np.shape(a)`, `a.size`, `a.ndim`, `a.dtype`, `len(a)`": "integers",
}
