"""Fusion (``lower-arrays``): a chain of one-use elementwise operations is one loop nest
that allocates only its result.

``y = a*x + b*np.exp(-x*x)`` on 10^6 elements: the IR the code generator gets (after the
whole default pipeline) holds one ``newarray`` and one loop, the runtime's counter of
blocks allocated goes up by exactly one per call (the returned array: no temporary, not
even one freed before the call returns), and its counter of live blocks goes up by one
and back down when the result is dropped; the values are NumPy's up to an ulp of ``exp``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

CHAIN = Path(__file__).parent / "corpus_arrays" / "elementwise.py"


def _final_ir(path: Path, name: str) -> str:
    """The printed IR of export ``name`` as codegen receives it."""
    from gradc.compiler.frontend.module_scan import scan_module
    from gradc.compiler.infer import infer_module
    from gradc.compiler.ir.printer import print_function
    from gradc.compiler.sources import read_source
    from gradc.passes.arrays.lower import run as lower_arrays
    from gradc.passes.registry import DEFAULT_PIPELINE, run_pipeline

    _, source = read_source(path)
    module = infer_module(scan_module(source, path.stem))
    module = run_pipeline(lower_arrays(module), DEFAULT_PIPELINE)
    return print_function(module.functions[name])


def test_the_fused_chain_is_one_loop_with_one_allocation() -> None:
    ir = _final_ir(CHAIN, "ew_chain")
    assert ir.count("newarray") == 1, ir
    assert ir.count(" = phi ") == 1, ir  # one loop counter: one loop
    assert ir.count("math ieee_exp") == 1, ir


def test_the_fused_chain_allocates_only_its_result(
    compile_module: Callable[[Path], Any],
) -> None:
    import gradc

    lib = compile_module(CHAIN)
    x = np.linspace(-3.0, 3.0, 10**6)
    gc.collect()
    before = gradc.runtime_stats()
    y = lib.ew_chain(x, 1.5, -0.25)
    after = gradc.runtime_stats()
    assert after["allocated"] == before["allocated"] + 1
    assert after["live"] == before["live"] + 1
    expected = 1.5 * x + -0.25 * np.exp(-x * x)
    # libm's exp and NumPy's agree within an ulp of exp (< 1e-16 here), the sums round alike
    np.testing.assert_allclose(y, expected, rtol=0.0, atol=4e-15)
    del y
    gc.collect()
    assert gradc.runtime_stats()["live"] == before["live"]


def test_the_allocation_counter_counts_temporaries_freed_before_return(
    compile_module: Callable[[Path], Any], tmp_path: Path
) -> None:
    # ``t`` has two uses, so it is a temporary array of its own: two blocks, one live
    import gradc

    src = tmp_path / "alloc_counter.py"
    src.write_text(
        "import numpy as np\nimport gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def twice(x: f64[:]) -> f64[:]:\n    t = np.exp(x)\n    return t * t + t\n"
    )
    lib = compile_module(src)
    x = np.linspace(-1.0, 1.0, 1000)
    gc.collect()
    before = gradc.runtime_stats()
    y = lib.twice(x)
    after = gradc.runtime_stats()
    assert after["allocated"] == before["allocated"] + 2
    assert after["live"] == before["live"] + 1
    np.testing.assert_allclose(y, np.exp(x) * np.exp(x) + np.exp(x), rtol=1e-15)


def test_a_stencil_of_slices_allocates_only_its_result(
    compile_module: Callable[[Path], Any], tmp_path: Path
) -> None:
    # the five slices are views and the expression one loop nest: one block per call
    import gradc

    src = tmp_path / "stencil_alloc.py"
    src.write_text(
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def stencil(u: f64[:, :]) -> f64[:, :]:\n"
        "    return u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]\n"
    )
    lib = compile_module(src)
    u = np.random.default_rng(0).uniform(-1.0, 1.0, (300, 400))
    gc.collect()
    before = gradc.runtime_stats()["allocated"]
    y = lib.stencil(u)
    assert gradc.runtime_stats()["allocated"] == before + 1
    expected = u[1:-1, 1:-1] * 4.0 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]
    np.testing.assert_array_equal(y, expected)


def test_in_place_operands_that_alias_the_target_read_it_as_numpy_does(
    compile_module: Callable[[Path], Any],
) -> None:
    # ``a += b`` with b a reversed view of a: NumPy reads b as if copied first
    lib = compile_module(CHAIN)
    a = np.arange(7, dtype=np.int64)
    plain = np.arange(7, dtype=np.int64)
    _inplace_int(plain, plain[::-1])
    lib.ew_inplace_int(a, a[::-1])
    np.testing.assert_array_equal(a, plain)


def _inplace_int(a: np.ndarray, b: np.ndarray) -> None:
    """tests/codegen/corpus_arrays/elementwise.py's ``ew_inplace_int``, run by NumPy."""
    a += b
    a *= 3
    a //= 2
    a ^= b
