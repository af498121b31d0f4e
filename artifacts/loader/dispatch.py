"""One callable for a function exported with several signatures, dispatching on the
argument types as Numba's dispatcher does for its compiled signatures.

``@gradc.export(["f64(f64, f64)", "f32(f32, f32)", "i64(i64, i64)"])`` builds entries
``f.f64.f64``, ``f.f32.f32`` and ``f.i64.i64``, each with ``dispatch = "f"``
(docs/artifacts.md). The loader offers ``f``: a call picks, as Numba's dispatcher does,

1. among the signatures to which every argument converts safely (an exact match
   included), the one of least conversion cost, ties broken by the list order;
2. else raises TypeError listing the signatures,

and calls that specialisation's own callable (fast-call wrapper or ctypes path), which
converts and checks the arguments as for an export with one signature. The choice is
cached per tuple of argument types, so a call costs one dict lookup and one extra Python
call over the specialisation's.

The cost of a signature is the pair (conversions between kinds, widenings within a kind)
summed over the arguments, compared in that order (Numba's ranking of its ``safe`` over
its ``promote`` conversions): an argument of the parameter's exact type costs nothing; a
widening within a kind (``i32`` -> ``i64``, ``f32`` -> ``f64``, ``bool`` -> an integer,
an unsigned integer to a wider signed one, an array to a parameter of layout ``A``) costs
(0, 1); a conversion between kinds (an integer or ``bool`` -> a float) costs (1, 0). So
``np.int32`` or ``bool`` arguments go to an ``i64`` signature before an ``f64`` one listed
first, and give the exact integer plain Python gives.

The type of an argument is that of Numba's ``typeof``: ``bool``, ``int`` -> ``i64``,
``float`` -> ``f64``, a NumPy scalar its dtype, a NumPy array its dtype, rank and layout
(``C`` when C-contiguous, else ``F`` when Fortran-contiguous, else ``A``). Safe
conversions (those that lose no value): bool -> any int or float (a NumPy bool to a float
only: the integer parameters' conversion refuses it, as ``operator.index`` does); an integer -> a wider
integer, -> ``f64``, and -> ``f32`` from at most 16 bits; ``f32`` -> ``f64``. Never a
float to an integer, never ``f64`` -> ``f32``. An array converts to a parameter of the
same dtype and rank whose layout is ``A`` or one the array has (a C-contiguous array to
``f64[::1]``). Parameters left to their default values (and keyword arguments) take part
by name; an omitted parameter matches every signature.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gradc.artifacts.abi.types import AbiType, Array, Scalar
from gradc.artifacts.loader.calls import python_signature

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.manifest_records import AnyEntry as Entry

    #: An argument's type for dispatch: ("scalar", kind, bits) or ("array", kind, bits,
    #: ndim, layout); kind is NumPy's (b, i, u, f), bits 1 for bool.
    ArgType = tuple[Any, ...]

__all__ = ["make_dispatcher"]

_SCALARS = {
    "bool": ("b", 1),
    "i32": ("i", 32),
    "i64": ("i", 64),
    "f32": ("f", 32),
    "f64": ("f", 64),
}
_PYTHON = {bool: ("scalar", "b", 1), int: ("scalar", "i", 64), float: ("scalar", "f", 64)}
#: Conversion costs of one argument (module docstring): (between kinds, within a kind).
_EXACT, _WIDEN, _CROSS = (0, 0), (0, 1), (1, 0)
_NO = None


def make_dispatcher(
    name: str, module: str, specialisations: Sequence[tuple[Entry, Callable[..., Any]]]
) -> Callable[..., Any]:
    """The callable ``name`` of ``module`` dispatching among ``specialisations`` (entry,
    its callable), in declaration order (see the module docstring)."""
    params = [[t for _, t in e.signature.abi.params] for e, _ in specialisations]
    names = [n for n, _ in specialisations[0][0].signature.params]
    functions = [fn for _, fn in specialisations]
    shown = [_shown(name, e) for e, _ in specialisations]
    nparams = len(names)
    cache: dict[Any, Callable[..., Any]] = {}
    has_arrays = any(isinstance(t, Array) for ps in params for t in ps)
    layouts = any(isinstance(t, Array) and t.layout != "A" for ps in params for t in ps)
    key_of = _array_key_of(layouts) if has_arrays else type

    def select(given: dict[int, Any]) -> Callable[..., Any]:
        types = {i: _type_of(v) for i, v in given.items()}
        ranked = [(c, k) for k, ps in enumerate(params) if (c := _cost(types, ps)) is not None]
        if ranked:
            return functions[min(ranked)[1]]
        got = ", ".join(
            ("..." if i not in types else _spelt(types[i]) or type(given[i]).__name__)
            for i in range(nparams)
        )
        raise TypeError(
            f"{name}() has no signature for the argument types ({got}); its signatures "
            f"are: {'; '.join(shown)}"
        )

    def general(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != nparams:
            given = _bound(args, kwargs, names)
            return (functions[0] if given is None else select(given))(*args, **kwargs)
        key = tuple(map(key_of, args))
        try:
            fn = cache[key]
        except KeyError:
            fn = cache[key] = select(dict(enumerate(args)))
        return fn(*args)

    dispatch = _fast_path(
        nparams, cache, general, None if key_of is type else key_of, inline=not layouts
    )
    dispatch.__name__ = name
    dispatch.__qualname__ = f"{module}.{name}"
    dispatch.__doc__ = "\n".join(shown) + (
        f"\n\nCompiled by gradc with {len(shown)} signatures, dispatched on the argument "
        "types (the safe conversion of least cost: exact, then widening, then int -> float)."
    )
    dispatch.__signature__ = _signature(specialisations)  # type: ignore[attr-defined]
    #: signature text (``(x: f64) -> f64``) -> the specialisation's callable
    dispatch.overloads = {str(e.signature): fn for e, fn in specialisations}  # type: ignore[attr-defined]
    dispatch.__gradc_entries__ = tuple(e for e, _ in specialisations)  # type: ignore[attr-defined]
    return dispatch


#: The generated fast path of a dispatcher with N positional parameters: one frame, the
#: arguments' classes looked up in the cache, everything else (keywords, a count that
#: differs, a first call with these types) left to ``general``.
_FAST_PATH = """
def dispatch({params}*rest, **kwargs):
    if rest or kwargs or {last} is _MISSING:
        return general(*[a for a in ({args}) if a is not _MISSING], *rest, **kwargs)
    fn = cache_get(({keys}))
    if fn is None:
        return general({args})
    return fn({args})
