"""The fast call path: a CPython builtin per export whose C function is its wrapper
(docs/abi.md "Fast call path").

A wrapper object (``gradc.compiler.codegen.pywrapper``) defines one ``METH_FASTCALL |
METH_KEYWORDS`` method; the loader links it beside the entries (its CPython symbols
imported by :mod:`.jit`), makes a ``PyMethodDef`` for it and a builtin with
``PyCFunction_NewEx(def, self, module_name)``, ``self`` being a :class:`FastExport` whose
call is the ctypes path (:mod:`.calls`), which the wrapper hands the calls it cannot take.
"""

from __future__ import annotations

import ctypes
import math
import os
from collections.abc import Callable

from gradc._flags import flag_value
from gradc.artifacts.abi.symbols import METH_FASTCALL_KEYWORDS, RAISE_ATTRIBUTE, RESULT_ATTRIBUTE
from gradc.artifacts.loader.calls import export_doc
from gradc.artifacts.loader.exceptions import ErrorRecord, raise_error

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.manifest_records import AnyEntry as Entry

__all__ = ["FASTCALL_ENV", "FastExport", "fastcall_enabled", "make_fast"]

#: Environment variable: ``0`` keeps every export on the ctypes path.
FASTCALL_ENV = "GRADC_FASTCALL"


def fastcall_enabled() -> bool:
    """Whether :data:`FASTCALL_ENV` leaves the fast call path on (the default; ``0``,
    ``false``, ``no``, ``off`` turn it off: ``gradc._flags.flag_value``)."""
    return flag_value(os.environ.get(FASTCALL_ENV), default=True)


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
        "_gradc_build",
        "_gradc_call",
        "_gradc_fast",
        "_gradc_keep",
        "_gradc_raise",
        "_gradc_result",
    )

    def __init__(
        self,
        entry: Entry,
        call: Callable[..., Any] | None,
        raise_error: Callable[[int, int], None],
        keep: Any,
        build: Callable[[], Callable[..., Any]] | None = None,
    ) -> None:
        self.__gradc_entry__ = entry
        self._gradc_call = call
        self._gradc_build = build
        self._gradc_bind = getattr(call, "__gradc_bind__", None)
        self._gradc_raise = raise_error
        self._gradc_keep = keep
        self._gradc_fast: Callable[..., Any] | None = None
        self._gradc_result = getattr(call, "__gradc_read_result__", None)

    def ctypes_call(self) -> Callable[..., Any]:
        """The export's ctypes path, built on first use when :func:`make_fast` was given
        a ``build`` (issue 13: a process that never falls back does not build it)."""
        call = self._gradc_call
        if call is None:
            assert self._gradc_build is not None
            call = self._gradc_call = self._gradc_build()
            self._gradc_bind = getattr(call, "__gradc_bind__", None)
        return call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self.ctypes_call()
        fast = self._gradc_fast
        if kwargs and fast is not None and self._gradc_bind is not None:
            # Bind keywords here, then take the fast path positionally (an argument that
            # does not unbox comes back here without keywords: the ctypes path).
            return fast(*self._gradc_bind(args, kwargs))
        return call(*args, **kwargs)


# what a wrapper calls on an error, and to read a result holding a borrowed array
assert RAISE_ATTRIBUTE in FastExport.__slots__ and RESULT_ATTRIBUTE in FastExport.__slots__

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


def _text_signature(entry: Entry) -> str | None:
    """``name($self, a, b=1.5)``: the ``__text_signature__`` a builtin's ``inspect.signature``
    and ``help()`` read (names and defaults; CPython keeps no annotations for builtins, so
    the types are in the docstring's first line). None when a default is an infinity or
    a NaN, which a text signature cannot spell."""
    defaults = dict(entry.signature.defaults)
    if any(isinstance(v, float) and not math.isfinite(v) for v in defaults.values()):
        return None
    shown = ["$self"]
    for name, _ in entry.signature.params:
        shown.append(f"{name}={defaults[name]!r}" if name in defaults else name)
    return f"{entry.name}({', '.join(shown)})"


def make_fast(
    entry: Entry,
    module: str,
    address: int,
    call: Callable[..., Any] | None,
    keepalive: Any,
    build: Callable[[], Callable[..., Any]] | None = None,
) -> Callable[..., Any] | None:
    """The builtin of a fast-call wrapper at ``address``; None when there is none. Calls
    it hands back take ``call``, the ctypes path, or (``call`` None) the one ``build``
    returns when first needed (``FastExport.ctypes_call``; not for results holding
    arrays, whose wrapper reads them through the ctypes path's reader)."""
    if not address:
        return None
    qualname = f"{module}.{entry.name}"

    def raise_record(status: int, err_address: int) -> None:
        raise_error(status, ErrorRecord.from_address(err_address), qualname, entry)

    text = _text_signature(entry)
    plain = call.__doc__ if call is not None else export_doc(entry)
    doc = f"{text}\n--\n\n{plain}" if text else plain
    mdef = _PyMethodDef(entry.name.encode(), address, METH_FASTCALL_KEYWORDS, (doc or "").encode())
    self = _self_class(module)(entry, call, raise_record, (mdef, keepalive), build)
    fn: Callable[..., Any] = _pycfunction_new(mdef, self, module)
    self._gradc_fast = fn  # a cycle (fn -> self -> fn), collected with the library
    return fn
