"""The loader's manifest records (``gradc.artifacts.manifest_records``) against the
dataclasses of ``gradc.artifacts.manifest``: the same fields, variants and errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgpack
import pytest

from gradc.artifacts import manifest_records
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import EntryVariant, Manifest, Target, object_path
from gradc.artifacts.store import build_manifest

from .fakes import PRODUCER, fake_build


def _two_variants() -> Manifest:
    """A manifest of two CPU variants (the second's objects named by other hashes)."""
    m = build_manifest(fake_build("f", "g"), PRODUCER)[0]
    v3 = Target(m.target.triple, "x86-64-v3", "+avx,+avx2")
    entries = []
    for i, e in enumerate(m.entries):
        sha = f"{i + 1:x}" * 64
        first = EntryVariant(e.symbol, e.object, e.sha256, e.key, e.wrapper)
        other = EntryVariant(e.symbol + "_v3", object_path(sha), sha, e.key + "3")
        entries.append(dataclasses.replace(e, variants=(first, other)))
    return dataclasses.replace(m, entries=tuple(entries), variants=(m.target, v3))


@pytest.mark.parametrize(
    "make", [lambda: build_manifest(fake_build("f"), PRODUCER)[0], _two_variants]
)
def test_records_hold_the_dataclasses_fields(make: Any) -> None:
    m = make()
    records = manifest_records.decode(m.encode())
    assert records.full() == m
    assert records.targets() == tuple(
        manifest_records.Target(*dataclasses.astuple(t)) for t in m.targets()
    )
    for i in range(len(m.targets())):
        view, expected = records.for_variant(i), m.for_variant(i)
        assert view.full() == expected
        assert repr(view.target) == repr(expected.target)
        for e, want in zip(view.entries, expected.entries, strict=True):
            assert e.signature.abi == want.signature.abi
            assert str(e.signature) == str(want.signature)
            assert e.site(1) == want.site(1)
    with pytest.raises(IndexError):
        records.for_variant(len(m.targets()))
    assert manifest_records.decode(m.encode()) == records  # compared by their fields


def _raw() -> dict[str, Any]:
    return msgpack.unpackb(_two_variants().encode())  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("entries"),
        lambda r: r["entries"][0].update(sha256="0" * 64),
        lambda r: r["entries"][0]["variants"][1].update(key=3),
        lambda r: r["entries"][0]["variants"].pop(),
        lambda r: r["variants"][0].update(cpu="x86-64-v2"),
        lambda r: r["entries"][0]["signature"].update(writes=["zz"]),
        lambda r: r.update(format_version=[2, 0]),
        lambda r: r.update(runtime={"abi": "rt2"}),
    ],
)
def test_records_raise_the_same_errors(mutate: Any) -> None:
    raw = _raw()
    mutate(raw)
    data = msgpack.packb(raw)
    with pytest.raises(ArtifactError) as full:
        Manifest.decode(data, "a.gradc/manifest.msgpack")
    with pytest.raises(ArtifactError) as lean:
        manifest_records.decode(data, "a.gradc/manifest.msgpack")
    assert (type(lean.value), str(lean.value)) == (type(full.value), str(full.value))


def test_truncated_records() -> None:
    with pytest.raises(ArtifactError, match="truncated or corrupt"):
        manifest_records.decode(_two_variants().encode()[:-5], "d/manifest.msgpack")
