"""``dataclass``: ``dataclasses.dataclass`` whose ``__init__``, ``__repr__``, ``__eq__``
and ``__hash__`` are made on first use, not when the class is defined.

``dataclasses.dataclass`` compiles each generated method from source (an ``exec``) as it
decorates the class: ~400 of them for the dataclasses a ``gradc build`` imports, a
quarter of a first build's instructions (issue 13, build latency), while a build calls
few of them. This decorator takes the same arguments (``order=True`` is passed to
``dataclasses`` unchanged) and has the same result: fields, ``__dataclass_fields__``,
``__dataclass_params__``, ``__match_args__``, slots, frozen ``__setattr__`` and
``__delattr__`` (``dataclasses`` makes those), ``replace``, pickling. The four methods
are placeholders that, on their first call, put the method ``dataclasses`` would have
made in their place (compiled then: ``__init__``, ``__eq__``, ``__hash__``; ``__repr__``
is generic) and run it. A method the class body defines is kept, as ``dataclasses``
does, and the hash follows ``dataclasses``' table (``__hash__ = None`` for an ``eq``
class that is not frozen).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

from gradc._dataclass_fields import process
from gradc._method_cache import code_of

_T = TypeVar("_T", bound=type)

__all__ = ["dataclass", "init_function"]

#: ``dataclasses.dataclass``'s defaults of the options :func:`_lazy` passes on unread.
_DEFAULT_REST = {"match_args": True, "kw_only": False, "slots": False, "weakref_slot": False}


@overload
def dataclass(cls: _T, /) -> _T: ...


@overload
def dataclass(
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    unsafe_hash: bool = False,
    frozen: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    slots: bool = False,
) -> Callable[[_T], _T]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls: Any = None, /, **params: bool) -> Any:
    """``dataclasses.dataclass(cls, **params)``, its ``__init__``, ``__repr__``,
    ``__eq__`` and ``__hash__`` made on first use (see the module docstring).

    Raises:
        TypeError: as ``dataclasses.dataclass`` (``unsafe_hash`` with an explicit
            ``__hash__``; a field without a default after one with a default is
            reported at the first construction).
    """
    if cls is None:
        return lambda c: _lazy(c, **params)
    return _lazy(cls, **params)


def _lazy(
    cls: type,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    unsafe_hash: bool = False,
    frozen: bool = False,
    **rest: bool,
) -> Any:
    body = dict(cls.__dict__)
    class_hash = body.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (
        class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in body)
    )
    if unsafe_hash and explicit_hash:
        raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
    # a frozen class without dataclass bases gets its __setattr__/__delattr__ (and, slotted,
    # __getstate__/__setstate__) from _freeze, not compiled; with dataclass bases (their
    # frozenness checked against it) or its own __setattr__, dataclasses makes them
    own_freeze = (
        frozen
        and not any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])
        and not {"__setattr__", "__delattr__"} & body.keys()
    )
    options = {"init": init, "repr": repr, "eq": eq, "order": order}
    options |= {"unsafe_hash": unsafe_hash, "frozen": frozen, **_DEFAULT_REST, **rest}
    new: Any = None if frozen and not own_freeze else process(cls, options)
    if new is None:
        new = dataclasses.dataclass(
            cls,
            init=False,
            repr=False,
            eq=False,
            order=order,
            frozen=frozen and not own_freeze,
            **rest,
        )
        params = new.__dataclass_params__
        params.init, params.repr, params.eq, params.unsafe_hash = init, repr, eq, unsafe_hash
        params.frozen = frozen
    if own_freeze:
        _freeze(new, slotted=rest.get("slots", False))
    if init and "__init__" not in body:
        new.__init__ = _placeholder(new, "__init__", init_function)
    if repr and "__repr__" not in body:
        new.__repr__ = _generic_repr
    if eq and "__eq__" not in body:
        new.__eq__ = _placeholder(new, "__eq__", _eq_function)
    if unsafe_hash or (eq and frozen and not explicit_hash):
        new.__hash__ = _placeholder(new, "__hash__", _hash_function)
    elif eq and not frozen and not explicit_hash:
        new.__hash__ = None
    return new


def _freeze(cls: Any, *, slotted: bool) -> None:
    """``dataclasses``' frozen ``__setattr__`` and ``__delattr__`` on ``cls`` (and, for a
    slotted class, the ``__getstate__``/``__setstate__`` that pickling then needs)."""
    names = frozenset(f.name for f in dataclasses.fields(cls))

    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    methods: list[Callable[..., Any]] = [__setattr__, __delattr__]
    if slotted:

        def __getstate__(self: object) -> list[object]:
            return [getattr(self, f.name) for f in dataclasses.fields(self)]  # type: ignore[arg-type]

        def __setstate__(self: object, state: list[object]) -> None:
            for f, value in zip(dataclasses.fields(self), state, strict=False):  # type: ignore[arg-type]
                object.__setattr__(self, f.name, value)

        methods += [__getstate__, __setstate__]
    for method in methods:
        if method.__name__ in vars(cls):
            continue  # the class body's own (dataclasses keep them too)
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)


def _placeholder(cls: type, name: str, make: Callable[[type], Any]) -> Any:
    """A method ``name`` of ``cls`` that replaces itself by ``make(cls)`` and runs it."""

    def method(self: object, *args: object, **kwargs: object) -> Any:
        real = make(cls)
        setattr(cls, name, real)
        return real(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    return method


def _compiled(cls: type, name: str, source: str, env: dict[str, Any]) -> Any:
    exec(code_of(source), env)
    fn = env[name]
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    fn.__module__ = cls.__module__
    return fn


class _Factory:
    """The default of a parameter whose field has a ``default_factory``."""


_FACTORY = _Factory()


def init_function(cls: type) -> Any:
    """The ``__init__`` ``dataclasses`` would make for dataclass ``cls``: fields in
    order, keyword-only ones last, defaults and factories applied (``object.__setattr__``
    for a frozen class), ``__post_init__`` called if defined (no ``InitVar``).

    Raises:
        TypeError: a parameter without a default follows one with a default.
    """
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    env: dict[str, Any] = {"_FACTORY": _FACTORY, "_setattr": object.__setattr__}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in dataclasses.fields(cls):
        value = f.name
        if f.default is not dataclasses.MISSING:
            env[f"_d_{f.name}"] = f.default
            param = f"{f.name}=_d_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            param = f"{f.name}=_FACTORY"
            value = f"_f_{f.name}() if {f.name} is _FACTORY else {f.name}"
        else:
            param = f.name
        if not f.init:
            if param == f.name:
                continue  # no default: dataclasses leave the attribute unset too
            value = f"_f_{f.name}()" if "_FACTORY" in param else f"_d_{f.name}"
        elif f.kw_only:
            keyword.append(param)
        else:
            if param == f.name and seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            seen_default = seen_default or param != f.name
            positional.append(param)
        if frozen:
            body.append(f"    _setattr(self, {f.name!r}, {value})")
        else:
            body.append(f"    self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + "\n".join(body or ["    pass"]) + "\n"
    return _compiled(cls, "__init__", source, env)


def _tuple(obj: str, names: list[str]) -> str:
    return "(" + "".join(f"{obj}.{n}," for n in names) + ")"


def _eq_function(cls: type) -> Any:
    """``dataclasses``' ``__eq__``: the ``compare`` fields as tuples, same class only."""
    names = [f.name for f in dataclasses.fields(cls) if f.compare]
    source = (
        "def __eq__(self, other):\n    if other.__class__ is self.__class__:\n"
        f"        return {_tuple('self', names)} == {_tuple('other', names)}\n"
        "    return NotImplemented\n"
    )
    return _compiled(cls, "__eq__", source, {})


def _hash_function(cls: type) -> Any:
    """``dataclasses``' ``__hash__``: of the tuple of the fields hashed (``hash``, or
    ``compare`` when ``hash`` is None)."""
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
    return _compiled(
        cls, "__hash__", f"def __hash__(self):\n    return hash({_tuple('self', names)})\n", {}
    )


@reprlib.recursive_repr()
def _generic_repr(self: Any) -> str:
    """``dataclasses``' ``__repr__``: ``Name(field=value, ...)`` of the ``repr`` fields;
    ``...`` for an object met again inside its own repr."""
    shown = ", ".join(
        f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr
    )
    return f"{type(self).__qualname__}({shown})"
