"""Per-function options, ``@gradc.export(fastmath=True, boundscheck=False)``: they override
the build's ``--fastmath``/``--no-boundscheck`` for that export only, enter its key and
no other's, and apply to all code compiled into its object (helpers and called exports:
the caller's flags). Oracles: NumPy and the plain Python function; the generated LLVM
text for which flags and checks each object got.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import gradc
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

from .helpers import build

MODULE = """\
import gradc
from gradc import f64, i64


def body(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@gradc.export{dot_options}
def dot(a: f64[:], b: f64[:]) -> f64:
    return body(a, b)


@gradc.export{pick_options}
def pick(a: f64[:], i: i64) -> f64:
    return a[i]


@gradc.export
def caller(a: f64[:], b: f64[:]) -> f64:
    return dot(a, b) + pick(a, 0)


d_dot = gradc.grad(dot)  # compiled with dot's options
"""

FAST = "(fastmath=True)"
UNCHECKED = "(boundscheck=False)"


def _write(tmp_path: Path, dot: str = "", pick: str = "", name: str = "opts") -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(dot_options=dot, pick_options=pick))
    return path


def _entries(path: Path, options: CompilerOptions | None = None) -> dict[str, object]:
    return {e.name: e for e in build_module(path, options or CompilerOptions()).entries}


def test_an_export_option_changes_exactly_that_exports_key(tmp_path: Path) -> None:
    base = _entries(_write(tmp_path, name="base"))
    fast = _entries(_write(tmp_path, dot=FAST, name="fast"))
    unchecked = _entries(_write(tmp_path, pick=UNCHECKED, name="unchecked"))
    key = {n: e.key for n, e in base.items()}  # type: ignore[attr-defined]
    assert {n for n, e in fast.items() if e.key != key[n]} == {"dot", "d_dot"}  # type: ignore[attr-defined]
    assert {n for n, e in unchecked.items() if e.key != key[n]} == {"pick"}  # type: ignore[attr-defined]
    assert fast["dot"].key_components["options.fastmath"] is True  # type: ignore[attr-defined]
    assert fast["caller"].key_components["options.fastmath"] is False  # type: ignore[attr-defined]
    assert fast["d_dot"].key_components["options.fastmath"] is True  # type: ignore[attr-defined]
    # the same as the build option for the whole module: the same object, the same key
    everywhere = _entries(_write(tmp_path, name="everywhere"), CompilerOptions(fastmath=True))
    assert everywhere["dot"].key == fast["dot"].key  # type: ignore[attr-defined]
    # and an export's False overrides the build's True
    off = _entries(
        _write(tmp_path, dot="(fastmath=False)", name="off"), CompilerOptions(fastmath=True)
    )
    assert off["dot"].key == key["dot"] and off["d_dot"].key == key["d_dot"]  # type: ignore[attr-defined]
    assert off["caller"].key != key["caller"]  # type: ignore[attr-defined]


def test_explain_names_the_export_and_the_option(tmp_path: Path) -> None:
    out = tmp_path / "out.gradc"
    source = _write(tmp_path)
    assert build(source, out).exit_code == 0
    source.write_text(MODULE.format(dot_options="", pick_options=UNCHECKED))
    result = build(source, out, "--explain")
    assert result.exit_code == 0, result.output
    assert "miss  pick: options.boundscheck True -> False" in result.output
    assert "hit   dot" in result.output and "hit   caller" in result.output
    assert "hit   d_dot" in result.output


def test_flags_reach_the_objects_callees_get_the_callers_flags(tmp_path: Path) -> None:
    entries = _entries(_write(tmp_path, dot=FAST, pick=UNCHECKED))
    llvm = {n: e.llvm_text for n, e in entries.items()}  # type: ignore[attr-defined]
    assert "fmul reassoc" in llvm["dot"] or "fadd reassoc" in llvm["dot"]
    # caller inlines dot's and pick's code, with its own (the build's) flags
    assert "reassoc" not in llvm["caller"] and "out of bounds" in llvm["caller"]
    assert "out of bounds" not in llvm["pick"] and "out of bounds" in llvm["dot"]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> object:
    tmp = tmp_path_factory.mktemp("options")
    from gradc.compiler.driver import build_artifact

    build_artifact(_write(tmp, dot=FAST, pick=UNCHECKED), tmp / "o.gradc", CompilerOptions())
    return gradc.load(tmp / "o.gradc")


@pytest.mark.parametrize("n", [0, 1, 7, 100, 1000])
def test_fastmath_results_within_the_documented_tolerance(lib: object, n: int) -> None:
    """README (gradc build): fast-math reassociates a sum of n products, so the result may
    differ from the in-order one by at most n * eps * sum(|a_i * b_i|)."""
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    exact = math.fsum(a * b)
    bound = max(n, 1) * np.finfo(np.float64).eps * float(np.sum(np.abs(a * b)))
    assert abs(lib.dot(a, b) - exact) <= bound  # type: ignore[attr-defined]
    assert abs(lib.dot(a[::-2], b[::-2]) - math.fsum(a[::-2] * b[::-2])) <= bound  # type: ignore[attr-defined]


def test_unchecked_export_is_right_on_indices_in_range(lib: object) -> None:
    a = np.arange(5.0) * 1.5
    for i in range(-5, 5):  # negative indices wrap as in Python, in range
        assert lib.pick(a, i) == a[i]  # type: ignore[attr-defined]
    assert lib.pick(a[::-1], 1) == a[::-1][1]  # type: ignore[attr-defined]
