"""The fast call path: a CPython ``METH_FASTCALL`` wrapper per export (DESIGN.md §6).

:func:`emit_wrapper` builds, at build time, a second small object per export whose one
function is a CPython method::

    PyObject *gradcpy_<NAME>_<key16>(PyObject *self, PyObject *const *args,
                                     Py_ssize_t nargs, PyObject *kwnames);
                                     /* METH_FASTCALL | METH_KEYWORDS */

It unboxes the arguments, calls the export's C-ABI entry (docs/abi.md; the entry symbol
is only *declared* here and resolves against the export's own object in the same JIT
library), and boxes the result. It uses only functions of CPython's stable ABI
(``PyObject_Vectorcall`` joined it in 3.12 and is exported by every CPython >= 3.9),
resolved by name by the loader, which imports their addresses from the running
interpreter, and never touches an object's fields, so one object works with every
CPython >= 3.11:

=========================== ==========================================================
``f64`` / ``f32`` argument  ``PyFloat_AsDouble`` (``fptrunc`` for f32)
``i64`` / ``i32`` argument  ``PyLong_AsLongLong`` (range-checked for i32)
``bool`` argument           ``args[k] == Py_True`` / ``== Py_False``
float result                ``PyFloat_FromDouble``
int result                  ``PyLong_FromLongLong``
``bool`` result             ``PyBool_FromLong``
``None`` result             ``Py_None`` with ``Py_IncRef``
tuple result                ``PyTuple_New`` + ``PyTuple_SetItem`` (nested tuples nest)
=========================== ==========================================================

**Slow path.** ``self`` is the loader's Python object for the export: calling it runs the
full ctypes path (argument binding, validation with errors that name the parameter). The
wrapper hands the whole call to it, unchanged, with ``PyObject_Vectorcall(self, args,
nargs, kwnames)`` whenever the fast path cannot take it: keyword arguments, a wrong
argument count, or an argument that does not unbox (the pending exception is cleared
first: the slow path raises its own, named one). Nothing has run yet then, so the call
happens exactly once.

**Errors.** A nonzero status calls ``self._gradc_raise(status, address_of_err)``, which
reads the error record (docs/abi.md) while it is still on the wrapper's stack and raises
the Python exception; the wrapper returns NULL.

**Arrays** (:mod:`.pywrapper_arrays`): an ``np.ndarray`` argument becomes a borrowed
descriptor read from the array's fields, checked (type, dtype, rank, layout, writability)
first, else the slow path; owned array results become NumPy arrays over their runtime
blocks. Such wrappers also import ``gradc.artifacts.abi.ndarray.NUMPY_SYMBOLS`` and
``gradc_rt1_decref``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from llvmlite import ir as ll

from gradc.artifacts.abi.layout import ERROR_DATA_WORDS, STATUS_OK
from gradc.artifacts.abi.ndarray import NUMPY_SYMBOLS
from gradc.artifacts.abi.symbols import (
    PYTHON_API_DATA,
    PYTHON_API_FUNCTIONS,
    RAISE_ATTRIBUTE,
    wrapper_symbol,
)
from gradc.artifacts.abi.types import AbiType, Array, Scalar, Tuple, parse_type
from gradc.compiler.codegen.emit import add_abi_description, emit_object
from gradc.compiler.codegen.pywrapper_arrays import (
    ARRAY_FUNCTIONS,
    ArrayResult,
    BoxArray,
    branch_if_all,
    descriptor_type,
    unbox_array,
)
from gradc.compiler.codegen.size_policy import FINAL_FORM
from gradc.compiler.options import CompilerOptions

__all__ = [
    "PYTHON_API_DATA",
    "PYTHON_API_FUNCTIONS",
    "PYTHON_API_SYMBOLS",
    "RAISE_ATTRIBUTE",
    "emit_wrapper",
    "wrapper_module",
    "wrapper_symbol",
]

#: Every symbol a wrapper object may leave undefined besides its entry (the relocatable
#: check): CPython's, and for arrays NumPy's and the runtime's ``gradc_rt1_decref``.
PYTHON_API_SYMBOLS: frozenset[str] = (
    frozenset(PYTHON_API_FUNCTIONS)
    | frozenset(PYTHON_API_DATA)
    | frozenset(NUMPY_SYMBOLS)
    | frozenset(ARRAY_FUNCTIONS)
)

_I1 = ll.IntType(1)
_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_F64 = ll.DoubleType()
_F32 = ll.FloatType()
_OBJ = _I8.as_pointer()  # PyObject *
_ERR = ll.LiteralStructType([_I32, _I32, _I8.as_pointer(), ll.ArrayType(_I64, ERROR_DATA_WORDS)])

_SCALAR_ABI: dict[str, ll.Type] = {
    "f64": _F64,
    "f32": _F32,
    "i64": _I64,
    "i32": _I32,
    "bool": _I8,
    "none": _I8,
}


class _ParamLike(Protocol):
    @property
    def type(self) -> str: ...
    @property
    def writes(self) -> bool: ...


class SignatureLike(Protocol):
    """``gradc.compiler.driver.Signature``: parameter and result type strings."""

    @property
    def params(self) -> Iterable[_ParamLike]: ...
    @property
    def result(self) -> str: ...


def _abi(t: AbiType) -> ll.Type:
    """The LLVM type of a value at the C ABI (a tuple is a struct of its elements, an array
    its descriptor)."""
    if isinstance(t, Array):
        return descriptor_type(t.ndim)
    if isinstance(t, Tuple):
        return ll.LiteralStructType([_abi(e) for e in t.elements])
    assert isinstance(t, Scalar)
    return _SCALAR_ABI[t.name]


class _Api:
    """Declarations of the CPython functions and data of one wrapper module."""

    def __init__(self, mod: ll.Module) -> None:
        self.mod = mod
        self._fns: dict[str, ll.Function] = {}
        sigs: dict[str, tuple[ll.Type, list[ll.Type]]] = {
            "PyBool_FromLong": (_OBJ, [_I64]),
            "PyErr_Clear": (ll.VoidType(), []),
            "PyErr_Occurred": (_OBJ, []),
            "PyFloat_AsDouble": (_F64, [_OBJ]),
            "PyFloat_FromDouble": (_OBJ, [_F64]),
            "PyLong_AsLongLong": (_I64, [_OBJ]),
            "PyLong_FromLongLong": (_OBJ, [_I64]),
            "PyLong_FromVoidPtr": (_OBJ, [_I8.as_pointer()]),
            "PyObject_GetAttrString": (_OBJ, [_OBJ, _I8.as_pointer()]),
            "PyObject_Vectorcall": (_OBJ, [_OBJ, _OBJ.as_pointer(), _I64, _OBJ]),
            "PyTuple_New": (_OBJ, [_I64]),
            "PyTuple_SetItem": (_I32, [_OBJ, _I64, _OBJ]),
            "Py_DecRef": (ll.VoidType(), [_OBJ]),
            "Py_IncRef": (ll.VoidType(), [_OBJ]),
        }
        assert set(sigs) == set(PYTHON_API_FUNCTIONS)
        self._sigs = {**sigs, **ARRAY_FUNCTIONS}
        self._data: dict[str, ll.GlobalVariable] = {}

    def __call__(self, b: ll.IRBuilder, name: str, args: Sequence[ll.Value]) -> ll.Value:
        fn = self._fns.get(name)
        if fn is None:
            ret, params = self._sigs[name]
            fn = ll.Function(self.mod, ll.FunctionType(ret, params), name=name)
            self._fns[name] = fn
        return b.call(fn, list(args))

    def data(self, name: str) -> ll.Value:
        gv = self._data.get(name)
        if gv is None:
            assert name in PYTHON_API_DATA or name in NUMPY_SYMBOLS
            gv = ll.GlobalVariable(self.mod, _I8, name=name)
            gv.linkage = "external"
            self._data[name] = gv
        return gv


def wrapper_module(signature: SignatureLike, symbol: str) -> ll.Module | None:
    """The wrapper of entry ``symbol`` as an LLVM module (see the module docstring for the
    function it defines); None for tuple parameters (the code generator refuses them)."""
    params = list(signature.params)
    ptypes = [parse_type(p.type, "a signature") for p in params]
    result = parse_type(signature.result, "a signature")
    if any(isinstance(p, Tuple) for p in ptypes):
        return None
    mod = ll.Module(name=wrapper_symbol(symbol), context=ll.Context())
    mod.add_named_metadata(FINAL_FORM)  # generated as -O2 would leave it: no middle end
    api = _Api(mod)
    out_type = _abi(result)
    entry_params = [_abi(p).as_pointer() if isinstance(p, Array) else _abi(p) for p in ptypes]
    entry = ll.Function(
        mod,
        ll.FunctionType(_I32, [*entry_params, out_type.as_pointer(), _ERR.as_pointer()]),
        name=symbol,
    )
    fn = ll.Function(
        mod,
        ll.FunctionType(_OBJ, [_OBJ, _OBJ.as_pointer(), _I64, _OBJ]),
        name=wrapper_symbol(symbol),
    )
    self_, args, nargs, kwnames = fn.args
    self_.name, args.name, nargs.name, kwnames.name = "self", "args", "nargs", "kwnames"

    b = ll.IRBuilder(fn.append_basic_block("entry"))
    slow = fn.append_basic_block("slow")
    slow_clear = fn.append_basic_block("slow.clear")
    out = b.alloca(out_type, name="out")
    err = b.alloca(_ERR, name="err")
    argv = b.alloca(_OBJ, size=2, name="argv")  # for the error path's call
    descs = {
        k: b.alloca(_abi(t), name=f"desc{k}") for k, t in enumerate(ptypes) if isinstance(t, Array)
    }
    positional = [
        lambda: b.icmp_unsigned("==", kwnames, ll.Constant(_OBJ, None)),
        lambda: b.icmp_signed("==", nargs, ll.Constant(_I64, len(ptypes))),
    ]
    first = fn.append_basic_block("unbox")
    branch_if_all(b, positional, first, slow)
    b.position_at_end(first)

    values: list[ll.Value] = []
    for k, t in enumerate(ptypes):
        obj = b.load(b.gep(args, [ll.Constant(_I64, k)]), name=f"arg{k}")
        if isinstance(t, Array):
            unbox_array(b, api, t, obj, k, slow, descs[k], params[k].writes)
            values.append(descs[k])
        else:
            values.append(_unbox(b, api, fn, t, obj, k, slow, slow_clear))

    status = b.call(entry, [*values, out, err], name="status")
    ok = fn.append_basic_block("box")
    failed = fn.append_basic_block("raise")
    b.cbranch(b.icmp_signed("==", status, ll.Constant(_I32, STATUS_OK)), ok, failed)

    b.position_at_end(ok)
    b.ret(_box_result(b, api, result, out, (self_, args, len(ptypes))))

    b.position_at_end(failed)
    b.ret(_raise(b, api, mod, self_, status, err, argv))

    b.position_at_end(slow_clear)
    api(b, "PyErr_Clear", [])
    b.branch(slow)
    b.position_at_end(slow)
    handed_over = api(b, "PyObject_Vectorcall", [self_, args, nargs, kwnames])
    assert isinstance(handed_over, ll.CallInstr)
    handed_over.tail = "tail"  # a sibling call (jmp): reads no alloca of the wrapper
    b.ret(handed_over)
    for block in (slow_clear, slow):  # last: the fast path falls through (-O0 code layout)
        fn.blocks.remove(block)
        fn.blocks.append(block)
    return mod


def _box_result(
    b: ll.IRBuilder,
    api: _Api,
    result: AbiType,
    out: ll.Value,
    call: tuple[ll.Value, ll.Value, int],
) -> ll.Value:
    """A new reference to the Python object of the entry's result in ``out`` (NULL with an
    exception set); ``call`` is the wrapper's ``(self, args, nargs)``."""
    if not result.holds_arrays:
        return _box(b, api, b.function, result, b.load(out))
    arrays = ArrayResult(b, api, result, out)
    arrays.begin(*call)
    value = _box(b, api, b.function, result, b.load(out), arrays.box)
    arrays.finish()
    return value


