"""Manifest schema, encoding and version checks."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest

from gradc.artifacts.abi import ABI_VERSION
from gradc.artifacts.errors import ArtifactError, FormatVersionError
from gradc.artifacts.manifest import FORMAT_VERSION, Manifest, Runtime
from gradc.artifacts.store import build_manifest, referenced_blobs
from gradc.compiler.driver import BuildOutput, CompiledEntry, Param, Signature

from .fakes import PRODUCER, fake_build, fake_entry


def _manifest() -> Manifest:
    return build_manifest(fake_build("f", "g"), PRODUCER)[0]


def test_round_trip() -> None:
    m = _manifest()
    again = Manifest.decode(m.encode())
    assert again == m
    assert again.names() == ["f", "g"]
    e = again.entry("f")
    assert str(e.signature) == "(x: f64, n: i64) -> f64"
    assert e.object == f"objects/{e.sha256}.o"
    assert set(e.texts) == {"ir", "llvm"}  # empty asm text is not stored
    assert e.abi_version == ABI_VERSION
    with pytest.raises(KeyError, match="exports: f, g"):
        again.entry("h")


def test_encoding_has_sorted_keys_and_is_stable() -> None:
    data = _manifest().encode()
    assert _manifest().encode() == data
    raw = msgpack.unpackb(data)
    assert list(raw) == sorted(raw)
    assert list(raw["entries"][0]) == sorted(raw["entries"][0])
    assert raw["format_version"] == list(FORMAT_VERSION)
    assert set(raw) == {"format_version", "producer", "target", "module", "entries", "sources"}
    f64, i64 = {"kind": "scalar", "name": "f64"}, {"kind": "scalar", "name": "i64"}
    assert raw["entries"][0]["signature"] == {
        "params": [["x", "f64"], ["n", "i64"]], "result": "f64", "writes": [],
        "types": {"params": [f64, i64], "result": f64},  # 1.4: structured
    }  # fmt: skip
    assert set(raw["entries"][0]) == {
        "name", "signature", "abi_version", "symbol", "object", "sha256", "key",
        "key_components", "dependencies", "texts", "sites",
    }  # fmt: skip


def test_structured_signature_must_agree_with_the_strings() -> None:
    raw = _raw()
    raw["entries"][0]["signature"]["types"]["params"][1] = {"kind": "scalar", "name": "i32"}
    with pytest.raises(ArtifactError, match=r"entries\[0\]\.signature: .*says n: i32"):
        Manifest.decode(msgpack.packb(raw), "x/manifest.msgpack")
    raw["entries"][0]["signature"]["types"] = {"params": "f64"}
    with pytest.raises(ArtifactError, match=r"entries\[0\]\.signature: .*must list 2 types"):
        Manifest.decode(msgpack.packb(raw), "x/manifest.msgpack")


def test_manifests_without_structured_signature_still_load() -> None:
    """1.3 manifests have no ``signature.types``: the strings are parsed when needed."""
    raw = _raw()
    raw["format_version"] = [1, 3]
    for e in raw["entries"]:
        del e["signature"]["types"]
    m = Manifest.decode(msgpack.packb(raw))
    assert m.format_version == (1, 3)
    assert str(m.entry("f").signature.abi) == "(x: f64, n: i64) -> f64"


def _raw() -> dict:  # type: ignore[type-arg]
    return msgpack.unpackb(_manifest().encode())  # type: ignore[no-any-return]


def test_newer_major_version_is_refused_naming_both() -> None:
    raw = _raw()
    raw["format_version"] = [FORMAT_VERSION[0] + 1, 3]
    with pytest.raises(FormatVersionError) as info:
        Manifest.decode(msgpack.packb(raw), "x/manifest.msgpack")
    msg = str(info.value)
    assert f"{FORMAT_VERSION[0] + 1}.3" in msg
    assert f"{FORMAT_VERSION[0]}.{FORMAT_VERSION[1]}" in msg
    assert "x/manifest.msgpack" in msg
    assert info.value.found == (FORMAT_VERSION[0] + 1, 3)


def test_newer_minor_version_with_unknown_fields_is_accepted() -> None:
    raw = _raw()
    raw["format_version"] = [FORMAT_VERSION[0], FORMAT_VERSION[1] + 5]
    raw["something_new"] = {"a": 1}
    raw["entries"][0]["also_new"] = 3
    m = Manifest.decode(msgpack.packb(raw))
    assert m.format_version == (FORMAT_VERSION[0], FORMAT_VERSION[1] + 5)


def _array_build(runtime: bytes = b"\x7fELF runtime") -> BuildOutput:
    e = fake_entry("axpy", result="none")
    sig = Signature(
        (Param("a", "f64"), Param("x", "f64[:]"), Param("y", "f64[:]", writes=True)), "none"
    )
    e = CompiledEntry(**{**e.__dict__, "signature": sig})
    return BuildOutput("mod", (e,), fake_build().target, runtime_object=runtime)


def test_runtime_and_writes() -> None:
    m, blobs = build_manifest(_array_build(), PRODUCER)
    assert m.format_version == FORMAT_VERSION
    assert isinstance(m.runtime, Runtime)
    assert m.runtime.abi == "rt2"
    assert blobs[m.runtime.object] == b"\x7fELF runtime"
    assert m.runtime.object in referenced_blobs(m)
    assert m.entry("axpy").signature.writes == ("y",)
    again = Manifest.decode(m.encode())
    assert again == m
    raw = msgpack.unpackb(m.encode())
    assert raw["runtime"] == {
        "abi": "rt2",
        "object": m.runtime.object,
        "sha256": m.runtime.sha256,
        "key": "",  # a build output without runtime_key (1.2: the runtime's cache key)
    }
    assert raw["entries"][0]["signature"]["writes"] == ["y"]
    assert build_manifest(_array_build(b""), PRODUCER)[0].runtime is None


def test_wrapper_objects() -> None:
    base = fake_entry("f")
    e = CompiledEntry(**base.__dict__)
    object.__setattr__(e, "wrapper_object", b"\x7fELF wrapper")  # the driver's field
    build = BuildOutput("mod", (e, fake_entry("g")), fake_build().target)
    m, blobs = build_manifest(build, PRODUCER)
    w = m.entry("f").wrapper
    assert w is not None
    assert w.symbol == "gradcpy_" + e.symbol.removeprefix("gradc_")
    assert blobs[w.object] == b"\x7fELF wrapper"
    assert w.object in referenced_blobs(m)
    assert m.entry("g").wrapper is None
    assert Manifest.decode(m.encode()) == m
    raw = msgpack.unpackb(m.encode())
    assert raw["entries"][0]["wrapper"] == {
        "symbol": w.symbol,
        "object": w.object,
        "sha256": w.sha256,
    }
    assert "wrapper" not in raw["entries"][1]
    raw["entries"][0]["wrapper"]["sha256"] = "0" * 64
    with pytest.raises(ArtifactError, match=r"entries\[0\]\.wrapper\.object .* does not match"):
        Manifest.decode(msgpack.packb(raw))


def test_version_1_0_manifests_are_read() -> None:
    raw = _raw()
    raw["format_version"] = [1, 0]
    for e in raw["entries"]:
        del e["signature"]["writes"]
    m = Manifest.decode(msgpack.packb(raw))
    assert m.runtime is None
    assert all(e.signature.writes == () for e in m.entries)


def test_param_triples_are_read() -> None:
    raw = msgpack.unpackb(build_manifest(_array_build(), PRODUCER)[0].encode())
    sig = raw["entries"][0]["signature"]
    sig["params"] = [["a", "f64", False], ["x", "f64[:]", True], ["y", "f64[:]"]]
    assert Manifest.decode(msgpack.packb(raw)).entries[0].signature.writes == ("x", "y")


@pytest.mark.parametrize("cut", [1, 10, 100])
def test_truncated_manifest(cut: int) -> None:
    data = _manifest().encode()
    with pytest.raises(ArtifactError, match="truncated or corrupt"):
        Manifest.decode(data[:-cut], "d/manifest.msgpack")


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda r: r.pop("entries"), "lacks field 'entries'"),
        (lambda r: r["entries"][0].update(object="../../etc/passwd"), "invalid blob path"),
        (lambda r: r["entries"][0].update(sha256="0" * 64), "does not match"),
        (lambda r: r["entries"][0].update(abi_version="1"), "abi_version"),
        (lambda r: r["entries"][0]["texts"].update(ir="/abs/x.ir"), "invalid blob path"),
        (lambda r: r["entries"][1].update(name="f"), "duplicate export"),
        (lambda r: r.update(format_version=[1]), "format_version"),
        (lambda r: r["producer"].update(llvm=22), "producer.llvm must be a string"),
        (lambda r: r["entries"][0]["signature"].update(writes=["zz"]), "names no parameter"),
        (lambda r: r["entries"][0]["signature"].update(writes="x"), "must be a list"),
        (lambda r: r.update(runtime={"abi": "rt1"}), "runtime lacks field 'object'"),
        (
            lambda r: r.update(runtime={"abi": "rt1", "object": "objects/x.o", "sha256": "x"}),
            "invalid blob path",
        ),
    ],
)
def test_schema_errors(mutate, match: str) -> None:  # type: ignore[no-untyped-def]
    raw = _raw()
    mutate(raw)
    with pytest.raises(ArtifactError, match=match):
        Manifest.decode(msgpack.packb(raw))


def _with_defaults() -> Manifest:
    build = fake_build("f")
    e = build.entries[0]
    sig = Signature(e.signature.params, "f64", (("n", 3),))
    build = dataclasses.replace(build, entries=(dataclasses.replace(e, signature=sig),))
    return build_manifest(build, PRODUCER)[0]


def test_signature_defaults_round_trip() -> None:
    """1.5: ``signature.defaults`` lists trailing parameters and their values."""
    m = _with_defaults()
    raw = msgpack.unpackb(m.encode())
    assert raw["entries"][0]["signature"]["defaults"] == [["n", 3]]
    again = Manifest.decode(m.encode())
    assert again.entry("f").signature.defaults == (("n", 3),)
    assert "defaults" not in _raw()["entries"][0]["signature"]  # written only when some


@pytest.mark.parametrize(
    "defaults",
    [
        [["x", 1.0]],
        [["n", "3"]],
        [["n", 3], ["x", 1.0]],
        [["n"]],
        "n",
        [["x", 1.0], ["n", 2], ["m", 1]],
    ],
)
def test_signature_defaults_schema_errors(defaults: object) -> None:
    raw = msgpack.unpackb(_with_defaults().encode())
    raw["entries"][0]["signature"]["defaults"] = defaults
    with pytest.raises(ArtifactError, match=r"entries\[0\]\.signature\.defaults"):
        Manifest.decode(msgpack.packb(raw), "x/manifest.msgpack")
