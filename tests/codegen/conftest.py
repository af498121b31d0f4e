"""Fixtures for code generator tests: build IR, lower, emit, link with LLJIT, call by ctypes.

The ``codegen`` fixture (session-scoped) is a :class:`Toolkit`:

- ``codegen.function(module, name, [("x", F64)], F64)`` adds a function to an IR module
  and returns a :class:`~gradc.compiler.ir.builder.Builder` positioned in its entry block;
- ``codegen.build(module, ["f", "g"])`` lowers and emits each export to its own object,
  links all of them into one JIT library and returns ``{name: callable}``; a callable takes
  Python scalars, returns the result (a tuple for tuple results) or raises the Python
  exception of the error record, with ``.line`` set to the source line of the record's
  raise site (``gradc.compiler.codegen.sites``);
- ``codegen.outcome(fn, *args)`` runs ``fn`` and returns ``("ok", value)`` or
  ``("raise", type, message)``, the same for compiled and Python functions.

Calling follows docs/abi.md exactly (status return, ``out`` pointer, 48-byte error record).
Arrays: an argument is a NumPy array (or a ready :func:`descriptor_class` instance),
passed as a pointer to a borrowed descriptor (``meminfo`` NULL); an array result comes back
as its descriptor (a ctypes Structure): :func:`to_numpy` copies it into NumPy and
``codegen.runtime.decref(desc.meminfo)`` releases it. An IndexError whose record carries
a template (``data[3] == 1``) is formatted like the loader does, and the raised exception
gets ``.data`` (the four payload words) besides ``.line``.

The runtime object (:mod:`gradc.compiler.codegen.runtime`) is linked once per session into
the JIT library ``gradc_rt1``; every test library links against it with
``add_jit_library`` (the loader's recipe).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Sequence
from typing import Any

import llvmlite.binding as llvm
import numpy as np
import pytest

from gradc.compiler.codegen.emit import emit_object
from gradc.compiler.codegen.lower import lower_export
from gradc.compiler.codegen.runtime import RUNTIME_SYMBOLS, emit_runtime_object
from gradc.compiler.codegen.sites import raise_sites
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Function, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    ArrayType,
    NoneType,
    ScalarType,
    TupleType,
    Type,
)
from gradc.compiler.options import CompilerOptions

#: Name of the session's runtime JIT library.
RUNTIME_LIBRARY = "gradc_rt1"

EXCEPTIONS: dict[int, type[Exception]] = {
    1: ValueError,
    2: ZeroDivisionError,
    3: AssertionError,
    4: OverflowError,
    5: IndexError,
    6: TypeError,
    7: MemoryError,
    8: RuntimeError,
}


class GradcError(ctypes.Structure):
    """The error record of docs/abi.md."""

    _fields_ = [
        ("kind", ctypes.c_int32),
        ("site", ctypes.c_int32),
        ("message", ctypes.c_char_p),
        ("data", ctypes.c_int64 * 4),
    ]


assert ctypes.sizeof(GradcError) == 48

_SCALARS = {
    F64: ctypes.c_double,
    F32: ctypes.c_float,
    I64: ctypes.c_int64,
    I32: ctypes.c_int32,
    I8: ctypes.c_int8,
    I1: ctypes.c_uint8,
}


#: NumPy dtype of each array element type.
NUMPY_DTYPES: dict[ScalarType, Any] = {
    F64: np.float64,
    F32: np.float32,
    I64: np.int64,
    I32: np.int32,
    I8: np.int8,
    I1: np.bool_,
}


@functools.cache
def descriptor_class(ndim: int) -> Any:
    """The ctypes Structure of a rank-``ndim`` array descriptor (docs/abi.md)."""
    fields = [
        ("data", ctypes.c_void_p),
        ("meminfo", ctypes.c_void_p),
        ("shape", ctypes.c_int64 * ndim),
        ("strides", ctypes.c_int64 * ndim),
    ]
    cls = type(f"Descriptor{ndim}", (ctypes.Structure,), {"_fields_": fields})
    assert ctypes.sizeof(cls) == 16 + 16 * ndim
    return cls


def descriptor(a: np.ndarray) -> Any:
    """A borrowed descriptor of NumPy array ``a`` (meminfo NULL; keep ``a`` alive)."""
    d = descriptor_class(a.ndim)()
    d.data = a.ctypes.data
    d.meminfo = None
    for k in range(a.ndim):
        d.shape[k] = a.shape[k]
        d.strides[k] = a.strides[k]
    return d


class _Interface:
    def __init__(self, desc: Any, dtype: Any) -> None:
        ndim = len(desc.shape)
        self.__array_interface__ = {
            "version": 3,
            "data": (desc.data or 0, False),
            "shape": tuple(desc.shape[k] for k in range(ndim)),
            "strides": tuple(desc.strides[k] for k in range(ndim)),
            "typestr": np.dtype(dtype).str,
        }


def to_numpy(desc: Any, dtype: ScalarType | Any) -> np.ndarray:
    """A NumPy copy of the array described by ``desc`` (an IR scalar type or a dtype)."""
    if isinstance(dtype, ScalarType):
        dtype = NUMPY_DTYPES[dtype]
    return np.array(_Interface(desc, dtype), copy=True)


def ctype_of(t: Type) -> Any:
    """The ctypes type of IR type ``t`` at the ABI (tuples become Structures, arrays
    descriptors)."""
    if isinstance(t, ArrayType):
        return descriptor_class(t.ndim)
    if isinstance(t, TupleType):
        fields = [(f"e{i}", ctype_of(e)) for i, e in enumerate(t.elements)]
        return type("Tuple", (ctypes.Structure,), {"_fields_": fields})
    if isinstance(t, NoneType):
        return ctypes.c_uint8
    return _SCALARS[t]  # type: ignore[index]


def from_c(value: Any, t: Type) -> Any:
    """A Python value from the ctypes value of IR type ``t``."""
    if isinstance(t, TupleType):
        return tuple(from_c(getattr(value, f"e{i}"), e) for i, e in enumerate(t.elements))
    if isinstance(t, NoneType):
        return None
    if isinstance(t, ArrayType):
        copy = descriptor_class(t.ndim)()
        ctypes.pointer(copy)[0] = value
        return copy
    raw = value.value if hasattr(value, "value") else value
    return bool(raw) if t == I1 else raw


class Compiled:
    """A linked export callable from Python through ctypes."""

    def __init__(self, func: Function, address: int, sites: Sequence[Loc] = ()) -> None:
        self.func = func
        self.sites = tuple(sites)  # site k (1-based) -> location (docs/abi.md)
        self.result_type = ctype_of(func.return_type)
        argtypes = [
            ctypes.POINTER(ctype_of(p.type)) if isinstance(p.type, ArrayType) else ctype_of(p.type)
            for p in func.params
        ]
        proto = ctypes.CFUNCTYPE(
            ctypes.c_int32, *argtypes, ctypes.POINTER(self.result_type), ctypes.POINTER(GradcError)
        )
        self.cfunc = proto(address)

    def __call__(self, *args: Any) -> Any:
        out = self.result_type()
        err = GradcError()
        cargs = []
        for a, p in zip(args, self.func.params):
            if isinstance(p.type, ArrayType):
                d = descriptor(a) if isinstance(a, np.ndarray) else a
                cargs.append(ctypes.byref(d))
            else:
                cargs.append(a)
        status = self.cfunc(*cargs, ctypes.byref(out), ctypes.byref(err))
        if status != 0:
            assert status == err.kind, (status, err.kind)
            message = err.message.decode("utf-8")
            if err.data[3] == 1:  # a template over data[0..2] (docs/abi.md)
                message = message.format(*err.data[:3])
            exc = EXCEPTIONS[status](message)
            line = self.sites[err.site - 1].line if 0 < err.site <= len(self.sites) else 0
            exc.line = line  # type: ignore[attr-defined]
            exc.data = tuple(err.data)  # type: ignore[attr-defined]
            raise exc
        return from_c(out, self.func.return_type)


class Runtime:
    """The runtime library linked into the session's JIT (addresses and callables)."""

    def __init__(self, jit: Any) -> None:
        obj = emit_runtime_object(CompilerOptions()).object_code
        builder = llvm.JITLibraryBuilder().add_object_img(obj)
        for name in RUNTIME_SYMBOLS:
            builder.export_symbol(name)
        self.tracker = builder.link(jit, RUNTIME_LIBRARY)
        self.alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(
            self.tracker["gradc_rt1_alloc"]
        )
        self.incref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.tracker["gradc_rt1_incref"])
        self.decref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.tracker["gradc_rt1_decref"])
        self._live = ctypes.c_int64.from_address(self.tracker["gradc_rt1_live"])

    @property
    def live(self) -> int:
        """Blocks allocated and not yet freed."""
        return int(self._live.value)

    @staticmethod
    def refcount(meminfo: int) -> int:
        """The reference count in a block's header."""
        return int(ctypes.c_int64.from_address(meminfo).value)

    @staticmethod
    def nbytes(meminfo: int) -> int:
        """The data size recorded in a block's header."""
        return int(ctypes.c_int64.from_address(meminfo + 8).value)


