"""``field_hints`` resolves each operation's own fields exactly as
``typing.get_type_hints`` does (what ``printer.operation_fields`` read before: issue 13,
build latency), for every operation class and for annotations it leaves to
``get_type_hints``."""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Literal

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.field_hints import field_hints

BASE = frozenset(f.name for f in dataclasses.fields(Instruction))


@pytest.mark.parametrize("cls", sorted(ops.OPERATIONS.values(), key=lambda c: c.__name__))
def test_operation_fields_as_get_type_hints(cls: type[Instruction]) -> None:
    names = {f.name for f in dataclasses.fields(cls)} - BASE
    expected = {
        n: t for n, t in typing.get_type_hints(cls, include_extras=True).items() if n in names
    }
    assert field_hints(cls, names) == expected


class _Base:
    inherited: int | None
    shadowed: str


class _Quoted(_Base):
    shadowed: bytes  # the subclass's annotation wins
    quoted: tuple["_Base", ...]  # noqa: UP037 - a quoted name inside: left to get_type_hints
    literal: Literal["a", "b"]
    annotated: Annotated[str, "symbol"]
    nothing: None


def test_inherited_quoted_literal_annotated_none() -> None:
    names = {"inherited", "shadowed", "quoted", "literal", "annotated", "nothing"}
    assert field_hints(_Quoted, names) == typing.get_type_hints(_Quoted, include_extras=True)
    assert field_hints(_Quoted, {"shadowed"}) == {"shadowed": bytes}
    assert field_hints(_Quoted, {"nothing", "annotated"}) == {
        "nothing": type(None),
        "annotated": Annotated[str, "symbol"],
    }
