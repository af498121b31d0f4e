"""The AD corpus through the reference interpreter: the differentiated IR (front end,
derivative exports, the default pass pipeline; no code generation) run by
``gradc.compiler.ir.interp`` against the same oracles as tests/ad/test_ad_corpus.py.

This separates the two halves of a derivative: when a corpus function fails here, the
AD transformation (activity, tangents, tape, adjoints) or a pass after it is wrong; when
it passes here and fails compiled, the lowering of derivative code is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.ad.corpus import _harness as H

pytest.importorskip("gradc.compiler.ir.interp")

CASES = [c for c in H.all_cases() if c.grad_name is not None and c.jvp_name is not None]
EXAMPLES = 3

EXAMPLES_ROOT = Path(__file__).resolve().parents[2] / "examples"

_modules: dict[Path, Any] = {}
_failures: dict[Path, BaseException] = {}


def interp_library(path: Path) -> H.InterpLibrary:
    """The differentiated IR of ``path`` behind the interpreter (built once per module)."""
    if path in _failures:
        # re-raising one exception object grows its traceback every time: drop it
        raise _failures[path].with_traceback(None)
    if path not in _modules:
        try:
            _modules[path] = H.build_ir_module(path)
        except Exception as exc:
            _failures[path] = exc
            raise
    return H.InterpLibrary(_modules[path])


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in CASES],
)
def test_interpreted_derivatives(case: H.Case) -> None:
    lib = interp_library(case.path)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: keep failing runs short
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        v = data.draw(H.directions(case, args), label="v")
        H.check_reverse(case, lib, args)
        H.check_forward(case, lib, args, v)
        H.check_dot_product(case, lib, args, v)
        H.check_jvp_value(case, lib, args, v)

    check()


def test_interpreted_gmm_matches_adbench_reference() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gmm_io", EXAMPLES_ROOT / "gmm_io.py")
    assert spec is not None and spec.loader is not None
    gmm_io = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gmm_io)

    lib = interp_library(EXAMPLES_ROOT / "gmm.py")
    args = gmm_io.read_gmm_instance(gmm_io.DATA / "gmm" / "test.txt")
    ref = gmm_io.read_reference(gmm_io.DATA / "reference" / "gmm_test.json")
    grad = lib.d_gmm(*args)
    np.testing.assert_allclose(
        gmm_io.flatten_gradient(*grad), ref["gradient"], rtol=1e-8, atol=1e-12
    )
    value, grad2 = lib.vg_gmm(*args)
    assert abs(value - ref["objective"]) <= 1e-8 * abs(ref["objective"])
    np.testing.assert_allclose(gmm_io.flatten_gradient(*grad2), ref["gradient"], rtol=1e-8)
    v = np.array([0.3, -1.0, 0.5])
    value, tangent = lib.t_gmm(*args, v)
    assert abs(value - ref["objective"]) <= 1e-8 * abs(ref["objective"])
    assert abs(tangent - float(np.dot(grad[0], v))) <= 1e-10
