"""Overlap checks of derivative exports: array arguments that share memory.

A derivative computes the shadows (or tangents) of two array parameters apart. That is
right as long as no write can reach one through the other: where ``f`` writes into an
array and another array argument lies in the same memory, the derivative computed as if
they were distinct is wrong (``h(a, b)`` writing ``a[0]`` and returning ``b[0] * b[0]``,
called ``h(y, y)``), and so is a gradient accumulated into a shadow that is itself
primal memory. Every derivative export therefore starts, before it runs anything, with
run-time checks of its array arguments built here (:func:`emit_overlap_checks`), which
raise ``ValueError`` naming the two arguments and what to do instead.

**Overlap** is NumPy's ``np.may_share_memory``: the byte extents ``[lowest address,
highest address + itemsize)`` of the two arrays intersect (an array with no elements
overlaps nothing), refined to the exact ``np.shares_memory`` for two 1-d arrays with one
stride (``_Checks._strided_meet``). So ``a[:2]`` and ``a[2:]``, the columns ``m[:, 0]``
and ``m[:, 1]`` of a C matrix, ``a[::2]`` and ``a[1::2]`` are apart; other interleaved
views without a common element (2-d blocks side by side, 1-d views of different strides)
count as overlapping — conservative, never a missed overlap. Each check is a few integer
instructions per pair of arrays, on the descriptors only (``dataaddr``, ``dim`` and the
byte strides).

**The rules**, for array parameters ``a`` and ``b`` of ``f`` (``written``: ``f`` or a
callee may write the parameter; ``active``: the parameter carries a derivative — in
``wrt``, annotated ``Duplicated``, or a ``Const`` array active values are stored into):

1. ``a`` and ``b`` overlap, one of them is written and one of them is active: refused —
   except in ``gradc.reverse`` when both are ``Duplicated`` and their shadows overlap
   *as the arrays do* (below): then the one shared shadow receives the derivative through
   the shared memory, as Enzyme's ``Duplicated`` with a shared shadow does. Without a
   write, overlapping arguments are fine: ``f`` is then a function of their values, and
   each gets its own partial derivative.
2. ``gradc.reverse``: a shadow overlapping any array argument is refused (the reverse
   sweep writes shadows and reads arguments), and two overlapping shadows are refused
   unless their arrays overlap as they do.
3. ``gradc.jvp``/``gradc.forward``: a tangent array overlapping an argument ``f`` writes
   is refused (tangents are read while ``f`` runs).
4. ``gradc.vjp`` of an array result: a cotangent overlapping an argument ``f`` writes is
   refused (it is read after the forward sweep).
5. An array ``f`` writes that is active, or a ``gradc.reverse`` shadow, whose elements
   may share memory with each other (``as_strided`` views; :meth:`_Checks.self_overlap`)
   is refused: one shadow element per element cannot follow them.

Shadows ``d_a``, ``d_b`` *overlap as* ``a``, ``b`` do when the same shadow element
belongs to the same array element: ``d_a`` has the address, shape and strides of
``d_b`` where ``a`` has those of ``b`` (one array passed twice, one shadow passed
twice), or each shadow is its array moved by one common byte distance
(``d_a.strides == a.strides``, ``d_b.strides == b.strides`` and ``addr(d_a) - addr(a) ==
addr(d_b) - addr(b)``: views of ``d = np.zeros_like(y)`` taken as ``a`` and ``b`` are
taken of ``y``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Function, Module, Value
from gradc.compiler.ir.types import I1, I64, ArrayType
from gradc.passes.ad.activity import analyze


def active_arrays(fn: Function, pattern: frozenset[int]) -> set[int]:
    """Indices of ``fn``'s array parameters that carry a derivative when the parameters
    at ``pattern`` are active (the ``wrt`` arrays and the arrays active values may be
    stored into: :func:`gradc.passes.ad.activity.analyze`)."""
    activity = analyze(fn, pattern)
    return {
        p.index
        for p in fn.params
        if isinstance(p.type, ArrayType) and (p.index in pattern or p in activity.active)
    }


def written_arrays(module: Module, fn: Function) -> set[int]:
    """Indices of ``fn``'s array parameters that ``fn`` or a callee may write."""
    from gradc.passes.ad.memory import callee_writes

    return set(callee_writes(module, fn.name)[fn.name])


