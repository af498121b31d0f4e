"""Artifact store: atomic, reproducible writes; verified reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gradc.artifacts import store
from gradc.artifacts.errors import ArtifactError, ArtifactWarning
from gradc.artifacts.manifest import MANIFEST_NAME
from gradc.artifacts.store import read_blob, read_manifest, read_text, write_artifact

from .fakes import PRODUCER, fake_build


def _files(d: Path) -> dict[str, bytes]:
    return {
        p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()
    }


def test_write_then_read(tmp_path: Path) -> None:
    out = tmp_path / "build" / "mod.gradc"
    written = write_artifact(out, fake_build("f", "g"), producer=PRODUCER)
    m = read_manifest(out)
    assert m == written
    assert m.module == "mod"
    assert m.target.triple == "x86_64-unknown-linux-gnu"
    e = m.entry("g")
    assert read_blob(out, e.object) == b"\x7fELF fake object of g"
    assert read_text(out, e, "ir") == "func @g(...)\n"
    with pytest.raises(KeyError, match="no asm text"):
        read_text(out, e, "asm")
    names = set(_files(out))
    assert names == {MANIFEST_NAME, ".lock", *(x.object for x in m.entries)} | {
        t for x in m.entries for t in x.texts.values()
    }


def test_byte_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.gradc", tmp_path / "elsewhere" / "b.gradc"
    write_artifact(a, fake_build("f", "g"), producer=PRODUCER)
    write_artifact(b, fake_build("f", "g"), producer=PRODUCER)
    assert _files(a) == _files(b)
    write_artifact(a, fake_build("f", "g"), producer=PRODUCER)  # rewrite: same bytes
    assert _files(a) == _files(b)


def test_rewrite_removes_unreferenced_blobs(tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    write_artifact(out, fake_build("f", "g"), producer=PRODUCER)
    m = write_artifact(out, fake_build("h"), producer=PRODUCER)
    objects = sorted(p.name for p in (out / "objects").iterdir())
    assert objects == [Path(m.entry("h").object).name]


def test_failed_write_leaves_previous_artifact_and_no_temporaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "m.gradc"
    write_artifact(out, fake_build("f"), producer=PRODUCER)
    before = _files(out)
    real = store._atomic_write

    def failing(path: Path, data: bytes) -> None:
        if path.name == MANIFEST_NAME:
            raise OSError("disk full")
        real(path, data)

    monkeypatch.setattr(store, "_atomic_write", failing)
    with pytest.raises(OSError, match="disk full"):
        write_artifact(out, fake_build("f", "g"), producer=PRODUCER)
    assert _files(out) == before


def test_failed_blob_write_cleans_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "m.gradc"
    write_artifact(out, fake_build("f"), producer=PRODUCER)
    before = _files(out)

    def failing_fsync(fd: int) -> None:
        raise OSError("I/O error")

    monkeypatch.setattr(store.os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        write_artifact(out, fake_build("g"), producer=PRODUCER)
    monkeypatch.undo()
    assert _files(out) == before


def test_stray_temporaries_of_crashed_writers_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    write_artifact(out, fake_build("f"), producer=PRODUCER)
    (out / "objects" / ".tmp-crashed").write_bytes(b"partial")
    (out / ".tmp-manifest").write_bytes(b"partial")
    write_artifact(out, fake_build("f"), producer=PRODUCER)
    assert not list(out.rglob(".tmp-*"))


def test_missing_directory_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="does not exist"):
        read_manifest(tmp_path / "nope.gradc")
    (tmp_path / "empty.gradc").mkdir()
    with pytest.raises(ArtifactError, match=r"manifest\.msgpack is missing"):
        read_manifest(tmp_path / "empty.gradc")


def test_truncated_manifest_names_the_file(tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    write_artifact(out, fake_build("f"), producer=PRODUCER)
    path = out / MANIFEST_NAME
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(ArtifactError, match=r"m\.gradc/manifest\.msgpack is truncated"):
        read_manifest(out)


def test_corrupt_and_missing_blobs_are_detected(tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    e = write_artifact(out, fake_build("f"), producer=PRODUCER).entry("f")
    obj = out / e.object
    obj.write_bytes(obj.read_bytes()[:-1])
    with pytest.raises(ArtifactError, match=f"{e.sha256}.o is corrupt or truncated"):
        read_blob(out, e.object)
    obj.unlink()
    with pytest.raises(ArtifactError, match="is missing"):
        read_blob(out, e.object)
    # the next write warns and repairs it
    with pytest.warns(ArtifactWarning, match=f"{e.sha256}.o is missing; rebuilding it"):
        write_artifact(out, fake_build("f"), producer=PRODUCER)
    assert read_blob(out, e.object)


_WRITER = """
import sys
sys.path.insert(0, sys.argv[1])
from fakes import PRODUCER, fake_build
from gradc.artifacts.store import write_artifact
names = [f"f{sys.argv[3]}", f"g{sys.argv[3]}"]
for _ in range(5):
    write_artifact(sys.argv[2], fake_build(*names), producer=PRODUCER)
"""


def test_concurrent_writers(tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    here = str(Path(__file__).parent)
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, here, str(out), str(i)]) for i in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    m = read_manifest(out)
    assert len(m.entries) == 2
    for e in m.entries:
        read_blob(out, e.object)
    assert not list(out.rglob(".tmp-*"))
    assert set(_files(out)) == {MANIFEST_NAME, ".lock"} | store.referenced_blobs(m)
