"""The key policy (``gradc.compiler.keys``) pinned byte for byte.

The expected hex digests were computed by the driver's key code before it moved into
``gradc.compiler.keys``: a change to any component, its name or its encoding changes
them, and must come with a new ``KEY_FORMAT``.
"""

from __future__ import annotations

import types

from gradc.artifacts.abi import entry_symbol
from gradc.artifacts.keys import sha256_key
from gradc.compiler import keys
from gradc.compiler.options import CompilerOptions
from gradc.compiler.results import Param, Signature

SIGNATURE = Signature((Param("a", "f64[:]", writes=True), Param("s", "f64")), "none")
TARGET = {"triple": "x86_64-unknown-linux-gnu", "cpu": "x86-64", "features": "+sse2"}
VERSIONS = {
    "gradc": "0.1.0",
    "abi": "1",
    "runtime": "rt2",
    "llvm": "22.1.0",
    "format": "1",
    "key": "2",
}
TEXTS = {
    "f": "func @f(%x: f64) -> f64 {\n^entry:\n  %r = call @g(%x) : f64\n  ret %r\n}",
    "g": "G",
    "h": "H",
}
CALLS = {"f": ("g",), "g": ("h", "g"), "h": ("g",)}  # g and h: one recursive component


def test_merkle_hashes_are_pinned() -> None:
    hashes = keys.merkle_hashes({n: keys.canonical_ir_text(t) for n, t in TEXTS.items()}, CALLS)
    assert hashes == {
        "f": "941ca4b3a9240882319d22bde2b039cb8a97902d3f6ebd9264afc91a6df40abd",
        "g": "95391722a349613538bc9cab4252a0950cd6cc24923158639986fb284d6b198e",
        "h": "03fe47ba2db76c6b512387b5c1b14cd22dde4f8546a54b5acfa42177c51727f6",
    }


def test_entry_and_runtime_keys_are_pinned() -> None:
    shared = keys.shared_components(CompilerOptions(opt_level=3, fastmath=True), TARGET, VERSIONS)
    derivative = types.SimpleNamespace(
        kind="grad", target="f", wrt=(0,), wrt_sequence=False, activity=("active",)
    )
    ir_hash = "941ca4b3a9240882319d22bde2b039cb8a97902d3f6ebd9264afc91a6df40abd"
    components = keys.entry_components(ir_hash, shared, SIGNATURE, derivative)  # type: ignore[arg-type]
    assert list(components)[:2] == ["ir", "options.opt_level"]
    assert list(components)[-2:] == ["ad", "signature"]
    assert components["signature"] == "(a: f64[:], s: f64) -> none writes a"
    key = sha256_key(components)
    assert key == "9ec6a3b7b8d939768f05213890ec3b547f0a23a848f41e4d5e58d667cd226213"
    assert entry_symbol("d_f", key) == "gradc_d_f_9ec6a3b7b8d93976"
    assert keys.runtime_key(shared) == (
        "d3f80a92ddb5fc0e58acad0dcf5c3e896cc33e33f1cce39bfa81035c9be03c91"
    )


def test_an_export_without_derivative_has_no_ad_component() -> None:
    shared = keys.shared_components(CompilerOptions(), TARGET, VERSIONS)
    components = keys.entry_components("00" * 32, shared, SIGNATURE)
    assert "ad" not in components


def test_versions_name_every_producer() -> None:
    producers = {"gradc", "abi", "runtime", "llvm", "format", "key"}
    # "source": the compiler's code, in a source checkout only (tests/cache/test_source_digest.py)
    assert set(keys.versions("22.1.0")) - {"source"} == producers
    assert keys.versions("22.1.0")["key"] == keys.KEY_FORMAT


def test_canonical_ir_text_renames_values_and_blocks_but_not_strings() -> None:
    text = 'func @f() {\n^range.12.4:\n  %a.3 = const "%a.3 ^x" : str\n  ret %a.3\n}'
    assert keys.canonical_ir_text(text) == (
        'func @f() {\n^b0:\n  %v1 = const "%a.3 ^x" : str\n  ret %v1\n}'
    )


def test_tape_budget_is_a_component_of_derivatives_only() -> None:
    shared = keys.shared_components(CompilerOptions(), TARGET, VERSIONS)
    derivative = types.SimpleNamespace(
        kind="grad", target="f", wrt=(0,), wrt_sequence=False, activity=("active",)
    )
    a = keys.entry_components("00" * 32, shared, SIGNATURE, derivative, 1 << 20)  # type: ignore[arg-type]
    b = keys.entry_components("00" * 32, shared, SIGNATURE, derivative, 2 << 20)  # type: ignore[arg-type]
    assert a["options.tape_budget"] == 1 << 20
    assert sha256_key(a) != sha256_key(b)
    plain = keys.entry_components("00" * 32, shared, SIGNATURE, None, 1 << 20)
    assert "options.tape_budget" not in plain
