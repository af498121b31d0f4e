"""Forward mode with a vector width: ``gradc.jvp(f, wrt=..., width=k)``.

The width-``k`` JVP of ``f`` pushes ``k`` tangents through one sweep: the primal code
runs once and each active instruction is followed by ``k`` copies of its tangent code,
one per *lane* (each lane has its own tangents, tangent phis and tangent arrays). Each
lane's arithmetic is exactly that of the width-1 JVP (:mod:`.forward`), so lane ``l``
equals the JVP along the ``l``-th tangents bit for bit.

Derived function ``f.jvp<k>.<pattern>(params..., lane 0's tangents of the active
parameters in order, lane 1's, ...) -> tuple[result, lane 0's tangent, lane 1's, ...]``;
a call of an active callee becomes a call of the callee's own width-``k`` JVP (a helper
with a ``custom_jvp`` rule: its rule, once per lane).

The export ``t(params..., d_<p> for p in wrt) -> (f(...), ḟ)`` takes each tangent with
a leading axis of length ``k`` (``d_x`` of a scalar ``x``: an ``f64[k]``; of an array
``w``: shape ``(k,) + w.shape``, any layout, only read) and returns the tangents with
the same leading axis (a fresh C array), the layout of JAX's
``jax.vmap(lambda t: jax.jvp(f, primals, t))`` with ``in_axes=0``.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.ops.views import FULL_SLICE, INT_ITEM, view_type
from gradc.compiler.ir.types import (
    F64,
    I64,
    NONE,
    ArrayType,
    NoneType,
    TupleType,
    Type,
    python_name,
)
from gradc.passes.ad.columns import _element, _loop, _new
from gradc.passes.ad.custom import custom_of
from gradc.passes.ad.forward import (
    _ForwardMode,
    _zero,
    check_returns_value,
    jvp_function,
    jvp_name,
)
from gradc.passes.ad.layout import as_shadow, shadow_type
from gradc.passes.ad.memory import refuse_argument_writes


def vector_jvp_name(fn: Function, pattern: frozenset[int], width: int) -> str:
    """The symbol of ``fn``'s width-``width`` JVP for active parameters ``pattern``."""
    return jvp_name(fn, pattern).replace(".jvp.", f".jvp{width}.", 1)


def vector_jvp_function(
    module: Module, fn: Function, pattern: frozenset[int], width: int
) -> Function:
    """The width-``width`` JVP of ``fn`` (the module docstring gives the signature),
    added to ``module``; memoised by name. As the width-1 JVP, it writes the tangents of
    what ``fn`` stores into an array parameter into that parameter's tangents.

    Raises:
        PassError: an active construct has no derivative rule.
    """
    name = vector_jvp_name(fn, pattern, width)
    if name in module.functions:
        return module.functions[name]
    return _VectorForward(module, fn, pattern, name, width).run()


def check_no_writes(module: Module, fn: Function, what: str, loc: Loc) -> None:
    """Refuse a width-``k`` derivative of ``fn`` where ``fn`` may write an array
    parameter (the lanes' tangents would need private copies).

    Raises:
        PassError: naming the parameters.
    """
    refuse_argument_writes(
        module,
        fn,
        loc,
        f"{what} with a width of '{fn.source_name}', which may write its array "
        "argument {names}: not supported (use width=1)",
    )


