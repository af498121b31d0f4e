"""The examples run unchanged as plain Python (the decorators and markers are inert)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _import(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scalars_runs_as_plain_python() -> None:
    m = _import("scalars")
    r = m.poly(0.3, 10)
    assert type(r) is float
    assert r == sum(math.sin(0.3 * k) / (k + 1) for k in range(10))
    assert m.hypot_clamped(3.0, 4.0) == 5.0
    assert m.hypot_clamped(30.0, 40.0) == 10.0
