"""ADBench's GMM objective (examples/gmm.py) and its derivatives against ADBench's
reference values (examples/data/adbench/reference/*.json), to 1e-8 relative.

The plain-Python side is checked first (no compiler): the reader, the objective run as
Python, and its exact gradient by dual numbers on the small instance — so a failure of
the compiled tests below is the compiler's, not the example's.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from tests.ad.corpus import _harness as H

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GMM = EXAMPLES / "gmm.py"

RTOL = 1e-8

#: (instance, reference) pairs, smallest first.
INSTANCES = [
    ("gmm/test.txt", "gmm_test.json"),
    ("gmm/1k/gmm_d2_K5.txt", "gmm_1k_gmm_d2_K5.json"),
    ("gmm/1k/gmm_d10_K25.txt", "gmm_1k_gmm_d10_K25.json"),
]


def _import(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gmm_io = _import("gmm_io")
gmm_plain = _import("gmm")


def _instance(name: str) -> tuple[Any, ...]:
    return gmm_io.read_gmm_instance(gmm_io.DATA / name)


def _reference(name: str) -> dict[str, Any]:
    return gmm_io.read_reference(gmm_io.DATA / "reference" / name)


def _assert_gradient(got: Any, ref: dict[str, Any], k: int, d: int) -> None:
    assert isinstance(got, tuple) and len(got) == 3, got
    alphas, means, icf = got
    assert alphas.shape == (k,)
    assert means.shape == (k, d)
    assert icf.shape == (k, d + d * (d - 1) // 2)
    expected = np.asarray(ref["gradient"], dtype=np.float64)
    np.testing.assert_allclose(gmm_io.flatten_gradient(alphas, means, icf), expected, rtol=RTOL)


# ------------------------------------------------------------------------- plain Python


def test_reader_shapes_and_values() -> None:
    alphas, means, icf, x, gamma, m = _instance("gmm/test.txt")
    assert alphas.shape == (3,) and means.shape == (3, 2) and icf.shape == (3, 3)
    assert x.shape == (1, 2) and x.flags.c_contiguous
    assert (gamma, m) == (1.0, 0) and isinstance(m, int)
    assert alphas[0] == -0.649014 and icf[2, 2] == -1.270071 and x[0, 1] == 2.029160
    alphas, means, icf, x, gamma, m = _instance("gmm/1k/gmm_d10_K25.txt")
    assert (alphas.shape, means.shape, icf.shape, x.shape) == (
        (25,),
        (25, 10),
        (25, 55),
        (1000, 10),
    )


def test_reader_rejects_truncated_files(tmp_path: Path) -> None:
    text = (gmm_io.DATA / "gmm" / "test.txt").read_text().split()
    bad = tmp_path / "bad.txt"
    bad.write_text(" ".join(text[:-3]))
    with pytest.raises(ValueError, match="truncated"):
        gmm_io.read_gmm_instance(bad)


def test_reader_replicates_a_point(tmp_path: Path) -> None:
    lines = (gmm_io.DATA / "gmm" / "test.txt").read_text().split("\n")
    lines[0] = "2 3 4"  # one point line standing for 4 points
    path = tmp_path / "rep.txt"
    path.write_text("\n".join(lines))
    *_, x, _gamma, _m = gmm_io.read_gmm_instance(path, replicate_point=True)
    assert x.shape == (4, 2) and np.all(x == x[0])


@pytest.mark.parametrize(("instance", "reference"), INSTANCES[:2], ids=["test", "d2_K5"])
def test_plain_objective_matches_reference(instance: str, reference: str) -> None:
    f = gmm_plain.gmm_objective(*_instance(instance))
    ref = _reference(reference)["objective"]
    assert math.isclose(f, ref, rel_tol=RTOL), (f, ref)


def test_plain_gradient_by_dual_numbers_matches_reference() -> None:
    args = _instance("gmm/test.txt")
    grads = []
    for k in range(3):
        g = np.zeros(args[k].shape)
        for index in np.ndindex(args[k].shape):
            v = [np.zeros(args[j].shape) for j in range(3)]
            v[k][index] = 1.0
            _, g[index] = H.dual_directional(GMM, "gmm_objective", args, [0, 1, 2], v)
        grads.append(g)
    _assert_gradient(tuple(grads), _reference("gmm_test.json"), k=3, d=2)


# ------------------------------------------------------------------------- compiled


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``gradc build examples/gmm.py`` into a temporary directory (what gmm_main loads)."""
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    out = tmp_path_factory.mktemp("gmm") / "gmm.gradc"
    write_artifact(out, build_module(GMM, CompilerOptions()))
    return out


@pytest.fixture(scope="module")
def lib(artifact: Path) -> Any:
    import gradc

    return gradc.load(artifact)


@pytest.mark.parametrize(("instance", "reference"), INSTANCES, ids=["test", "d2_K5", "d10_K25"])
def test_objective_matches_reference(lib: Any, instance: str, reference: str) -> None:
    f = lib.gmm_objective(*_instance(instance))
    ref = _reference(reference)["objective"]
    assert isinstance(f, float)
    assert math.isclose(f, ref, rel_tol=RTOL), (f, ref)


@pytest.mark.parametrize(("instance", "reference"), INSTANCES, ids=["test", "d2_K5", "d10_K25"])
def test_gradient_matches_reference(lib: Any, instance: str, reference: str) -> None:
    args = _instance(instance)
    alphas, means = args[0], args[1]
    _assert_gradient(lib.d_gmm(*args), _reference(reference), k=alphas.shape[0], d=means.shape[1])


@pytest.mark.parametrize(("instance", "reference"), INSTANCES, ids=["test", "d2_K5", "d10_K25"])
def test_value_and_grad_matches_reference(lib: Any, instance: str, reference: str) -> None:
    args = _instance(instance)
    ref = _reference(reference)
    value, grad = lib.vg_gmm(*args)
    assert math.isclose(value, ref["objective"], rel_tol=RTOL)
    _assert_gradient(grad, ref, k=args[0].shape[0], d=args[1].shape[1])


@pytest.mark.parametrize(("instance", "reference"), INSTANCES, ids=["test", "d2_K5", "d10_K25"])
def test_forward_mode_along_alphas(lib: Any, instance: str, reference: str) -> None:
    args = _instance(instance)
    ref = _reference(reference)
    k = args[0].shape[0]
    v = np.random.default_rng(k).standard_normal(k)
    value, tangent = lib.t_gmm(*args, v)
    expected = float(np.dot(np.asarray(ref["gradient"][:k]), v))
    assert math.isclose(value, ref["objective"], rel_tol=RTOL)
    assert math.isclose(tangent, expected, rel_tol=RTOL, abs_tol=RTOL * float(np.abs(v).sum())), (
        tangent,
        expected,
    )


def test_gmm_main_runs(
    artifact: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gmm_io", gmm_io)  # what `python examples/...` finds
    gmm_main = _import("gmm_main")
    assert gmm_main.main(["--artifact", str(artifact)]) == 0
    out = capsys.readouterr().out
    assert "objective:     -25649.65262119" in out
    assert "gradient norm:" in out


def test_inputs_are_not_modified(lib: Any) -> None:
    args = _instance("gmm/test.txt")
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    lib.d_gmm(*args)
    lib.t_gmm(*args, np.ones(3))
    for a, c in zip(args, copies):
        assert np.array_equal(a, c)
