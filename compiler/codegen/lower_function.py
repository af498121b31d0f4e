"""Lowering of one IR function's body into its declared LLVM function.

:class:`FunctionLowering` holds the function's state (values, blocks, error exits, the
builder) and the helpers every rule uses; each operation is lowered by its rule in
:data:`.dispatch.LOWERING` (registered by :mod:`.lower_scalar`, :mod:`.lower_arith`,
:mod:`.lower_math`, :mod:`.lower_control`, :mod:`.arrays`, :mod:`.array_alloc` and
:mod:`.tape`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llvmlite import ir as ll

from gradc.compiler.codegen import arrays, tape, tape_gpu
from gradc.compiler.codegen.dispatch import LOWERING
from gradc.compiler.codegen.lltypes import abi_type, value_type
from gradc.compiler.diagnostics import CompileError, InternalCompilerError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Value
from gradc.compiler.ir.dominance import reverse_postorder
from gradc.compiler.ir.types import I1, ArrayType, ScalarType, TapeType, TupleType, Type

if TYPE_CHECKING:
    from gradc.compiler.codegen.lower import ModuleLowering

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)


class FunctionLowering:
    """Lowers the body of one IR function into its (already declared) LLVM function."""

    def __init__(self, ml: ModuleLowering, func: Function, llfn: ll.Function) -> None:
        self.ml = ml
        self.func = func
        self.llfn = llfn
        self.out = llfn.args[-2]
        self.err = llfn.args[-1]
        self.values: dict[Value, ll.Value] = {}
        self.blocks: dict[Block, ll.Block] = {}
        self.exits: dict[Block, ll.Block] = {}  # LLVM block ending each IR block
        self._raise_blocks: dict[tuple[int, str, int], ll.Block] = {}  # (kind, message, site)
        self.prologue = ll.IRBuilder(llfn.append_basic_block("prologue"))
        self.b = ll.IRBuilder()
        self.fast = ml.fast
        self.inst: Instruction | None = None
        self.arrays = arrays.ArrayLowering(self)
        self.tape = (tape_gpu.GpuTapeLowering if ml.gpu else tape.TapeLowering)(self)

    def run(self) -> None:
        """Lower the whole body; unsupported types are reported at the instruction."""
        try:
            self._run()
        except CompileError as exc:
            if exc.loc.line > 0:
                raise
            loc = self.inst.loc if self.inst is not None else self.func.loc
            raise CompileError(exc.message, loc) from None

    def _run(self) -> None:
        func, pro = self.func, self.prologue
        for p, arg in zip(func.params, self.llfn.args):
            if isinstance(p.type, ArrayType):  # a pointer to the caller's descriptor
                self.values[p] = pro.load(arg, name=arg.name, align=8)
            else:
                self.values[p] = self.from_abi(pro, arg, p.type)
        self.tape.start()
        order = reverse_postorder(func.entry)
        reachable = {id(b) for b in order}
        for block in func.blocks:  # LLVM block order = IR order, for readable output
            if id(block) in reachable:
                self.blocks[block] = self.llfn.append_basic_block(block.label)
        phis: list[ops.Phi] = []
        for block in order:
            self.b.position_at_end(self.blocks[block])
            for phi in block.phis():
                assert isinstance(phi, ops.Phi)
                self.values[phi] = self.b.phi(value_type(phi.type), name=phi.name or "")
                phis.append(phi)
        for block in order:
            self.b.position_at_end(self.blocks[block])
            for inst in block.instructions[len(block.phis()) :]:  # phis: made above
                self.inst = inst
                self.lower(inst)
            if block.terminator is None:
                raise InternalCompilerError(
                    f"codegen: block ^{block.label} of {func.name!r} has no terminator"
                )
            self.exits[block] = self.b.block
        for phi in phis:
            llphi = self.values[phi]
            assert isinstance(llphi, ll.PhiInstr)
            for pred, v in phi.incoming:
                if pred in self.exits:  # edges from unreachable blocks do not exist
                    llphi.add_incoming(self.value(v), self.exits[pred])
        pro.branch(self.blocks[func.entry])

    def value(self, v: Value) -> ll.Value:
        """The LLVM value of IR value ``v`` (defined earlier in reverse postorder)."""
        try:
            return self.values[v]
        except KeyError:
            raise self.ice(f"use of a value not defined before ({v.name or v})") from None

    def ice(self, what: str) -> InternalCompilerError:
        """An internal compiler error about the current instruction."""
        inst = self.inst
        where = f" at {inst.loc} ({inst.OPNAME})" if inst is not None else ""
        return InternalCompilerError(f"codegen: {what} in function {self.func.name!r}{where}")

    def scalar(self, v: Value) -> ScalarType:
        """The scalar type of operand ``v`` (an internal error if it has another)."""
        if not isinstance(v.type, ScalarType):
            raise self.ice(f"expected a scalar operand, got {v.type}")
        return v.type

    def site(self) -> int:
        """Site number (:mod:`.sites`) of the instruction being lowered (0 if unknown)."""
        return self.ml.sites.get(self.inst, 0) if self.inst is not None else 0

    def fill_error(
        self,
        b: ll.IRBuilder,
        kind: str,
        message: str,
        data: Sequence[ll.Value] | None = None,
        flag: int | None = None,
    ) -> None:
        """Fill ``*err`` at ``b`` and return the kind code (terminates ``b``'s block).

        Without ``data`` the message is constant and ``data[3]`` is set to 0. With
        ``data`` (up to three ``i64``) they go to ``data[0..]`` and ``data[3]`` is
        :data:`.arrays.TEMPLATE_FLAG`: the message is a ``str.format`` template over
        ``data[0..2]`` that the loader fills (docs/abi.md "Error record"); ``flag``
        overrides that ``data[3]`` (``TEMPLATE_FLOATS + mask`` for double fields).
        """
        code = ops.EXCEPTION_KINDS[kind]
        zero = ll.Constant(_I32, 0)
        err = self.err

        def field(*idx: int) -> ll.Value:
            return b.gep(err, [zero, *(ll.Constant(_I32, i) for i in idx)], inbounds=True)

        b.store(ll.Constant(_I32, code), field(0))
        b.store(ll.Constant(_I32, self.site()), field(1))
        b.store(self.ml.string(message), field(2))
        for i, v in enumerate(data or ()):
            b.store(v, field(3, i))
        if flag is None:
            flag = arrays.TEMPLATE_FLAG if data else 0
        b.store(ll.Constant(_I64, flag), field(3, 3))
        b.ret(ll.Constant(_I32, code))

    def raise_block(self, kind: str, message: str) -> ll.Block:
        """A block that fills ``*err`` and returns the kind code (one per distinct error)."""
        code = ops.EXCEPTION_KINDS[kind]
        key = (code, message, self.site())
        block = self._raise_blocks.get(key)
        if block is None:
            block = self.llfn.append_basic_block(f"raise.{kind}")
            self.fill_error(ll.IRBuilder(block), kind, message)
            self._raise_blocks[key] = block
        return block

    def continuation(self) -> str:
        """Label of the block after a check: ``<ir label>.ok`` (llvmlite numbers repeats)."""
        block = self.inst.block if self.inst is not None else None
        return f"{block.label}.ok" if block is not None else "ok"

    def unwind_to(self, target: ll.Block) -> ll.Block:
        """The block an error exit of the current instruction jumps to.

        ``target`` itself when the instruction holds no arrays; otherwise a new block that
        releases the arrays (and frees the tapes) the ``lifetimes`` pass listed in
        ``inst.unwind`` and then jumps to ``target`` — so an exception leaks no
        temporaries.
        """
        inst = self.inst
        if inst is None or not inst.unwind:
            return target
        block = self.llfn.append_basic_block("unwind")
        saved = self.b.block
        self.b.position_at_end(block)
        decref = self.arrays.runtime_function(arrays.RUNTIME_DECREF)
        for v in inst.unwind:
            if isinstance(v.type, TapeType):  # a tape made here (lifetimes lists it)
                self.tape.free_value(self.value(v))
            else:
                self.arrays.refcount_value(self.value(v), v.type, decref)
        self.b.branch(target)
        assert saved is not None
        self.b.position_at_end(saved)
        return block

    def raise_if(self, cond: ll.Value, kind: str, message: str) -> None:
        """Raise ``kind(message)`` when ``cond`` (i1) is true; continue in a fresh block."""
        fail = self.unwind_to(self.raise_block(kind, message))
        ok = self.llfn.append_basic_block(self.continuation())
        br = self.b.cbranch(cond, fail, ok)
        br.set_weights([1, 1 << 20])  # exceptions are cold
        self.b.position_at_end(ok)

    def to_abi(self, b: ll.IRBuilder, v: ll.Value, t: Type) -> ll.Value:
        """Value ``v`` of IR type ``t`` in its C ABI form (``i1`` -> ``i8``, also in tuples)."""
        if t == I1:
            return b.zext(v, _I8)
        if isinstance(t, TupleType) and value_type(t) != abi_type(t):
            agg: ll.Value = ll.Constant(abi_type(t), ll.Undefined)
            for i, et in enumerate(t.elements):
                agg = b.insert_value(agg, self.to_abi(b, b.extract_value(v, i), et), i)
            return agg
        return v

    def from_abi(self, b: ll.IRBuilder, v: ll.Value, t: Type) -> ll.Value:
        """The inverse of :meth:`to_abi`: a C ABI value of IR type ``t`` as an SSA value."""
        if t == I1:
            return b.icmp_unsigned("!=", v, ll.Constant(_I8, 0))
        if isinstance(t, TupleType) and value_type(t) != abi_type(t):
            agg: ll.Value = ll.Constant(value_type(t), ll.Undefined)
            for i, et in enumerate(t.elements):
                agg = b.insert_value(agg, self.from_abi(b, b.extract_value(v, i), et), i)
            return agg
        return v

    def libm_pow(self, x: ll.Value, y: ll.Value) -> ll.Value:
        """libm's ``pow``, as CPython calls it for ``**`` and ``math.pow``.

        ``nobuiltin`` keeps LLVM from rewriting it (``pow(x, 2.0)`` -> ``x * x``): the
        product is correctly rounded where libm's pow may be 1 ulp off, and CPython's
        result is libm's.
        """
        fn = self.ml.libm("pow", x.type, 2)
        if "nobuiltin" not in fn.attributes:
            fn.attributes.add("nobuiltin")
        return self.b.call(fn, [x, y])

    def call_intrinsic(self, name: str, *args: ll.Value) -> ll.Value:
        """A call of ``llvm.<name>`` on float ``args`` at the builder."""
        fn = self.ml.intrinsic(name, args[0].type, len(args))
        return self.b.call(fn, list(args))

    def fconst(self, ty: ll.Type, x: float) -> ll.Constant:
        """The float constant ``x`` of LLVM type ``ty``."""
        return ll.Constant(ty, x)

    def is_nan(self, x: ll.Value) -> ll.Value:
        """``x != x`` (i1)."""
        return self.b.fcmp_unordered("uno", x, x)

    def is_inf(self, x: ll.Value) -> ll.Value:
        """``|x| == inf`` (i1)."""
        fabs = self.call_intrinsic("fabs", x)
        return self.b.fcmp_ordered("==", fabs, self.fconst(x.type, float("inf")))

    def is_finite(self, x: ll.Value) -> ll.Value:
        """``|x| < inf`` (i1; false for NaN)."""
        fabs = self.call_intrinsic("fabs", x)
        return self.b.fcmp_ordered("<", fabs, self.fconst(x.type, float("inf")))

    def any_of(self, conds: Sequence[ll.Value]) -> ll.Value:
        """The ``or`` of one or more ``i1`` values."""
        acc = conds[0]
        for c in conds[1:]:
            acc = self.b.or_(acc, c)
        return acc

    def all_of(self, conds: Sequence[ll.Value]) -> ll.Value:
        """The ``and`` of one or more ``i1`` values."""
        acc = conds[0]
        for c in conds[1:]:
            acc = self.b.and_(acc, c)
        return acc

    def lower(self, inst: Instruction) -> None:
        """Lower ``inst`` by its rule; its LLVM value (if any) is recorded, named."""
        rule = LOWERING.get(inst)
        if rule is None:
            raise self.ice(f"no lowering for operation {inst.OPNAME!r}")
        result = rule(self, inst)
        if result is not None:
            if inst.name and not isinstance(result, ll.Constant) and not result.name:
                result.name = inst.name
            self.values[inst] = result