class Toolkit:
    """Builds IR functions and compiles them into one JIT per session."""

    def __init__(self) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        self.jit = llvm.create_lljit_compiler()
        self.runtime = Runtime(self.jit)
        self._trackers: list[Any] = []
        self._libraries = 0

    @staticmethod
    def function(
        module: Module, name: str, params: Sequence[tuple[str, Type]], result: Type, line: int = 1
    ) -> Builder:
        """Add function ``name`` to ``module``; return a builder at its entry block."""
        func = Function(
            name,
            params=[Argument(type=t, name=n, index=i) for i, (n, t) in enumerate(params)],
            return_type=result,
            loc=Loc(f"{module.name}.py", line, 0),
            source_name=name,
        )
        module.add(func)
        b = Builder(func)
        b.position_at_end(func.add_block("entry"))
        b.loc = Loc(f"{module.name}.py", line, 4)
        return b

    def objects(
        self, module: Module, exports: Sequence[str], options: CompilerOptions | None = None
    ) -> dict[str, bytes]:
        """Object code per export (symbol ``gradc_<name>_test``)."""
        options = options or CompilerOptions()
        out = {}
        for name in exports:
            llmod = lower_export(module, name, self.symbol(name), options)
            out[name] = emit_object(llmod, options).object_code
        return out

    @staticmethod
    def symbol(name: str) -> str:
        """The test symbol of export ``name``."""
        return f"gradc_{name}_test"

    def build(
        self, module: Module, exports: Sequence[str], options: CompilerOptions | None = None
    ) -> dict[str, Compiled]:
        """Compile ``exports`` of ``module`` and link them into this process."""
        objects = self.objects(module, exports, options)
        builder = llvm.JITLibraryBuilder()
        for name, obj in objects.items():
            builder.add_object_img(obj).export_symbol(self.symbol(name))
        builder.add_jit_library(RUNTIME_LIBRARY)  # resolves gradc_rt1_*
        self._libraries += 1
        tracker = builder.link(self.jit, f"codegen_test_{self._libraries}")
        self._trackers.append(tracker)  # keep the code mapped for the whole session
        return {
            name: Compiled(
                module.functions[name],
                tracker[self.symbol(name)],
                [inst.loc for inst in raise_sites(module, name)],
            )
            for name in exports
        }

    @staticmethod
    def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
        """``("ok", value)`` or ``("raise", exception type, message)``."""
        try:
            return ("ok", fn(*args))
        except (
            ValueError,
            ZeroDivisionError,
            OverflowError,
            AssertionError,
            IndexError,
            MemoryError,
        ) as exc:
            return ("raise", type(exc), str(exc))


@pytest.fixture(scope="session")
def codegen() -> Toolkit:
    """The session's :class:`Toolkit`."""
    return Toolkit()


@pytest.fixture(scope="module")
def source_lib(
    request: pytest.FixtureRequest,
    compile_module: Callable[[Any], Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    """The test module's ``SOURCE`` (a Python module of exports), compiled and loaded."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    path = tmp_path_factory.mktemp(name) / f"{name}_source.py"
    path.write_text(request.module.SOURCE)
    return compile_module(path)


@pytest.fixture(scope="module")
def source_plain(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The test module's ``SOURCE`` run by CPython and NumPy (the oracle): its globals."""
    module: dict[str, Any] = {}
    exec("from __future__ import annotations\n" + request.module.SOURCE, module)
    return module
