"""The front end's list of the names ``from gradc import ...`` may bind is ``gradc.__all__``
(it cannot import ``gradc`` to read it: the compiler does not depend on the façade)."""

from __future__ import annotations

from pathlib import Path

import gradc
from gradc.compiler.frontend.module_scan import GRADC_NAMES


def test_gradc_names_are_gradc_all() -> None:
    assert set(GRADC_NAMES) == set(gradc.__all__)
    assert all(hasattr(gradc, name) for name in GRADC_NAMES)


def test_gradc_attributes_that_exist_are_accepted(tmp_path: Path) -> None:
    """Only calls of unknown ``gradc.X`` are refused: ``gradc.__version__`` exists."""
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    path = tmp_path / "m.py"
    path.write_text(
        "import gradc\nfrom gradc import f64\n\nVERSION = gradc.__version__\n\n\n"
        "@gradc.export\ndef f(x: f64) -> f64:\n    return x * x\n\n\nd_f = gradc.grad(f)\n"
    )
    assert sorted(e.name for e in build_module(path, CompilerOptions()).entries) == ["d_f", "f"]
