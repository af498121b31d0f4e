"""CPU loader: map an artifact's objects into this process and call them through ctypes.

``load(path)`` reads the manifest, verifies every object's sha256, links all objects of the
artifact into one new library of a process-wide LLVM ``LLJIT`` (``JITLibraryBuilder
.add_object_img(...).export_symbol(...).link(...)``), and returns a :class:`Library` with
one callable per export. libm and libc symbols (``sin``, ``pow``, ``fmod``, ``malloc`` ...)
resolve by name from the process.

Each export is called with the C ABI of docs/abi.md::

    int32_t entry(ARG_0, ..., ARG_{n-1}, RESULT *out, gradc_error *err);

The Python-side wrapper checks the argument count and types (TypeError naming the
parameter), converts, calls, turns a nonzero status into the Python exception of the error
record's kind (formatting template messages), and converts the result (tuple structs
become tuples, ``bool`` becomes ``bool``, array descriptors become NumPy arrays).
Everything that can be prepared once (ctypes prototypes, converters, result types) is
prepared at load.

**Trust.** Before linking, every entry object and fast-call wrapper object to be linked
must describe itself (its ``__gradc_abi_<symbol>`` constant, ``gradc.artifacts.abi``) exactly
as its manifest entry says: signature, ``writes``, symbols, calling-convention version and
target. A manifest that disagrees is refused with ``AbiMismatchError``; no call ever uses a
signature its object did not state.

**Runtime.** The first artifact that carries a runtime object (manifest ``runtime``) has
it linked once per process into the JIT library ``gradc_rt2``; every artifact library is
linked against that library (``add_jit_library``), so all arrays in the process share one
set of ``gradc_rt1_*`` functions and one ``gradc_rt1_live`` counter
(:func:`runtime_stats`).

**Arrays.** An array argument is passed as a borrowed descriptor of the NumPy array's
memory (a read-only array is refused for a parameter the export writes). An owned array
result (``meminfo`` not NULL) becomes a NumPy array whose ``.base`` is an
:class:`ArrayOwner` that calls ``gradc_rt1_decref`` when NumPy drops it; the owner keeps
the runtime (and the JIT) alive, so results outlive their :class:`Library`. A borrowed
result (``meminfo`` NULL: the export returned one of its arguments) becomes a view into
that argument's memory (its ``.base`` is the argument, or the array owning its memory as
NumPy's own views have it), read-only when the argument is.

This module imports no compiler code and not ``llvmlite.ir`` directly (though
``llvmlite.binding`` itself imports it); numpy is imported only when a signature has arrays.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import itertools
import operator
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm

from gradc.artifacts.abi import check_object
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.fastcall import (
    METH_FASTCALL_KEYWORDS,
    PYTHON_API_DATA,
    PYTHON_API_FUNCTIONS,
    split_top_level,
)
from gradc.artifacts.manifest import ABI_VERSION, RUNTIME_ABI, Entry, Manifest, Target
from gradc.artifacts.store import read_blob, read_manifest

__all__ = [
    "EXCEPTION_KINDS",
    "FASTCALL_ENV",
    "RUNTIME_LIBRARY",
    "ArrayOwner",
    "ErrorRecord",
    "FastExport",
    "Library",
    "llvm_version",
    "load",
    "runtime_stats",
]


class ErrorRecord(ctypes.Structure):
    """``gradc_error`` of docs/abi.md (48 bytes)."""

    _fields_ = (
        ("kind", ctypes.c_int32),
        ("site", ctypes.c_int32),  # raise site: manifest entry ``sites[site - 1]``
        ("message", ctypes.c_void_p),
        ("data", ctypes.c_int64 * 4),
    )


assert ctypes.sizeof(ErrorRecord) == 48

#: Error-record kind -> Python exception class (docs/abi.md).
EXCEPTION_KINDS: dict[int, type[Exception]] = {
    1: ValueError,
    2: ZeroDivisionError,
    3: AssertionError,
    4: OverflowError,
    5: IndexError,
    6: TypeError,
    7: MemoryError,
    8: RuntimeError,
}

# ---------------------------------------------------------------------------- the JIT

_jit_lock = threading.Lock()
_jit: Any = None
_library_numbers = itertools.count()


def _lljit() -> Any:
    """The process-wide LLJIT, created on first use."""
    global _jit
    with _jit_lock:
        if _jit is None:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _jit = llvm.create_lljit_compiler()
        return _jit


def llvm_version() -> str:
    """Version of the LLVM bundled with llvmlite, as ``"22.1.0"``."""
    return ".".join(str(v) for v in llvm.llvm_version_info)


# ---------------------------------------------------------------------------- the runtime

#: JIT library name of the process's runtime (docs/abi.md "Runtime functions").
RUNTIME_LIBRARY = f"gradc_{RUNTIME_ABI}"
_RT_PREFIX = "gradc_rt1_"  # the array functions keep their rt1 names in rt2
#: What the current runtime ABI changed, for the message refusing an older artifact.
_RUNTIME_CHANGES = "since rt2 a tape also records the array references pushed on it"
_RT_DECREF = _RT_PREFIX + "decref"
_RT_LIVE = _RT_PREFIX + "live"
_RT_SYMBOLS = tuple(_RT_PREFIX + s for s in ("alloc", "incref", "decref", "live"))


class _Runtime:
    """The linked runtime library: ``gradc_rt1_decref`` and the ``gradc_rt1_live`` counter.

    Holds the JIT and the runtime's resource tracker, so the runtime code stays mapped as
    long as any array owner (or library) refers to this object.
    """

    __slots__ = ("decref", "jit", "live", "sha256", "tracker")

    def __init__(self, jit: Any, tracker: Any, sha256: str) -> None:
        self.jit = jit
        self.tracker = tracker
        self.sha256 = sha256
        self.decref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(tracker[_RT_DECREF])
        self.live = ctypes.c_int64.from_address(tracker[_RT_LIVE])


_runtime: _Runtime | None = None


def _link_runtime(jit: Any, code: bytes, sha256: str) -> _Runtime:
    """The process's runtime, linking ``code`` as it unless one is linked already.

    The first runtime object wins: every ``rt1`` object implements the same ABI.
    """
    global _runtime
    with _jit_lock:
        if _runtime is None:
            builder = llvm.JITLibraryBuilder().add_object_img(code)
            for symbol in _RT_SYMBOLS:
                builder.export_symbol(symbol)
            _runtime = _Runtime(jit, builder.link(jit, RUNTIME_LIBRARY), sha256)
        return _runtime


def runtime_stats() -> dict[str, int]:
    """``{"live": n}``: runtime blocks (owned arrays) allocated and not yet freed in this
    process; 0 before any runtime is linked."""
    rt = _runtime
    return {"live": int(rt.live.value) if rt is not None else 0}


class ArrayOwner:
    """The ``.base`` of an array returned by compiled code: owns one reference to its block.

    NumPy reads ``__array_interface__`` once when it makes the array; when the array (and
    every view of it) is gone, the owner is collected and releases the block with
    ``gradc_rt1_decref``.
    """

    __slots__ = ("__array_interface__", "_meminfo", "_runtime")

    def __init__(self, runtime: _Runtime, meminfo: int, interface: dict[str, Any]) -> None:
        self._runtime = runtime
        self._meminfo = meminfo
        self.__array_interface__ = interface

    def __del__(self) -> None:
        meminfo, self._meminfo = self._meminfo, 0
        if meminfo:
            self._runtime.decref(meminfo)

    def __repr__(self) -> str:
        return f"<gradc.ArrayOwner of block {self._meminfo:#x}>"


# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class _Type:
    """How one gradc type crosses the C ABI.

    Attributes:
        text: the gradc type string (``"f64"``, ``"tuple[f64,i64]"``, ``"f64[:, ::1]"``).
        ctype: its ctypes type as ``*out`` and inside tuples (an array's descriptor).
        param_ctype: its ctypes type as a parameter when not ``ctype`` (a pointer to an
            array's descriptor).
        convert: Python argument -> ctypes argument, or None when ctypes' own conversion
            is already exact (f64/f32 accept anything with ``__float__``); raises
            TypeError/OverflowError/ValueError with a message that the caller prefixes
            with the parameter name.
        result: the value read from ``*out`` (``out.value`` for scalars, the struct for
            tuples) -> the Python result. Unused when ``array_result`` is set.
        scalar: ``*out`` is a simple ctypes scalar (read through ``.value``).
        argument_ok: values of this type can be passed as arguments.
        result_ok: values of this type can be returned.
        array_result: for types holding arrays: (the value read from ``*out``, the call's
            arguments) -> the Python result (borrowed arrays are found among the arguments).
    """

    text: str
    ctype: Any
    convert: Callable[[Any], Any] | None
    result: Callable[[Any], Any]
    scalar: bool = True
    argument_ok: bool = True
    result_ok: bool = True
    array_result: Callable[[Any, Sequence[Any]], Any] | None = None
    param_ctype: Any = None


_INT_RANGES = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1)}


def _int_converter(name: str) -> Callable[[Any], int]:
    lo, hi = _INT_RANGES[name]

    def convert(v: Any) -> int:
        if type(v) is int:
            n: int = v
        else:
            if isinstance(v, float) or _numpy_kind(v) in ("f", "c"):
                raise TypeError(f"must be {name} (int), got {type(v).__name__}")
            try:
                n = operator.index(v)
            except TypeError:
                raise TypeError(f"must be {name} (int), got {type(v).__name__}") from None
        if not lo <= n <= hi:
            raise OverflowError(f"int {n} out of range for {name}")
        return n

    return convert


def _float_check(name: str) -> Callable[[Any], float]:
    """Slow-path check of a float parameter (ctypes converts on the fast path)."""

    def convert(v: Any) -> float:
        if isinstance(v, float) or _numpy_kind(v) == "f":
            return float(v)
        try:
            return float(operator.index(v))  # int, bool, numpy integers
        except TypeError:
            raise TypeError(f"must be {name} (float), got {type(v).__name__}") from None

    return convert


def _bool_converter(v: Any) -> int:
    if v is True or v is False:
        return int(v)
    if _numpy_kind(v) == "b":
        return int(bool(v))
    raise TypeError(f"must be bool, got {type(v).__name__}")


def _numpy_kind(v: Any) -> str | None:
    """The dtype kind of a numpy scalar (``"f"``, ``"i"``, ``"b"`` ...), else None."""
    dtype = getattr(v, "dtype", None)
    if dtype is None or getattr(v, "shape", None) != ():
        return None
    kind = getattr(dtype, "kind", None)
    return kind if isinstance(kind, str) else None


def _same(v: Any) -> Any:
    return v


def _none(v: Any) -> None:
    return None


_SCALARS: dict[str, _Type] = {
    "f64": _Type("f64", ctypes.c_double, None, _same),
    "f32": _Type("f32", ctypes.c_float, None, _same),
    "i64": _Type("i64", ctypes.c_int64, _int_converter("i64"), _same),
    "i32": _Type("i32", ctypes.c_int32, _int_converter("i32"), _same),
    "bool": _Type("bool", ctypes.c_uint8, _bool_converter, bool),
    "none": _Type("none", ctypes.c_uint8, None, _none, argument_ok=False),
}
_FLOAT_CHECKS = {"f64": _float_check("f64"), "f32": _float_check("f32")}


_DTYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32", "bool": "bool"}
_ARRAY = re.compile(r"(f64|f32|i64|i32|bool)\[([:\s,1]*)\]")
_OLD_ARRAY = re.compile(r"array\[(f64|f32|i64|i32|bool),\s*([0-9]+),\s*([CFA])\]")


def _parse_type(text: str) -> _Type:
    """The :class:`_Type` of a gradc type string from a manifest signature.

    Arrays are spelt like annotations (``f64[:]``, ``f64[:, ::1]`` C order, ``f64[::1, :]``
    Fortran order; ``types.python_name``); the older ``array[f64,2,C]`` is read too.

    Raises:
        ArtifactError: the string is not a gradc type.
    """
    text = text.strip()
    if text in _SCALARS:
        return _SCALARS[text]
    if text.startswith("tuple[") and text.endswith("]"):
        elements = [_parse_type(t) for t in split_top_level(text[6:-1])]
        return _tuple_type(text, elements)
    m = _ARRAY.fullmatch(text)
    if m is not None:
        axes = [a.strip() for a in m.group(2).split(",")]
        contiguous = [k for k, a in enumerate(axes) if a == "::1"]
        if all(a in (":", "::1") for a in axes):
            if not contiguous:
                return _array_type(text, m.group(1), len(axes), "A")
            if contiguous == [len(axes) - 1]:
                return _array_type(text, m.group(1), len(axes), "C")
            if contiguous == [0]:
                return _array_type(text, m.group(1), len(axes), "F")
    m = _OLD_ARRAY.fullmatch(text)
    if m is not None and int(m.group(2)) >= 1:
        return _array_type(text, m.group(1), int(m.group(2)), m.group(3))
    raise ArtifactError(f"unknown gradc type {text!r} in a manifest signature")


def _tuple_type(text: str, elements: list[_Type]) -> _Type:
    fields = [(f"e{i}", e.ctype) for i, e in enumerate(elements)]
    struct = type(f"gradc_{text}", (ctypes.Structure,), {"_fields_": fields})
    getters = [(operator.attrgetter(f"e{i}"), e) for i, e in enumerate(elements)]
    if any(e.array_result is not None for e in elements):
        parts = [(get, e.array_result or _ignore_args(e.result)) for get, e in getters]

        def read_arrays(s: Any, args: Sequence[Any]) -> tuple[Any, ...]:
            return tuple([conv(get(s), args) for get, conv in parts])

        return _Type(text, struct, None, _same, scalar=False, argument_ok=False,
                     array_result=read_arrays)  # fmt: skip
    if len(elements) > 1 and all(e.result is _same for e in elements):
        # Scalar fields of ints and floats read as Python values already: one C call.
        result: Callable[[Any], Any] = operator.attrgetter(*(name for name, _ in fields))
    else:
        scalars = [(get, e.result) for get, e in getters]

        def read_tuple(s: Any) -> tuple[Any, ...]:
            return tuple([conv(get(s)) for get, conv in scalars])

        result = read_tuple

    # Tuples are results only (the code generator rejects tuple parameters).
    return _Type(text, struct, None, result, scalar=False, argument_ok=False)


def _ignore_args(convert: Callable[[Any], Any]) -> Callable[[Any, Sequence[Any]], Any]:
    def read(value: Any, args: Sequence[Any]) -> Any:
        return convert(value)

    return read


def _descriptor(ndim: int) -> Any:
    """The ctypes Structure ``gradc_array_N`` of docs/abi.md."""
    cached = _DESCRIPTORS.get(ndim)
    if cached is None:
        fields = (
            ("data", ctypes.c_void_p),
            ("meminfo", ctypes.c_void_p),
            ("shape", ctypes.c_int64 * ndim),
            ("strides", ctypes.c_int64 * ndim),
        )
        cached = type(f"gradc_array_{ndim}", (ctypes.Structure,), {"_fields_": fields})
        assert ctypes.sizeof(cached) == 16 + 16 * ndim
        _DESCRIPTORS[ndim] = cached
    return cached


_DESCRIPTORS: dict[int, Any] = {}


def _array_type(text: str, dtype: str, ndim: int, layout: str) -> _Type:
    """An array: a pointer to a borrowed ``gradc_array_N`` as a parameter, the descriptor by
    value as a result (docs/abi.md "Arrays")."""
    import numpy as np

    descriptor = _descriptor(ndim)
    want = np.dtype(_DTYPES[dtype])
    typestr = want.str
    itemsize = want.itemsize

    def convert(v: Any) -> Any:
        if not isinstance(v, np.ndarray):
            raise TypeError(f"must be {text} (a numpy array), got {type(v).__name__}")
        if v.dtype != want or v.ndim != ndim:
            raise TypeError(f"must be {text} ({want}, {ndim}-d), got {v.dtype}, {v.ndim}-d")
        if layout == "C" and not v.flags.c_contiguous:
            raise ValueError(f"must be C-contiguous ({text}); pass np.ascontiguousarray(...)")
        if layout == "F" and not v.flags.f_contiguous:
            raise ValueError(f"must be Fortran-contiguous ({text}); pass np.asfortranarray(...)")
        d = descriptor()
        d.data = v.ctypes.data
        d.shape[:] = v.shape
        d.strides[:] = v.strides
        return d

    def to_numpy(d: Any, args: Sequence[Any]) -> Any:
        data = d.data or 0
        meminfo = d.meminfo
        shape = tuple(d.shape)
        strides = tuple(d.strides)
        if meminfo:
            rt = _runtime
            if rt is None:  # cannot happen: owned blocks come from the runtime
                raise RuntimeError("compiled code returned an owned array but no runtime is linked")
            interface = {
                "version": 3,
                "shape": shape,
                "typestr": typestr,
                "data": (data, False),
                "strides": strides,
            }
            return np.asarray(ArrayOwner(rt, meminfo, interface))
        return _borrowed_view(np, data, shape, strides, want, itemsize, args, text)

    return _Type(text, descriptor, convert, _same, scalar=False, array_result=to_numpy,
                 param_ctype=ctypes.POINTER(descriptor))  # fmt: skip


def _extent(data: int, shape: Sequence[int], strides: Sequence[int], itemsize: int) -> range:
    """Bytes spanned by an array: ``range(lo, hi)`` (empty for an array of no elements)."""
    if 0 in shape:
        return range(data, data)
    lo = hi = data
    for n, st in zip(shape, strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return range(lo, hi + itemsize)


def _borrowed_view(
    np: Any,
    data: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: Any,
    itemsize: int,
    args: Sequence[Any],
    text: str,
) -> Any:
    """A view of the argument array whose memory holds a borrowed result."""
    span = _extent(data, shape, strides, itemsize)
    for a in args:
        if not isinstance(a, np.ndarray) or a.dtype != dtype:
            continue
        addr = a.ctypes.data
        if (addr, tuple(a.shape), tuple(a.strides)) == (data, shape, strides):
            view = a.view()
            break
        if not span:
            continue
        have = _extent(addr, a.shape, a.strides, a.itemsize)
        if not (have.start <= span.start and span.stop <= have.stop):
            continue
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        root_span = _extent(root.ctypes.data, root.shape, root.strides, root.itemsize)
        if root.flags.c_contiguous or root.flags.f_contiguous:
            offset = data - root_span.start
            view = np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
        else:
            interface = {
                "version": 3,
                "shape": shape,
                "typestr": dtype.str,
                "data": (data, not a.flags.writeable),
                "strides": strides,
            }
            view = np.asarray(_Borrowed(a, interface))
        break
    else:
        if not span:
            return np.ndarray(shape, dtype)  # no elements: nothing to share
        raise RuntimeError(
            f"compiled code returned a borrowed {text} array that lies in no argument"
        )
    if not a.flags.writeable and view.flags.writeable:
        view.flags.writeable = False
    return view


class _Borrowed:
    """Base of a view into an argument that NumPy cannot re-slice: keeps the argument."""

    __slots__ = ("__array_interface__", "array")

    def __init__(self, array: Any, interface: dict[str, Any]) -> None:
        self.array = array
        self.__array_interface__ = interface


# ---------------------------------------------------------------------------- exports


def _error_message(err: ErrorRecord) -> str:
    """The record's message, a template formatted with ``data[0..2]`` when ``data[3] == 1``."""
    message = ctypes.string_at(err.message).decode("utf-8", "replace") if err.message else ""
    if err.data[3] == 1:
        with contextlib.suppress(IndexError, KeyError, ValueError):  # else shown as it is
            message = message.format(*err.data[:3])
    return message


def _raise_error(status: int, err: ErrorRecord, qualname: str, entry: Entry) -> None:
    kind = err.kind or status
    message = _error_message(err)
    cls = EXCEPTION_KINDS.get(kind)
    if cls is None:
        exc: Exception = RuntimeError(f"{message} (unknown gradc error kind {kind})")
    else:
        exc = cls(message)
    site = entry.site(err.site)
    if site is not None and site[1] > 0:
        exc.add_note(f"raised by compiled {qualname} at {site[0]}:{site[1]}")
    raise exc


def _written(convert: Callable[[Any], Any], function: str) -> Callable[[Any], Any]:
    """``convert`` for an array parameter the export writes: read-only arrays are refused."""

    def convert_written(v: Any) -> Any:
        d = convert(v)
        if not v.flags.writeable:
            raise ValueError(
                f"is a read-only array, but {function}() writes to it; pass a writeable "
                "copy (np.array(a))"
            )
        return d

    return convert_written


def _make_export(entry: Entry, module: str, address: int, keepalive: Any) -> Callable[..., Any]:
    """The Python callable of one export (see the module docstring for the conversions)."""
    params = [(name, _parse_type(t)) for name, t in entry.signature.params]
    result = _parse_type(entry.signature.result)
    qualname = f"{module}.{entry.name}"
    names = tuple(name for name, _ in params)
    nparams = len(params)
    sig_text = f"{entry.name}({', '.join(f'{n}: {t.text}' for n, t in params)}) -> {result.text}"

    unsupported = [t.text for _, t in params if not t.argument_ok]
    if not result.result_ok:
        unsupported.append(result.text)

    out_type = result.ctype if result.result_ok else ctypes.c_uint8
    proto = ctypes.CFUNCTYPE(
        ctypes.c_int32,
        *(t.param_ctype or t.ctype for _, t in params),
        ctypes.POINTER(out_type),
        ctypes.POINTER(ErrorRecord),
    )
    cfunc = proto(address)
    written = set(entry.signature.writes)
    converters = tuple(
        _written(t.convert, entry.name) if n in written and t.convert is not None else t.convert
        for n, t in params
    )
    checks = tuple(c or _FLOAT_CHECKS.get(t.text) for c, (_, t) in zip(converters, params))
    to_convert = tuple((i, c) for i, c in enumerate(converters) if c is not None)
    scalar_result = result.scalar
    convert_result = result.result
    array_result = result.array_result

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Match positional and keyword arguments to parameters like Python does."""
        if len(args) > nparams:
            raise TypeError(
                f"{entry.name}() takes {nparams} argument{'s' * (nparams != 1)} "
                f"({sig_text}) but {len(args)} were given"
            )
        bound = list(args) + [_MISSING] * (nparams - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{entry.name}() got an unexpected keyword argument {key!r}")
            i = names.index(key)
            if bound[i] is not _MISSING:
                raise TypeError(f"{entry.name}() got multiple values for argument {key!r}")
            bound[i] = value
        missing = [n for n, v in zip(names, bound) if v is _MISSING]
        if missing:
            raise TypeError(
                f"{entry.name}() missing {len(missing)} required argument"
                f"{'s' * (len(missing) != 1)}: {', '.join(repr(m) for m in missing)} ({sig_text})"
            )
        return tuple(bound)

    def check_all(args: Sequence[Any]) -> None:
        """Check every argument, raising the error of the first bad one, named."""
        for (name, _), check, value in zip(params, checks, args):
            if check is None:
                continue
            try:
                check(value)
            except (TypeError, ValueError, OverflowError) as exc:
                raise type(exc)(f"{entry.name}() argument {name!r} {exc}") from None

    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != nparams:
            args = bind(args, kwargs)
        given = args  # the caller's objects stay referenced until the result is built
        if to_convert:
            converted = list(args)
            try:
                for i, convert in to_convert:
                    converted[i] = convert(converted[i])
            except (TypeError, ValueError, OverflowError):
                check_all(args)
                raise
            args = converted  # type: ignore[assignment]
        out = out_type()
        err = ErrorRecord()
        try:
            status = cfunc(*args, out, err)
        except ctypes.ArgumentError:
            check_all(given)  # raises the named TypeError (checks the caller's objects)
            raise
        if status:
            _raise_error(status, err, qualname, entry)
        if array_result is not None:
            return array_result(out, given)
        return convert_result(out.value if scalar_result else out)

    def not_supported(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{qualname}: this loader cannot call functions with {', '.join(unsupported)} "
            "in their signature yet"
        )

    fn = not_supported if unsupported else call
    fn.__name__ = entry.name
    fn.__qualname__ = qualname
    fn.__doc__ = f"{sig_text}\n\nCompiled by gradc (symbol {entry.symbol})."
    fn.__gradc_entry__ = entry  # type: ignore[attr-defined]
    fn.__gradc_address__ = address  # type: ignore[attr-defined]
    fn.__gradc_keepalive__ = keepalive  # type: ignore[attr-defined]  # code stays mapped
    fn.__gradc_bind__ = bind  # type: ignore[attr-defined]
    return fn


# ---------------------------------------------------------------------------- fast call path

#: Environment variable: ``0`` keeps every export on the ctypes path.
FASTCALL_ENV = "GRADC_FASTCALL"


def _fastcall_enabled() -> bool:
    return os.environ.get(FASTCALL_ENV, "1").strip() not in ("0", "false", "no", "off")


_api_cache: dict[str, int] = {}


def _python_api() -> dict[str, int]:
    """Name -> address in this interpreter of every symbol a wrapper may need."""
    if not _api_cache:
        api = {}
        for name in PYTHON_API_FUNCTIONS:
            fn = getattr(ctypes.pythonapi, name, None)
            if fn is not None:
                api[name] = ctypes.cast(fn, ctypes.c_void_p).value or 0
        for name, obj in PYTHON_API_DATA.items():
            api[name] = id(obj)  # CPython: an object's id is its address
        _api_cache.update(api)
    return dict(_api_cache)


class _PyMethodDef(ctypes.Structure):
    _fields_ = (
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    )


_new_cfunction: Any = None


def _pycfunction_new(mdef: _PyMethodDef, self: object, module: str) -> Any:
    global _new_cfunction
    if _new_cfunction is None:
        fn = ctypes.pythonapi.PyCFunction_NewEx
        fn.restype = ctypes.py_object
        fn.argtypes = (ctypes.c_void_p, ctypes.py_object, ctypes.py_object)
        _new_cfunction = fn
    return _new_cfunction(ctypes.addressof(mdef), self, module)


class FastExport:
    """``self`` of a fast export (a CPython builtin whose C function is the wrapper).

    The wrapper hands calls it cannot take (keywords, a wrong count, an argument that
    does not unbox) to this object, whose call is the ctypes path, and reports errors
    through :attr:`_gradc_raise`. It keeps the wrapper's method definition and the
    library's code alive as long as the builtin exists.
    """

    __slots__ = (
        "__gradc_entry__",
        "_gradc_bind",
        "_gradc_call",
        "_gradc_fast",
        "_gradc_keep",
        "_gradc_raise",
    )

    def __init__(
        self,
        entry: Entry,
        call: Callable[..., Any],
        raise_error: Callable[[int, int], None],
        keep: Any,
    ) -> None:
        self.__gradc_entry__ = entry
        self._gradc_call = call
        self._gradc_bind = getattr(call, "__gradc_bind__", None)
        self._gradc_raise = raise_error
        self._gradc_keep = keep
        self._gradc_fast: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = self._gradc_fast
        if kwargs and fast is not None and self._gradc_bind is not None:
            # Bind keywords here, then take the fast path positionally (an argument that
            # does not unbox comes back here without keywords: the ctypes path).
            return fast(*self._gradc_bind(args, kwargs))
        return self._gradc_call(*args, **kwargs)


_self_classes: dict[str, type[FastExport]] = {}


def _self_class(module: str) -> type[FastExport]:
    """A subclass of :class:`FastExport` named after the module, so that a fast export's
    ``__qualname__`` reads ``module.name`` as the ctypes path's does."""
    cls = _self_classes.get(module)
    if cls is None:
        cls = type(module, (FastExport,), {"__slots__": (), "__module__": module})
        cls.__qualname__ = module
        _self_classes[module] = cls
    return cls


def _make_fast(
    entry: Entry, module: str, address: int, call: Callable[..., Any], keepalive: Any
) -> Callable[..., Any] | None:
    """The builtin of a fast-call wrapper at ``address``; None when there is none."""
    if not address:
        return None
    qualname = f"{module}.{entry.name}"

    def raise_error(status: int, err_address: int) -> None:
        _raise_error(status, ErrorRecord.from_address(err_address), qualname, entry)

    names = ", ".join(n for n, _ in entry.signature.params)
    doc = f"{entry.name}($self, {names})\n--\n\n{call.__doc__}" if names else call.__doc__
    mdef = _PyMethodDef(entry.name.encode(), address, METH_FASTCALL_KEYWORDS, (doc or "").encode())
    self = _self_class(module)(entry, call, raise_error, (mdef, keepalive))
    fn: Callable[..., Any] = _pycfunction_new(mdef, self, module)
    self._gradc_fast = fn  # a cycle (fn -> self -> fn), collected with the library
    return fn


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


# ---------------------------------------------------------------------------- libraries


class Library:
    """A loaded artifact: one attribute per export, also ``lib["name"]``.

    ``dir(lib)`` and ``iter(lib)`` list the exports. The compiled code stays mapped while
    the library or any of its functions is referenced.
    """

    def __init__(
        self,
        path: Path,
        manifest: Manifest,
        functions: dict[str, Callable[..., Any]],
        tracker: Any,
        ctypes_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> None:
        self._gradc_path = path
        self._gradc_manifest = manifest
        self._gradc_functions = functions
        self._gradc_tracker = tracker
        self._gradc_ctypes = ctypes_functions if ctypes_functions is not None else functions
        for name, fn in functions.items():
            if not name.startswith("_gradc_"):
                setattr(self, name, fn)

    def __getitem__(self, name: str) -> Callable[..., Any]:
        try:
            return self._gradc_functions[name]
        except KeyError:
            raise KeyError(
                f"{self._gradc_manifest.module!r} exports no {name!r}; "
                f"exports: {', '.join(self._gradc_functions) or '(none)'}"
            ) from None

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: a misspelt export.
        if name.startswith("__") or name.startswith("_gradc_"):
            raise AttributeError(name)
        raise AttributeError(
            f"{self._gradc_manifest.module!r} exports no {name!r}; "
            f"exports: {', '.join(self._gradc_functions) or '(none)'}"
        )

    def __contains__(self, name: object) -> bool:
        return name in self._gradc_functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._gradc_functions)

    def __len__(self) -> int:
        return len(self._gradc_functions)

    def __dir__(self) -> list[str]:
        return sorted(self._gradc_functions)

    def __repr__(self) -> str:
        return (
            f"<gradc.Library {self._gradc_manifest.module!r} from {self._gradc_path}: "
            f"{', '.join(self._gradc_functions) or 'no exports'}>"
        )

    @property
    def manifest(self) -> Manifest:
        """The artifact's manifest as the loaded CPU variant sees it
        (:meth:`Manifest.for_variant`: ``target`` is the variant loaded); shadowed by an
        export named ``manifest``."""
        return self._gradc_manifest

    def ctypes_function(self, name: str) -> Callable[..., Any]:
        """Export ``name`` on the ctypes path even when it has a fast-call wrapper (for
        benchmarks and tests; shadowed by an export named ``ctypes_function``)."""
        self[name]  # KeyError naming the exports
        return self._gradc_ctypes[name]

    def is_fast(self, name: str) -> bool:
        """Whether export ``name`` is called through its fast-call wrapper."""
        return self[name] is not self._gradc_ctypes[name]


#: LLVM feature names each x86-64 micro-architecture level needs (the x86-64 psABI's
#: levels, beyond the x86-64 baseline every such host has).
_X86_64_V2 = frozenset({"cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3"})
_X86_64_V3 = _X86_64_V2 | {"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"}
_X86_64_V4 = _X86_64_V3 | {"avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"}
CPU_LEVEL_FEATURES: dict[str, frozenset[str]] = {
    "generic": frozenset(),
    "x86-64": frozenset(),
    "x86-64-v2": _X86_64_V2,
    "x86-64-v3": _X86_64_V3,
    "x86-64-v4": _X86_64_V4,
}


def required_features(target: Target) -> frozenset[str] | None:
    """The CPU features code built for ``target`` may use: every ``+feature`` of its
    feature string (``native`` records the build host's) and those of its CPU level
    (:data:`CPU_LEVEL_FEATURES`). None for a named CPU model without recorded features
    (``--cpu skylake``): its feature set is unknown here, so only a host whose CPU LLVM
    names the same runs it.
    """
    explicit = frozenset(f[1:] for f in target.features.split(",") if f.startswith("+"))
    level = CPU_LEVEL_FEATURES.get(target.cpu)
    if level is None and not explicit:
        return None
    return explicit | (level or frozenset())


@functools.cache
def host_cpu() -> tuple[str, frozenset[str]]:
    """This host's CPU name and enabled features, as LLVM detects them."""
    try:
        features = frozenset(n for n, on in llvm.get_host_cpu_features().items() if on)
    except RuntimeError:  # LLVM cannot detect features on this platform
        features = frozenset()
    return llvm.get_host_cpu_name(), features


def _misfit(target: Target, host: tuple[str, frozenset[str]]) -> str | None:
    """Why code for ``target`` cannot run on ``host`` (None: it can)."""
    required = required_features(target)
    if required is None:
        if target.cpu == host[0]:
            return None
        return f"cpu {target.cpu!r} is not this host's {host[0]!r} (its features are not recorded)"
    missing = sorted(required - host[1])
    if missing:
        return f"cpu {target.cpu!r} needs CPU features this host lacks: {', '.join(missing)}"
    return None


def select_variant(path: Path, manifest: Manifest) -> int:
    """The index of the best CPU variant of ``manifest`` this host runs (docs/artifacts.md
    "CPU variants"): among the variants whose required features the host has, the one
    requiring the most (a named CPU model matching the host counts as all the host's),
    the first listed on a tie.

    Raises:
        ArtifactError: the triple's architecture is not this process's, or no variant
            fits; the message names each variant and what the host lacks.
    """
    want = manifest.target.triple
    triple = llvm.get_process_triple()
    if want and want.split("-")[0] != triple.split("-")[0]:
        raise ArtifactError(f"{path} was built for {want}; this process runs on {triple}")
    host = host_cpu()
    best, best_score, reasons = -1, -1, []
    for i, target in enumerate(manifest.targets()):
        why = _misfit(target, host)
        if why is not None:
            reasons.append(why)
            continue
        required = required_features(target)
        score = len(host[1]) if required is None else len(required)
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        raise ArtifactError(
            f"{path}: no CPU variant of this artifact runs on this host ({host[0]}): "
            f"{'; '.join(reasons)}; rebuild it with --cpu x86-64 or native"
        )
    return best


def _read_objects(
    path: Path, fast: bool
) -> tuple[Manifest, dict[str, bytes], dict[str, bytes], bytes | None]:
    """The manifest of the CPU variant this host runs best (:func:`select_variant`,
    :meth:`Manifest.for_variant`), its verified entry objects and fast-call wrapper objects
    (sha256 -> bytes; no wrappers unless ``fast``) and its runtime object. The objects of
    other variants are not read.

    A writer may replace the artifact between reading the manifest and its blobs (and
    remove the blobs of the previous one); then the manifest has changed and the read is
    retried, up to :data:`_READ_ATTEMPTS` times in all. A blob that is missing or corrupt
    while the manifest stays the same is damage: its ArtifactError propagates. The runtime
    object is read only while no runtime is linked in this process.
    """

    def blobs(
        whole: Manifest,
    ) -> tuple[Manifest, dict[str, bytes], dict[str, bytes], bytes | None]:
        m = whole.for_variant(select_variant(path, whole))  # before reading any object
        objects = {e.sha256: read_blob(path, e.object) for e in m.entries}
        wrappers = {}
        if fast:
            for e in m.entries:
                if e.wrapper is not None:
                    wrappers[e.wrapper.sha256] = read_blob(path, e.wrapper.object)
        runtime = None
        if m.runtime is not None and _runtime is None:
            runtime = read_blob(path, m.runtime.object)
        return m, objects, wrappers, runtime

    manifest = read_manifest(path)
    for attempt in range(1, _READ_ATTEMPTS + 1):
        try:
            return blobs(manifest)
        except ArtifactError:
            again = read_manifest(path)
            if again == manifest or attempt == _READ_ATTEMPTS:
                raise
            manifest = again
    raise AssertionError("unreachable")


#: How often :func:`_read_objects` reads an artifact that writers keep replacing.
_READ_ATTEMPTS = 5


def load(path: str | os.PathLike[str], *, fastcall: bool | None = None) -> Library:
    """Load the artifact directory ``path`` (``build/NAME.gradc``) into this process.

    Takes about a millisecond per object plus the one-off cost of creating the JIT (and
    linking the runtime, for the first artifact that carries one). Of an artifact built
    for several CPUs, only the best variant the host supports is read and linked
    (:func:`select_variant`).

    Exports with a fast-call wrapper (docs/abi.md "Fast call path") are CPython builtins
    calling it; the others, and all of them with ``fastcall=False`` (default: on unless
    the environment variable ``GRADC_FASTCALL`` is ``0``), are Python functions calling
    through ctypes. A wrapper that fails to link leaves its library on the ctypes path.

    Raises:
        ArtifactError: the directory or manifest is missing or truncated, an object is
            missing or fails its sha256 check (the message names the file), the ABI
            version does not match, an object's ABI description disagrees with the
            manifest (``gradc.artifacts.abi.AbiMismatchError``, naming the export and
            what disagrees; nothing is linked), no CPU variant runs on this host (the message names
            each variant and the features the host lacks; nothing is linked), or linking
            fails.
        FormatVersionError: the artifact's major format version is not this gradc's.
    """
    path = Path(path)
    fast = _fastcall_enabled() if fastcall is None else fastcall
    manifest, objects, wrappers, runtime_code = _read_objects(path, fast)
    for e in manifest.entries:
        if e.abi_version != ABI_VERSION:
            raise ArtifactError(
                f"{path}: export {e.name!r} uses calling convention version {e.abi_version}; "
                f"this loader speaks version {ABI_VERSION}: rebuild the artifact with this "
                "gradc (`gradc build`) or use a matching gradc"
            )
    # Before anything is linked or called: every object must describe itself as the
    # manifest says (docs/abi.md "ABI description"), or the manifest is not trusted.
    for e in manifest.entries:
        check_object(str(path), e, manifest.target, objects[e.sha256])
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            check_object(str(path), e, manifest.target, wrappers[e.wrapper.sha256], "wrapper")
    if manifest.runtime is not None and manifest.runtime.abi != RUNTIME_ABI:
        raise ArtifactError(
            f"{path}: the artifact was built for runtime ABI {manifest.runtime.abi!r}; "
            f"this gradc links runtime ABI {RUNTIME_ABI!r} ({_RUNTIME_CHANGES}): "
            "rebuild the artifact with this gradc"
        )
    jit = _lljit()
    if runtime_code is not None and manifest.runtime is not None:
        try:
            _link_runtime(jit, runtime_code, manifest.runtime.sha256)
        except RuntimeError as exc:
            raise ArtifactError(f"{path}: linking the runtime object failed: {exc}") from exc
    runtime = _runtime
    tracker = None
    if wrappers:
        try:
            tracker = _link(jit, manifest, objects, wrappers, runtime)
        except RuntimeError:
            wrappers = {}  # e.g. a CPython lacking a function the wrapper calls: use ctypes
    if tracker is None:
        try:
            tracker = _link(jit, manifest, objects, {}, runtime)
        except RuntimeError as exc:
            hint = ""
            if "gradc_rt" in str(exc) and runtime is None:
                hint = " (the artifact needs the gradc runtime but carries none: rebuild it)"
            raise ArtifactError(f"{path}: linking the objects failed: {exc}{hint}") from exc
    keepalive = (tracker, runtime)
    functions = {}
    slow = {}
    for e in manifest.entries:
        address = tracker[e.symbol]
        if not address:
            raise ArtifactError(f"{path}: symbol {e.symbol} of {e.name!r} is not defined")
        call = _make_export(e, manifest.module, address, keepalive)
        slow[e.name] = call
        builtin = None
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            builtin = _make_fast(e, manifest.module, tracker[e.wrapper.symbol], call, keepalive)
        functions[e.name] = builtin or call
    return Library(path, manifest, functions, keepalive, slow)


def _link(
    jit: Any,
    manifest: Manifest,
    objects: dict[str, bytes],
    wrappers: dict[str, bytes],
    runtime: Any,
) -> Any:
    """Link entry ``objects`` and fast-call ``wrappers`` into a new JIT library; returns
    its resource tracker.

    Raises:
        RuntimeError: LLVM's linker failed (an undefined symbol ...).
    """
    builder = llvm.JITLibraryBuilder()
    for blobs in (objects, wrappers):
        for sha in sorted(blobs):
            builder.add_object_img(blobs[sha])
    if runtime is not None:
        builder.add_jit_library(RUNTIME_LIBRARY)
    for e in manifest.entries:
        builder.export_symbol(e.symbol)
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            builder.export_symbol(e.wrapper.symbol)
    if wrappers:
        for name, address in _python_api().items():
            builder.import_symbol(name, address)
    with _jit_lock:
        library_name = f"gradc:{manifest.module}:{next(_library_numbers)}"
    return builder.link(jit, library_name)
