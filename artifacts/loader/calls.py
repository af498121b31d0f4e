"""The ctypes call path: one Python callable per export (docs/abi.md "Signature").

Each export is called with the C ABI::

    int32_t entry(ARG_0, ..., ARG_{n-1}, RESULT *out, gradc_error *err);

The callable binds positional and keyword arguments like Python, checks the argument
types (TypeError naming the parameter), converts, calls, turns a nonzero status into the
Python exception of the error record (:mod:`.exceptions`), and converts the result (tuple
structs become tuples, ``bool`` becomes ``bool``, array descriptors become NumPy arrays).
Everything that can be prepared once (the ctypes prototype, converters, result types) is
prepared when the export is made, from its structured signature
(``Entry.signature.abi``, parsed by ``gradc.artifacts.abi.parse_type``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

from gradc.artifacts.abi.types import AbiType, Array, Scalar, Tuple
from gradc.artifacts.loader.arrays import array_ctype
from gradc.artifacts.loader.convert import FLOAT_CHECKS, CType, scalar_ctype, tuple_ctype
from gradc.artifacts.loader.exceptions import ErrorRecord, raise_error

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.manifest_records import AnyEntry as Entry

__all__ = ["ctype_of", "export_doc", "make_export", "python_signature"]


def ctype_of(t: AbiType, text: str | None = None) -> CType:
    """How ABI type ``t`` crosses the C ABI (:class:`~.convert.CType`); messages spell it
    ``text`` (as the manifest wrote it; default its canonical spelling)."""
    text = str(t) if text is None else text.strip()
    if isinstance(t, Scalar):
        return scalar_ctype(t)
    if isinstance(t, Array):
        return array_ctype(t, text)
    assert isinstance(t, Tuple)
    return tuple_ctype(text, [ctype_of(e) for e in t.elements])


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


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


def _binder(
    name: str, names: tuple[str, ...], sig_text: str, defaults: dict[str, Any]
) -> Callable[..., tuple[Any, ...]]:
    """``bind(args, kwargs)`` of export ``name`` with parameters ``names``: matches
    positional and keyword arguments to parameters like Python does (TypeError otherwise);
    parameters left unbound take their ``defaults``."""
    nparams = len(names)

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if len(args) > nparams:
            raise TypeError(
                f"{name}() takes {nparams} argument{'s' * (nparams != 1)} "
                f"({sig_text}) but {len(args)} were given"
            )
        bound = list(args) + [_MISSING] * (nparams - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            i = names.index(key)
            if bound[i] is not _MISSING:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            bound[i] = value
        for i, n in enumerate(names):
            if bound[i] is _MISSING and n in defaults:
                bound[i] = defaults[n]
        missing = [n for n, v in zip(names, bound) if v is _MISSING]
        if missing:
            raise TypeError(
                f"{name}() missing {len(missing)} required argument"
                f"{'s' * (len(missing) != 1)}: {', '.join(repr(m) for m in missing)} ({sig_text})"
            )
        return tuple(bound)

    return bind


def _checker(
    name: str, names: tuple[str, ...], checks: tuple[Callable[[Any], Any] | None, ...]
) -> Callable[[Sequence[Any]], None]:
    """``check_all(args)``: check every argument, raising the error of the first bad one,
    prefixed with the export and parameter name."""

    def check_all(args: Sequence[Any]) -> None:
        for param, check, value in zip(names, checks, args):
            if check is None:
                continue
            try:
                check(value)
            except (TypeError, ValueError, OverflowError) as exc:
                raise type(exc)(f"{name}() argument {param!r} {exc}") from None

    return check_all


def make_export(entry: Entry, module: str, address: int, keepalive: Any) -> Callable[..., Any]:
    """The Python callable of export ``entry`` whose entry is at ``address``; it keeps
    ``keepalive`` (the linked code) referenced (see the module docstring)."""
    signature = entry.signature.abi
    texts = [t for _, t in entry.signature.params]
    params = [(name, ctype_of(t, s)) for (name, t), s in zip(signature.params, texts)]
    result = ctype_of(signature.result, entry.signature.result)
    qualname = f"{module}.{entry.name}"
    names = tuple(name for name, _ in params)
    defaults = dict(entry.signature.defaults)
    # errors name the function the user calls: ``f``, not its specialisation ``f.f64.f64``
    called = entry.dispatch or entry.name
    sig_text = _signature_text(called, params, defaults, result)
    bind = _binder(called, names, sig_text, defaults)
    unsupported = [t.text for _, t in params if not t.argument_ok]
    if not result.result_ok:
        unsupported.append(result.text)
    if unsupported:
        fn = _not_supported(qualname, unsupported)
    else:
        out_type = result.ctype
        proto = ctypes.CFUNCTYPE(
            ctypes.c_int32,
            *(t.param_ctype or t.ctype for _, t in params),
            ctypes.POINTER(out_type),
            ctypes.POINTER(ErrorRecord),
        )
        written = set(signature.writes)
        converters = tuple(
            _written(t.convert, called) if n in written and t.convert is not None else t.convert
            for n, t in params
        )
        checks = tuple(c or FLOAT_CHECKS.get(t.text) for c, (_, t) in zip(converters, params))
        fn = _caller(
            entry, qualname, proto(address), out_type, converters, result,
            bind, _checker(called, names, checks),
        )  # fmt: skip
        if result.array_result is not None:
            fn.__gradc_read_result__ = _result_reader(out_type, result.array_result)  # type: ignore[attr-defined]
    fn.__name__ = entry.name
    fn.__qualname__ = qualname
    fn.__doc__ = _doc(sig_text, entry)
    fn.__gradc_entry__ = entry  # type: ignore[attr-defined]
    fn.__gradc_address__ = address  # type: ignore[attr-defined]
    fn.__gradc_keepalive__ = keepalive  # type: ignore[attr-defined]  # code stays mapped
    fn.__gradc_bind__ = bind  # type: ignore[attr-defined]
    fn.__signature__ = python_signature(  # type: ignore[attr-defined]
        [(n, t.text) for n, t in params], defaults, result.text
    )
    return fn


def export_doc(entry: Entry) -> str:
    """The docstring of export ``entry``'s callable (its signature and symbol), without
    building the callable (the fast path's, :mod:`.fastcall`)."""
    signature = entry.signature.abi
    texts = [t for _, t in entry.signature.params]
    params = [(name, ctype_of(t, s)) for (name, t), s in zip(signature.params, texts)]
    result = ctype_of(signature.result, entry.signature.result)
    called = entry.dispatch or entry.name
    return _doc(_signature_text(called, params, dict(entry.signature.defaults), result), entry)


def _signature_text(
    called: str, params: list[tuple[str, CType]], defaults: dict[str, Any], result: CType
) -> str:
    shown = [f"{n}: {t.text}" + (f" = {defaults[n]!r}" if n in defaults else "") for n, t in params]
    return f"{called}({', '.join(shown)}) -> {result.text}"


def _doc(sig_text: str, entry: Entry) -> str:
    return f"{sig_text}\n\nCompiled by gradc (symbol {entry.symbol})."


def python_signature(
    params: Sequence[tuple[str, str]], defaults: dict[str, Any], result: str
) -> Any:
    """The ``inspect.Signature`` of an export: positional-or-keyword parameters (name, gradc
    type string as annotation, default where the export has one) and the result's type
    string as return annotation; what ``help()`` and IDEs show, and what :func:`_binder`
    binds like (``Signature.bind``)."""
    import inspect  # lazily: only a loaded export needs it

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [
            inspect.Parameter(name, kind, default=defaults.get(name, inspect.Parameter.empty),
                              annotation=text)
            for name, text in params
        ],
        return_annotation=result,
    )  # fmt: skip


