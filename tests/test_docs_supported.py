"""docs/supported.md: generated from the compiler's tables (scripts/gen_supported.py), and
every name it lists compiles.

The compile check builds one module whose exports call each supported function, method,
operator and constant once (:func:`gen_supported.examples`), on operands of a dtype the
function supports, and loads it.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

PARAMS = (
    "x: f64[:], y: f64[:], A: f64[:, :], i: i64[:], j: i64[:], b: bool_[:], c: bool_[:], "
    "s: f64, n: i64"
)


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_supported.py"
    spec = importlib.util.spec_from_file_location("gen_supported", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_supported", module)
    spec.loader.exec_module(module)
    return module


def test_page_is_generated_from_the_tables() -> None:
    gen = _generator()
    written = (ROOT / "docs" / "supported.md").read_text(encoding="utf-8")
    assert written == gen.render(), (
        "docs/supported.md is stale: regenerate it with `python scripts/gen_supported.py`"
    )


def test_readme_links_the_page() -> None:
    assert "(docs/supported.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def _check_module(gen: ModuleType, skip: tuple[str, ...] = ()) -> str:
    """The check module: ``check_<section>`` exports calling each example once (leaving
    out those containing a string of ``skip``), and ``check_statements``."""
    examples = gen.examples()
    lines = ["import math", "", "import numpy as np", "", "import gradc",
             "from gradc import bool_, f64, i64", ""]  # fmt: skip
    for section, exprs in examples.items():
        name = "check_" + section.replace(" ", "_")
        lines += ["", "@gradc.export", f"def {name}({PARAMS}) -> f64:", "    t = 0.0"]
        lines += [f"    t += float({e})" for e in exprs if not any(k in e for k in skip)]
        lines += ["    return t", ""]
    return "\n".join(lines) + gen.STATEMENTS_CHECK


def _arguments() -> tuple[Any, ...]:
    """One value per :data:`PARAMS` entry (every index in range, every math call defined)."""
    x = np.linspace(0.15, 0.85, 4)
    a = np.arange(16.0).reshape(4, 4) / 16.0
    i = np.array([1, 2, 3, 0])
    b = np.array([True, False, True, False])
    return x, x[::-1].copy(), a, i, np.array([1, 1, 2, 0]), b, ~b, 0.4, 4


def _outcome(fn: Callable[..., float], args: tuple[Any, ...]) -> float | type[BaseException]:
    try:
        with np.errstate(all="ignore"):
            return float(fn(*args))
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        return type(exc)


def test_every_listed_name_compiles_and_matches_numpy(
    tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    """One export per section of the page, calling each listed name once: it compiles,
    and its value (or exception) is the same module's run by CPython and NumPy."""
    gen = _generator()
    examples = gen.examples()
    path = tmp_path / "supported_check.py"
    path.write_text(_check_module(gen), encoding="utf-8")
    lib = compile_module(path)
    spec = importlib.util.spec_from_file_location("supported_check", path)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)  # GRADC_PLAIN_PYTHON=1 (conftest): plain functions
    for section in [*examples, "statements"]:
        name = "check_" + section.replace(" ", "_")
        got = _outcome(getattr(lib, name), _arguments())
        want = _outcome(getattr(plain, name), _arguments())
        if isinstance(want, float) and isinstance(got, float):
            assert got == pytest.approx(want, rel=1e-12, nan_ok=True), section
        else:
            assert got == want, section


@pytest.mark.slow
def test_every_listed_name_differentiates(
    tmp_path: Path, compile_module: Callable[[Path], Any]
) -> None:
    """``gradc.grad`` of every section wrt its float parameters equals central finite
    differences of the module run by NumPy, along a random direction; the operators the
    page says AD refuses are left out (float32 casts too: central differences of a value
    rounded to float32 are meaningless at this step)."""
    gen = _generator()
    refused = tuple(gen.ufunc_example(n) for n in gen.ad_refused())
    sections = [*gen.examples(), "statements"]
    to_f32 = tuple(f"np.{k}(" for k, t in gen.SCALAR_TYPES.items() if t.name == "f32")
    text = _check_module(gen, skip=(*refused, *to_f32, "float32"))
    text += "".join(
        f"\nd_{n} = gradc.grad(check_{n}, wrt=('x', 'y', 'A', 's'))\n"
        for n in (s.replace(" ", "_") for s in sections)
    )
    path = tmp_path / "supported_grad.py"
    path.write_text(text, encoding="utf-8")
    lib = compile_module(path)
    spec = importlib.util.spec_from_file_location("supported_grad", path)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    rng = np.random.default_rng(11)
    x, y, a, *rest, s, n = _arguments()
    v = [rng.standard_normal(np.shape(p)) for p in (x, y, a, s)]
    h = 1e-6
    for section in (s_.replace(" ", "_") for s_ in sections):
        grads = getattr(lib, f"d_{section}")(x, y, a.copy(), *rest, s, n)
        ad = sum(float(np.sum(g * d)) for g, d in zip(grads, v, strict=True))
        f = getattr(plain, f"check_{section}")
        with np.errstate(all="ignore"):
            up = f(x + h * v[0], y + h * v[1], a + h * v[2], *rest, s + h * v[3], n)
            down = f(x - h * v[0], y - h * v[1], a - h * v[2], *rest, s - h * v[3], n)
        assert ad == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-6), section
