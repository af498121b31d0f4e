"""The default CPU variants (docs/artifacts.md "CPU variants"): ``gradc build`` without
``--cpu`` and runtime mode build the baseline x86-64 object, plus an x86-64-v3 object
when the module's code handles arrays; straight-line scalar code keeps one. The
loader runs the best variant the host supports and never one it lacks (a variant the host
lacks is made by naming, in the manifest, a CPU feature this host does not have).

Oracle: the plain Python function (``py_func`` in runtime mode, the source otherwise).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgpack
import numpy as np
import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.manifest import MANIFEST_NAME
from gradc.artifacts.store import read_manifest
from gradc.cli.main import cli
from gradc.compiler.options import DEFAULT_CPUS
from gradc.runtime_mode import cache_artifact_dir, stale_reason
from gradc.runtime_options import RUNTIME_CPUS

from ..cache.helpers import run_python

pytestmark = pytest.mark.skipif(
    __import__("platform").machine() not in ("x86_64", "AMD64"), reason="x86-64 CPU names"
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

ARRAYS = """\
import gradc
from gradc import f64


@gradc.export
def norm2(x: f64[:]) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


@gradc.export(fastmath=True)
def twice(x: f64) -> f64:
    return 2.0 * x
"""

CHILD = """
import json
import numpy as np
import vm
x = np.linspace(-1.0, 2.0, 7)
print(json.dumps({"got": [vm.norm2(x), vm.twice(1.5)],
                  "want": [vm.norm2.py_func(x), vm.twice.py_func(1.5)]}))
"""


@pytest.fixture(scope="module")
def array_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("vm") / "vm.py"
    src.write_text(ARRAYS)
    out = src.parent / "vm.gradc"
    r = CliRunner().invoke(cli, ["build", str(src), "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_runtime_mode_and_gradc_build_name_the_same_variants() -> None:
    assert RUNTIME_CPUS == DEFAULT_CPUS == ("x86-64", "x86-64-v3")


def test_array_code_gets_the_vector_variants(array_build: Path) -> None:
    m = read_manifest(array_build)
    assert [t.cpu for t in m.variants] == list(DEFAULT_CPUS)
    assert m.target == m.variants[0]
    for e in m.entries:
        assert len({v.object for v in e.variants}) == 2  # scalar exports too (per module)
    r = CliRunner().invoke(cli, ["inspect", str(array_build)])
    assert "cpu variants (entries show the first): x86-64, x86-64-v3" in r.output


def test_scalar_code_keeps_one_variant(tmp_path: Path) -> None:
    out = tmp_path / "scalars.gradc"
    r = CliRunner().invoke(cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    m = read_manifest(out)
    assert m.variants == () and m.target.cpu == "x86-64"
    # an explicit list is built as asked, scalar code or not
    r = CliRunner().invoke(
        cli, ["build", str(EXAMPLES / "scalars.py"), "-o", str(out), "--cpu", "x86-64,x86-64-v3"]
    )
    assert r.exit_code == 0, r.output
    assert [t.cpu for t in read_manifest(out).variants] == ["x86-64", "x86-64-v3"]


def _lacking() -> str:
    """A CPU feature LLVM knows and this host lacks."""
    import llvmlite.binding as llvm

    off = sorted(n for n, on in llvm.get_host_cpu_features().items() if not on)
    if not off:
        pytest.skip("this host has every CPU feature LLVM knows")
    for preferred in ("avx512fp16", "amx-tile", "avx10.1", "xop", "fma4"):
        if preferred in off:
            return preferred
    return off[0]


def test_a_variant_the_host_lacks_is_never_run(array_build: Path, tmp_path: Path) -> None:
    missing = 1
    art = tmp_path / "vm.gradc"
    shutil.copytree(array_build, art)
    raw = msgpack.unpackb((art / MANIFEST_NAME).read_bytes())
    lacking = _lacking()
    for i in range(missing, len(DEFAULT_CPUS)):  # variant `missing` and the later ones need it
        v = raw["variants"][i]
        v["features"] = ",".join(f for f in (v["features"], "+" + lacking) if f)
    (art / MANIFEST_NAME).write_bytes(msgpack.packb(raw))
    lib = gradc.load(art)
    assert lib.manifest.target.cpu in DEFAULT_CPUS[:missing]
    x = np.linspace(-1.0, 2.0, 7)
    assert lib.norm2(x) == pytest.approx(float(np.sum(x * x)), rel=1e-13)


def test_runtime_mode_takes_a_default_build_as_up_to_date(array_build: Path) -> None:
    # twice's own fastmath=True is an override, not a build with other options: the
    # runtime object (one for all variants, generic CPU) has runtime mode's key
    manifest = read_manifest(array_build)
    assert stale_reason(manifest, array_build.parent / "vm.py", check_options=True) is None


@pytest.mark.slow
def test_runtime_mode_builds_the_default_variants_and_reuses_them(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "vm.py").write_text(ARRAYS)
    cache = tmp_path / "cache"
    env = {"GRADC_CACHE_DIR": str(cache)}
    first = run_python(CHILD, cwd=project, env=env)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout.splitlines()[-1])
    assert out["got"] == pytest.approx(out["want"], rel=1e-13)
    manifest = read_manifest(cache_artifact_dir(project / "vm.py", cache))
    assert [t.cpu for t in manifest.variants] == list(RUNTIME_CPUS)
    # twice's own fastmath=True is an override, not a build with other options
    assert stale_reason(manifest, project / "vm.py", check_options=True) is None
    again = run_python(CHILD, cwd=project, env={**env, "GRADC_NO_COMPILE": "1"})
    assert again.returncode == 0, again.stderr
