"""``@operation``: the class decorator of every IR operation (a slotted dataclass whose
``__init__`` is generated on first construction).

``dataclasses.dataclass`` compiles each generated method from source when the class is
defined: for the ~100 operation classes, ~200 ``exec`` calls, a tenth of a first build's
instructions (issue 13, build latency), though a build constructs only a few dozen of
them. ``operation(cls)`` is ``dataclass(cls, eq=False, slots=True, init=False,
repr=False)`` (so ``dataclasses.fields``, ``replace`` and ``__match_args__`` work as
before) plus an ``__init__`` that, on the class's first construction, compiles the
``__init__`` the dataclass would have (same parameters, defaults, default factories and
keyword-only fields) and replaces itself with it. ``__repr__`` is
:meth:`gradc.compiler.ir.core.Instruction.__repr__`, the dataclass's form.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T", bound=type)


@dataclass_transform(eq_default=False, field_specifiers=(dataclasses.field,))
def operation(cls: _T) -> _T:
    """Make ``cls`` a slotted dataclass with identity equality (as
    ``@dataclass(eq=False, slots=True)``) whose ``__init__`` is compiled at its first
    construction. Returns the new (slotted) class."""
    new: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=True)
    new.__init__ = _first_init(new)
    return new  # type: ignore[no-any-return]


def _first_init(cls: type) -> Any:
    """The placeholder ``__init__`` of ``cls``: compiles the real one, installs it on
    ``cls`` and runs it."""

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        init = init_function(cls)
        cls.__init__ = init  # type: ignore[misc]
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


class _Factory:
    """The default of a parameter whose field has a ``default_factory``."""


_FACTORY = _Factory()


def init_function(cls: type) -> Any:
    """The ``__init__`` ``@dataclass`` would generate for dataclass ``cls`` (not frozen,
    no ``InitVar``): fields in order, keyword-only ones last, defaults and factories
    applied, ``__post_init__`` called if defined.

    Raises:
        TypeError: a parameter without a default follows one with a default, as the
            dataclass would raise.
    """
    fields = dataclasses.fields(cls)
    env: dict[str, object] = {"_FACTORY": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in fields:
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
                continue  # no default: the dataclass leaves the slot unset too
            value = f"_f_{f.name}()" if "_FACTORY" in param else f"_d_{f.name}"
        elif f.kw_only:
            keyword.append(param)
        else:
            if param == f.name and seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            seen_default = seen_default or param != f.name
            positional.append(param)
        body.append(f"    self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    init.__module__ = cls.__module__
    return init