def _caller(
    entry: Entry,
    qualname: str,
    cfunc: Any,
    out_type: Any,
    converters: tuple[Callable[[Any], Any] | None, ...],
    result: CType,
    bind: Callable[..., tuple[Any, ...]],
    check_all: Callable[[Sequence[Any]], None],
) -> Callable[..., Any]:
    """The call of one export through ctypes function ``cfunc``."""
    nparams = len(converters)
    to_convert = tuple((i, c) for i, c in enumerate(converters) if c is not None)
    scalar_result = result.scalar
    convert_result = result.result
    array_result = result.array_result

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
            raise_error(status, err, qualname, entry)
        if array_result is not None:
            return array_result(out, given)
        return convert_result(out.value if scalar_result else out)

    return call


def _result_reader(
    out_type: Any, array_result: Callable[[Any, Sequence[Any]], Any]
) -> Callable[..., Any]:
    """``read(address, *args)``: the result of a call that left a result holding arrays at
    ``address`` (a fast-call wrapper's result slot), exactly as the ctypes path reads it."""

    def read(address: int, *args: Any) -> Any:
        return array_result(out_type.from_address(address), args)

    return read


def _not_supported(qualname: str, unsupported: list[str]) -> Callable[..., Any]:
    """The callable of an export whose signature this loader cannot call."""

    def not_supported(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{qualname}: this loader cannot call functions with {', '.join(unsupported)} "
            "in their signature yet"
        )

    return not_supported
