"""Functions exported with several signatures (``@gradc.export(["f64(f64, f64)", ...])``,
tests/loader/corpus_signatures/signatures.py): each signature compiled on its own, the
loader dispatching on the argument types (gradc.artifacts.loader.dispatch).

Oracles: the same source run as plain Python on arguments of each signature's types
(NumPy float32 scalars and arrays for ``f32``), central finite differences for the
derivatives, and Python's own binding for keywords and defaults.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradc
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Manifest
from gradc.artifacts.store import read_manifest
from gradc.compiler.driver import build_artifact
from gradc.compiler.options import CompilerOptions

SOURCE = Path(__file__).parent / "corpus_signatures" / "signatures.py"


def _plain() -> Any:
    spec = importlib.util.spec_from_file_location("gradc_signatures_plain", SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAIN = _plain()
FLOATS = st.floats(-1e3, 1e3, allow_nan=False)
INTS = st.integers(-(2**20), 2**20)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    out = tmp_path_factory.mktemp("signatures") / "signatures.gradc"
    build_artifact(SOURCE, out, CompilerOptions())
    return out, gradc.load(out)


@pytest.fixture(scope="module")
def lib(built: tuple[Path, Any]) -> Any:
    return built[1]


def test_one_callable_per_function_each_signature_its_own_entry(built: tuple[Path, Any]) -> None:
    path, lib = built
    assert lib.uses_poly(1.5) == PLAIN.uses_poly(1.5)
    assert sorted(lib) == [
        "d_poly",
        "d_power",
        "ddx_poly",
        "dx_poly",
        "energy",
        "h_poly",
        "poly",
        "power",
        "uses_poly",
    ]
    manifest = read_manifest(path)
    poly = [e for e in manifest.entries if e.dispatch == "poly"]
    assert [e.name for e in poly] == ["poly.f64.f64", "poly.f32.f32", "poly.i64.i64"]
    assert len({e.key for e in poly}) == 3 and len({e.symbol for e in poly}) == 3
    assert [e.name for e in manifest.entries if e.dispatch == "d_poly"] == [
        "d_poly.f64.f64",
        "d_poly.f32.f32",
    ]  # no derivative of the integer signature
    # second order: f64 only (AD's higher-order rules are f64)
    assert [e.name for e in manifest.entries if e.dispatch in ("ddx_poly", "h_poly")] == [
        "ddx_poly.f64.f64",
        "h_poly.f64.f64",
    ]
    assert {e.name for e in manifest.entries if e.dispatch == "energy"} == {
        "energy.f64_1d",
        "energy.f32_1d",
        "energy.f64_2d",
    }


@settings(max_examples=40, deadline=None)
@given(x=FLOATS, y=FLOATS, i=INTS, j=INTS)
def test_each_signature_computes_what_python_computes(
    lib: Any, x: float, y: float, i: int, j: int
) -> None:
    f64 = lib.poly(x, y)
    assert type(f64) is float and f64 == PLAIN.poly(x, y)
    f32 = lib.poly(np.float32(x), np.float32(y))  # exact match: the f32 specialisation
    expected = PLAIN.poly(np.float32(x), np.float32(y))
    assert type(expected) is np.float32
    assert f32 == float(expected) or (math.isinf(f32) and math.isinf(expected))
    assert lib.poly(i, j) == PLAIN.poly(i, j) and type(lib.poly(i, j)) is int
    assert lib.power(x, 3) == PLAIN.power(x, 3)
    assert lib.power(i % 50, 2) == PLAIN.power(i % 50, 2)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 7), seed=st.integers(0, 2**16), step=st.sampled_from([1, 2, -1]))
def test_array_signatures_dispatch_on_dtype_and_rank(
    lib: Any, n: int, seed: int, step: int
) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(2 * n)[::step]
    assert lib.energy(a) == pytest.approx(float(np.sum(a * a)), rel=1e-12)
    a32 = a.astype(np.float32)
    assert lib.energy(a32) == pytest.approx(float(np.sum(a32 * a32)), rel=1e-5)
    m = rng.standard_normal((n, 3))
    assert lib.energy(m) == pytest.approx(float(np.sum(m * m)), rel=1e-12)
    assert lib.energy(np.asfortranarray(m).T) == pytest.approx(float(np.sum(m * m)), rel=1e-12)


def test_dispatch_rules(lib: Any) -> None:
    # exact match first: an f32 argument pair runs in f32
    assert lib.poly(np.float32(0.1), np.float32(0.2)) == float(
        PLAIN.poly(np.float32(0.1), np.float32(0.2))
    )
    # else the first signature all arguments convert to safely: int -> f64
    assert lib.poly(3, 0.5) == PLAIN.poly(3.0, 0.5) and type(lib.poly(3, 0.5)) is float
    # no exact match for i32: the first safe signature in the list order, f64 (an i32
    # converts to f64 and to i64 without loss; f64 is listed first)
    assert (
        lib.poly(np.int32(3), np.int32(4)) == PLAIN.poly(3.0, 4.0) and type(lib.poly(3, 4)) is int
    )
    assert lib.poly.overloads["(x: f64, y: f64) -> f64"](np.int32(3), 4) == PLAIN.poly(3.0, 4.0)
    # f32 with an f64 goes to f64 (f64 -> f32 is not safe)
    assert lib.poly(np.float32(0.1), 0.2) == PLAIN.poly(float(np.float32(0.1)), 0.2)
    # float -> int never: power's n is i64 in every signature
    with pytest.raises(TypeError) as info:
        lib.power(2.0, 1.5)
    message = str(info.value)
    assert "power() has no signature for the argument types (f64, f64)" in message
    for sig in ("power(x: f64, n: i64) -> f64", "power(x: f32, n: i64) -> f32"):
        assert sig in message
    with pytest.raises(TypeError, match=r"\(str, i64\)"):
        lib.poly("a", 1)
    with pytest.raises(TypeError, match=r"energy\(\) has no signature .*\(i64\[::1\]\)"):
        lib.energy(np.arange(3))


def test_keywords_and_defaults_dispatch_on_what_is_given(lib: Any) -> None:
    assert lib.power(2.0) == PLAIN.power(2.0) == 8.0
    assert lib.power(x=3) == 27 and type(lib.power(x=3)) is int
    assert lib.power(np.float32(1.5), n=2) == float(PLAIN.power(np.float32(1.5), n=2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        lib.power(1.0, z=2)


def test_derivative_per_float_signature_matches_finite_differences(lib: Any) -> None:
    h = 1e-6
    for x, y in [(0.3, -1.2), (2.0, 5.5), (-3.0, 0.25)]:
        dx, dy = lib.d_poly(x, y)
        assert dx == pytest.approx(
            (PLAIN.poly(x + h, y) - PLAIN.poly(x - h, y)) / (2 * h), rel=1e-6
        )
        assert dy == pytest.approx(
            (PLAIN.poly(x, y + h) - PLAIN.poly(x, y - h)) / (2 * h), rel=1e-6
        )
        d32 = lib.d_poly(np.float32(x), np.float32(y))
        assert d32 == pytest.approx((dx, dy), rel=1e-5)  # the f32 derivative
        fd = (PLAIN.power(x + h, 3) - PLAIN.power(x - h, 3)) / (2 * h)
        assert lib.d_power(x, 3) == pytest.approx(fd, rel=1e-6)
    for x, y in [(0.3, -1.2), (2.0, 5.5)]:
        h2 = 1e-4
        second = (PLAIN.poly(x + h2, y) - 2 * PLAIN.poly(x, y) + PLAIN.poly(x - h2, y)) / h2**2
        assert lib.ddx_poly(x, y) == pytest.approx(second, rel=1e-5)
        assert lib.ddx_poly(np.float32(x), np.float32(y)) == lib.ddx_poly(
            float(np.float32(x)), float(np.float32(y))
        )  # f32 -> f64 derivative
        (hxx, hxy), (hyx, hyy) = lib.h_poly(x, y)
        assert hxx == pytest.approx(second, rel=1e-5) and hyy == 0.0
        mixed = (lib.dx_poly(x, y + h) - lib.dx_poly(x, y - h)) / (2 * h)
        assert hxy == hyx == pytest.approx(mixed, rel=1e-6)
    # integers convert safely to the f64 derivative (the i64 signature has none)
    assert lib.d_poly(2, 3) == lib.d_poly(2.0, 3.0)
    assert lib.d_power(2) == pytest.approx(12.0)


def test_help_shows_every_signature(lib: Any) -> None:
    sig = inspect.signature(lib.poly)
    assert str(sig) == "(x: 'f64 | f32 | i64', y: 'f64 | f32 | i64') -> 'f64 | f32 | i64'"
    assert str(inspect.signature(lib.power)).startswith("(x: 'f64 | f32 | i64', n: 'i64' = 3)")
    doc = lib.poly.__doc__
    for line in (
        "poly(x: f64, y: f64) -> f64",
        "poly(x: f32, y: f32) -> f32",
        "poly(x: i64, y: i64) -> i64",
    ):
        assert line in doc
    assert len(lib.poly.overloads) == 3


def test_each_specialisation_is_reachable_by_its_entry_name(lib: Any) -> None:
    assert lib["poly.f32.f32"] is lib.poly.overloads["(x: f32, y: f32) -> f32"]
    assert "poly.f32.f32" not in dir(lib) and "poly.f32.f32" not in lib
    assert lib.is_fast("poly.f64.f64") and lib.is_fast("poly")
    assert lib.ctypes_function("poly.f64.f64")(1.5, 2.0) == PLAIN.poly(1.5, 2.0)
    assert lib.ctypes_function("poly")(1, 2) == PLAIN.poly(1, 2)


def test_a_reader_of_format_1_6_sees_each_signature_as_an_export(built: tuple[Path, Any]) -> None:
    """Backward compatible: without ``dispatch`` (what a 1.6 writer or reader knows) the
    entries are plain exports under their own names; and single-signature artifacts
    carry no ``dispatch`` at all."""
    path, _ = built
    data = read_manifest(path).to_dict()
    for e in data["entries"]:
        e.pop("dispatch", None)
    data["format_version"] = [1, 6]
    old = Manifest.from_dict(data, "old")
    assert all(not e.dispatch for e in old.entries)
    assert "poly.f64.f64" in [e.name for e in old.entries]
    clash = read_manifest(path).to_dict()
    clash["entries"][0]["name"] = "poly"
    with pytest.raises(ArtifactError, match="'poly' names both an export and a dispatch"):
        Manifest.from_dict(clash, "clash")


def test_plain_python_export_takes_numbas_forms_and_refuses_unknown_options() -> None:
    """GRADC_PLAIN_PYTHON=1 (tests/conftest.py): the decorator returns the function."""

    def f(x):  # type: ignore[no-untyped-def]
        return x

    assert gradc.export(["f64(f64)", "f32(f32)"])(f) is f
    assert gradc.export(("f64(f64)",), fastmath=True, boundscheck=False)(f) is f
    assert gradc.export(fastmath=True)(f) is f
    with pytest.raises(TypeError, match="unexpected keyword argument 'nopython'"):
        gradc.export(nopython=True)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="or a list of them"):
        gradc.export([1, 2])  # type: ignore[call-overload]
