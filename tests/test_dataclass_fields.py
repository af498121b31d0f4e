"""gradc._dataclass_fields against ``dataclasses``: every dataclass of the package, made
with the fast path (its fields, params, ``__match_args__``, slots, docstring, class
attributes) is the class ``dataclasses.dataclass`` makes of the same body; and a class
body the fast path does not cover still gets ``dataclasses``' result and errors."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any, ClassVar

import pytest

from gradc import _dataclass

# Imports every module of the package it can and prints a description of each dataclass;
# with "reference", the fast path is switched off first (dataclasses make every class).
_DESCRIBE = r"""
import json, pkgutil, re, sys
import gradc._dataclass_fields as fast
if sys.argv[1] == "reference":
    fast.process = lambda cls, params: None
import gradc, importlib
names = ["gradc.cli", "gradc.compiler", "gradc.passes", "gradc.artifacts", "gradc"]
for package in names:
    importlib.import_module(package)
for package in names:
    for info in pkgutil.walk_packages(sys.modules[package].__path__, package + "."):
        try:
            importlib.import_module(info.name)
        except Exception:
            pass

def text(value):
    return re.sub(r"0x[0-9a-f]+", "0x", repr(value))

out = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith("gradc"):
        continue
    for value in list(vars(module).values()):
        if not isinstance(value, type) or "__dataclass_fields__" not in value.__dict__:
            continue
        if value.__module__ != name:
            continue
        own = value.__dict__
        fields = [
            [f.name, text(f.type), text(f.default), text(f.default_factory), f.init, f.repr,
             text(f.hash), f.compare, text(dict(f.metadata)), text(f.kw_only), text(f._field_type)]
            for f in value.__dataclass_fields__.values()
        ]
        params = {k: getattr(value.__dataclass_params__, k)
                  for k in type(value.__dataclass_params__).__slots__}
        attrs = {k: text(own[k]) for k in value.__dataclass_fields__ if k in own}
        out[f"{name}.{value.__qualname__}"] = {
            "fields": fields, "params": params, "attrs": attrs,
            "match_args": list(own.get("__match_args__", ())),
            "slots": list(own.get("__slots__", ())), "doc": own.get("__doc__"),
            "keys": sorted(own), "mro": [c.__qualname__ for c in value.__mro__],
        }
print(json.dumps(out))
"""


def _describe(mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _DESCRIBE, mode], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_package_dataclasses_match_dataclasses() -> None:
    fast, reference = _describe("fast"), _describe("reference")
    assert len(reference) > 200  # the package's dataclasses were found
    assert fast.keys() == reference.keys()
    for name in reference:
        assert fast[name] == reference[name], name


def test_fast_path_covers_the_package() -> None:
    """The operations and the other dataclasses of a build are made without
    ``dataclasses``' decorator (each would cost ~300,000 instructions)."""
    done = subprocess.run(
        [sys.executable, "-c", _COUNT], capture_output=True, text=True, check=True
    )
    made, left = (int(n) for n in done.stdout.split())
    assert made > 150
    assert left <= 10  # the slotted frozen types of ir/types.py (Python 3.11: made too)


# Counts the classes process() made and those it left to dataclasses, over the imports of
# a build.
_COUNT = r"""
import gradc._dataclass as lazy
real = lazy.process
counts = [0, 0]
def counting(cls, params):
    new = real(cls, params)
    counts[new is None] += 1
    return new
lazy.process = counting
import gradc.compiler.driver, gradc.compiler.codegen.lower, gradc.compiler.infer
import gradc.cli.main
print(*counts)
"""


def test_left_to_dataclasses_when_not_covered() -> None:
    """A mutable default, a field() without annotation, InitVar: dataclasses' errors
    and results."""
    with pytest.raises(ValueError, match="mutable default"):

        @_dataclass.dataclass
        class Mutable:
            items: list[int] = []

    with pytest.raises(TypeError, match="is a field but has no type annotation"):

        @_dataclass.dataclass
        class Unannotated:
            x = dataclasses.field(default=1)

    @_dataclass.dataclass
    class WithInitVar:
        x: int
        scale: dataclasses.InitVar[int] = 2
        LABEL: ClassVar[str] = "c"

        def __post_init__(self, scale: int) -> None:
            self.x *= scale

    assert [f.name for f in dataclasses.fields(WithInitVar)] == ["x"]
    assert WithInitVar.__match_args__ == ("x", "scale")
