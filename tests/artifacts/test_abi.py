"""The ABI module (gradc.artifacts.abi): the one type-string parser, the structured
signature, and the facts codegen and the loader share."""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest

from gradc.artifacts.abi import (
    EXCEPTION_CLASSES,
    EXCEPTION_CODES,
    Array,
    Scalar,
    Signature,
    Tuple,
    TypeStringError,
    exception_class,
    parse_type,
)
from gradc.artifacts.abi.layout import ERROR_RECORD_BYTES, descriptor_bytes
from gradc.artifacts.abi.types import type_from_data
from gradc.artifacts.errors import ArtifactError
from gradc.compiler.ir import ops
from gradc.compiler.ir.types import F64, I1, I32, I64, ArrayType, TupleType, python_name


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("f64[:]", True),
        ("bool[:, :, ::1]", True),
        ("i32[::1, :]", True),
        ("f32[::1]", True),
        ("f64[:, ::1, :]", False),
        ("f64[]", False),
        ("f16[:]", False),
        ("array[f64,0,C]", False),
        ("tuple[f64[:],i64]", True),
        ("tuple[]", True),
        ("none", True),
        ("none[:]", False),
        ("f64 x", False),
        ("tuple[f64", False),
        ("", False),
    ],
)
def test_type_strings(text: str, ok: bool) -> None:
    if ok:
        assert str(parse_type(text)) == text
    else:
        with pytest.raises(ArtifactError, match="unknown gradc type"):
            parse_type(text)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("f64[:, ::1]", Array("f64", 2, "C")),
        ("f64[::1, :]", Array("f64", 2, "F")),
        ("f64[::1]", Array("f64", 1, "C")),
        ("i64[:, :]", Array("i64", 2, "A")),
        ("array[f64,2,C]", Array("f64", 2, "C")),  # manifests before 1.1
        ("array[bool, 1, A]", Array("bool", 1, "A")),
        (" tuple[ f64 , tuple[i32,bool] ] ", Tuple((Scalar("f64"), Tuple((Scalar("i32"), Scalar("bool")))))),
    ],
)  # fmt: skip
def test_parsed_structure(text: str, parsed: object) -> None:
    t = parse_type(text)
    assert t == parsed
    assert type_from_data(t.to_data()) == t
    assert parse_type(str(t)) == t


@pytest.mark.parametrize(
    "t",
    [F64, I1, I32, ArrayType(F64, 2, "C"), ArrayType(I64, 3, "F"), ArrayType(I1, 1, "A"),
     TupleType((F64, TupleType((I64, ArrayType(F64, 1, "A")))))],
)  # fmt: skip
def test_parses_what_the_compiler_writes(t: object) -> None:
    """The manifest's type strings are ``python_name``'s: each parses back to itself."""
    text = python_name(t)  # type: ignore[arg-type]
    assert str(parse_type(text)) == text


def test_type_errors_are_value_errors_and_name_where() -> None:
    with pytest.raises(ValueError, match=r"unknown gradc type 'f16' in a signature"):
        parse_type("f16", "a signature")
    assert issubclass(TypeStringError, ArtifactError)


@pytest.mark.parametrize(
    "data",
    [None, {}, {"kind": "scalar"}, {"kind": "scalar", "name": "f16"}, {"kind": "array",
     "dtype": "f64", "ndim": 0, "layout": "C"}, {"kind": "tuple", "elements": "f64"}],
)  # fmt: skip
def test_bad_structured_types(data: object) -> None:
    with pytest.raises(TypeStringError):
        type_from_data(data)


def test_signature_types_data() -> None:
    sig = Signature.parse([("x", "f64[:, ::1]"), ("n", "i64")], "tuple[f64,bool]", ["x"])
    assert str(sig) == "(x: f64[:, ::1], n: i64) -> tuple[f64,bool]"
    data = sig.types_data()
    assert data["params"][0] == {"kind": "array", "dtype": "f64", "ndim": 2, "layout": "C"}
    sig.check_types_data(data)
    data["params"][1] = {"kind": "scalar", "name": "i32"}
    with pytest.raises(TypeStringError, match=r"says n: i32, signature\.params i64"):
        sig.check_types_data(data)
    with pytest.raises(TypeStringError, match="must list 2 types"):
        sig.check_types_data({"params": [], "result": data["result"]})


def test_one_exception_table() -> None:
    """The IR's exception kinds are the ABI's table; codes map back to the builtins."""
    assert ops.EXCEPTION_KINDS is EXCEPTION_CODES
    assert sorted(EXCEPTION_CODES.values()) == list(range(1, len(EXCEPTION_CODES) + 1))
    for name, code in EXCEPTION_CODES.items():
        assert EXCEPTION_CLASSES[code].__name__ == name
        assert exception_class(name) is EXCEPTION_CLASSES[code]


def test_layouts_match_the_loader() -> None:
    from gradc.artifacts.loader.arrays import descriptor
    from gradc.artifacts.loader.exceptions import ErrorRecord

    assert ctypes.sizeof(ErrorRecord) == ERROR_RECORD_BYTES
    for ndim in (1, 2, 5):
        assert ctypes.sizeof(descriptor(ndim)) == descriptor_bytes(ndim)


def test_abi_leaves_import_only_the_standard_library() -> None:
    """``gradc.compiler.ir`` imports ``gradc.artifacts.abi.codes`` (the one exception
    table); that pulls in no third-party package and nothing else of gradc.artifacts
    beyond the ABI leaves and ``errors``."""
    code = (
        "import sys, gradc.compiler.ir.ops\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('msgpack', 'numpy', 'llvmlite', 'elftools') or (m.startswith('gradc.artifacts.') "
        "and m not in ('gradc.artifacts.errors', 'gradc.artifacts.abi.description') "
        "and not m.startswith('gradc.artifacts.abi')) or m == 'gradc.artifacts.abi.description')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
