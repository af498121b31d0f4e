"""gradc._dataclass.dataclass against dataclasses.dataclass: the same class body under
each decorator behaves alike (construction, defaults and factories, repr, eq, hash,
frozen assignment, replace, pickling, params), for each combination of options the
package uses."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from typing import Any, ClassVar

import pytest

from gradc import _dataclass

OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"frozen": True, "eq": False},
    {"eq": False},
    {"eq": False, "slots": True},
    {"slots": True},
    {"kw_only": True},
    {"unsafe_hash": True},
    {"repr": False, "init": False},
]


def _declare(decorator: Any, **options: Any) -> Any:
    """One class body (pickled by name: a module global per decorator)."""

    class Point:
        """A point."""

        LABEL: ClassVar[str] = "p"
        x: int
        y: float = 1.5
        tags: list[str] = dataclasses.field(default_factory=list, hash=False)
        note: str = dataclasses.field(default="", compare=False, repr=False)
        weight: int = dataclasses.field(default=2, hash=False)

        def norm(self) -> float:
            return abs(self.x) + abs(self.y)

    Point.__qualname__ = Point.__name__ = (
        "LazyPoint" if decorator is _dataclass.dataclass else "Point"
    )
    return decorator(**options)(Point)


def _pair(options: dict[str, Any]) -> tuple[Any, Any]:
    real = _declare(dataclasses.dataclass, **options)
    lazy = _declare(_dataclass.dataclass, **options)
    globals()[real.__name__], globals()[lazy.__name__] = real, lazy
    return real, lazy


def _build(cls: Any, *args: Any, **kwargs: Any) -> Any:
    if cls.__dataclass_params__.init:
        return cls(**dict(zip(("x", "y"), args, strict=False)), **kwargs)
    obj = cls()
    for name, value in zip(("x", "y", "tags"), (*args, 1.5, [])[:3], strict=True):
        object.__setattr__(obj, name, value)
    return obj


def _shape(init: Any) -> list[tuple[str, Any, bool]]:
    return [
        (p.name, p.kind, p.default is not inspect.Parameter.empty)
        for p in inspect.signature(init).parameters.values()
    ]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_same_behaviour(options: dict[str, Any]) -> None:
    real, lazy = _pair(options)
    assert {
        k: getattr(real.__dataclass_params__, k) for k in real.__dataclass_params__.__slots__
    } == {k: getattr(lazy.__dataclass_params__, k) for k in lazy.__dataclass_params__.__slots__}
    assert [f.name for f in dataclasses.fields(real)] == [f.name for f in dataclasses.fields(lazy)]
    assert real.__match_args__ == lazy.__match_args__
    assert hasattr(real, "__slots__") == hasattr(lazy, "__slots__")
    if options.get("init", True):
        assert _shape(real.__init__) == _shape(_dataclass.init_function(lazy))
    objs = {}
    for cls in (real, lazy):
        a, b, c = _build(cls, 1, 2.0), _build(cls, 1, 2.0), _build(cls, 3)
        if options.get("init", True):
            assert (a.x, a.y, a.tags, a.note, a.weight, c.y) == (1, 2.0, [], "", 2, 1.5)
            assert a.tags is not b.tags
            with pytest.raises(TypeError):
                cls()
        objs[cls] = (a, b, c)
    (ra, rb, rc), (la, lb, lc) = objs[real], objs[lazy]
    if options.get("repr", True):
        assert repr(la).replace(lazy.__name__, real.__name__) == repr(ra)
    assert (la == lb, la == lc, la == 1, la != lb) == (ra == rb, ra == rc, ra == 1, ra != rb)
    assert (lazy.__hash__ is None) == (real.__hash__ is None)
    if real.__hash__ is not None:
        assert (hash(la) == hash(lb)) == (hash(ra) == hash(rb))
        if real.__hash__ is not object.__hash__ and "__hash__" in vars(real):
            assert hash(la) == hash(ra)
    if options.get("frozen"):
        for obj in (la, ra):
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
                obj.x = 5
            with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'y'"):
                del obj.y
    if options.get("init", True):
        changed = dataclasses.replace(la, x=7)
        assert (changed.x, changed.y, type(changed)) == (7, 2.0, lazy)
        again = pickle.loads(pickle.dumps(la))
        assert (again.x, again.y, again.tags) == (1, 2.0, [])
    assert la.norm() == ra.norm()


def test_class_body_methods_are_kept() -> None:
    @_dataclass.dataclass(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert (repr(Named("a")), Named("a") == Named("A"), hash(Named("a")) == hash(Named("A"))) == (
        "<a>",
        True,
        True,
    )
    with pytest.raises(TypeError, match="Cannot overwrite attribute __hash__"):

        @_dataclass.dataclass(unsafe_hash=True)
        class Clash:
            x: int

            def __hash__(self) -> int:
                return 0


def test_frozen_subclass_of_frozen_base() -> None:
    @_dataclass.dataclass(frozen=True)
    class Base:
        a: int

    @_dataclass.dataclass(frozen=True)
    class Derived(Base):
        b: int = 0

    d = Derived(1, 2)
    assert (d, d == Derived(1, 2), d == Base(1), repr(d)) == (
        Derived(1, 2),
        True,
        False,
        "test_frozen_subclass_of_frozen_base.<locals>.Derived(a=1, b=2)",
    )
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):

        @dataclasses.dataclass
        class Thawed(Base):
            c: int = 0
