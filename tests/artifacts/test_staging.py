"""Blobs staged while a ``-j N`` build compiles (``gradc.artifacts.staging``): the write
renames them into place instead of writing them, and writes the same bytes either way;
what it does not take, and everything of a failed build, is removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradc.artifacts import durable
from gradc.artifacts.staging import BlobStage
from gradc.artifacts.store import build_manifest, find_damage, write_artifact

from .fakes import PRODUCER, fake_build


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _stage_all(out: Path, build: object) -> BlobStage:
    """A stage holding every blob of ``build``, as the build process stages them."""
    stage = BlobStage(out)
    for e in build.entries:  # type: ignore[attr-defined]
        stage.put_object(e.object_code)
        stage.put_text(e.ir_text, "ir")
        stage.put_text(e.llvm_text, "llvm")
    return stage


def test_a_staged_write_renames_the_staged_blobs_and_equals_a_plain_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = fake_build("f", "g")
    write_artifact(tmp_path / "plain", build, producer=PRODUCER)
    stage = _stage_all(tmp_path / "staged", build)
    written: list[Path] = []
    real = durable.write_temporary
    monkeypatch.setattr(durable, "write_temporary", lambda p, d: written.append(p) or real(p, d))
    write_artifact(tmp_path / "staged", build, producer=PRODUCER, staged=stage)
    stage.discard()
    assert written == [tmp_path / "staged" / "manifest.msgpack"]  # every blob was staged
    assert _files(tmp_path / "staged") == _files(tmp_path / "plain")
    assert not list((tmp_path / "staged").rglob(durable.TMP_PREFIX + "*"))


def test_a_staged_blob_swept_away_by_another_writer_is_written_again(tmp_path: Path) -> None:
    build = fake_build("f", "g")
    out = tmp_path / "out"
    stage = _stage_all(out, build)
    _, blobs = build_manifest(build, PRODUCER)
    swept = next(iter(stage.temporaries()))
    next(out.rglob(swept)).unlink()  # as a crashed writer's temporary
    write_artifact(out, build, producer=PRODUCER, staged=stage)
    stage.discard()
    assert find_damage(out) == []
    assert {rel: (out / rel).read_bytes() for rel in blobs} == blobs


def test_what_the_write_does_not_take_is_discarded(tmp_path: Path) -> None:
    build = fake_build("f")
    out = tmp_path / "out"
    write_artifact(out, build, producer=PRODUCER)
    before = _files(out)
    stage = _stage_all(out, build)
    stage.put_object(b"\x7fELF an object no entry has")
    write_artifact(out, build, producer=PRODUCER, staged=stage)  # current: writes nothing
    stage.discard()
    assert _files(out) == before


def test_a_failed_build_leaves_neither_blobs_nor_the_folders_staging_made(
    tmp_path: Path,
) -> None:
    out = tmp_path / "build" / "m.gradc"
    stage = BlobStage(out, texts=False)
    stage.put_object(b"\x7fELF staged")
    stage.put_text("func @f()", "ir")  # a build without texts stages none
    assert len(stage.temporaries()) == 1
    stage.discard()
    assert list(tmp_path.iterdir()) == []
