"""``lower-arrays`` on reductions (passes/arrays/reduce.py): the loops it makes (text in,
text out), fusion of an elementwise chain into a reduction (no array allocated), and the
reference interpreter on the IR after the pass against the interpreter before it (whose
rules are NumPy's) on every export of tests/codegen/corpus_arrays/numpy_reductions.py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.registry import get
from tests.codegen import test_arrays_differential as D
from tests.filecheck_util import filecheck

CORPUS = D.CORPUS_DIR / "numpy_reductions.py"
EXPORTS = D.discover(CORPUS)


def lower(text: str) -> str:
    module = parse_module(text)
    verify_module(module)
    get("lower-arrays").run(module)
    verify_module(module)
    return print_module(module)


SUM_2D = """
func @f(%a: array[f64,2,A]) -> array[f64,1,C] {
^entry:
  %s = reduce sum %a, [0] 0 : array[f64,1,C]
  ret %s
}
"""


def test_a_partial_sum_loops_over_kept_then_reduced_axes() -> None:
    filecheck(
        lower(SUM_2D),
        """
        CHECK: %[[M:.*]] = dim %a, 0 : i64
        CHECK: %[[N:.*]] = dim %a, 1 : i64
        CHECK: %[[OUT:.*]] = newarray(%[[N]]) : array[f64,1,C]
        CHECK: %[[J:i0]] = phi
        CHECK: %[[MAIN:.*]] = bitand %[[M]], %{{.*}} : i64
        CHECK: ^reduce.lanes.loop:
        CHECK-NEXT: %[[R:r]] = phi
        CHECK-NEXT: %[[L0:.*]] = phi [{{.*}}], [{{.*}}: %[[NEXT:.*]]] : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: cmp lt %[[R]], %[[MAIN]]
        CHECK: ^reduce.lanes.body:
        CHECK: elemaddr %a, (%[[R]], %[[J]])
        CHECK: %[[NEXT]] = add %[[L0]], %{{.*}} : f64
        CHECK: ^reduce.rest.loop:
        CHECK: cmp lt %{{.*}}, %[[M]]
        CHECK: ^reduce.rest.done:
        CHECK-NEXT: add
        CHECK-NEXT: add
        CHECK-NEXT: %[[SUM:.*]] = add
        CHECK: %[[AT:.*]] = elemaddr %[[OUT]], (%[[J]])
        CHECK-NEXT: store %[[AT]], %[[SUM]]
        """,
    )


FUSED = """
func @f(%a: array[f64,1,A], %x: array[f64,1,A], %b: array[f64,1,A]) -> f64 {
^entry:
  %ax = elementwise multiply(%a, %x) : array[f64,1,C]
  %y = elementwise add(%ax, %b) : array[f64,1,C]
  %s = reduce sum %y, [0] 0 : f64
  ret %s
}
"""


def test_an_elementwise_chain_is_computed_inside_the_reduction() -> None:
    out = lower(FUSED)
    filecheck(
        out,
        """
        CHECK-NOT: newarray
        CHECK: ^reduce.lanes.body:
        CHECK: mul
        CHECK: add
        CHECK: add
        CHECK-NOT: newarray
        CHECK: ret
        """,
    )
    assert "newarray" not in out


def test_the_fused_sum_from_source_allocates_nothing() -> None:
    src = (
        "import numpy as np\nimport gradc\nfrom gradc import f64\n\n"
        "@gradc.export\ndef f(a: f64[:], x: f64[:], b: f64[:]) -> f64:\n"
        "    return np.sum(a * x + b) + np.max(np.exp(-x * x)) + (x * x).mean()\n"
    )
    module = infer_module(scan_module(SourceFile.parse(src, "m.py"), "m"))
    get("lower-arrays").run(module)
    verify_module(module)
    assert "newarray" not in print_module(module)
    a, x, b = (np.linspace(-1.0, 1.0, 7) * k for k in (1.0, 2.0, 3.0))
    got = run_function(module, "f", [a, x, b])
    expected = np.sum(a * x + b) + np.max(np.exp(-x * x)) + (x * x).mean()
    assert got == pytest.approx(expected, rel=1e-14)


EMPTY = """
func @f(%a: array[f64,2,A]) -> array[i64,1,C] {
^entry:
  %s = reduce argmax %a, [0] 0 : array[i64,1,C]
  ret %s
}
"""


@pytest.mark.parametrize("shape", [(0, 3), (0, 0)])
def test_an_empty_reduced_axis_raises_numpys_error_before_any_loop(shape: tuple[int, ...]) -> None:
    out = lower(EMPTY)
    assert out.index("raise ValueError") < out.index("phi")
    with pytest.raises(ValueError, match=r"^attempt to get argmax of an empty sequence$"):
        run_function(parse_module(out), "f", [np.zeros(shape)])
    result = run_function(parse_module(out), "f", [np.zeros((2, 0))])
    assert isinstance(result, np.ndarray) and result.shape == (0,)


@cache
def corpus_modules() -> tuple[Module, Module]:
    """The corpus's typed IR, before and after ``lower-arrays``."""
    text = CORPUS.read_text()
    before = infer_module(scan_module(SourceFile.parse(text, str(CORPUS)), "m"))
    after = infer_module(scan_module(SourceFile.parse(text, str(CORPUS)), "m"))
    get("lower-arrays").run(after)
    verify_module(after)
    return before, after


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.name)
def test_interpreter_after_the_pass_matches_it_before(export: D.Export) -> None:
    before, after = corpus_modules()

    def interpreted(module: Module) -> Any:
        return lambda *args: run_function(module, export.name, args)

    rng = np.random.default_rng(5)
    cases = [D.deterministic_case(export, D.random_dims(export, rng), "strided", k) for k in (0, 1)]
    cases += [D.deterministic_case(export, d, "reversed") for d in D.zero_dim_variants(export)]
    for case in cases:
        # the interpreter before the pass is NumPy (tests/infer/test_reductions.py): it
        # stands in for the plain function, and the pass's IR for the compiled one
        D.check_case(export, interpreted(before), interpreted(after), case)
