"""Format versions end to end: a real artifact whose manifest claims another version.

A newer (or older) major version is refused by ``gradc.load`` and ``gradc inspect`` with
both versions named; a newer minor version, with fields this gradc does not know, loads
and runs (docs/artifacts.md "Compatibility policy").
"""

from __future__ import annotations

import shutil
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.errors import FormatVersionError
from gradc.artifacts.manifest import FORMAT_VERSION, MANIFEST_NAME
from gradc.artifacts.store import find_damage
from gradc.cli.main import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fv") / "scalars.gradc"
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _with_version(built: Path, dest: Path, version: list[int], extra: bool = False) -> Path:
    art = dest / "scalars.gradc"
    shutil.copytree(built, art)
    path = art / MANIFEST_NAME
    raw = msgpack.unpackb(path.read_bytes())
    raw["format_version"] = version
    if extra:
        raw["from_the_future"] = {"anything": [1, 2, 3]}
        for e in raw["entries"]:
            e["new_entry_field"] = "ignored"
    path.write_bytes(msgpack.packb(raw))
    return art


@pytest.mark.parametrize("major", [FORMAT_VERSION[0] + 1, FORMAT_VERSION[0] + 10, 0])
def test_other_major_is_refused_naming_both_versions(
    built: Path, tmp_path: Path, major: int
) -> None:
    art = _with_version(built, tmp_path, [major, 0])
    ours = f"{FORMAT_VERSION[0]}.{FORMAT_VERSION[1]}"
    with pytest.raises(FormatVersionError) as info:
        gradc.load(art)
    msg = str(info.value)
    assert f"format version {major}.0 is" in msg and ours in msg
    assert str(art / MANIFEST_NAME) in msg
    assert ("newer" in msg) == (major > FORMAT_VERSION[0])
    r = CliRunner().invoke(cli, ["inspect", str(art)])
    assert r.exit_code == 1 and f"{major}.0" in r.stderr and ours in r.stderr
    # another gradc's artifact is not damage; a build replaces it without a warning
    assert find_damage(art) == []


def test_newer_minor_with_unknown_fields_loads_and_runs(built: Path, tmp_path: Path) -> None:
    art = _with_version(built, tmp_path, [FORMAT_VERSION[0], FORMAT_VERSION[1] + 7], extra=True)
    lib = gradc.load(art)
    assert lib.manifest.format_version == (FORMAT_VERSION[0], FORMAT_VERSION[1] + 7)
    assert lib.hypot_clamped(6.0, 8.0) == 10.0
    assert lib.hypot_clamped(3.0, 4.0) == 5.0
