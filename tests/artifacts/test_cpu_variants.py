"""CPU variants: ``gradc build --cpu x86-64-v2,x86-64-v3,native`` stores one object per
variant per export; the loader links the best variant whose CPU features the host has and
never one it lacks (a clear ArtifactError instead of SIGILL).

Variants the host cannot run are made by editing the recorded features in the manifest
to name a feature this host lacks (asked from LLVM at run time), so the tests hold on any
x86-64 host.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.cpu import host_cpu, required_features, select_variant
from gradc.artifacts.manifest import MANIFEST_NAME, Manifest, Target
from gradc.artifacts.store import find_damage, read_manifest
from gradc.cli.main import cli, parse_cpu_list

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CPUS = "x86-64-v2,x86-64-v3,native"

pytestmark = pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="x86-64 CPU names"
)


def _poly(x: float, n: int) -> float:
    return sum(math.sin(x * k) / (k + 1) for k in range(n))


def _lacking() -> str:
    """A CPU feature LLVM knows and this host lacks."""
    import llvmlite.binding as llvm

    off = sorted(n for n, on in llvm.get_host_cpu_features().items() if not on)
    if not off:
        pytest.skip("this host has every CPU feature LLVM knows")
    for preferred in ("avx512fp16", "amx-tile", "avx10.1", "xop", "fma4", "avx512f"):
        if preferred in off:
            return preferred
    return off[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("variants") / "scalars.gradc"
    args = ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), "--cpu", CPUS]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    return out


def _edit(built: Path, dest: Path, edit: Any) -> Path:
    """A copy of ``built`` whose raw manifest map went through ``edit``."""
    art = dest / "scalars.gradc"
    shutil.copytree(built, art)
    path = art / MANIFEST_NAME
    raw = msgpack.unpackb(path.read_bytes())
    edit(raw)
    path.write_bytes(msgpack.packb(raw))
    return art


def _require(raw: dict[str, Any], index: int, feature: str) -> None:
    """Make variant ``index`` require ``feature`` (and keep target == variants[0])."""
    v = raw["variants"][index]
    v["features"] = ",".join(f for f in (v["features"], "+" + feature) if f)
    if index == 0:
        raw["target"]["features"] = v["features"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x86-64", ("x86-64",)),
        (CPUS, ("x86-64-v2", "x86-64-v3", "native")),
        (" x86-64-v3 , native,x86-64-v3", ("x86-64-v3", "native")),
    ],
)
def test_parse_cpu_list(text: str, expected: tuple[str, ...]) -> None:
    assert parse_cpu_list(text) == expected


@pytest.mark.parametrize("text", ["", "a,,b", "x86-64;rm -rf", ","])
def test_parse_cpu_list_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="CPU name"):
        parse_cpu_list(text)
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "--cpu", text])
    assert r.exit_code == 2 and "--cpu" in r.output


@pytest.mark.parametrize("cpu", ["bogus", "i686", "x86-64-v3,pentium4"])
def test_build_refuses_cpu_llvm_cannot_use(cpu: str, tmp_path: Path) -> None:
    # a child process: before the check, LLVM aborted the whole process on these names
    out = tmp_path / "out.gradc"
    args = ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), "--cpu", cpu]
    r = subprocess.run([sys.executable, "-m", "gradc", *args], capture_output=True, text=True)
    bad = cpu.split(",")[-1]
    assert r.returncode == 2, r.stderr  # a click usage error, not LLVM's abort
    assert "Invalid value for '--cpu'" in r.stderr and repr(bad) in r.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "cpu", ["native", "generic", "x86-64", "x86-64-v2", "x86-64-v4", "znver4", "skylake"]
)
def test_check_cpu_accepts_real_names(cpu: str) -> None:
    from gradc.compiler.codegen.emit import check_cpu

    check_cpu(cpu)  # raises ValueError for a name LLVM cannot use


def test_check_cpu_names_the_problem() -> None:
    from gradc.compiler.codegen.emit import check_cpu

    with pytest.raises(ValueError, match="'bogus' is not a CPU LLVM knows"):
        check_cpu("bogus")
    with pytest.raises(ValueError, match=r"'i686' cannot generate code.*64-bit"):
        check_cpu("i686")


def test_one_object_per_variant_per_entry(built: Path) -> None:
    m = read_manifest(built)
    host_name, _ = host_cpu()
    assert [t.cpu for t in m.variants] == ["x86-64-v2", "x86-64-v3", host_name]
    assert m.target == m.variants[0]
    assert m.variants[2].features  # native records the build host's features
    for e in m.entries:
        assert len(e.variants) == 3
        assert len({v.object for v in e.variants}) == 3  # different code for each CPU
        assert len({v.key for v in e.variants}) == 3
        assert len({v.symbol for v in e.variants}) == 3
        assert (e.variants[0].object, e.variants[0].symbol) == (e.object, e.symbol)
        assert all(v.wrapper is not None for v in e.variants)
    assert find_damage(built) == []
    r = CliRunner().invoke(cli, ["inspect", str(built)])
    assert f"cpu variants (entries show the first): x86-64-v2, x86-64-v3, {host_name}" in r.output


def test_loader_picks_the_best_fitting_variant(built: Path) -> None:
    lib = gradc.load(built)
    # native has the most features and was built here, so it fits and wins
    assert lib.manifest.target == read_manifest(built).variants[2]
    assert lib.poly(0.3, 12) == pytest.approx(_poly(0.3, 12), rel=1e-12)
    assert lib.hypot_clamped(3.0, 4.0) == 5.0


def test_variant_needing_a_missing_feature_is_skipped(built: Path, tmp_path: Path) -> None:
    lacking = _lacking()
    art = _edit(built, tmp_path, lambda raw: _require(raw, 2, lacking))
    m = read_manifest(art)
    # what the host can run of v2 and v3 decides: the one needing more features wins
    host = host_cpu()[1]
    fitting = [i for i in (0, 1) if (required_features(m.variants[i]) or set()) <= host]
    assert fitting, "an x86-64 host runs x86-64-v2"
    lib = gradc.load(art)
    assert lib.manifest.target == m.variants[fitting[-1]]
    assert lib.poly(1.1, 7) == pytest.approx(_poly(1.1, 7), rel=1e-12)


def test_no_fitting_variant_is_a_clear_error_and_nothing_is_read(
    built: Path, tmp_path: Path
) -> None:
    lacking = _lacking()

    def edit(raw: dict[str, Any]) -> None:
        for i in range(3):
            _require(raw, i, lacking)

    art = _edit(built, tmp_path, edit)
    for obj in (art / "objects").iterdir():  # never read, so never linked
        obj.unlink()
    with pytest.raises(ArtifactError) as info:
        gradc.load(art)
    msg = str(info.value)
    assert "no CPU variant of this artifact runs on this host" in msg
    assert msg.count(f"lacks: {lacking}") + msg.count(f", {lacking}") >= 3, msg
    assert "x86-64-v2" in msg and "x86-64-v3" in msg


def test_named_cpu_without_recorded_features_runs_only_on_that_cpu(tmp_path: Path) -> None:
    host_name, _ = host_cpu()
    other = "sapphirerapids" if host_name != "sapphirerapids" else "znver4"
    out = tmp_path / "named.gradc"
    r = CliRunner().invoke(
        cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), "--cpu", other]
    )
    assert r.exit_code == 0, r.output
    with pytest.raises(ArtifactError, match=f"cpu '{other}' is not this host's '{host_name}'"):
        gradc.load(out)
    r = CliRunner().invoke(
        cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), "--cpu", f"{other},native"]
    )
    assert r.exit_code == 0, r.output
    lib = gradc.load(out)
    assert lib.manifest.target.cpu == host_name
    assert lib.hypot_clamped(6.0, 8.0) == 10.0


def test_a_reader_ignoring_variants_loads_the_first(built: Path, tmp_path: Path) -> None:
    """What a format-1.1 reader sees: the entry fields and ``target`` are variant 0."""

    def strip(raw: dict[str, Any]) -> None:
        del raw["variants"]
        for e in raw["entries"]:
            del e["variants"]

    art = _edit(built, tmp_path, strip)
    lib = gradc.load(art)
    assert lib.manifest.target.cpu == "x86-64-v2"
    assert lib.poly(0.3, 5) == pytest.approx(_poly(0.3, 5), rel=1e-12)


def test_select_variant_and_schema(built: Path) -> None:
    m = read_manifest(built)
    assert select_variant(built, m) == 2
    v1 = m.for_variant(1)
    assert v1.target.cpu == "x86-64-v3" and v1.variants == ()
    assert [e.object for e in v1.entries] == [e.variants[1].object for e in m.entries]
    raw = msgpack.unpackb((built / MANIFEST_NAME).read_bytes())
    raw["entries"][0]["variants"].pop()
    with pytest.raises(ArtifactError, match="has 2 CPU variants, the artifact 3"):
        Manifest.decode(msgpack.packb(raw))
    assert required_features(Target("", "x86-64", "")) == frozenset()
    assert "avx2" in (required_features(Target("", "x86-64-v3", "")) or set())
    assert required_features(Target("", "skylake", "")) is None
    assert required_features(Target("", "skylake", "+avx2,-avx512f")) == {"avx2"}


def test_swapped_variant_objects_are_refused(built: Path, tmp_path: Path) -> None:
    """Objects moved between CPU variants (an object for one CPU under a variant that
    claims another: code the host may not run) are refused by their ABI descriptions,
    which name the target each object was generated for."""
    from gradc.artifacts.abi.description import AbiMismatchError

    def swap(raw: dict[str, Any]) -> None:
        e = next(e for e in raw["entries"] if e["name"] == "poly")
        e["variants"][1], e["variants"][2] = e["variants"][2], e["variants"][1]

    art = _edit(built, tmp_path, swap)
    m = read_manifest(art)  # still a valid manifest, every blob intact
    assert select_variant(art, m) == 2 and not find_damage(art)
    with pytest.raises(AbiMismatchError, match=r"'poly'.*target"):
        gradc.load(art)
