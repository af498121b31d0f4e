"""``lower-arrays`` on reductions (passes/arrays/reduce.py): the loops it makes (text in,
text out), fusion of an elementwise chain into a reduction (no array allocated), and the
reference interpreter on the IR after the pass against the interpreter before it (whose
rules are NumPy's) on every export of tests/codegen/corpus_arrays/numpy_reductions.py
and on hypothesis-drawn reductions (kind, axes, keepdims, ddof, dtype, shape, layout).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.infer.reductions import _result_dtype
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.ops.reductions import BUILTINS, reduced_type
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.types import I64, SCALARS, ArrayType, ScalarType
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


ROW_SUMS = """
func @f(%a: array[f64,2,A]) -> array[f64,1,C] {
^entry:
  %s = reduce sum %a, [1] 0 : array[f64,1,C]
  ret %s
}
"""


def test_a_sum_over_the_last_axis_adds_into_four_partial_sums() -> None:
    filecheck(
        lower(ROW_SUMS),
        """
        CHECK: %[[M:.*]] = dim %a, 0 : i64
        CHECK: %[[N:.*]] = dim %a, 1 : i64
        CHECK: %[[OUT:.*]] = newarray(%[[M]]) : array[f64,1,C]
        CHECK: %[[I:i0]] = phi
        CHECK: %[[MAIN:.*]] = bitand %[[N]], %{{.*}} : i64
        CHECK: ^reduce.lanes.loop:
        CHECK-NEXT: %[[R:r]] = phi
        CHECK-NEXT: %[[L0:.*]] = phi [{{.*}}], [{{.*}}: %[[NEXT:.*]]] : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: cmp lt %[[R]], %[[MAIN]]
        CHECK: ^reduce.lanes.body:
        CHECK: elemaddr %a, (%[[I]], %[[R]])
        CHECK: %[[NEXT]] = add %[[L0]], %{{.*}} : f64
        CHECK: ^reduce.rest.loop:
        CHECK: cmp lt %{{.*}}, %[[N]]
        CHECK: ^reduce.rest.done:
        CHECK-NEXT: add
        CHECK-NEXT: add
        CHECK-NEXT: %[[SUM:.*]] = add
        CHECK: %[[AT:.*]] = elemaddr %[[OUT]], (%[[I]])
        CHECK-NEXT: store %[[AT]], %[[SUM]]
        """,
    )


COLUMN_SUMS = """
func @f(%a: array[f64,2,A]) -> array[f64,1,C] {
^entry:
  %s = reduce sum %a, [0] 0 : array[f64,1,C]
  ret %s
}
"""


def test_a_sum_over_a_leading_axis_computes_eight_outputs_per_row_pass() -> None:
    filecheck(
        lower(COLUMN_SUMS),
        """
        CHECK: %[[M:.*]] = dim %a, 0 : i64
        CHECK: %[[N:.*]] = dim %a, 1 : i64
        CHECK: %[[OUT:.*]] = newarray(%[[N]]) : array[f64,1,C]
        CHECK: ^reduce.cols.body:
        CHECK: ^reduce.loop:
        CHECK-NEXT: %[[R:r.*]] = phi
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: phi {{.*}} : f64
        CHECK-NEXT: cmp lt %[[R]], %[[M]]
        CHECK: ^reduce.body:
        CHECK: elemaddr %a, (%[[R]], %{{.*}})
        CHECK: ^reduce.col.body:
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


# -- drawn reductions: every kind, axes, keepdims, ddof, dtype, shape and layout ---------

_KINDS = [k for k in ops.ReduceKind if k not in BUILTINS]
_DTYPES = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i1": np.bool_}


@st.composite
def drawn_reductions(draw: st.DrawFn) -> tuple[str, np.ndarray]:
    """IR text of one ``reduce`` or ``cumulate`` of a drawn array, and the array."""
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(sorted(_DTYPES)))
    source = SCALARS[dtype]
    values = draw(
        hnp.arrays(
            _DTYPES[dtype],
            shape,
            elements=st.floats(-4, 4, width=32)
            if source.is_float
            else st.integers(-3, 3)
            if dtype == "i32"
            else st.booleans(),
        )
    )
    array, _ = D.place(values, draw(st.sampled_from(D.LAYOUTS)))
    t = ArrayType(source, ndim, "A")
    if draw(st.booleans()):  # cumulate
        kind = draw(st.sampled_from(list(ops.CumKind)))
        axis = draw(st.none() | st.integers(0, ndim - 1))
        result = ArrayType(source if source.is_float else I64, 1 if axis is None else ndim, "C")
        op = f"cumulate {kind} %a, {'none' if axis is None else axis}"
    else:
        kind = draw(st.sampled_from(_KINDS))
        if kind in (ops.ReduceKind.ARGMIN, ops.ReduceKind.ARGMAX):
            axes = draw(st.sampled_from([tuple(range(ndim)), *((k,) for k in range(ndim))]))
        else:
            axes = tuple(sorted(draw(st.sets(st.integers(0, ndim - 1)))))
        keepdims = draw(st.booleans())
        ddof = draw(st.integers(0, 2)) if kind in (ops.ReduceKind.VAR, ops.ReduceKind.STD) else 0
        dtype_out = _result_dtype("", kind, source, "")
        assert isinstance(dtype_out, ScalarType)
        result = reduced_type(t, axes, keepdims, dtype_out)
        flag = " {keepdims}" if keepdims else ""
        op = f"reduce {kind} %a, [{', '.join(map(str, axes))}] {ddof}{flag}"
    text = f"func @f(%a: {t}) -> {result} {{\n^entry:\n  %r = {op} : {result}\n  ret %r\n}}\n"
    return text, array


def _run(module: Module, array: np.ndarray) -> Any:
    try:
        return run_function(module, "f", [array])
    except ValueError as exc:
        return ("ValueError", str(exc))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(drawn_reductions())
def test_drawn_reductions_after_the_pass_match_numpy(case: tuple[str, np.ndarray]) -> None:
    text, array = case
    before = _run(parse_module(text), array)  # NumPy (the interpreter's rules)
    lowered = parse_module(text)
    get("lower-arrays").run(lowered)
    verify_module(lowered)
    after = _run(lowered, array)
    if isinstance(before, tuple):
        assert after == before, text
        return
    e, a = np.asarray(before), np.asarray(after)
    assert type(after) is type(before) and e.dtype == a.dtype and e.shape == a.shape, text
    if e.dtype.kind == "f":  # another summation order: within SUM_TOLERANCE
        tol = D.SUM_TOLERANCE[e.dtype.name] * np.maximum(1.0, np.abs(e))
        with np.errstate(invalid="ignore"):
            ok = (e == a) | (np.isnan(e) & np.isnan(a)) | (np.abs(e - a) <= tol)
        assert np.all(ok), f"{text}\nNumPy {before!r}\ngradc {after!r}"
    else:
        assert np.array_equal(e, a), f"{text}\nNumPy {before!r}\ngradc {after!r}"
