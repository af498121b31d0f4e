"""NumPy's reductions through the front end and inference, run by the reference
interpreter (whose rules are NumPy itself) against CPython + NumPy running the same source:
every export of tests/codegen/corpus_arrays/numpy_reductions.py, in every layout, with
zero-length axes. This checks what the front end and inference decide — parameters bound
as NumPy binds them, axes normalised, result dtypes and ranks, scalar vs array results —
before any lowering; tests/codegen/test_arrays_differential.py runs the compiled code.
Then result types one by one, and the compile errors.
"""

from __future__ import annotations

import textwrap
from functools import cache
from typing import Any

import numpy as np
import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from tests.codegen import test_arrays_differential as D

CORPUS = D.CORPUS_DIR / "numpy_reductions.py"
EXPORTS = D.discover(CORPUS)


@cache
def corpus_module() -> Module:
    module = infer_module(scan_module(SourceFile.parse(CORPUS.read_text(), str(CORPUS)), "m"))
    verify_module(module)
    return module


def _interpreted(name: str) -> Any:
    module = corpus_module()
    return lambda *args: run_function(module, name, args)


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.name)
def test_interpreter_matches_numpy(export: D.Export) -> None:
    plain = getattr(D.load_plain(CORPUS), export.name)
    run = _interpreted(export.name)
    rng = np.random.default_rng(11)
    for layout in D.LAYOUTS:
        for seed in range(2):
            dims = D.random_dims(export, rng)
            D.check_case(export, plain, run, D.deterministic_case(export, dims, layout, seed))
    for dims in D.zero_dim_variants(export):
        D.check_case(export, plain, run, D.deterministic_case(export, dims, "strided"))


def test_typed_ir_prints_and_parses_back() -> None:
    text = print_module(corpus_module())
    assert "reduce argmax" in text and "cumulate cumsum" in text and "{keepdims}" in text
    assert print_module(parse_module(text)) == text


HEADER = "import numpy as np\nimport gradc\nfrom gradc import f64, f32, i64, i32, boolean\n"


def _result(param: str, expr: str) -> ops.Reduce | ops.Cumulate:
    src = HEADER + f"@gradc.export\ndef f(a: {param}):\n    return {expr}\n"
    module = infer_module(scan_module(SourceFile.parse(src, "m.py"), "m"))
    verify_module(module)
    (inst,) = [
        i for i in module.functions["f"].instructions() if isinstance(i, ops.Reduce | ops.Cumulate)
    ]
    return inst


@pytest.mark.parametrize(
    ("param", "expr", "numpy_dtype", "ndim"),
    [
        ("boolean[:]", "np.sum(a)", "int64", 0),
        ("i32[:, :]", "a.sum(axis=0)", "int64", 1),
        ("i32[:, :]", "np.prod(a, keepdims=True)", "int64", 2),
        ("f32[:, :]", "np.sum(a, axis=(0, 1))", "float32", 0),
        ("i64[:, :]", "np.mean(a, axis=1)", "float64", 1),
        ("f32[:]", "a.std()", "float32", 0),
        ("i32[:]", "a.var(ddof=1)", "float64", 0),
        ("i32[:, :]", "a.max(axis=-1)", "int32", 1),
        ("f32[:, :]", "np.argmin(a)", "int64", 0),
        ("f64[:, :]", "a.any(axis=0)", "bool", 1),
        ("boolean[:, :]", "np.cumsum(a)", "int64", 1),
        ("i32[:, :]", "np.linalg.norm(a)", "float64", 0),
        ("f32[:]", "np.linalg.norm(a, 1)", "float32", 0),
        ("i32[:]", "np.sum(a, dtype=np.float32)", "float32", 0),
        ("i32[:]", "sum(a)", "int32", 0),
        ("boolean[:]", "sum(a)", "int64", 0),
        ("f32[:]", "max(a)", "float32", 0),
    ],
)
def test_result_types_are_numpys(param: str, expr: str, numpy_dtype: str, ndim: int) -> None:
    inst = _result(param, expr)
    t = inst.type
    dtype = t.dtype if hasattr(t, "dtype") else t
    assert D.DTYPES[str(dtype) if str(dtype) != "i1" else "bool"] == getattr(np, numpy_dtype)
    assert getattr(t, "ndim", 0) == ndim