def _unbox(
    b: ll.IRBuilder,
    api: _Api,
    fn: ll.Function,
    t: AbiType,
    obj: ll.Value,
    k: int,
    slow: ll.Block,
    slow_clear: ll.Block,
) -> ll.Value:
    """The C value of argument ``obj``; branches to the slow path when it does not unbox."""
    nxt = fn.append_basic_block(f"unbox.{k + 1}")
    text = str(t)
    if text == "bool":
        is_true = b.icmp_unsigned("==", obj, api.data("_Py_TrueStruct"))
        is_false = b.icmp_unsigned("==", obj, api.data("_Py_FalseStruct"))
        b.cbranch(b.or_(is_true, is_false), nxt, slow)
        b.position_at_end(nxt)
        return b.zext(is_true, _I8)
    if text in ("f64", "f32"):
        x = api(b, "PyFloat_AsDouble", [obj])
        maybe_error = b.fcmp_ordered("==", x, ll.Constant(_F64, -1.0))
    else:
        x = api(b, "PyLong_AsLongLong", [obj])
        maybe_error = b.icmp_signed("==", x, ll.Constant(_I64, -1))
    check = fn.append_basic_block(f"unbox.{k}.check")
    b.cbranch(maybe_error, check, nxt)
    b.position_at_end(check)
    occurred = api(b, "PyErr_Occurred", [])
    b.cbranch(b.icmp_unsigned("!=", occurred, ll.Constant(_OBJ, None)), slow_clear, nxt)
    b.position_at_end(nxt)
    if text == "f32":
        return b.fptrunc(x, _F32)
    if text == "i32":
        narrow = b.trunc(x, _I32)
        in_range = fn.append_basic_block(f"unbox.{k}.i32")
        b.cbranch(b.icmp_signed("==", b.sext(narrow, _I64), x), in_range, slow)  # else Overflow
        b.position_at_end(in_range)
        return narrow
    return x


