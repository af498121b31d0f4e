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

This module declares the functions and holds what they share (:class:`ModuleLowering`);
each body is lowered by :class:`.lower_function.FunctionLowering`, one rule per operation
in :data:`.dispatch.LOWERING`: :mod:`.lower_scalar` (constants, casts, tuples,
comparisons), :mod:`.lower_arith`, :mod:`.lower_bitwise`, :mod:`.lower_math`, :mod:`.lower_control` (calls,
returns, branches). Arrays (descriptors by value inside functions, a descriptor pointer
per array parameter, owned blocks from the ``gradc_rt1_*`` runtime) are lowered by
:mod:`.arrays` and :mod:`.array_alloc`; the reverse-mode tape (a pointer to a runtime
stack, inline push/pop) by :mod:`.tape`. LLVM types of IR types: :mod:`.lltypes`.

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

# the rule modules register their operations in LOWERING when imported
from gradc.artifacts.abi.layout import ERROR_DATA_WORDS, ERROR_TYPE_NAME
from gradc.compiler.codegen import (  # noqa: F401
    array_alloc,
    arrays,
    lower_arith,
    lower_bitwise,
    lower_control,
    lower_gpu,
    lower_math,
    lower_scalar,
    lower_views,
    tape,
)
from gradc.compiler.codegen.lltypes import abi_type, param_type, value_type
from gradc.compiler.codegen.lower_function import FunctionLowering
from gradc.compiler.codegen.sites import site_numbers
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Instruction, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import TupleType
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
    return ModuleLowering(module, options, site_numbers(module, export)).run(export, symbol)


class ModuleLowering:
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
        #: lowering for the NVPTX back end (``compiler/codegen/cuda.py``)
        self.gpu = False

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
            FunctionLowering(self, self.module.functions[name], self.functions[name]).run()
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
        """The LLVM intrinsic ``llvm.<name>.<f32|f64>`` on float type ``ty`` (for the GPU,
        libdevice's function unless NVPTX implements the intrinsic: ``lower_gpu``)."""
        if self.gpu and name not in lower_gpu.NVPTX_INTRINSICS:
            return lower_gpu.libdevice(self, name, ty, nargs)
        suffix = "f64" if isinstance(ty, ll.DoubleType) else "f32"
        return self.declare(f"llvm.{name}.{suffix}", ty, [ty] * nargs, readnone=False)

    def libm(self, name: str, ty: ll.Type, nargs: int) -> ll.Function:
        """The C math library function ``name`` (``namef`` for f32; for the GPU,
        libdevice's ``__nv_name``)."""
        if self.gpu:
            return lower_gpu.libdevice(self, name, ty, nargs)
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