"""

_MISSING: Any = object()


def _fast_path(
    nparams: int,
    cache: dict[Any, Callable[..., Any]],
    general: Callable[..., Any],
    key_of: Callable[[Any], Any] | None,
    *,
    inline: bool,
) -> Callable[..., Any]:
    """The dispatcher's entry point: :data:`_FAST_PATH` for ``nparams`` parameters (a
    Python function with ``*args`` costs a tuple and a ``map`` per call: 3x the overhead
    over a specialisation's own call); ``key_of`` None keys on the classes alone, else
    ``key_of``'s key, spelt out in the template when ``inline`` (no layout: what
    :func:`_array_key_of` computes without a call)."""
    if nparams == 0:
        return general
    args = [f"a{i}" for i in range(nparams)]
    if key_of is None:
        keys = [f"{a}.__class__" for a in args]
    elif inline:
        keys = [
            f"((({a}.dtype.char, {a}.ndim) if {a}.__class__ is ndarray else {a}.__class__))"
            for a in args
        ]
    else:
        keys = [f"key_of({a})" for a in args]
    source = _FAST_PATH.format(
        params="".join(f"{a}=_MISSING, " for a in args) + "/, ",
        last=args[-1],
        args=", ".join(args) + ("," if nparams == 1 else ""),
        keys=", ".join(keys) + ("," if nparams == 1 else ""),
    )
    scope = {"_MISSING": _MISSING, "general": general, "cache_get": cache.get, "key_of": key_of}
    if key_of is not None:
        import numpy as np

        scope["ndarray"] = np.ndarray
    exec(source, scope)  # our own template: parameter names only
    dispatch: Callable[..., Any] = scope["dispatch"]
    return dispatch


def _bound(
    args: tuple[Any, ...], kwargs: dict[str, Any], names: list[str]
) -> dict[int, Any] | None:
    """Parameter index -> argument of a call with keywords or omitted parameters; None
    when the call does not bind (the first specialisation then raises Python's error)."""
    if len(args) > len(names) or any(k not in names for k in kwargs):
        return None
    given = dict(enumerate(args))
    for k, v in kwargs.items():
        if names.index(k) in given:
            return None
        given[names.index(k)] = v
    return given


def _array_key_of(layouts: bool) -> Callable[[Any], Any]:
    """The cache key of one argument when some signature has arrays: its type, or for a
    NumPy array its dtype and rank, and its contiguity when some signature asks for a
    layout (``f64[::1]``; reading ``flags`` costs more than the rest of the call)."""
    import numpy as np

    ndarray = np.ndarray

    def key_of(v: Any) -> Any:
        if type(v) is ndarray:  # the dtype's character: what _type_of reads of it
            if layouts:
                flags = v.flags
                return (v.dtype.char, v.ndim, flags.c_contiguous, flags.f_contiguous)
            return (v.dtype.char, v.ndim)
        return type(v)

    return key_of


def _type_of(v: Any) -> ArgType | None:
    """The dispatch type of argument ``v`` (module docstring), None for other objects."""
    found = _PYTHON.get(type(v))
    if found is not None:
        return found
    dtype = getattr(v, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if kind not in ("b", "i", "u", "f"):
        return None
    bits = 1 if kind == "b" else dtype.itemsize * 8  # type: ignore[union-attr]
    ndim = getattr(v, "ndim", 0)
    if type(v).__name__ != "ndarray":  # a NumPy bool scalar is kind "B" (_scalar_match)
        return ("scalar", "B" if kind == "b" else kind, bits)
    flags = v.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    return ("array", kind, bits, ndim, layout, flags.c_contiguous, flags.f_contiguous)


def _cost(types: dict[int, ArgType | None], params: list[AbiType]) -> tuple[int, int] | None:
    """The cost of calling a signature of parameter types ``params`` with arguments of
    ``types`` (parameter index -> type): the sum of :func:`_match`'s, None when some
    argument does not convert safely."""
    between = within = 0
    for i, got in types.items():
        cost = _match(got, params[i])
        if cost is None:
            return None
        between, within = between + cost[0], within + cost[1]
    return between, within


def _match(got: ArgType | None, param: AbiType) -> tuple[int, int] | None:
    """The cost of converting an argument of type ``got`` to ``param`` (module
    docstring), None when it does not convert safely."""
    if got is None:
        return _NO
    if isinstance(param, Scalar):
        return _scalar_match(got, param) if got[0] == "scalar" else _NO
    if not isinstance(param, Array) or got[0] != "array":
        return _NO
    _, kind, bits, ndim, layout, c_contiguous, f_contiguous = got
    if (kind, bits) != _SCALARS.get(str(param.dtype)) or ndim != param.ndim:
        return _NO
    if param.layout == layout:
        return _EXACT
    fits = {"A": True, "C": c_contiguous, "F": f_contiguous}.get(param.layout, False)
    return _WIDEN if fits else _NO


def _scalar_match(got: ArgType, param: Scalar) -> tuple[int, int] | None:
    _, kind, bits = got
    want = _SCALARS.get(str(param))
    if want is None:
        return _NO
    if kind == "B":  # NumPy's bool: an integer parameter refuses it (operator.index does)
        if want[0] == "i":
            return _NO
        kind = "b"
    if (kind, bits) == want:
        return _EXACT
    to_kind, to_bits = want
    safe = (
        kind == "b"
        or (kind == "i" and to_kind == "i" and to_bits >= bits)
        or (kind == "u" and to_kind == "i" and to_bits > bits)
        or (kind in ("i", "u") and to_kind == "f" and (to_bits == 64 or bits <= 16))
        or (kind == "f" and to_kind == "f" and to_bits >= bits)
    )
    if not safe or to_kind == "b":
        return _NO
    return _CROSS if to_kind == "f" and kind != "f" else _WIDEN


def _spelt(t: ArgType | None) -> str:
    """An argument type as gradc spells types (``f64``, ``f64[:, ::1]``), ``""`` for None."""
    if t is None:
        return ""
    kind, bits = t[1], t[2]
    dtype = "bool" if kind in ("b", "B") else f"{'u' if kind == 'u' else kind}{bits}"
    if t[0] == "scalar":
        return dtype
    ndim, layout = t[3], t[4]
    dims = [":"] * ndim
    if ndim and layout == "C":
        dims[-1] = "::1"
    elif ndim and layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def _shown(name: str, e: Entry) -> str:
    params = ", ".join(f"{n}: {t}" for n, t in e.signature.params)
    return f"{name}({params}) -> {e.signature.result}"


def _signature(specialisations: Sequence[tuple[Entry, Callable[..., Any]]]) -> Any:
    """The ``inspect.Signature`` shown by ``help()``: the parameters of the first
    specialisation, each annotated with the types of every signature (``f64 | f32``), as
    is the result; defaults those of the first specialisation."""
    entries = [e for e, _ in specialisations]

    def union(texts: list[str]) -> str:
        return " | ".join(dict.fromkeys(texts))

    params = [
        (n, union([e.signature.params[i][1] for e in entries]))
        for i, (n, _) in enumerate(entries[0].signature.params)
    ]
    result = union([e.signature.result for e in entries])
    return python_signature(params, dict(entries[0].signature.defaults), result)
