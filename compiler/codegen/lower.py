"""Lowering: typed gradc IR → LLVM IR (``llvmlite.ir``) with the gradc C ABI.

Every IR function becomes one LLVM function with the calling convention of docs/abi.md::

    %2 = floordiv %0, %1 : i64            define i32 @gradc_f_0123456789abcdef(
    ret %2                                        i64 %x, i64 %y, i64* %out,
                                                  %gradc_error* %err) {
                                          ...     %is0 = icmp eq i64 %y, 0
                                                  br i1 %is0, label %raise, label %ok
                                          raise:  store i32 2, ... ; kind, site, message
                                                  ret i32 2
                                          ok:     ...sdiv/srem with Python's floor fix-up
                                                  store i64 %q, i64* %out
                                                  ret i32 0

The export gets the external symbol given by the caller; every callee it reaches through
``call`` is lowered into the same LLVM module with internal linkage and the name
``gradc.<ir name>``; runtime helpers (integer power) are named ``gradc.rt.<what>.<type>``.
Names depend only on the IR, never on counters or object ids, so identical IR gives an
identical module.

Arrays (descriptors by value inside functions, a descriptor pointer per array
parameter, owned blocks from the ``gradc_rt1_*`` runtime) are lowered by :mod:`.arrays`;
the reverse-mode tape (a pointer to a runtime stack, inline push/pop) by :mod:`.tape`.

Python semantics (the tests compare against CPython): ints are 64-bit and wrap (no
``nsw``/``nuw``), ``//`` and ``%`` round toward -inf, float ``//`` and ``%`` follow
CPython's ``Objects/floatobject.c``, float ``**`` follows ``float_pow``, ``math``
functions follow ``Modules/mathmodule.c`` (see :class:`gradc.compiler.ir.ops.MathFn`).
Where Python raises, the lowered code fills the error record and returns the exception's
kind code (``ops.EXCEPTION_KINDS``); a callee's nonzero status is returned unchanged. The
record names the raising instruction by its site number (:mod:`.sites`), never by its
source line, so the object does not change when only line numbers do.

The ``gradc.compiler.codegen`` package is the only place in gradc that imports
``llvmlite.ir``.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import ERROR_DATA_WORDS, ERROR_TYPE_NAME
from gradc.compiler.codegen import arrays, tape
from gradc.compiler.codegen.sites import site_numbers
from gradc.compiler.codegen.special import emit_digamma
from gradc.compiler.diagnostics import CompileError, InternalCompilerError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Block, Function, Instruction, Module, Value
from gradc.compiler.ir.dominance import reverse_postorder
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    F64,
    I1,
    ArrayType,
    NoneType,
    PointerType,
    ScalarType,
    TapeType,
    TupleType,
    Type,
)
from gradc.compiler.options import CompilerOptions

__all__ = [
    "ERROR_TYPE_NAME",
    "INTERNAL_PREFIX",
    "abi_type",
    "internal_name",
    "lower_export",
    "param_type",
    "value_type",
]

#: Prefix of the LLVM names of non-exported IR functions (internal linkage).
INTERNAL_PREFIX = "gradc."

#: Fast-math flags put on float arithmetic when ``options.fastmath`` is set. ``nnan`` and
#: ``ninf`` are left out on purpose: with them LLVM may delete the NaN/inf tests that
#: implement Python's exceptions (ZeroDivisionError, "math domain error", ...).
FASTMATH_FLAGS = ("reassoc", "nsz", "arcp", "contract", "afn")

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_I8P = _I8.as_pointer()

_DOMAIN_ERROR = "math domain error"
_RANGE_ERROR = "math range error"
_ZERO_NEGATIVE_POW = "0.0 cannot be raised to a negative power"  # also for ints: 0 ** -1
_NEGATIVE_INT_POW = (
    "negative exponent in integer power: the result would be a float, which gradc's "
    "static types do not allow"
)

# CPython's float comparisons: ordered except ``!=`` (True when either side is NaN).
_FCMP = {
    "eq": ("ordered", "=="),
    "ne": ("unordered", "!="),
    "lt": ("ordered", "<"),
    "le": ("ordered", "<="),
    "gt": ("ordered", ">"),
    "ge": ("ordered", ">="),
}
_ICMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


# ---------------------------------------------------------------------------------
# types


def value_type(t: Type) -> ll.Type:
    """The LLVM type of an SSA value of IR type ``t`` inside a function.

    ``i1`` stays ``i1``; tuples are literal structs of their elements' value types;
    ``none`` is a dummy ``i8`` (only ever the constant 0); an array is its descriptor by
    value and a derived pointer a typed pointer to the element (:mod:`.arrays`).

    Raises:
        InternalCompilerError: an untyped value (``?``) reached the code generator.
    """
    return _lower_type(t, abi=False)


def abi_type(t: Type) -> ll.Type:
    """The LLVM type of ``t`` stored at the C ABI: in ``*out`` and inside tuples.

    As :func:`value_type`, but ``bool`` (``i1``) is a ``uint8_t`` (``i8``, 0 or 1), also
    inside tuples, and ``none`` is the one ignored byte ``out`` points to (docs/abi.md).
    Arrays are descriptors by value here; as parameters see :func:`param_type`.
    """
    return _lower_type(t, abi=True)


def param_type(t: Type) -> ll.Type:
    """The LLVM type of a parameter of IR type ``t``: :func:`abi_type`, except that an
    array is passed as a pointer to its descriptor (docs/abi.md "Arrays")."""
    if isinstance(t, ArrayType):
        return arrays.descriptor_type(t).as_pointer()
    return abi_type(t)


def _lower_type(t: Type, *, abi: bool) -> ll.Type:
    if isinstance(t, ScalarType):
        if t.is_float:
            return ll.DoubleType() if t.bits == 64 else ll.FloatType()
        if t.bits == 1 and abi:
            return _I8
        return ll.IntType(t.bits)
    if isinstance(t, TupleType):
        return ll.LiteralStructType([_lower_type(e, abi=abi) for e in t.elements])
    if isinstance(t, NoneType):
        return _I8
    if isinstance(t, ArrayType):
        return arrays.descriptor_type(t)
    if isinstance(t, PointerType):
        return arrays.pointer_type(t)
    if isinstance(t, TapeType):
        return tape.tape_type()
    raise InternalCompilerError(f"codegen: value of non-lowerable type {t} (untyped IR?)")


def internal_name(ir_name: str) -> str:
    """The LLVM symbol of non-exported IR function ``ir_name`` (internal linkage)."""
    return INTERNAL_PREFIX + ir_name


# ---------------------------------------------------------------------------------
# entry point


def lower_export(module: Module, export: str, symbol: str, options: CompilerOptions) -> ll.Module:
    """Lower IR function ``export`` and every function it transitively calls.

    Args:
        module: typed, verified IR.
        export: the IR name of the function to export.
        symbol: its external C-ABI symbol (docs/abi.md: ``gradc_<NAME>_<key16>``).
        options: ``fastmath`` adds :data:`FASTMATH_FLAGS` to float arithmetic; the other
            fields are used by :mod:`.emit`.

    Returns:
        One LLVM module: ``symbol`` with external linkage, callees with internal linkage
        named :func:`internal_name`, messages as private ``unnamed_addr`` constants, libm
        functions and LLVM intrinsics declared by name. Same IR → same module text.

    Raises:
        CompileError: a call of a function missing from ``module``, or an exported
            function with tuple parameters (not C-ABI-compatible by value).
        InternalCompilerError: ill-typed IR (an operation on types it does not accept).
    """
    if export not in module.functions:
        raise CompileError(f"no function {export!r} in module {module.name!r}", Loc.unknown())
    return _ModuleLowering(module, options, site_numbers(module, export)).run(export, symbol)


class _ModuleLowering:
    """State shared by the functions of one LLVM module: declarations and strings."""

    def __init__(
        self, module: Module, options: CompilerOptions, sites: dict[Instruction, int]
    ) -> None:
        self.module = module
        self.options = options
        self.sites = sites
        self.context = ll.Context()  # a fresh context: no identified types leak across
        self.llmod = ll.Module(name=module.name or "gradc", context=self.context)
        self.error_type = self.context.get_identified_type(ERROR_TYPE_NAME)
        self.error_type.set_body(_I32, _I32, _I8P, ll.ArrayType(_I64, ERROR_DATA_WORDS))
        self.functions: dict[str, ll.Function] = {}
        self._strings: dict[str, ll.Constant] = {}
        self._declarations: dict[str, ll.Function] = {}
        self._tbaa: dict[str, ll.MDValue] = {}
        self.fast = FASTMATH_FLAGS if options.fastmath else ()

    def run(self, export: str, symbol: str) -> ll.Module:
        order = self._reachable(export)
        for name in order:
            func = self.module.functions[name]
            if name == export:
                for p in func.params:
                    if isinstance(p.type, TupleType):
                        raise CompileError(
                            f"exported function {func.source_name or name!r} takes a tuple "
                            f"parameter {p.name or p.index!r}; the C ABI passes scalars and "
                            "arrays only",
                            func.loc,
                        )
            llname = symbol if name == export else internal_name(name)
            try:
                self.functions[name] = self._declare(func, llname, internal=name != export)
            except CompileError as exc:  # an unsupported type: point at the def line
                raise CompileError(exc.message, func.loc) from None
        for name in order:
            _FunctionLowering(self, self.module.functions[name], self.functions[name]).run()
        return self.llmod

    def _reachable(self, export: str) -> list[str]:
        """IR names of ``export`` and its transitive callees, breadth-first, call order."""
        order = [export]
        seen = {export}
        i = 0
        while i < len(order):
            for inst in self.module.functions[order[i]].instructions():
                if isinstance(inst, ops.Call) and inst.callee not in seen:
                    if inst.callee not in self.module.functions:
                        raise CompileError(f"call of unknown function {inst.callee!r}", inst.loc)
                    seen.add(inst.callee)
                    order.append(inst.callee)
            i += 1
        return order

    def _declare(self, func: Function, llname: str, *, internal: bool) -> ll.Function:
        params = [param_type(p.type) for p in func.params]
        fnty = ll.FunctionType(
            _I32, [*params, abi_type(func.return_type).as_pointer(), self.error_type.as_pointer()]
        )
        llfn = ll.Function(self.llmod, fnty, name=llname)
        if internal:
            llfn.linkage = "internal"
        llfn.attributes.add("nounwind")
        for arg, p in zip(llfn.args, func.params):
            arg.name = p.name or f"arg{p.index}"
        llfn.args[-2].name = "out"
        llfn.args[-1].name = "err"
        return llfn

    # -- declarations and constants ---------------------------------------------------

    def declare(
        self, name: str, ret: ll.Type, args: Sequence[ll.Type], *, readnone: bool = True
    ) -> ll.Function:
        """Declare (once) an external function or intrinsic ``name``."""
        fn = self._declarations.get(name)
        if fn is None:
            fn = ll.Function(self.llmod, ll.FunctionType(ret, list(args)), name=name)
            fn.attributes.add("nounwind")
            if readnone:
                # libm's errno is never read by gradc code: the calls are pure for us.
                fn.attributes.add("readnone")
            self._declarations[name] = fn
        return fn

    def tbaa(self, which: str) -> ll.MDValue:
        """The TBAA access tag of memory kind ``which``: ``"tape header"`` or ``"tape
        entry"`` (:mod:`.tape`), or ``"array data"`` (the elements :mod:`.arrays` loads
        and stores). Sibling scalar types under one root, so LLVM knows that no two
        kinds ever overlap: the runtime allocates the tape header, the tape buffer and
        array blocks separately, and NumPy's arrays are none of them. Other accesses
        (descriptors, ``*out``, ``*err``, ``memcpy``/``memset``, runtime calls) carry no
        tag and may alias everything."""
        tag = self._tbaa.get(which)
        if tag is None:
            llmod = self.llmod
            root = llmod.add_metadata([ll.MetaDataString(llmod, "gradc")])
            zero = ll.Constant(_I64, 0)
            node = llmod.add_metadata([ll.MetaDataString(llmod, f"gradc {which}"), root, zero])
            tag = llmod.add_metadata([node, node, zero])
            self._tbaa[which] = tag
        return tag

    def intrinsic(self, name: str, ty: ll.Type, nargs: int) -> ll.Function:
        """The LLVM intrinsic ``llvm.<name>.<f32|f64>`` on float type ``ty``."""
        suffix = "f64" if isinstance(ty, ll.DoubleType) else "f32"
        return self.declare(f"llvm.{name}.{suffix}", ty, [ty] * nargs, readnone=False)

    def libm(self, name: str, ty: ll.Type, nargs: int) -> ll.Function:
        """The C math library function ``name`` (``namef`` for f32)."""
        cname = name if isinstance(ty, ll.DoubleType) else name + "f"
        return self.declare(cname, ty, [ty] * nargs)

    def string(self, text: str) -> ll.Constant:
        """An ``i8*`` to a private ``unnamed_addr`` NUL-terminated UTF-8 constant."""
        ptr = self._strings.get(text)
        if ptr is None:
            data = bytearray(text.encode("utf-8") + b"\0")
            arrty = ll.ArrayType(_I8, len(data))
            gv = ll.GlobalVariable(self.llmod, arrty, name=f".str.{len(self._strings)}")
            gv.linkage = "private"
            gv.global_constant = True
            gv.unnamed_addr = True
            gv.align = 1
            gv.initializer = ll.Constant(arrty, data)
            ptr = gv.gep([ll.Constant(_I32, 0), ll.Constant(_I32, 0)])
            self._strings[text] = ptr
        return ptr

    def ipow(self, ty: ll.IntType) -> ll.Function:
        """``gradc.rt.ipow.i<N>(base, exp)``: ``base ** exp`` for ``exp >= 0``, wrapping.

        Exponentiation by squaring (Knuth TAOCP vol. 2, 4.6.3 algorithm A), which
        equals CPython's exact ``int.__pow__`` reduced modulo ``2**N``.
        """
        name = f"gradc.rt.ipow.i{ty.width}"
        fn = self._declarations.get(name)
        if fn is not None:
            return fn
        fn = ll.Function(self.llmod, ll.FunctionType(ty, [ty, ty]), name=name)
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        fn.attributes.add("readnone")
        base, exp = fn.args
        base.name, exp.name = "base", "exp"
        entry = fn.append_basic_block("entry")
        loop = fn.append_basic_block("loop")
        body = fn.append_basic_block("body")
        done = fn.append_basic_block("done")
        b = ll.IRBuilder(entry)
        b.branch(loop)
        b.position_at_end(loop)
        r = b.phi(ty, "r")
        x = b.phi(ty, "x")
        e = b.phi(ty, "e")
        b.cbranch(b.icmp_unsigned("==", e, ll.Constant(ty, 0)), done, body)
        b.position_at_end(body)
        odd = b.trunc(e, _I1, "odd")
        r2 = b.select(odd, b.mul(r, x), r, "r.next")
        x2 = b.mul(x, x, "x.next")
        e2 = b.lshr(e, ll.Constant(ty, 1), "e.next")
        b.branch(loop)
        r.add_incoming(ll.Constant(ty, 1), entry)
        r.add_incoming(r2, body)
        x.add_incoming(base, entry)
        x.add_incoming(x2, body)
        e.add_incoming(exp, entry)
        e.add_incoming(e2, body)
        b.position_at_end(done)
        b.ret(r)
        self._declarations[name] = fn
        return fn


# ---------------------------------------------------------------------------------
# functions


class _FunctionLowering:
    """Lowers the body of one IR function into its (already declared) LLVM function."""

    def __init__(self, ml: _ModuleLowering, func: Function, llfn: ll.Function) -> None:
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
        self.tape = tape.TapeLowering(self)

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
                self.values[p] = self._from_abi(pro, arg, p.type)
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
            for inst in block.instructions:
                if not isinstance(inst, ops.Phi):
                    self.inst = inst
                    self._lower(inst)
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

    # -- helpers ------------------------------------------------------------------------

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

    def _scalar(self, v: Value) -> ScalarType:
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
    ) -> None:
        """Fill ``*err`` at ``b`` and return the kind code (terminates ``b``'s block).

        Without ``data`` the message is constant and ``data[3]`` is set to 0. With
        ``data`` (up to three ``i64``) they go to ``data[0..]`` and ``data[3]`` is
        :data:`.arrays.TEMPLATE_FLAG`: the message is a ``str.format`` template over
        ``data[0..2]`` that the loader fills (docs/abi.md "Error record").
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

    def _to_abi(self, b: ll.IRBuilder, v: ll.Value, t: Type) -> ll.Value:
        if t == I1:
            return b.zext(v, _I8)
        if isinstance(t, TupleType) and value_type(t) != abi_type(t):
            agg: ll.Value = ll.Constant(abi_type(t), ll.Undefined)
            for i, et in enumerate(t.elements):
                agg = b.insert_value(agg, self._to_abi(b, b.extract_value(v, i), et), i)
            return agg
        return v

    def _from_abi(self, b: ll.IRBuilder, v: ll.Value, t: Type) -> ll.Value:
        if t == I1:
            return b.icmp_unsigned("!=", v, ll.Constant(_I8, 0))
        if isinstance(t, TupleType) and value_type(t) != abi_type(t):
            agg: ll.Value = ll.Constant(value_type(t), ll.Undefined)
            for i, et in enumerate(t.elements):
                agg = b.insert_value(agg, self._from_abi(b, b.extract_value(v, i), et), i)
            return agg
        return v

    def _libm_pow(self, x: ll.Value, y: ll.Value) -> ll.Value:
        """libm's ``pow``, as CPython calls it for ``**`` and ``math.pow``.

        ``nobuiltin`` keeps LLVM from rewriting it (``pow(x, 2.0)`` -> ``x * x``): the
        product is correctly rounded where libm's pow may be 1 ulp off, and CPython's
        result is libm's.
        """
        fn = self.ml.libm("pow", x.type, 2)
        if "nobuiltin" not in fn.attributes:
            fn.attributes.add("nobuiltin")
        return self.b.call(fn, [x, y])

    def _call_intrinsic(self, name: str, *args: ll.Value) -> ll.Value:
        fn = self.ml.intrinsic(name, args[0].type, len(args))
        return self.b.call(fn, list(args))

    def _fconst(self, ty: ll.Type, x: float) -> ll.Constant:
        return ll.Constant(ty, x)

    def _is_nan(self, x: ll.Value) -> ll.Value:
        return self.b.fcmp_unordered("uno", x, x)

    def _is_inf(self, x: ll.Value) -> ll.Value:
        fabs = self._call_intrinsic("fabs", x)
        return self.b.fcmp_ordered("==", fabs, self._fconst(x.type, float("inf")))

    def _is_finite(self, x: ll.Value) -> ll.Value:
        fabs = self._call_intrinsic("fabs", x)
        return self.b.fcmp_ordered("<", fabs, self._fconst(x.type, float("inf")))

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

    # -- dispatch -----------------------------------------------------------------------

    def _lower(self, inst: Instruction) -> None:
        b = self.b
        result: ll.Value | None
        match inst:
            case ops.Const():
                result = self._const(inst)
            case ops.Cast():
                result = self._cast(inst)
            case ops.Select():
                result = b.select(
                    self.value(inst.cond), self.value(inst.if_true), self.value(inst.if_false)
                )
            case ops.MakeTuple():
                agg: ll.Value = ll.Constant(value_type(inst.type), ll.Undefined)
                for i, e in enumerate(inst.elements):
                    agg = b.insert_value(agg, self.value(e), i)
                result = agg
            case ops.TupleGet():
                result = b.extract_value(self.value(inst.tuple), inst.index)
            case ops.Add() | ops.Sub() | ops.Mul():
                result = self._arith(inst)
            case ops.Div():
                result = self._div(inst)
            case ops.FDiv():  # IEEE division (derivative code): no ZeroDivisionError
                if not self._scalar(inst.lhs).is_float:
                    raise self.ice(f"fdiv of {inst.lhs.type}")
                result = b.fdiv(self.value(inst.lhs), self.value(inst.rhs), flags=self.fast)
            case ops.FloorDiv() | ops.Mod():
                result = self._floordiv_mod(inst)
            case ops.Pow():
                result = self._pow(inst)
            case ops.Min() | ops.Max():
                result = self._min_max(inst)
            case ops.Neg():
                x = self.value(inst.operand)
                if self._scalar(inst.operand).is_float:
                    result = b.fneg(x, flags=self.fast)
                else:
                    result = b.sub(ll.Constant(x.type, 0), x)
            case ops.Abs():
                x = self.value(inst.operand)
                if self._scalar(inst.operand).is_float:
                    result = self._call_intrinsic("fabs", x)
                else:
                    negative = b.icmp_signed("<", x, ll.Constant(x.type, 0))
                    result = b.select(negative, b.sub(ll.Constant(x.type, 0), x), x)
            case ops.Not():
                result = self._truth(inst.operand)
                result = b.xor(result, ll.Constant(_I1, 1))
            case ops.Cmp():
                result = self._cmp(inst)
            case ops.MathCall():
                result = self._math(inst)
            case ops.Call():
                result = self._call(inst)
            case ops.Jump():
                b.branch(self.blocks[inst.target])
                result = None
            case ops.Branch():
                b.cbranch(
                    self.value(inst.cond), self.blocks[inst.if_true], self.blocks[inst.if_false]
                )
                result = None
            case ops.Return():
                self._return(inst)
                result = None
            case ops.Poison():  # no execution observes it: undef is a valid refinement
                result = ll.Constant(value_type(inst.type), ll.Undefined)
            case ops.Raise():
                if inst.exception not in ops.EXCEPTION_KINDS:
                    raise self.ice(f"unknown exception kind {inst.exception!r}")
                b.branch(self.raise_block(inst.exception, inst.message))
                result = None
            case (
                ops.ArrayDim()
                | ops.ElementAddr()
                | ops.ElementOffset()
                | ops.Addr()
                | ops.ArrayAddress()
                | ops.PointerAdd()
                | ops.Load()
                | ops.Store()
                | ops.NewArray()
                | ops.CopyArray()
                | ops.AccumulateArray()
                | ops.IncRef()
                | ops.DecRef()
            ):
                result = self.arrays.lower(inst)
            case ops.TapeNew() | ops.TapePush() | ops.TapePop() | ops.TapeFree():
                result = self.tape.lower(inst)
            case _:
                raise self.ice(f"no lowering for operation {inst.OPNAME!r}")
        if result is not None:
            if inst.name and not isinstance(result, ll.Constant) and not result.name:
                result.name = inst.name
            self.values[inst] = result

    # -- data -----------------------------------------------------------------------------

    def _const(self, inst: ops.Const) -> ll.Value:
        t = inst.type
        if isinstance(t, NoneType):
            return ll.Constant(_I8, 0)
        if not isinstance(t, ScalarType):
            raise self.ice(f"constant of non-scalar type {t}")
        ty = value_type(t)
        if t.is_float:
            return ll.Constant(ty, float(inst.value))
        v = int(inst.value)
        if t.bits == 1:
            return ll.Constant(ty, 1 if v else 0)
        half = 1 << (t.bits - 1)
        return ll.Constant(ty, (v + half) % (1 << t.bits) - half)  # two's complement wrap

    def _truth(self, v: Value) -> ll.Value:
        """``bool(v)`` as i1: ``!= 0`` (floats: unordered, so NaN is true as in Python)."""
        t = self._scalar(v)
        x = self.value(v)
        if t == I1:
            return x
        if t.is_float:
            return self.b.fcmp_unordered("!=", x, self._fconst(x.type, 0.0))
        return self.b.icmp_unsigned("!=", x, ll.Constant(x.type, 0))

    def _cast(self, inst: ops.Cast) -> ll.Value:
        """Python's conversions; float → int raises like ``int(x)`` (Objects/floatobject.c).

        A cast between array types only relabels the layout (C/F seen as A): no code.
        """
        b = self.b
        if isinstance(inst.value.type, ArrayType) and isinstance(inst.type, ArrayType):
            src_a, dst_a = inst.value.type, inst.type
            if (src_a.dtype, src_a.ndim) != (dst_a.dtype, dst_a.ndim):
                raise self.ice(f"array cast from {src_a} to {dst_a}")
            return self.value(inst.value)
        src = self._scalar(inst.value)
        dst = inst.type
        if not isinstance(dst, ScalarType):
            raise self.ice(f"cast to non-scalar type {dst}")
        x = self.value(inst.value)
        ty = value_type(dst)
        if src == dst:
            return x
        if dst == I1:
            return self._truth(inst.value)
        if src.is_int and dst.is_int:
            if src.bits < dst.bits:
                return b.zext(x, ty) if src == I1 else b.sext(x, ty)
            return b.trunc(x, ty)
        if src.is_int and dst.is_float:
            return b.uitofp(x, ty) if src == I1 else b.sitofp(x, ty)
        if src.is_float and dst.is_float:
            return b.fpext(x, ty) if src.bits < dst.bits else b.fptrunc(x, ty)
        # float -> int: checks in f64 (exact for f32 sources), then truncate toward zero.
        if src != F64:
            x = b.fpext(x, ll.DoubleType())
        self.raise_if(self._is_nan(x), "ValueError", "cannot convert float NaN to integer")
        self.raise_if(self._is_inf(x), "OverflowError", "cannot convert float infinity to integer")
        lo, hi = -(1 << (dst.bits - 1)), 1 << (dst.bits - 1)
        dbl = ll.DoubleType()
        if dst.bits >= 54:  # lo - 1 is not a double; no double lies strictly in (lo-1, lo)
            above = b.fcmp_ordered(">=", x, ll.Constant(dbl, float(lo)))
        else:
            above = b.fcmp_ordered(">", x, ll.Constant(dbl, float(lo - 1)))
        below = b.fcmp_ordered("<", x, ll.Constant(dbl, float(hi)))
        in_range = b.and_(above, below)
        self.raise_if(
            b.xor(in_range, ll.Constant(_I1, 1)), "OverflowError", "int too large to convert"
        )
        return b.fptosi(x, ty)

    # -- arithmetic -----------------------------------------------------------------------

    def _arith(self, inst: ops.BinaryOp) -> ll.Value:
        b = self.b
        t = self._scalar(inst.lhs)
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        if t.is_float:
            match inst:
                case ops.Add():
                    return b.fadd(x, y, flags=self.fast)
                case ops.Sub():
                    return b.fsub(x, y, flags=self.fast)
                case _:
                    return b.fmul(x, y, flags=self.fast)
        match inst:  # wrapping: no nsw/nuw (docs/abi.md)
            case ops.Add():
                return b.add(x, y)
            case ops.Sub():
                return b.sub(x, y)
            case _:
                return b.mul(x, y)

    def _div(self, inst: ops.Div) -> ll.Value:
        t = self._scalar(inst.lhs)
        if not t.is_float:
            raise self.ice(f"true division of {t} (inference converts ints to f64)")
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        is_zero = self.b.fcmp_ordered("==", y, self._fconst(y.type, 0.0))
        message = "division by zero" if inst.of_ints() else "float division by zero"
        self.raise_if(is_zero, "ZeroDivisionError", message)
        return self.b.fdiv(x, y, flags=self.fast)

    def _floordiv_mod(self, inst: ops.BinaryOp) -> ll.Value:
        t = self._scalar(inst.lhs)
        is_mod = isinstance(inst, ops.Mod)
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        if t.is_float:
            return self._float_floordiv_mod(x, y, is_mod)
        if t == I1:
            raise self.ice("floor division of bools (inference converts them to int)")
        return self._int_floordiv_mod(x, y, is_mod)

    def _int_floordiv_mod(self, x: ll.Value, y: ll.Value, is_mod: bool) -> ll.Value:
        """Python's ``//`` / ``%`` on wrapping ints (round toward -inf, sign of divisor).

        ``MIN // -1`` wraps to ``MIN`` and ``MIN % -1`` is 0; the divisor -1 is replaced
        by 1 before ``sdiv``/``srem`` (which are undefined there and trap on x86).
        """
        b = self.b
        ty = x.type
        zero, one, minus1 = ll.Constant(ty, 0), ll.Constant(ty, 1), ll.Constant(ty, -1)
        message = "integer modulo by zero" if is_mod else "integer division or modulo by zero"
        self.raise_if(b.icmp_signed("==", y, zero), "ZeroDivisionError", message)
        y_is_m1 = b.icmp_signed("==", y, minus1)
        safe_y = b.select(y_is_m1, one, y)
        r = b.srem(x, safe_y)
        # the C remainder has the sign of x; Python's has the sign of y
        fix = b.and_(
            b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero), name="fix"
        )
        if is_mod:
            return b.add(r, b.select(fix, y, zero))
        q = b.sdiv(x, safe_y)
        q = b.select(y_is_m1, b.sub(zero, x), q)
        return b.sub(q, b.zext(fix, ty))

    def _float_floordiv_mod(self, x: ll.Value, y: ll.Value, is_mod: bool) -> ll.Value:
        """CPython's ``float_rem`` / ``_float_div_mod`` (Objects/floatobject.c), branch-free.

        ::

            mod = fmod(vx, wx); div = (vx - mod) / wx
            if mod: if (wx < 0) != (mod < 0): mod += wx; div -= 1.0
            else: mod = copysign(0.0, wx)
            if div: floordiv = floor(div); if div - floordiv > 0.5: floordiv += 1.0
            else: floordiv = copysign(0.0, vx / wx)

        No fast-math flags here: the sign and NaN cases are the point.
        """
        b = self.b
        ty = x.type
        zero, one, half = self._fconst(ty, 0.0), self._fconst(ty, 1.0), self._fconst(ty, 0.5)
        message = "float modulo" if is_mod else "float floor division by zero"
        self.raise_if(b.fcmp_ordered("==", y, zero), "ZeroDivisionError", message)
        mod = b.frem(x, y, name="fmod")
        mod_nonzero = b.fcmp_unordered("!=", mod, zero)
        signs_differ = b.xor(b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero))
        adjust = b.and_(mod_nonzero, signs_differ)
        if is_mod:
            adjusted = b.select(adjust, b.fadd(mod, y), mod)
            return b.select(mod_nonzero, adjusted, self._call_intrinsic("copysign", zero, y))
        div = b.fdiv(b.fsub(x, mod), y, name="div")
        div = b.select(adjust, b.fsub(div, one), div)
        floor = self._call_intrinsic("floor", div)
        snapped = b.select(b.fcmp_ordered(">", b.fsub(div, floor), half), b.fadd(floor, one), floor)
        signed_zero = self._call_intrinsic("copysign", zero, b.fdiv(x, y))
        return b.select(b.fcmp_unordered("!=", div, zero), snapped, signed_zero)

    def _pow(self, inst: ops.Pow) -> ll.Value:
        b = self.b
        t = self._scalar(inst.lhs)
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        if t == I1:
            raise self.ice("power of bools (inference converts them to int)")
        if not t.is_float:
            negative = b.icmp_signed("<", y, ll.Constant(y.type, 0))
            # CPython computes ``0 ** -n`` as a float power and raises; other negative
            # exponents give a float, which gradc's static int type cannot hold
            zero_base = b.and_(negative, b.icmp_signed("==", x, ll.Constant(x.type, 0)))
            self.raise_if(zero_base, "ZeroDivisionError", _ZERO_NEGATIVE_POW)
            self.raise_if(negative, "ValueError", _NEGATIVE_INT_POW)
            return b.call(self.ml.ipow(x.type), [x, y])
        return self._float_pow(x, y)

    def _float_pow(self, x: ll.Value, y: ll.Value) -> ll.Value:
        """Python's ``x ** y`` on floats: CPython ``float_pow`` (Objects/floatobject.c).

        C99 Annex F ``pow`` already returns CPython's values for every non-raising
        special case (``x**0 == 1``, ``1**nan == 1``, ``(-1)**±inf == 1``, infinities);
        the checks are CPython's three exceptions, tested on the operands:

        - ``0.0 ** y`` with finite ``y < 0``: ZeroDivisionError;
        - finite ``x < 0`` with finite non-integer ``y``: ValueError (CPython returns a
          complex number, which gradc's static types cannot);
        - an infinite result from finite operands: OverflowError (``errno == ERANGE``
          raised by ``PyErr_SetFromErrno``, whose message is ``(34, '...')``).
        """
        b = self.b
        ty = x.type
        zero = self._fconst(ty, 0.0)
        y_finite = self._is_finite(y)
        x_finite = self._is_finite(x)
        zero_neg = b.and_(
            b.fcmp_ordered("==", x, zero), b.and_(b.fcmp_ordered("<", y, zero), y_finite)
        )
        self.raise_if(zero_neg, "ZeroDivisionError", _ZERO_NEGATIVE_POW)
        y_fraction = b.fcmp_ordered("!=", y, self._call_intrinsic("floor", y))
        negative_fraction = self.all_of(
            [b.fcmp_ordered("<", x, zero), x_finite, y_finite, y_fraction]
        )
        self.raise_if(
            negative_fraction,
            "ValueError",
            "negative number cannot be raised to a fractional power",
        )
        r = self._libm_pow(x, y)
        overflow = self.all_of([self._is_inf(r), x_finite, y_finite])
        self.raise_if(overflow, "OverflowError", "(34, 'Numerical result out of range')")
        return r

    def _min_max(self, inst: ops.BinaryOp) -> ll.Value:
        """``min``: ``rhs if rhs < lhs else lhs``; ``max``: ``rhs if rhs > lhs else lhs``.

        Exactly Python's builtins on two arguments (Python/bltinmodule.c ``min_max``
        keeps the first item unless a later one compares strictly better), so NaN and
        signed zeros come out as in CPython; LLVM's ``minnum`` would not.
        """
        b = self.b
        t = self._scalar(inst.lhs)
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        op = "<" if isinstance(inst, ops.Min) else ">"
        if t.is_float:
            better = b.fcmp_ordered(op, y, x)
        elif t == I1:
            better = b.icmp_unsigned(op, y, x)
        else:
            better = b.icmp_signed(op, y, x)
        return b.select(better, y, x)

    def _cmp(self, inst: ops.Cmp) -> ll.Value:
        b = self.b
        t = self._scalar(inst.lhs)
        x, y = self.value(inst.lhs), self.value(inst.rhs)
        if inst.pred not in _ICMP:
            raise self.ice(f"unknown comparison {inst.pred!r}")
        if t.is_float:
            kind, op = _FCMP[inst.pred]
            if kind == "ordered":
                return b.fcmp_ordered(op, x, y)
            return b.fcmp_unordered(op, x, y)
        if t == I1:
            return b.icmp_unsigned(_ICMP[inst.pred], x, y)
        return b.icmp_signed(_ICMP[inst.pred], x, y)

    # -- math -------------------------------------------------------------------------------

    def _math(self, inst: ops.MathCall) -> ll.Value:
        """A ``math`` function with CPython's error rules (Modules/mathmodule.c).

        ``math_1``/``math_2``: a NaN result from non-NaN arguments is ValueError("math
        domain error"); an infinite result from finite arguments is ValueError for
        ``check == "domain"`` and OverflowError("math range error") for ``"overflow"``.
        ``gamma``/``lgamma`` (CPython's ``m_tgamma``/``m_lgamma``) also raise ValueError
        at the non-positive integers, where libm returns a pole. ``math.pow`` follows
        ``math_pow``: for finite arguments a NaN result, or an infinite one from a zero
        base, is ValueError; any other infinite result is OverflowError.
        """
        b = self.b
        fn = ops.MATH_FUNCTIONS.get(inst.fn)
        if fn is None:
            raise self.ice(f"unknown math function {inst.fn!r}")
        if len(inst.args) != fn.arity:
            raise self.ice(f"math.{fn.name} takes {fn.arity} arguments")
        for a in inst.args:
            if not self._scalar(a).is_float:
                raise self.ice(f"math.{fn.name} of {a.type} (inference converts to f64)")
        args = [self.value(a) for a in inst.args]
        x = args[0]
        ty = x.type
        match fn.name:
            case "isnan":
                return self._is_nan(x)
            case "isinf":
                return self._is_inf(x)
            case "isfinite":
                return self._is_finite(x)
            case "ieee_pow":  # C pow, no Python checks (derivative code)
                return self._call_intrinsic("pow", *args)
            case name if name.startswith("ieee_"):  # ieee_log etc.: C's result, no checks
                return self._call_intrinsic(name.removeprefix("ieee_"), *args)
            case "digamma":  # derivative code of gamma/lgamma
                return emit_digamma(
                    b, x, self._call_intrinsic, lambda v: b.call(self.ml.libm("tan", ty, 1), [v])
                )
        if fn.name in ("gamma", "lgamma"):
            zero = self._fconst(ty, 0.0)
            pole = self.all_of(
                [
                    b.fcmp_ordered("<=", x, zero),
                    self._is_finite(x),
                    b.fcmp_ordered("==", x, self._call_intrinsic("floor", x)),
                ]
            )
            self.raise_if(pole, "ValueError", _DOMAIN_ERROR)
        if fn.name == "sqrt":
            # the domain rule, decided on the argument: only x < 0 (not -0.0, not NaN)
            # gives NaN from non-NaN, and sqrt of a finite number is finite
            negative = b.fcmp_ordered("<", x, self._fconst(ty, 0.0))
            self.raise_if(negative, "ValueError", _DOMAIN_ERROR)
            return self._call_intrinsic("sqrt", x)
        if fn.name == "pow":
            r = self._libm_pow(*args)
        elif fn.libm:  # no LLVM intrinsic: the libm function (``f`` suffix for f32)
            r = b.call(self.ml.libm(fn.libm, ty, fn.arity), args)
        else:
            r = self._call_intrinsic(fn.name, *args)
        if fn.check == "none":
            return r
        if fn.check == "pow":
            finite = self.all_of([self._is_finite(a) for a in args])
            self.raise_if(b.and_(finite, self._is_nan(r)), "ValueError", _DOMAIN_ERROR)
            inf = b.and_(finite, self._is_inf(r))
            x_zero = b.fcmp_ordered("==", x, self._fconst(ty, 0.0))
            self.raise_if(b.and_(inf, x_zero), "ValueError", _DOMAIN_ERROR)
            self.raise_if(inf, "OverflowError", _RANGE_ERROR)
            return r
        if fn.check not in ("domain", "overflow"):
            raise self.ice(f"unknown math check {fn.check!r}")
        no_nan_in = b.xor(self.any_of([self._is_nan(a) for a in args]), ll.Constant(_I1, 1))
        self.raise_if(b.and_(self._is_nan(r), no_nan_in), "ValueError", _DOMAIN_ERROR)
        finite_in = self.all_of([self._is_finite(a) for a in args])
        inf_from_finite = b.and_(self._is_inf(r), finite_in)
        if fn.check == "overflow":
            self.raise_if(inf_from_finite, "OverflowError", _RANGE_ERROR)
        else:
            self.raise_if(inf_from_finite, "ValueError", _DOMAIN_ERROR)
        return r

    # -- calls and returns ------------------------------------------------------------------

    def _call(self, inst: ops.Call) -> ll.Value:
        """Call by the ABI; a nonzero status is returned unchanged (``*err`` is filled)."""
        b = self.b
        callee = self.ml.module.functions[inst.callee]
        llcallee = self.ml.functions[inst.callee]
        if len(inst.args) != len(callee.params):
            raise self.ice(f"call of {inst.callee!r} with {len(inst.args)} arguments")
        args = []
        for a, p in zip(inst.args, callee.params):
            if isinstance(p.type, ArrayType):  # by pointer to a descriptor in a stack slot
                slot = self.prologue.alloca(value_type(p.type), name=f"{inst.callee}.arg")
                b.store(self.value(a), slot, align=8)
                args.append(slot)
            else:
                args.append(self._to_abi(b, self.value(a), p.type))
        slot = self.prologue.alloca(abi_type(callee.return_type), name=f"{inst.callee}.out")
        self.tape.before_call(inst)
        status = b.call(llcallee, [*args, slot, self.err], name=f"{inst.callee}.status")
        failed = b.icmp_signed("!=", status, ll.Constant(_I32, 0))
        propagate = self.llfn.append_basic_block(f"propagate.{inst.callee}")
        ll.IRBuilder(propagate).ret(status)
        ok = self.llfn.append_basic_block(self.continuation())
        b.cbranch(failed, self.unwind_to(propagate), ok).set_weights([1, 1 << 20])
        b.position_at_end(ok)
        self.tape.after_call(inst)
        if isinstance(callee.return_type, NoneType):
            return ll.Constant(_I8, 0)
        return self._from_abi(b, b.load(slot), callee.return_type)

    def _return(self, inst: ops.Return) -> None:
        b = self.b
        rt = self.func.return_type
        if not isinstance(rt, NoneType):
            if inst.value is None:
                raise self.ice(f"return without a value from a function returning {rt}")
            b.store(self._to_abi(b, self.value(inst.value), rt), self.out)
        self.tape.before_return()
        b.ret(ll.Constant(_I32, 0))