def test_axes_are_normalised() -> None:
    inst = _result("f64[:, :, :]", "np.sum(a, axis=(-1, 0), keepdims=True)")
    assert isinstance(inst, ops.Reduce) and inst.axes == (0, 2) and inst.keepdims
    cum = _result("f64[:, :]", "a.cumsum(-1)")
    assert isinstance(cum, ops.Cumulate) and cum.axis == 1


@pytest.mark.parametrize(
    ("param", "expr", "message"),
    [
        ("f64[:, :]", "np.sum(a, axis=2)", "axis 2 is out of bounds for array of dimension 2"),
        ("f64[:, :]", "a.sum(axis=(0, -2))", "duplicate value in 'axis'"),
        ("f64[:]", "np.sum(a, out=a)", "np.sum() argument 'out=' is not supported"),
        ("f64[:]", "a.max(where=a)", "a.max() argument 'where=' is not supported"),
        ("f64[:]", "np.sum(a, where=a > 0.0)", "np.sum() argument 'where=' is not supported"),
        ("f64[:]", "np.var(a, dtype=np.float32)", "np.var() argument 'dtype=' is not supported"),
        ("f64[:]", "np.sum(a, axis=len(a))", "must be a constant int"),
        ("f64[:]", "np.argmin(a, axis=(0,))", "must be a constant int or None"),
        ("f64[:]", "np.sum(a, keepdims=1.5)", "must be a constant bool"),
        ("f64[:]", "np.sum(a, dtype=np.int64)", "NumPy would cast each element unsafely"),
        ("f64[:]", "np.mean(a, dtype=np.int64)", "with dtype=i64 is not supported"),
        ("f64[:, :]", "np.linalg.norm(a, 2)", "(a matrix norm) is not supported"),
        ("f64[:]", "np.linalg.norm(a, 'fro')", "ord='fro' needs a 2-D array"),
        ("f64[:]", "np.linalg.norm(a, 3)", "argument 'ord=' must be None, 1, 2, np.inf"),
        ("f64[:, :]", "np.linalg.norm(a, 1, axis=(0, 1))", "over two axes with ord=1 (a matrix"),
        ("f64[:, :]", "np.linalg.norm(a, 'fro', axis=0)", "Invalid norm order 'fro' for vectors"),
        ("f64", "np.sum(a)", "np.sum() of a value of type f64 is not supported"),
        ("f64[:]", "np.sum()", "np.sum() missing required argument 'a'"),
        ("f64[:]", "np.sum(a, 0, None, None, False, 1, 2, 3)", "takes at most 7 positional"),
        ("f64[:]", "np.sum(a, axes=0)", "got an unexpected keyword argument 'axes'"),
        ("f64[:]", "np.sum(a, 0, axis=0)", "got multiple values for argument 'axis'"),
        ("f64[:, :]", "min(a)", "min() of a 2-D array is not supported (it iterates over"),
        ("f64", "sum(a)", "sum() of a value of type f64 is not supported"),
    ],
)
def test_unsupported_forms_are_compile_errors(param: str, expr: str, message: str) -> None:
    src = HEADER + textwrap.dedent(f"""
        @gradc.export
        def f(a: {param}):
            x = 1
            return {expr}
        """)
    with pytest.raises(CompileError) as info:
        infer_module(scan_module(SourceFile.parse(src, "m.py"), "m"))
    text = str(info.value)
    assert message in text
    assert "m.py" in text and ":8" in text  # file and line of the call