def _box(
    b: ll.IRBuilder,
    api: _Api,
    fn: ll.Function,
    t: AbiType,
    value: ll.Value,
    box_array: BoxArray | None = None,
    path: tuple[int, ...] = (),
) -> ll.Value:
    """A new reference to the Python object of C ``value`` (NULL with an exception set);
    the array at index path ``path`` is ``box_array(path)``."""
    if isinstance(t, Array):
        assert box_array is not None
        return box_array(path)
    text = str(t)
    if text in ("f64", "f32"):
        x = b.fpext(value, _F64) if text == "f32" else value
        return api(b, "PyFloat_FromDouble", [x])
    if text in ("i64", "i32"):
        return api(b, "PyLong_FromLongLong", [b.sext(value, _I64) if text == "i32" else value])
    if text == "bool":
        return api(b, "PyBool_FromLong", [b.zext(value, _I64)])
    if text == "none":
        none = api.data("_Py_NoneStruct")
        api(b, "Py_IncRef", [none])
        return none
    # tuple: boxing an element may fail (MemoryError): drop the tuple and pass NULL on
    assert isinstance(t, Tuple)
    tup = api(b, "PyTuple_New", [ll.Constant(_I64, len(t.elements))])
    null = ll.Constant(_OBJ, None)
    done = fn.append_basic_block("tuple.done")
    fill = fn.append_basic_block("tuple.fill")
    incoming = [(null, b.block)]
    b.cbranch(b.icmp_unsigned("==", tup, null), done, fill)
    b.position_at_end(fill)
    for i, e in enumerate(t.elements):
        item = _box(b, api, fn, e, b.extract_value(value, i), box_array, (*path, i))
        fail = fn.append_basic_block(f"tuple.item{i}.fail")
        nxt = fn.append_basic_block(f"tuple.item{i}.ok")
        b.cbranch(b.icmp_unsigned("==", item, null), fail, nxt)
        b.position_at_end(fail)
        api(b, "Py_DecRef", [tup])
        incoming.append((null, b.block))
        b.branch(done)
        b.position_at_end(nxt)
        api(b, "PyTuple_SetItem", [tup, ll.Constant(_I64, i), item])  # steals item
    incoming.append((tup, b.block))
    b.branch(done)
    b.position_at_end(done)
    phi = b.phi(_OBJ, name="tuple")
    for v, block in incoming:
        phi.add_incoming(v, block)
    return phi