class _VectorForward(_ForwardMode):
    """:class:`.forward._ForwardMode` with ``width`` lanes: :attr:`tangents` is the
    map of the current lane, and every tangent rule runs once per lane."""

    def __init__(
        self, module: Module, fn: Function, pattern: frozenset[int], name: str, width: int
    ) -> None:
        self.width = width
        self.lane = 0
        self.lane_tangents: list[dict[Value, Value]] = [{} for _ in range(width)]
        self.lane_phis: list[tuple[int, ops.Phi, ops.Phi]] = []
        super().__init__(module, fn, pattern, name)

    @property
    def tangents(self) -> dict[Value, Value]:
        """The tangents of the current lane."""
        return self.lane_tangents[self.lane]

    @tangents.setter
    def tangents(self, value: dict[Value, Value]) -> None:
        assert not value  # the base class's empty map: the lanes' maps are made above

    def run(self) -> Function:
        fn = super().run()
        for lane, primal, tangent in self.lane_phis:
            self.lane = lane
            for pred, v in primal.incoming:
                self.strict = pred in self.reachable
                term = pred.terminator
                assert term is not None
                self.b.position_before(term)
                with self.b.at(term.loc):
                    tangent.incoming.append((pred, self.tangent(v)))
        return fn

    def _add_tangent_params(self) -> None:
        fn = self.fn
        for lane in range(self.width):
            self.lane = lane
            for p in self.original.params:
                if p.index in self.pattern:
                    t = Argument(
                        type=shadow_type(p.type), name=f"d{lane}_{p.name}", index=len(fn.params)
                    )
                    fn.params.append(t)
                    self.tangents[self.values[p]] = t
        # an array parameter outside the pattern that active values are stored into:
        # a zeroed scratch tangent per lane (the base class makes lane 0's)
        entry = fn.entry
        self.b.position_before(entry.instructions[len(entry.phis())])
        with self.b.at(fn.loc):
            for lane in range(1, self.width):
                self.lane = lane
                for p in list(fn.params):
                    if p in self._active_clones and p not in self.tangents:
                        self.tangents[p] = _zero(self.b, p)
        self.lane = 0
        result_type = fn.return_type
        if not isinstance(result_type, NoneType):
            fn.return_type = TupleType((result_type, *[shadow_type(result_type)] * self.width))

    def _visit(self, block: Block, inst: Instruction) -> None:
        if isinstance(inst, ops.Return):
            if inst.value is not None:
                self.b.position_before(inst)
                with self.b.at(inst.loc):
                    lanes = []
                    for lane in range(self.width):
                        self.lane = lane
                        lanes.append(self.tangent(inst.value))
                    inst.value = self.b.make_tuple([inst.value, *lanes])
            self.lane = 0
            return
        if isinstance(inst, ops.Call):  # one call of the callee's vector JVP
            self.lane = 0
            super()._visit(block, inst)
            return
        for lane in reversed(range(self.width)):  # lane 0's code first
            self.lane = lane
            phis = len(self.tangent_phis)
            super()._visit(block, inst)
            self.lane_phis += [(lane, p, t) for p, t in self.tangent_phis[phis:]]
            del self.tangent_phis[phis:]
        self.lane = 0

    def call_jvp(self, call: ops.Call) -> Value | None:
        """Replace ``call`` by one call of the callee's width-``k`` JVP (a ``custom_jvp``
        helper: its JVP once per lane); each lane's tangent of the result."""
        b = self.b
        callee = self.module.functions[call.callee]
        pattern = frozenset(i for i, a in enumerate(call.args) if a in self.lane_tangents[0])
        order = sorted(pattern)
        lane_args = [[m[call.args[i]] for i in order] for m in self.lane_tangents]
        sources: list[tuple[Value, int]]  # per lane: the call's result, the tangent's index
        if custom_of(self.module, callee, "jvp") is not None:
            derived = jvp_function(self.module, callee, pattern)
            calls = [b.call(derived.name, [*call.args, *a], derived.return_type) for a in lane_args]
            sources = [(c, 1) for c in calls]
        else:
            derived = vector_jvp_function(self.module, callee, pattern, self.width)
            args = [*call.args, *(t for a in lane_args for t in a)]
            both = b.call(derived.name, args, derived.return_type)
            sources = [(both, 1 + lane) for lane in range(self.width)]
        if isinstance(derived.return_type, NoneType):
            # the callee only writes (values and tangents) into its array arguments
            self.fn.replace_all_uses(call, sources[0][0])
            call.erase()
            return None
        primal = b.tuple_get(sources[0][0], 0)
        self.fn.replace_all_uses(call, primal)
        active = self.active(call)
        call.erase()
        if not active:
            return None
        for lane, (source, index) in enumerate(sources):
            self.lane_tangents[lane][primal] = b.tuple_get(source, index)
        return self.lane_tangents[0][primal]


