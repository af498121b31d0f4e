"""``@operation`` (compiler/ir/opclass.py): every operation's ``__init__``, compiled on
first construction, takes the parameters ``@dataclass`` would generate, and ``repr`` is
the dataclass's."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from gradc import _dataclass
from gradc._dataclass import init_function
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.types import F64, I64


def _dataclass_twin(cls: type) -> type:
    """``cls`` re-declared as a plain ``@dataclass(eq=False)``: the reference ``__init__``."""
    return dataclasses.dataclass(eq=False)(type(cls.__name__, (cls,), {"__slots__": ()}))


def _shape(init: object) -> list[tuple[str, object, bool]]:
    return [
        (p.name, p.kind, p.default is not inspect.Parameter.empty)
        for p in inspect.signature(init).parameters.values()  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("name", sorted(ops.OPERATIONS))
def test_init_takes_the_dataclass_parameters(name: str) -> None:
    cls = ops.OPERATIONS[name]
    twin = _dataclass_twin(cls)
    assert _shape(init_function(cls)) == _shape(twin.__init__)
    reference = inspect.signature(twin.__init__).parameters
    for param in inspect.signature(init_function(cls)).parameters.values():
        default = reference[param.name].default
        if param.default is not inspect.Parameter.empty and repr(default) != "<factory>":
            assert param.default is default, param.name


def test_first_construction_installs_the_compiled_init() -> None:
    @operation
    class Probe(Instruction):
        OPNAME = "probe"
        OPERANDS = ("value",)
        ATTRS = ("count", "items")
        value: Instruction
        count: int = 3
        items: list[int] = dataclasses.field(default_factory=list)

    placeholder = Probe.__init__
    a = Probe(ops.Const(1.0, type=F64), type=I64)
    assert Probe.__init__ is not placeholder
    b = Probe(a, 5, [1], name="b")
    assert (a.count, a.items, a.type, b.count, b.items, b.name) == (3, [], I64, 5, [1], "b")
    assert Probe(a).items is not a.items  # a fresh list per instance
    assert not hasattr(a, "__dict__") or "count" not in vars(a)  # slotted
    with pytest.raises(TypeError):
        Probe()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Probe(a, 1, [], 2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="non-default argument 'late' follows default"):

        @operation
        class Bad(Instruction):
            early: int = 0
            late: int  # type: ignore[misc]

        Bad(1, 2)


def test_repr_is_the_dataclass_repr() -> None:
    c = ops.Const(2.0, type=F64, name="c")
    add = ops.Add(c, c, type=F64)
    twin = _dataclass_twin(ops.Add)
    reference = twin(c, c, type=F64)
    assert repr(add) == repr(reference).replace(twin.__qualname__, "Add", 1)
    phi = ops.Phi(type=F64)
    phi.incoming.append((None, phi))  # type: ignore[arg-type]
    assert repr(phi).endswith("incoming=[(None, ...)])")  # recursion guarded as dataclasses do


def test_every_operation_is_declared_with_operation() -> None:
    """CONTRIBUTING: ``@operation``, not ``@dataclass``, whose methods cost an ``exec``
    each at import (issue 13, build latency)."""
    plain = sorted(
        name for name, cls in ops.OPERATIONS.items() if cls.__repr__ is not _dataclass._generic_repr
    )
    assert plain == []