def _itemsize(t: ArrayType) -> int:
    return max(1, t.dtype.bits // 8)


class _Checks:
    """IR builder of the checks: extents and descriptor facts, computed once per array."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self._extents: dict[Value, tuple[Value, Value]] = {}
        self._addresses: dict[Value, Value] = {}
        self._strides: dict[Value, list[Value]] = {}

    def address(self, a: Value) -> Value:
        if a not in self._addresses:
            self._addresses[a] = self.b.insert(ops.ArrayAddress(a, type=I64))
        return self._addresses[a]

    def strides(self, a: Value) -> list[Value]:
        """Byte strides of ``a`` (``elemoffset`` of the unit index of each axis)."""
        if a not in self._strides:
            t = a.type
            assert isinstance(t, ArrayType)
            b = self.b
            zero, one = b.const(0, I64), b.const(1, I64)
            self._strides[a] = [
                b.insert(
                    ops.ElementOffset(
                        a, tuple(one if j == k else zero for j in range(t.ndim)), type=I64
                    )
                )
                for k in range(t.ndim)
            ]
        return self._strides[a]

    def extent(self, a: Value) -> tuple[Value, Value]:
        """``(lo, hi)``: the bytes ``[lo, hi)`` of ``a``'s elements; ``lo == hi`` when
        ``a`` has no elements."""
        if a not in self._extents:
            t = a.type
            assert isinstance(t, ArrayType)
            b = self.b
            zero = b.const(0, I64)
            lo = hi = self.address(a)
            empty: Value = b.const(False, I1)
            for k, stride in enumerate(self.strides(a)):
                n = b.insert(ops.ArrayDim(a, k, type=I64))
                span = b.mul(b.sub(n, b.const(1, I64)), stride)  # (n - 1) * stride
                negative = b.cmp("lt", span, zero)
                lo = b.add(lo, b.select(negative, span, zero))
                hi = b.add(hi, b.select(negative, zero, span))
                empty = b.select(b.cmp("eq", n, zero), b.const(True, I1), empty)
            hi = b.add(hi, b.const(_itemsize(t), I64))
            self._extents[a] = (lo, b.select(empty, lo, hi))
        return self._extents[a]

    def overlap(self, a: Value, c: Value) -> Value:
        """``i1``: ``a`` and ``c`` may share memory: their extents intersect and, for two
        1-d arrays with one stride, some element of one meets an element of the other."""
        b = self.b
        lo_a, hi_a = self.extent(a)
        lo_c, hi_c = self.extent(c)
        lo = b.select(b.cmp("lt", lo_a, lo_c), lo_c, lo_a)
        hi = b.select(b.cmp("lt", hi_a, hi_c), hi_a, hi_c)
        extents = b.cmp("lt", lo, hi)
        ta, tc = a.type, c.type
        assert isinstance(ta, ArrayType) and isinstance(tc, ArrayType)
        w = _itemsize(ta)
        if ta.ndim != 1 or tc.ndim != 1 or _itemsize(tc) != w:
            return extents
        return self.all_of([extents, self._strided_meet(a, c, w)])

    def _strided_meet(self, a: Value, c: Value, w: int) -> Value:
        """Exact for 1-d ``a``, ``c`` of itemsize ``w`` and one stride ``s`` (|s| >= w):
        ``a[i]`` and ``c[j]`` share bytes iff ``|δ - k·s| < w`` for ``δ = addr(a) -
        addr(c)``, ``k = j - i`` in ``[1 - len(a), len(c) - 1]``; only ``k = δ // s`` and
        ``δ // s + 1`` can. Other strides: true (the extent test decides)."""
        b = self.b
        (s,) = self.strides(a)
        (t,) = self.strides(c)
        zero, one, width = b.const(0, I64), b.const(1, I64), b.const(w, I64)
        magnitude = b.select(b.cmp("lt", s, zero), b.sub(zero, s), s)
        exact = self.all_of([b.cmp("eq", s, t), b.cmp("ge", magnitude, width)])
        step = b.select(exact, s, one)  # never divides by zero
        delta = b.sub(self.address(a), self.address(c))
        k0 = b.binary(ops.FloorDiv, delta, step)
        k_min = b.sub(one, b.insert(ops.ArrayDim(a, 0, type=I64)))
        k_max = b.sub(b.insert(ops.ArrayDim(c, 0, type=I64)), one)
        hits = []
        for k in (k0, b.add(k0, one)):
            r = b.sub(delta, b.mul(k, step))
            near = self.all_of([b.cmp("lt", r, width), b.cmp("gt", r, b.sub(zero, width))])
            hits.append(self.all_of([near, b.cmp("ge", k, k_min), b.cmp("le", k, k_max)]))
        return self.any_of([b.unary(ops.Not, exact), *hits])

    def all_of(self, conds: Sequence[Value]) -> Value:
        b = self.b
        out = conds[0]
        for c in conds[1:]:
            out = b.select(out, c, b.const(False, I1))
        return out

    def any_of(self, conds: Sequence[Value]) -> Value:
        b = self.b
        out = conds[0]
        for c in conds[1:]:
            out = b.select(out, b.const(True, I1), c)
        return out

    def same_view(self, a: Value, c: Value) -> Value:
        """``a`` and ``c`` (of one array type and shape) have one address and strides."""
        b = self.b
        eqs = [b.cmp("eq", self.address(a), self.address(c))]
        eqs += [b.cmp("eq", s, t) for s, t in zip(self.strides(a), self.strides(c))]
        return self.all_of(eqs)

    def corresponding(self, a: Value, da: Value, c: Value, dc: Value) -> Value:
        """Shadows ``da``, ``dc`` overlap as arrays ``a``, ``c`` do (module docstring)."""
        b = self.b
        moved = [b.cmp("eq", s, t) for s, t in zip(self.strides(a), self.strides(da))]
        moved += [b.cmp("eq", s, t) for s, t in zip(self.strides(c), self.strides(dc))]
        moved.append(
            b.cmp(
                "eq",
                b.sub(self.address(da), self.address(a)),
                b.sub(self.address(dc), self.address(c)),
            )
        )
        ta, tc = a.type, c.type
        assert isinstance(ta, ArrayType) and isinstance(tc, ArrayType)
        if ta.dtype != tc.dtype:
            return b.const(False, I1)  # one memory read as two element types: no shadow fits
        if ta.ndim != tc.ndim:
            return self.all_of(moved)
        same_shape = [
            b.cmp(
                "eq",
                b.insert(ops.ArrayDim(a, k, type=I64)),
                b.insert(ops.ArrayDim(c, k, type=I64)),
            )
            for k in range(ta.ndim)
        ]
        twice = self.all_of([*same_shape, self.same_view(a, c), self.same_view(da, dc)])
        return self.any_of([twice, self.all_of(moved)])

    def self_overlap(self, a: Value) -> Value:
        """``i1``: elements of ``a`` may share memory with each other (``as_strided``
        views). False when, axes sorted by ``|stride|`` and those of length <= 1 left
        out, each stride is at least the extent of the axes before it plus the itemsize:
        true of every layout slicing, transposing and reshaping make."""
        t = a.type
        assert isinstance(t, ArrayType)
        b = self.b
        zero, one = b.const(0, I64), b.const(1, I64)
        axes: list[tuple[Value, Value]] = []
        empty: Value = b.const(False, I1)
        for k, s in enumerate(self.strides(a)):
            n = b.insert(ops.ArrayDim(a, k, type=I64))
            empty = self.any_of([empty, b.cmp("eq", n, zero)])
            axes.append((b.select(b.cmp("lt", s, zero), b.sub(zero, s), s), n))
        for x in range(len(axes)):  # a sorting network by |stride|: compare-exchange
            for y in range(len(axes) - 1 - x):
                (s0, n0), (s1, n1) = axes[y], axes[y + 1]
                swap = b.cmp("gt", s0, s1)
                axes[y] = (b.select(swap, s1, s0), b.select(swap, n1, n0))
                axes[y + 1] = (b.select(swap, s0, s1), b.select(swap, n0, n1))
        reach: Value = b.const(_itemsize(t), I64)
        bad: Value = b.const(False, I1)
        for size, length in axes:
            steps = b.cmp("gt", length, one)
            bad = self.any_of([bad, self.all_of([steps, b.cmp("lt", size, reach)])])
            reach = b.add(reach, b.select(steps, b.mul(b.sub(length, one), size), zero))
        return self.all_of([b.unary(ops.Not, empty), bad])

    def refuse_if(self, cond: Value, message: str) -> None:
        with self.b.if_then(cond, label="alias"):
            self.b.raise_("ValueError", message)


def emit_overlap_checks(
    module: Module,
    fn: Function,
    b: Builder,
    params: Sequence[Value],
    *,
    kind: str,
    pattern: frozenset[int],
    shadows: Mapping[int, Value] | None = None,
    tangents: Mapping[int, Value] | None = None,
    cotangent: Value | None = None,
) -> None:
    """Emit, at ``b``'s insertion point in a derivative export of ``fn``, the checks of
    the module docstring: code that raises ``ValueError`` before anything runs when
    array arguments overlap in a way the derivative cannot follow.

    Args:
        params: the export's values of ``fn``'s parameters, in ``fn``'s order.
        kind: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``reverse`` or ``forward``
            (the name used in the messages; ``reverse`` allows shared shadows).
        pattern: the active (``wrt``/annotated) parameter indices.
        shadows: ``gradc.reverse``'s caller-supplied shadows by parameter index.
        tangents: ``gradc.jvp``/``gradc.forward``'s tangents by parameter index (arrays
            and scalars; only arrays are checked).
        cotangent: ``gradc.vjp``'s array cotangent, if the result is an array.
    """
    arrays = [i for i, p in enumerate(fn.params) if isinstance(p.type, ArrayType)]
    if not arrays:
        return
    export = _ExportChecks(
        c=_Checks(b),
        params=params,
        kind=kind,
        what=f"{fn.source_name}()",
        name={i: fn.params[i].name for i in arrays},
        arrays=arrays,
        written=written_arrays(module, fn) & set(arrays),
        active=active_arrays(fn, pattern),
        shadows=shadows or {},
    )
    export.self_overlaps()
    export.argument_pairs()
    if export.shadows:
        export.shadows_apart_from_arguments()
        export.shadow_pairs()
    export.tangents_apart_from_written(tangents or {})
    export.cotangent_apart_from_written(cotangent)


@dataclass(frozen=True)
class _ExportChecks:
    """The checks of one derivative export, one method per rule of the module docstring
    (emitted in :func:`emit_overlap_checks`'s order, which the messages' order follows).

    Attributes:
        c: the check builder.
        params: the export's values of ``fn``'s parameters, in ``fn``'s order.
        kind: the derivative's kind (``grad``, ``reverse``, ...), for the messages.
        what: ``"f()"``, for the messages.
        name: the source names of the array parameters, by index.
        arrays: the indices of the array parameters.
        written: the array parameters ``fn`` or a callee may write.
        active: the array parameters carrying a derivative.
        shadows: ``gradc.reverse``'s shadows by parameter index.
    """

    c: _Checks
    params: Sequence[Value]
    kind: str
    what: str
    name: Mapping[int, str | None]
    arrays: list[int]
    written: set[int]
    active: set[int]
    shadows: Mapping[int, Value]

    def self_overlaps(self) -> None:
        """Rule 5: a written active array, or a shadow, whose elements share memory."""
        c, name = self.c, self.name
        for i in self.arrays:
            if i in self.written and i in self.active:
                c.refuse_if(
                    c.self_overlap(self.params[i]),
                    f"elements of '{name[i]}' share memory with each other (a view made by "
                    f"as_strided?) and {self.what} writes to it: gradc.{self.kind} cannot "
                    "tell them apart; pass a copy (np.array(...))",
                )
        for i, s in self.shadows.items():
            c.refuse_if(
                c.self_overlap(s),
                f"elements of shadow 'd_{name[i]}' share memory with each other: a shadow "
                "needs one element per element of its array (np.zeros_like(...))",
            )

    def argument_pairs(self) -> None:
        """Rule 1: two overlapping arrays, one written and one active (in
        ``gradc.reverse``, unless both have shadows that overlap as they do)."""
        for x, i in enumerate(self.arrays):
            for j in self.arrays[x + 1 :]:
                if {i, j} & self.written and {i, j} & self.active:
                    self._argument_pair(i, j)

    def _argument_pair(self, i: int, j: int) -> None:
        c, name, b = self.c, self.name, self.c.b
        writes = " and ".join(f"'{name[k]}'" for k in (i, j) if k in self.written)
        overlap = c.overlap(self.params[i], self.params[j])
        if self.kind == "reverse" and i in self.shadows and j in self.shadows:
            ok = c.corresponding(self.params[i], self.shadows[i], self.params[j], self.shadows[j])
            c.refuse_if(
                c.all_of([overlap, b.unary(ops.Not, ok)]),
                f"'{name[i]}' and '{name[j]}' share memory and {self.what} writes to "
                f"{writes}: their shadows 'd_{name[i]}' and 'd_{name[j]}' must share "
                "memory the same way (pass one shadow array where you pass one array, "
                "or views of one shadow taken as the arrays are), or pass copies",
            )
            return
        hint = (
            "pass copies (np.array(...)), or use gradc.reverse with "
            f"'{name[i]}' and '{name[j]}' Duplicated and one shared shadow"
        )
        if self.kind in ("jvp", "forward"):
            hint = f"forward mode cannot follow writes through shared memory: {hint}"
        c.refuse_if(
            overlap,
            f"'{name[i]}' and '{name[j]}' share memory and {self.what} writes to {writes}: "
            f"gradc.{self.kind} would differentiate them as separate arrays; {hint}",
        )

    def shadows_apart_from_arguments(self) -> None:
        """Rule 2, first half: a shadow overlapping any array argument."""
        for i, s in self.shadows.items():
            for k in self.arrays:
                self.c.refuse_if(
                    self.c.overlap(s, self.params[k]),
                    f"shadow 'd_{self.name[i]}' shares memory with argument "
                    f"'{self.name[k]}': a shadow must be memory of its own "
                    "(np.zeros_like(...))",
                )

    def shadow_pairs(self) -> None:
        """Rule 2, second half: two overlapping shadows whose arrays do not overlap as
        they do."""
        c, name, params, shadows = self.c, self.name, self.params, self.shadows
        ordered = sorted(shadows)
        for x, i in enumerate(ordered):
            for j in ordered[x + 1 :]:
                ok = c.all_of(
                    [
                        c.overlap(params[i], params[j]),
                        c.corresponding(params[i], shadows[i], params[j], shadows[j]),
                    ]
                )
                c.refuse_if(
                    c.all_of([c.overlap(shadows[i], shadows[j]), c.b.unary(ops.Not, ok)]),
                    f"shadows 'd_{name[i]}' and 'd_{name[j]}' share memory but "
                    f"'{name[i]}' and '{name[j]}' do not share it the same way: pass "
                    "separate shadows",
                )

    def tangents_apart_from_written(self, tangents: Mapping[int, Value]) -> None:
        """Rule 3: a tangent array overlapping an argument ``fn`` writes."""
        for i, t in tangents.items():
            if not isinstance(t.type, ArrayType):
                continue
            for k in sorted(self.written):
                self.c.refuse_if(
                    self.c.overlap(t, self.params[k]),
                    f"tangent 'd_{self.name[i]}' shares memory with '{self.name[k]}', which "
                    f"{self.what} writes: pass a copy of the tangent (np.array(...))",
                )

    def cotangent_apart_from_written(self, cotangent: Value | None) -> None:
        """Rule 4: ``gradc.vjp``'s cotangent overlapping an argument ``fn`` writes."""
        if cotangent is None:
            return
        for k in sorted(self.written):
            self.c.refuse_if(
                self.c.overlap(cotangent, self.params[k]),
                f"the cotangent shares memory with '{self.name[k]}', which {self.what} "
                "writes: pass a copy of the cotangent (np.array(...))",
            )