def vector_jvp_export(
    module: Module, name: str, fn: Function, wrt: list[int], loc: Loc, width: int
) -> Function:
    """Add the export ``name``: ``gradc.jvp(fn, wrt=..., width=width)`` (the module
    docstring gives the calling convention). Each tangent's shape is checked
    (``ValueError`` naming the tangent and the axis).

    Raises:
        PassError: ``fn`` returns None or may write an array argument, or an active
            construct has no derivative rule.
    """
    from gradc.passes.ad.api import tangent_names

    check_returns_value(fn, loc)
    check_no_writes(module, fn, "gradc.jvp", loc)
    out = fn.return_type
    for e in out.elements if isinstance(out, TupleType) else (out,):
        if not (e == F64 or (isinstance(e, ArrayType) and e.dtype == F64)):
            raise PassError(
                f"gradc.jvp with a width of '{fn.source_name}' returning {python_name(out)}: "
                "its result must be an f64, an f64 array or a tuple of those",
                loc,
            )
    derived = vector_jvp_function(module, fn, frozenset(wrt), width)
    wrapper = Function(name, loc=loc, source_name=name, exported=True)
    params = []
    for p in fn.params:
        arg = Argument(type=p.type, name=p.name, index=len(wrapper.params))
        wrapper.params.append(arg)
        params.append(arg)
    tangents: dict[int, Argument] = {}
    names = tangent_names(fn, wrt)
    for i in wrt:
        t = fn.params[i].type
        ndim = t.ndim + 1 if isinstance(t, ArrayType) else 1
        d = Argument(type=ArrayType(F64, ndim, "A"), name=names[i], index=len(wrapper.params))
        wrapper.params.append(d)
        tangents[i] = d
    b = Builder(wrapper)
    b.position_at_end(wrapper.add_block("entry"))
    with b.at(loc):
        for i in wrt:
            _check_lanes(b, params[i], tangents[i], width)
        args: list[Value] = list(params)
        for lane in range(width):
            args += [_lane(b, params[i], tangents[i], lane) for i in sorted(wrt)]
        both = b.call(derived.name, args, derived.return_type)
        lanes = [b.tuple_get(both, 1 + lane) for lane in range(width)]
        result = b.make_tuple([b.tuple_get(both, 0), _stack(b, lanes, fn.return_type)])
        wrapper.return_type = result.type
        b.ret(result)
    module.add(wrapper)
    return wrapper


def _check_lanes(b: Builder, param: Value, tangent: Value, width: int) -> None:
    """``ValueError`` unless ``tangent`` has shape ``(width,) + shape(param)``."""
    expected: list[Value] = [b.const(width, I64)]
    t = param.type
    if isinstance(t, ArrayType):
        expected += [b.insert(ops.ArrayDim(param, k, type=I64)) for k in range(t.ndim)]
    for k, n in enumerate(expected):
        got = b.insert(ops.ArrayDim(tangent, k, type=I64))
        with b.if_then(b.cmp("ne", got, n), "lanes"):
            what = f"{width} (the width)" if k == 0 else f"that of '{param.name}' axis {k - 1}"
            b.raise_(
                "ValueError",
                f"tangent '{tangent.name}' must have shape (width,) + shape of "
                f"'{param.name}': its axis {k} must be {what}",
            )


def _lane(b: Builder, param: Value, tangent: Value, lane: int) -> Value:
    """Lane ``lane`` of ``tangent`` as the derived function's tangent of ``param``: a
    float, or the view ``tangent[lane]`` (copied where the parameter's tangent is C)."""
    t = param.type
    index = b.const(lane, I64)
    if not isinstance(t, ArrayType):
        return b.insert(ops.Load(_element(b, tangent, [index]), type=F64))
    items = (INT_ITEM, *[FULL_SLICE] * t.ndim)
    base = tangent.type
    assert isinstance(base, ArrayType)
    view_t = view_type(base, items)
    assert view_t is not None
    view = b.insert(ops.SliceView(tangent, (index,), items, type=view_t))
    wanted = shadow_type(t)
    assert isinstance(wanted, ArrayType)
    if wanted.layout == "C":
        view = b.insert(ops.CopyArray(view, type=ArrayType(F64, t.ndim, "C")))
    return as_shadow(b, view, t)


def _stack(b: Builder, lanes: list[Value], t: Type) -> Value:
    """The lanes' result tangents with a leading axis of length ``len(lanes)``: a fresh
    C array (a tuple result: a tuple of those)."""
    if isinstance(t, TupleType):
        return b.make_tuple(
            [_stack(b, [b.tuple_get(v, k) for v in lanes], e) for k, e in enumerate(t.elements)]
        )
    width = b.const(len(lanes), I64)
    if not isinstance(t, ArrayType):
        out = _new(b, [width])
        for lane, v in enumerate(lanes):
            b.insert(ops.Store(_element(b, out, [b.const(lane, I64)]), v, type=NONE))
        return out
    dims: list[Value] = [b.insert(ops.ArrayDim(lanes[0], k, type=I64)) for k in range(t.ndim)]
    out = _new(b, [width, *dims])
    for lane, v in enumerate(lanes):
        _copy_into(b, out, b.const(lane, I64), v, dims, [])
    return out


def _copy_into(
    b: Builder, out: Value, lane: Value, v: Value, dims: list[Value], index: list[Value]
) -> None:
    """``out[lane, index..., rest...] = v[index..., rest...]`` over ``dims``."""
    if len(index) == len(dims):
        value = b.insert(ops.Load(_element(b, v, index), type=F64))
        b.insert(ops.Store(_element(b, out, [lane, *index]), value, type=NONE))
        return
    with _loop(b, dims[len(index)], "lane") as k:
        _copy_into(b, out, lane, v, dims, [*index, k])