def _raise(
    b: ll.IRBuilder,
    api: _Api,
    mod: ll.Module,
    self_: ll.Value,
    status: ll.Value,
    err: ll.Value,
    argv: ll.Value,
) -> ll.Value:
    """``self._gradc_raise(status, &err)``; returns NULL (the exception is set)."""
    name = bytearray(RAISE_ATTRIBUTE.encode()) + b"\0"
    gv = ll.GlobalVariable(mod, ll.ArrayType(_I8, len(name)), name=".raise_attribute")
    gv.linkage = "private"
    gv.global_constant = True
    gv.initializer = ll.Constant(ll.ArrayType(_I8, len(name)), name)
    null = ll.Constant(_OBJ, None)
    fn = b.function
    method = api(b, "PyObject_GetAttrString", [self_, b.bitcast(gv, _I8.as_pointer())])
    have_method = fn.append_basic_block("raise.call")
    give_up = fn.append_basic_block("raise.null")
    b.cbranch(b.icmp_unsigned("==", method, null), give_up, have_method)
    b.position_at_end(have_method)
    code = api(b, "PyLong_FromLongLong", [b.sext(status, _I64)])
    where = api(b, "PyLong_FromVoidPtr", [b.bitcast(err, _I8.as_pointer())])
    b.store(code, argv)
    b.store(where, b.gep(argv, [ll.Constant(_I64, 1)]))
    both = b.and_(b.icmp_unsigned("!=", code, null), b.icmp_unsigned("!=", where, null))
    call = fn.append_basic_block("raise.vectorcall")
    cleanup = fn.append_basic_block("raise.cleanup")
    b.cbranch(both, call, cleanup)
    b.position_at_end(call)
    returned = api(b, "PyObject_Vectorcall", [method, argv, ll.Constant(_I64, 2), null])
    drop = fn.append_basic_block("raise.drop")
    b.cbranch(b.icmp_unsigned("!=", returned, null), drop, cleanup)
    b.position_at_end(drop)
    api(b, "Py_DecRef", [returned])  # the raiser always raises; never reached in practice
    b.branch(cleanup)
    b.position_at_end(cleanup)
    for obj in (code, where):
        has = fn.append_basic_block("raise.decref")
        after = fn.append_basic_block("raise.next")
        b.cbranch(b.icmp_unsigned("!=", obj, null), has, after)
        b.position_at_end(has)
        api(b, "Py_DecRef", [obj])
        b.branch(after)
        b.position_at_end(after)
    api(b, "Py_DecRef", [method])
    b.branch(give_up)
    b.position_at_end(give_up)
    return null


