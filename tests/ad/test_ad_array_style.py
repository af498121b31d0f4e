"""Thirty-two whole functions in NumPy array style (tests/ad/array_style/functions.py: losses,
softmax/logsumexp, layer and batch norm, attention, slice stencils, the issue's
``gaussian_loss``, regressions, an MLP, an RNN, a Gaussian mixture, physics energies),
compiled once per session with their gradients (``d_f``) and JVPs (``t_f``):

* the value returned by ``t_f`` equals NumPy running the same source;
* ``d_f`` equals central finite differences of the NumPy function;
* ``t_f`` equals central finite differences along a random direction, and
  ``<d_f, v> == t_f(v)`` (forward and reverse mode agree).

The oracles and input drawing are tests/ad/corpus/_harness.py's. The default run checks
two hypothesis examples per function; ``@pytest.mark.slow`` sweeps more, and passes the
arrays as reversed, every-other-element views.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.array_ops.build import build_and_load
from tests.ad.corpus import _harness as H

PATH = Path(__file__).parent / "array_style" / "functions.py"
CASES = H.discover(PATH)

SETTINGS: dict[str, Any] = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much],
}


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_and_load(PATH, tmp_path_factory.mktemp("array_style") / "out.gradc")[0]


class _Views:
    """``lib`` called with every array argument as a reversed, every-other-element view
    (the harness passes contiguous copies)."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib

    def __getattr__(self, name: str) -> Callable[..., Any]:
        fn = getattr(self.lib, name)
        return lambda *a: fn(*(H.strided(x) if isinstance(x, np.ndarray) else x for x in a))


def _all_checks(case: H.Case, lib: Any, data: st.DataObject, views: bool) -> None:
    args = data.draw(H.inputs(case), label="args")
    v = data.draw(H.directions(case, args), label="v")
    if views:
        lib = _Views(lib)
    H.check_jvp_value(case, lib, args, v)
    H.check_reverse(case, lib, args)
    H.check_forward(case, lib, args, v)
    H.check_dot_product(case, lib, args, v)


def test_the_module_has_thirty_differentiated_functions() -> None:
    assert len(CASES) >= 30
    for case in CASES:
        assert case.grad_wrt == case.jvp_wrt == case.float_params, case.id


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_value_gradient_and_jvp(case: H.Case, lib: Any) -> None:
    @settings(max_examples=2, **SETTINGS)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        _all_checks(case, lib, data, views=False)

    run()


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_value_gradient_and_jvp_sweep(case: H.Case, lib: Any) -> None:
    @settings(max_examples=15, **SETTINGS)
    @given(data=st.data(), views=st.booleans())
    def run(data: st.DataObject, views: bool) -> None:
        _all_checks(case, lib, data, views)

    run()
