"""examples/package_demo: a wheel that carries gradc artifacts, installed and run with
compiling forbidden.

The wheel is built with ``pip wheel --no-deps --no-build-isolation`` (its build step runs
``gradc build`` through ``gradc.setuptools.build_py``), installed into a fresh virtual
environment that sees this environment's packages (gradc, numpy) through a ``.pth`` file,
and imported there from another directory with ``GRADC_NO_COMPILE=1``. The installed
package must load the artifact from inside itself, import no compiler code, and compute
what CPython computes from the same formulas.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "package_demo"

_RUN = r"""
import json, math, sys
import numpy as np
import package_demo
w = np.array([0.5, -1.25, 2.0])
print(json.dumps({
    "file": package_demo.__file__,
    "artifact": str(package_demo.ARTIFACT),
    "softplus": [package_demo.softplus(x) for x in (-3.0, 0.0, 2.5, 40.0)],
    "d_softplus": [package_demo.d_softplus(x) for x in (-3.0, 0.0, 2.5)],
    "energy": package_demo.energy(w, 1.5),
    "d_energy": package_demo.d_energy(w, 1.5).tolist(),
    "compiler_modules": sorted(m for m in sys.modules if m.startswith("gradc.compiler")),
}))
"""


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)  # type: ignore[call-overload]
    assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
    return r  # type: ignore[no-any-return]


def test_wheel_installs_and_runs_without_compiling(tmp_path: Path) -> None:
    pytest.importorskip("wheel", reason="building a wheel without isolation needs `wheel`")
    src = tmp_path / "src"
    shutil.copytree(DEMO, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info"))
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip"]
    _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), "."],
        cwd=src,
    )
    (wheel,) = dist.glob("package_demo-*.whl")
    # a platform wheel for CPython's stable ABI: its objects run on this platform only
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheel.name == f"package_demo-0.1.0-cp311-abi3-{platform}.whl", wheel.name
    metadata = zipfile.ZipFile(wheel).read("package_demo-0.1.0.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in metadata
    names = zipfile.ZipFile(wheel).namelist()
    assert "package_demo/kernels.gradc/manifest.msgpack" in names
    assert any(n.startswith("package_demo/kernels.gradc/objects/") for n in names)
    assert not any(n.endswith("/.lock") or "/.tmp-" in n for n in names)
    assert not any("/texts/" in n for n in names)  # gradc inspect's texts are not shipped

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    ).stdout.strip()
    # this environment's packages (gradc, numpy) are visible, after the venv's own
    ours = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in dict.fromkeys(ours))
    Path(purelib, "zz_parent_env.pth").write_text(lines)
    _run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GRADC"))}
    env["GRADC_NO_COMPILE"] = "1"
    out = json.loads(_run([str(python), "-c", _RUN], cwd=elsewhere, env=env).stdout)

    installed = Path(purelib) / "package_demo"
    assert Path(out["file"]).parent == installed
    assert Path(out["artifact"]) == installed / "kernels.gradc"
    assert out["compiler_modules"] == []

    import math

    import numpy as np

    def softplus(x: float) -> float:
        return math.log1p(math.exp(-abs(x))) + max(x, 0.0)

    assert out["softplus"] == pytest.approx([softplus(x) for x in (-3.0, 0.0, 2.5, 40.0)])
    logistic = [1.0 / (1.0 + math.exp(-x)) for x in (-3.0, 0.0, 2.5)]
    assert out["d_softplus"] == pytest.approx(logistic, rel=1e-12)
    w = np.array([0.5, -1.25, 2.0])
    assert out["energy"] == pytest.approx(1.5 * float(np.sum(w * w + np.sin(w))), rel=1e-12)
    assert out["d_energy"] == pytest.approx((1.5 * (2 * w + np.cos(w))).tolist(), rel=1e-12)


@pytest.mark.slow
def test_wheel_builds_with_build_isolation_against_a_local_gradc_wheel(tmp_path: Path) -> None:
    """``pip wheel .`` with build isolation: pip installs the build requirements (gradc from
    a wheel built here, the rest from the index) into a fresh environment and builds a
    platform wheel there (~45 s)."""
    pytest.importorskip("wheel", reason="building gradc's wheel needs `wheel`")
    root = Path(__file__).resolve().parents[2]
    pip = [sys.executable, "-m", "pip"]
    local = tmp_path / "gradc_dist"
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(local), str(root)])
    src = tmp_path / "src"
    shutil.copytree(DEMO, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info"))
    dist = tmp_path / "dist"
    _run([*pip, "wheel", "--no-deps", "--find-links", str(local), "-w", str(dist), "."], cwd=src)
    (wheel,) = dist.glob("package_demo-*.whl")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheel.name == f"package_demo-0.1.0-cp311-abi3-{platform}.whl", wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "package_demo/kernels.gradc/manifest.msgpack" in names


def _only(packages: list[str], into: Path) -> Path:
    """A folder holding links to just ``packages`` (their modules, bundled libraries and
    dist-info) of this environment, for a venv to see through a ``.pth`` file."""
    import importlib.util

    into.mkdir()
    for name in packages:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        where = Path(spec.origin).parent.parent
        for entry in where.iterdir():
            stem = entry.name.split("-")[0].split(".")[0].lower()
            if stem == name and not (into / entry.name).exists():
                (into / entry.name).symlink_to(entry)
    return into


@pytest.mark.slow
def test_wheel_runs_in_a_venv_without_llvmlite(tmp_path: Path) -> None:
    """gradc's own wheel (no extras: numpy and msgpack only) and package_demo's wheel in a
    fresh venv that has no llvmlite, click or any other package: the artifacts load and
    run (issue 13; ~40 s)."""
    pytest.importorskip("wheel", reason="building wheels without isolation needs `wheel`")
    root = Path(__file__).resolve().parents[2]
    pip = [sys.executable, "-m", "pip"]
    dist = tmp_path / "dist"
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(root)])
    src = tmp_path / "src"
    shutil.copytree(DEMO, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info"))
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), "."], cwd=src)
    (gradc_wheel,) = dist.glob("gradc-*.whl")
    (demo_wheel,) = dist.glob("package_demo-*.whl")
    requires = zipfile.ZipFile(gradc_wheel).read("gradc-0.1.0.dist-info/METADATA").decode()
    plain = [
        r for r in requires.splitlines() if r.startswith("Requires-Dist:") and "extra" not in r
    ]
    assert sorted(r.split()[1].split(">")[0] for r in plain) == ["msgpack", "numpy"]

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    ).stdout.strip()
    deps = _only(["numpy", "msgpack"], tmp_path / "deps")
    Path(purelib, "zz_deps.pth").write_text(f"{deps}\n")
    for wheel in (gradc_wheel, demo_wheel):
        _run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GRADC"))}
    env["GRADC_NO_COMPILE"] = "1"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "import importlib.util as u; print([m for m in ('llvmlite', 'click') if u.find_spec(m)])"
    )
    assert _run([str(python), "-c", probe], cwd=elsewhere, env=env).stdout.strip() == "[]"
    out = json.loads(_run([str(python), "-c", _RUN], cwd=elsewhere, env=env).stdout)
    assert Path(out["file"]).parent == Path(purelib) / "package_demo"
    cli = subprocess.run(
        [str(python), "-m", "gradc", "--help"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
    )
    assert cli.returncode != 0
    assert "needs click and llvmlite: pip install 'gradc[compiler]'" in cli.stderr
    assert out["compiler_modules"] == []
    import math

    assert out["d_softplus"][1] == pytest.approx(0.5, rel=1e-12)
    assert out["softplus"][0] == pytest.approx(math.log1p(math.exp(-3.0)), rel=1e-12)