def emit_wrapper(
    signature: SignatureLike, symbol: str, options: CompilerOptions, description: bytes = b""
) -> bytes:
    """The wrapper object of the export whose C-ABI entry is ``symbol`` (``b""`` for tuple
    parameters, which the code generator refuses anyway).

    ``signature`` is the export's ``gradc.compiler.driver.Signature``; ``options`` give the
    CPU and optimisation level (as for the entry's own object). The object defines
    :func:`wrapper_symbol` ``(symbol)`` and, given ``description`` (the encoded ABI
    description of the wrapper, ``gradc.artifacts.abi.description``), its ``__gradc_abi_`` symbol; it
    refers to ``symbol`` and to :data:`PYTHON_API_SYMBOLS` only. Deterministic like every
    emitted object.
    """
    mod = described_wrapper_module(signature, symbol, description)
    return b"" if mod is None else emit_object(mod, options).object_code


def described_wrapper_module(
    signature: SignatureLike, symbol: str, description: bytes = b""
) -> ll.Module | None:
    """The LLVM module :func:`emit_wrapper` emits: :func:`wrapper_module` with the ABI
    ``description`` of the wrapper added (when given); None for tuple parameters."""
    mod = wrapper_module(signature, symbol)
    if mod is not None and description:
        add_abi_description(mod, wrapper_symbol(symbol), description)
    return mod
