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


def _check_module(examples: dict[str, list[str]]) -> str:
    lines = ["import math", "", "import numpy as np", "", "import gradc",
             "from gradc import bool_, f64, i64", ""]  # fmt: skip
    for section, exprs in examples.items():
        name = "check_" + section.replace(" ", "_")
        lines += ["", "@gradc.export", f"def {name}({PARAMS}) -> f64:", "    t = 0.0"]
        lines += [f"    t += float({e})" for e in exprs]
        lines += ["    return t", ""]
    return "\n".join(lines)


def test_every_listed_name_compiles(tmp_path: Path, compile_module: Callable[[Path], Any]) -> None:
    examples = _generator().examples()
    path = tmp_path / "supported_check.py"
    path.write_text(_check_module(examples), encoding="utf-8")
    lib = compile_module(path)
    assert sorted(dir(lib)) >= sorted(f"check_{s.replace(' ', '_')}" for s in examples)
