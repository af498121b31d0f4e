"""The front end's list of the names ``from gradc import ...`` may bind is ``gradc.__all__``
(it cannot import ``gradc`` to read it: the compiler does not depend on the façade)."""

from __future__ import annotations

import gradc
from gradc.compiler.frontend.module_scan import GRADC_NAMES


def test_gradc_names_are_gradc_all() -> None:
    assert set(GRADC_NAMES) == set(gradc.__all__)
    assert all(hasattr(gradc, name) for name in GRADC_NAMES)
