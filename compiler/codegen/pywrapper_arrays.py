"""Arrays in fast-call wrappers (docs/abi.md "Fast call path"): unboxing an ``np.ndarray``
argument into a borrowed ``gradc_array_N`` descriptor, and boxing owned array results
as NumPy arrays over the runtime block, without copying.

**Arguments.** An argument takes the fast path when it is exactly an ``np.ndarray`` (its
``ob_type`` is ``gradcnp_ndarray``) whose ``descr`` is the canonical dtype of the
parameter (``gradcnp_dtype_<T>``), whose ``nd`` is the parameter's rank, and whose
``flags`` have the bits the parameter needs (C- or F-contiguous for ``[::1]`` layouts,
WRITEABLE for a parameter the export writes). Anything else (a list, a subclass, an
equal but not canonical dtype such as ``np.longlong``, a wrong rank or layout, a read-only
array) goes, before anything has run, to the slow path, which raises today's errors
naming the parameter or converts what it accepts. The fields are read where NumPy's
``PyArray_*`` macros read them (``gradc.artifacts.abi.ndarray``).

**Results.** When every array of the result is owned (``meminfo`` not NULL), the wrapper
makes for each an ``ArrayOwner(runtime, meminfo, None)`` (it releases the block when
collected) and then the array with NumPy's ``PyArray_NewFromDescr`` over the block's
data, shape and strides, whose base ``PyArray_SetBaseObject`` makes the owner. A result
holding a borrowed array (``meminfo`` NULL: the export returned an argument) is read by
the loader instead, ``self._gradc_result(address_of_out, *args)``, which finds the
argument it lies in as the ctypes path does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from llvmlite import ir as ll

from gradc.artifacts.abi.ndarray import (
    FIELD_OFFSETS,
    NPY_ARRAY_C_CONTIGUOUS,
    NPY_ARRAY_F_CONTIGUOUS,
    NPY_ARRAY_WRITEABLE,
    OB_TYPE_OFFSET,
    dtype_symbol,
)
from gradc.artifacts.abi.symbols import RESULT_ATTRIBUTE, RUNTIME_DECREF
from gradc.artifacts.abi.types import AbiType, Array, Tuple

__all__ = [
    "ARRAY_FUNCTIONS",
    "ArrayResult",
    "array_leaves",
    "branch_if_all",
    "descriptor_type",
    "unbox_array",
]

_I8 = ll.IntType(8)
_I32 = ll.IntType(32)
_I64 = ll.IntType(64)
_OBJ = _I8.as_pointer()
_I64P = _I64.as_pointer()

#: Functions an array wrapper may call beyond CPython's: name -> (result, parameters).
ARRAY_FUNCTIONS: dict[str, tuple[ll.Type, list[ll.Type]]] = {
    "gradcnp_NewFromDescr": (_OBJ, [_OBJ, _OBJ, _I32, _I64P, _I64P, _OBJ, _I32, _OBJ]),
    "gradcnp_SetBaseObject": (_I32, [_OBJ, _OBJ]),
    RUNTIME_DECREF: (ll.VoidType(), [_OBJ]),
}


class ApiLike(Protocol):
    """``pywrapper._Api``: calls CPython (and :data:`ARRAY_FUNCTIONS`) by name."""

    mod: ll.Module

    def __call__(self, b: ll.IRBuilder, name: str, args: Sequence[ll.Value]) -> ll.Value: ...
    def data(self, name: str) -> ll.Value: ...


def descriptor_type(ndim: int) -> ll.Type:
    """``gradc_array_N``: ``{i8* data, i8* meminfo, [N x i64] shape, [N x i64] strides}``."""
    return ll.LiteralStructType([_OBJ, _OBJ, ll.ArrayType(_I64, ndim), ll.ArrayType(_I64, ndim)])


def _field(b: ll.IRBuilder, obj: ll.Value, offset: int, ty: ll.Type) -> ll.Value:
    """The ``ty`` at byte ``offset`` of object ``obj``."""
    at = b.gep(obj, [ll.Constant(_I64, offset)], inbounds=True)
    return b.load(b.bitcast(at, ty.as_pointer()))


def unbox_array(
    b: ll.IRBuilder,
    api: ApiLike,
    t: Array,
    obj: ll.Value,
    k: int,
    slow: ll.Block,
    desc: ll.Value,
    written: bool,
) -> None:
    """Fill descriptor ``desc`` (an alloca of :func:`descriptor_type`) from argument ``obj``
    of parameter ``k``, or branch to ``slow`` (see the module docstring)."""
    fn = b.function
    fields = fn.append_basic_block(f"unbox.{k}.fields")
    ok = fn.append_basic_block(f"unbox.{k}.ok")
    is_array = b.icmp_unsigned(
        "==", _field(b, obj, OB_TYPE_OFFSET, _OBJ), api.data("gradcnp_ndarray")
    )
    b.cbranch(is_array, fields, slow)
    b.position_at_end(fields)
    need = NPY_ARRAY_WRITEABLE if written else 0
    need |= {"C": NPY_ARRAY_C_CONTIGUOUS, "F": NPY_ARRAY_F_CONTIGUOUS}.get(t.layout, 0)
    dtype = api.data(dtype_symbol(t.dtype))
    checks = [
        lambda: b.icmp_unsigned("==", _field(b, obj, FIELD_OFFSETS["descr"], _OBJ), dtype),
        lambda: b.icmp_signed(
            "==", _field(b, obj, FIELD_OFFSETS["nd"], _I32), ll.Constant(_I32, t.ndim)
        ),
    ]
    if need:
        required = ll.Constant(_I32, need)
        flags = FIELD_OFFSETS["flags"]
        checks.append(
            lambda: b.icmp_unsigned("==", b.and_(_field(b, obj, flags, _I32), required), required)
        )
    branch_if_all(b, checks, ok, slow)
    b.position_at_end(ok)
    zero = ll.Constant(_I32, 0)
    b.store(_field(b, obj, FIELD_OFFSETS["data"], _OBJ), b.gep(desc, [zero, zero]))
    b.store(ll.Constant(_OBJ, None), b.gep(desc, [zero, ll.Constant(_I32, 1)]))
    for which, part in (("dimensions", 2), ("strides", 3)):
        src = _field(b, obj, FIELD_OFFSETS[which], _I64P)
        for i in range(t.ndim):
            value = b.load(b.gep(src, [ll.Constant(_I64, i)]))
            b.store(value, b.gep(desc, [zero, ll.Constant(_I32, part), ll.Constant(_I32, i)]))


def branch_if_all(
    b: ll.IRBuilder,
    conditions: Sequence[Callable[[], ll.Value]],
    then: ll.Block,
    otherwise: ll.Block,
) -> None:
    """Branch to ``then`` when every condition holds, else to ``otherwise``: each
    condition (a function emitting an ``i1`` at the builder) in a block of its own, right
    after the previous one in the function's layout, branched on where it is computed.
    Not an ``and`` of the conditions: a wrapper's code is generated by LLVM's ``-O0`` code
    generator (``size_policy.codegen_level``), whose instruction selector turns a compare
    branched on in its own block, falling through to the next, into ``cmp; jcc`` and an
    ``and`` of compares into ``setcc; setcc; and; test; jcc``, and which places blocks in
    the order they have here and folds no branch."""
    fn = b.function
    for k, condition in enumerate(conditions):
        last = k == len(conditions) - 1
        if last:
            nxt = then
        else:
            nxt = fn.insert_basic_block(fn.blocks.index(b.block) + 1, f"{b.block.name}.{k + 1}")
        b.cbranch(condition(), nxt, otherwise)
        if not last:
            b.position_at_end(nxt)


def array_leaves(t: AbiType, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Array]]:
    """The arrays of result type ``t`` in element order, with their index paths."""
    if isinstance(t, Array):
        return [(path, t)]
    if isinstance(t, Tuple):
        return [leaf for i, e in enumerate(t.elements) for leaf in array_leaves(e, (*path, i))]
    return []


class ArrayResult:
    """Boxing of a result that holds arrays, read from ``out`` (the entry's result slot).

    :meth:`begin` branches on ownership (a borrowed array: the loader's
    ``self._gradc_result``) and makes the owners; :meth:`box` (``pywrapper._box``'s array
    leaf) makes one array; :meth:`finish` releases the owners no array took.
    """

    def __init__(self, b: ll.IRBuilder, api: ApiLike, t: AbiType, out: ll.Value) -> None:
        self.b, self.api, self.out = b, api, out
        self.leaves = array_leaves(t)
        self.index = {path: k for k, (path, _) in enumerate(self.leaves)}
        self.owners = b.alloca(_OBJ, size=len(self.leaves), name="owners")

    def _ptr(self, path: tuple[int, ...], *rest: int) -> ll.Value:
        idx = [ll.Constant(_I32, i) for i in (0, *path, *rest)]
        return self.b.gep(self.out, idx)

    def begin(self, self_: ll.Value, args: ll.Value, nargs: int) -> None:
        """Leave the builder where every array is owned and has its owner in ``owners``;
        the other branches return."""
        b, api = self.b, self.api
        fn = b.function
        null = ll.Constant(_OBJ, None)
        meminfos = [b.load(self._ptr(path, 1)) for path, _ in self.leaves]
        borrowed = b.icmp_unsigned("==", meminfos[0], null)
        for m in meminfos[1:]:
            borrowed = b.or_(borrowed, b.icmp_unsigned("==", m, null))
        loader, owned = fn.append_basic_block("result.loader"), fn.append_basic_block("result.own")
        b.cbranch(borrowed, loader, owned)
        b.position_at_end(loader)
        b.ret(self._by_loader(self_, args, nargs))
        b.position_at_end(owned)
        argv = b.alloca(_OBJ, size=3, name="owner.argv")
        b.store(api.data("gradcnp_runtime"), argv)
        b.store(api.data("_Py_NoneStruct"), b.gep(argv, [ll.Constant(_I64, 2)]))
        for k, m in enumerate(meminfos):
            number = api(b, "PyLong_FromVoidPtr", [m])
            b.store(number, b.gep(argv, [ll.Constant(_I64, 1)]))
            made, failed = (
                fn.append_basic_block(f"owner.{k}"),
                fn.append_basic_block(f"owner.{k}.fail"),
            )
            b.cbranch(b.icmp_unsigned("==", number, null), failed, made)
            b.position_at_end(made)
            call = [api.data("gradcnp_ArrayOwner"), argv, ll.Constant(_I64, 3), null]
            owner = api(b, "PyObject_Vectorcall", call)
            api(b, "Py_DecRef", [number])
            b.store(owner, b.gep(self.owners, [ll.Constant(_I64, k)]))
            nxt = fn.append_basic_block(f"owner.{k}.ok")
            b.cbranch(b.icmp_unsigned("==", owner, null), failed, nxt)
            b.position_at_end(failed)
            for j in range(k):  # owned by their owners; the others by nobody yet
                api(b, "Py_DecRef", [b.load(b.gep(self.owners, [ll.Constant(_I64, j)]))])
            for j in range(k, len(meminfos)):
                api(b, RUNTIME_DECREF, [meminfos[j]])
            b.ret(null)
            b.position_at_end(nxt)

    def box(self, path: tuple[int, ...]) -> ll.Value:
        """A new reference to the NumPy array of the result's array at ``path`` (NULL with
        an exception set); its owner passes to the array."""
        b, api = self.b, self.api
        fn = b.function
        k = self.index[path]
        t = self.leaves[k][1]
        null = ll.Constant(_OBJ, None)
        descr = api.data(dtype_symbol(t.dtype))
        api(b, "Py_IncRef", [descr])  # PyArray_NewFromDescr steals it
        array = api(b, "gradcnp_NewFromDescr", [
            api.data("gradcnp_ndarray"), descr, ll.Constant(_I32, t.ndim),
            self._ptr(path, 2, 0), self._ptr(path, 3, 0), b.load(self._ptr(path, 0)),
            ll.Constant(_I32, NPY_ARRAY_WRITEABLE), null,
        ])  # fmt: skip
        start = b.block
        based, done = fn.append_basic_block(f"array.{k}.base"), fn.append_basic_block(f"array.{k}")
        b.cbranch(b.icmp_unsigned("==", array, null), done, based)
        b.position_at_end(based)
        slot = b.gep(self.owners, [ll.Constant(_I64, k)])
        status = api(b, "gradcnp_SetBaseObject", [array, b.load(slot)])  # steals the owner
        b.store(null, slot)
        drop = fn.append_basic_block(f"array.{k}.drop")
        b.cbranch(b.icmp_signed("<", status, ll.Constant(_I32, 0)), drop, done)
        b.position_at_end(drop)
        api(b, "Py_DecRef", [array])
        b.branch(done)
        b.position_at_end(done)
        phi = b.phi(_OBJ, name=f"array.{k}.obj")
        phi.add_incoming(null, start)
        phi.add_incoming(array, based)
        phi.add_incoming(null, drop)
        return phi

    def finish(self) -> None:
        """Release the owners no array took (after a failure; ``Py_DecRef`` skips NULL)."""
        for k in range(len(self.leaves)):
            slot = self.b.gep(self.owners, [ll.Constant(_I64, k)])
            self.api(self.b, "Py_DecRef", [self.b.load(slot)])

    def _by_loader(self, self_: ll.Value, args: ll.Value, nargs: int) -> ll.Value:
        """``self._gradc_result(address_of_out, *args)``; NULL with an exception set."""
        b, api = self.b, self.api
        fn = b.function
        null = ll.Constant(_OBJ, None)
        method = api(b, "PyObject_GetAttrString", [self_, _cstring(api.mod, RESULT_ATTRIBUTE)])
        where = api(b, "PyLong_FromVoidPtr", [b.bitcast(self.out, _OBJ)])
        argv = b.alloca(_OBJ, size=nargs + 1, name="result.argv")
        b.store(where, argv)
        for i in range(nargs):
            arg = b.load(b.gep(args, [ll.Constant(_I64, i)]))
            b.store(arg, b.gep(argv, [ll.Constant(_I64, i + 1)]))
        both = b.and_(b.icmp_unsigned("!=", method, null), b.icmp_unsigned("!=", where, null))
        call, after = fn.append_basic_block("result.call"), fn.append_basic_block("result.after")
        start = b.block
        b.cbranch(both, call, after)
        b.position_at_end(call)
        made = api(b, "PyObject_Vectorcall", [method, argv, ll.Constant(_I64, nargs + 1), null])
        b.branch(after)
        b.position_at_end(after)
        result = b.phi(_OBJ, name="result.obj")
        result.add_incoming(null, start)
        result.add_incoming(made, call)
        api(b, "Py_DecRef", [where])
        api(b, "Py_DecRef", [method])
        return result


def _cstring(mod: ll.Module, text: str) -> ll.Value:
    """A private NUL-terminated constant ``text``, as ``i8*``."""
    data = bytearray(text.encode()) + b"\0"
    name = f".str.{text}"
    gv = mod.globals.get(name)
    if gv is None:
        gv = ll.GlobalVariable(mod, ll.ArrayType(_I8, len(data)), name=name)
        gv.linkage = "private"
        gv.global_constant = True
        gv.initializer = ll.Constant(ll.ArrayType(_I8, len(data)), data)
    return gv.bitcast(_OBJ)


BoxArray = Callable[[tuple[int, ...]], ll.Value]
