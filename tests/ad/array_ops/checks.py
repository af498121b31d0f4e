"""Inputs, layouts and oracles of the array-operation derivative tests.

An example of a case (:class:`Example`) holds its operands in one memory layout each:
``C``, ``F`` (Fortran order), ``strided`` (every other element of a larger array),
``reversed`` (a view with negative strides) or ``broadcast`` (a read-only view with a
zero stride, NumPy's ``broadcast_to``). Oracles: the plain function run by NumPy (values),
central finite differences of it (JVP along a direction, and each element of the VJP),
and the dot-product test ``<J v, w> == <v, J^T w>`` between the compiled forward and
reverse modes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.ad.array_ops.cases import OpCase

LAYOUTS = ("C", "F", "strided", "reversed", "broadcast")

#: Central-difference step along a direction of max-norm 1.
FD_STEP = 1e-6
#: |ad - fd| <= FD_RTOL |fd| + FD_ATOL max(1, |f|) (rounding eps |f| / h ~ 2e-10 |f|).
FD_RTOL = 1e-5
FD_ATOL = 1e-7
#: Dot-product test: |<Jv, w> - <v, J^T w>| <= DOT_RTOL * (sum of |terms| of both sides).
DOT_RTOL = 1e-10
#: Values: libm within an ulp, reductions in another summation order.
VALUE_RTOL = 1e-12
#: Operands with a kink quantity closer to 0 than this are redrawn.
KINK_MARGIN = 1e-3


@dataclass
class Example:
    """Operands of one call (arrays in their layouts), a tangent per float operand and a
    cotangent of the result."""

    args: list[Any]
    tangents: list[Any]
    layouts: list[str]


def float_indices(case: OpCase) -> list[int]:
    return [k for k, (_, _, is_float) in enumerate(case.params) if is_float]


def _shape(case: OpCase, name: str, ndim: int, dims: dict[str, int]) -> tuple[int, ...]:
    return tuple(dims[d] if isinstance(d, str) else d for d in case.shape_of(name, ndim))


def in_layout(a: np.ndarray, layout: str) -> np.ndarray:
    """``a``'s values in ``layout`` (a new array or view; ``broadcast`` keeps ``a`` unless
    all its rows are equal, see :func:`draw_example`)."""
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        base = np.zeros(tuple(2 * d for d in a.shape))
        view = base[tuple(slice(None, None, 2) for _ in a.shape)]
        view[...] = a
        return view
    if layout == "reversed":
        rev = tuple(slice(None, None, -1) for _ in a.shape)
        return a[rev].copy()[rev]
    if layout == "broadcast" and a.ndim and a.shape[0] > 0:
        return np.broadcast_to(a[:1], a.shape)
    return np.ascontiguousarray(a)


def draw_example(case: OpCase, rng: np.random.Generator, dims: dict[str, int],
                 layouts: Sequence[str]) -> Example | None:  # fmt: skip
    """Operands of ``case`` with dims ``dims`` in ``layouts`` (one per parameter; only
    arrays use theirs), or None when no draw keeps away from the case's kinks."""
    layouts = [case.layout_of(k, lay) for k, lay in enumerate(layouts)]
    for _ in range(50):
        args, tangents = [], []
        for (name, nd, is_float), layout in zip(case.params, layouts, strict=True):
            lo, hi = case.domain.get(name, (-2.0, 2.0))
            if nd == 0:
                args.append(float(rng.uniform(lo, hi)))
                tangents.append(float(rng.uniform(-1.0, 1.0)))
                continue
            shape = _shape(case, name, nd, dims)
            if not is_float:  # an index array into the first operand's first axis
                n = _shape(case, *case.params[0][:2], dims)[0]
                args.append(rng.integers(-n, n, size=shape))
                continue
            a = rng.uniform(lo, hi, size=shape)
            t = rng.uniform(-1.0, 1.0, size=shape)
            if layout == "broadcast" and a.ndim and a.shape[0] > 0:
                a[...], t[...] = a[:1], t[:1]  # equal rows: the view has the same values
            args.append(in_layout(a, layout))
            tangents.append(in_layout(t, layout))
        if case.kink is None or _away_from_kinks(case, args):
            return Example(args, tangents, list(layouts))
    return None


def _away_from_kinks(case: OpCase, args: list[Any]) -> bool:
    assert case.kink is not None
    floats = [args[k] for k in float_indices(case)]
    with np.errstate(all="ignore"):
        return all(np.all(np.abs(np.asarray(q)) > KINK_MARGIN) for q in case.kink(*floats))


def along(args: list[Any], idx: list[int], tangents: list[Any], h: float) -> list[Any]:
    """``args`` with float operand ``idx[k]`` moved by ``h * tangents[k]`` (new arrays)."""
    out = list(args)
    for k, t in zip(idx, tangents, strict=True):
        out[k] = args[k] + h * np.asarray(t) if isinstance(t, np.ndarray) else args[k] + h * t
    return out


def fresh(ex: Example) -> list[Any]:
    """Copies of the operands of ``ex`` in their layouts (an operation may write its
    operands: each call gets its own)."""
    out = []
    for a, layout in zip(ex.args, ex.layouts, strict=True):
        if isinstance(a, np.ndarray):
            a = in_layout(np.array(a), layout) if a.dtype == np.float64 else a.copy()
        out.append(a)
    return out


def call(fn: Callable[..., Any], args: Sequence[Any]) -> np.ndarray:
    """``fn`` on copies of ``args``, its result as a float64 array."""
    copies = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        return np.array(fn(*copies), dtype=np.float64)


def fd_jvp(fn: Callable[..., Any], args: list[Any], idx: list[int], tangents: list[Any]) -> Any:
    plus = call(fn, along(args, idx, tangents, FD_STEP))
    minus = call(fn, along(args, idx, tangents, -FD_STEP))
    return (plus - minus) / (2.0 * FD_STEP)


def fd_vjp(fn: Callable[..., Any], args: list[Any], idx: list[int], w: Any) -> list[Any]:
    """Central differences of ``<fn(args), w>`` with respect to each element of each float
    operand ``idx[k]`` (its gradient, as the VJP with cotangent ``w`` returns it)."""
    grads: list[Any] = []
    for k in idx:
        base = np.array(args[k], dtype=np.float64)  # a C-contiguous copy
        g = np.zeros_like(base)
        for pos in np.ndindex(base.shape):
            unit = np.zeros_like(base)
            unit[pos] = 1.0
            h = FD_STEP * max(1.0, abs(float(base[pos])))
            plus = call(fn, along(args, [k], [unit], h))
            minus = call(fn, along(args, [k], [unit], -h))
            g[pos] = np.sum((plus - minus) * w) / (2.0 * h)
        grads.append(float(g) if base.ndim == 0 else g)
    return grads


def fd_close(ad: Any, fd: Any, scale: float) -> bool:
    ad, fd = np.asarray(ad, dtype=np.float64), np.asarray(fd, dtype=np.float64)
    return ad.shape == fd.shape and bool(
        np.all(np.abs(ad - fd) <= FD_RTOL * np.abs(fd) + FD_ATOL * max(1.0, scale))
    )


def inner(a: Sequence[Any], b: Sequence[Any]) -> tuple[float, float]:
    """``sum_k <a_k, b_k>`` and the sum of the absolute values of its terms."""
    total, size = 0.0, 0.0
    for u, v in zip(a, b, strict=True):
        p = np.asarray(u, dtype=np.float64) * np.asarray(v, dtype=np.float64)
        total += float(np.sum(p))
        size += float(np.sum(np.abs(p)))
    return total, size
