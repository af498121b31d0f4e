"""NEP 50's promotion (compiler/ir/promotion.py, compiler/infer/weak.py) against NumPy 2
running the same source: the type gradc infers for each operator, comparison and NumPy
function of NumPy scalars (``np.float32``, ``a[i]``, ``np.float64(s)``), Python scalars
(literals, an export's ``f64``/``i64``/``bool`` parameters) and arrays is the dtype of
NumPy's result; then the values of the float32 cases compiled (tests/codegen) and the
cases gradc refuses.
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
from gradc.compiler.ir.types import ArrayType, Type

PARAMS = "x: f32, s: f64, n: i64, t: bool, a: f32[:], d: f64[:], k: i64[:], m: bool[:]"

#: Arguments as NumPy sees them: ``f32`` parameters are NumPy scalars, ``f64``/``i64``/
#: ``bool`` ones Python's (gradc's calling convention).
ARGS = (
    np.float32(1.7),
    0.1,
    3,
    True,
    np.array([0.5, 2.5], np.float32),
    np.array([0.25, 1.5]),
    np.array([1, 2]),
    np.array([True, False]),
)

EXPRESSIONS = [
    # NumPy float32 scalars with Python and NumPy scalars
    "x + 1.0", "x * s", "x + n", "x - 3", "x / 2", "x + t", "x + np.float64(s)",
    "x * d[0]", "a[0] * s", "a[0] + n", "np.float32(s) + 0.1", "2.0 * x - s",
    "x ** 2", "x // 0.3", "x % s", "-x + s", "abs(x) * s", "x + np.sqrt(s)",
    "(x + s) * np.float64(2.0)", "x < 0.1", "x == s", "np.float32(0.1) == 0.1",
    "np.minimum(x, 0.1)", "np.maximum(x, np.float64(s))", "np.copysign(x, s)",
    "np.exp(x)", "np.sin(a[1])", "np.arctan2(x, s)", "np.log(x) + 1.0",
    # int32 (NumPy) scalars
    "np.int32(n) + np.int32(2)", "np.int32(n) * 1.5", "np.int32(n) + x",
    # arrays with Python and NumPy scalars
    "a * s", "a + n", "a * 2.0", "a + np.float64(s)", "a + d[0]", "a * x", "a + t",
    "k + s", "k * 1.5", "k + n", "k + x", "k + np.float32(s)", "m + 1", "m + n", "m * s",
    "m & t", "d * x", "a + d", "a < s", "np.minimum(a, s)", "np.exp(a)", "np.log(a) * s",
    "np.where(m, a, s)", "np.where(m, a, 2)", "a ** 2", "a ** s",
    # np.where of a mask and Python scalars alone (an internal error: array fuzz 820530)
    "np.where(m, 1, 2.0)", "np.where(m, n, s)", "np.where(m, t, n)", "np.where(m, True, False)",
]  # fmt: skip


def _source(exprs: list[str]) -> str:
    body = "".join(
        textwrap.dedent(f"""

        @gradc.export
        def e{i}({PARAMS}) -> ANN{i}:
            return {e}
        """)
        for i, e in enumerate(exprs)
    )
    return "import gradc\nimport numpy as np\nfrom gradc import f32, f64, i64\n" + body


def _annotation(value: Any) -> str:
    name = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool"}
    dtype = np.asarray(value).dtype
    text = name[dtype.name]
    return f"{text}[:]" if np.ndim(value) else text


@cache
def numpy_results() -> list[Any]:
    module: dict[str, Any] = {}
    # the same source, run by CPython and NumPy (annotations not evaluated)
    exec("from __future__ import annotations\n" + _source(EXPRESSIONS), module)
    with np.errstate(all="ignore"):
        return [module[f"e{i}"](*ARGS) for i in range(len(EXPRESSIONS))]


@cache
def typed() -> Module:
    source = _source(EXPRESSIONS)
    for i, value in enumerate(numpy_results()):
        # a scalar returned as f64: any other type shows as the return's conversion
        ann = _annotation(value) if np.ndim(value) else "f64"
        source = source.replace(f"-> ANN{i}:", f"-> {ann}:")
    return infer_module(scan_module(SourceFile.parse(source, "nep50.py"), "m"))


def _returned_type(module: Module, name: str) -> Type:
    """The type of the returned value before the return's conversion to ``f64``."""
    fn = module.functions[name]
    ret = next(i for i in fn.instructions() if isinstance(i, ops.Return))
    (value,) = ret.operands()
    if isinstance(value, ops.Cast) and not value.numpy and value.value.type != value.type:
        return value.value.type
    return value.type


@pytest.mark.parametrize("k", range(len(EXPRESSIONS)), ids=EXPRESSIONS)
def test_result_type_is_numpys(k: int) -> None:
    expected = numpy_results()[k]
    t = _returned_type(typed(), f"e{k}")
    dtype = t.dtype if isinstance(t, ArrayType) else t
    assert _annotation(np.asarray(expected).dtype.type(0)) == str(dtype).replace("i1", "bool"), (
        f"{EXPRESSIONS[k]}: NumPy {np.asarray(expected).dtype}, gradc {t}"
    )
    assert isinstance(t, ArrayType) == bool(np.ndim(expected))


def test_scalar_of_either_origin_takes_the_join() -> None:
    # NumPy's s is a float32 after the first addition (0.0 + np.float32 is float32), which
    # one static type cannot follow: the join, float64, as before and as Numba's
    source = textwrap.dedent("""
        import gradc
        from gradc import f32, f64


        @gradc.export
        def f(x: f32[:]) -> f64:
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i]
            return s
    """)
    module = infer_module(scan_module(SourceFile.parse(source, "either.py"), "m"))
    assert str(_returned_type(module, "f")) == "f64"


@pytest.mark.parametrize(
    ("params", "expr", "message"),
    [
        # a select of a Python float and a NumPy float64 with a float32 array
        ("a: f32[:], s: f64, d: f64[:]", "((s if s > 0 else d[0]) * a)[0]", "depends on whether"),
        # a helper's parameter may be either
        ("a: f32[:], s: f64", "helper(s, a)[0]", "depends on whether"),
    ],
)
def test_undecidable_origin_is_a_compile_error(params: str, expr: str, message: str) -> None:
    source = textwrap.dedent(f"""
        import gradc
        import numpy as np
        from gradc import f32, f64


        def helper(u: float, x: Any) -> Any:
            return u * x


        @gradc.export
        def f({params}) -> f64:
            return {expr}
    """).replace("u: float, x: Any) -> Any", "u, x)")
    with pytest.raises(CompileError, match=message):
        infer_module(scan_module(SourceFile.parse(source, "amb.py"), "m"))


def test_python_int_out_of_int32_range_is_a_compile_error() -> None:
    source = textwrap.dedent("""
        import gradc
        import numpy as np
        from gradc import i64


        @gradc.export
        def f(n: i64) -> i64:
            return np.int32(n) + 3000000000
    """)
    with pytest.raises(CompileError, match="Python integer 3000000000 out of bounds for int32"):
        infer_module(scan_module(SourceFile.parse(source, "big.py"), "m"))


def test_python_scalars_carried_by_loops_stay_python_scalars() -> None:
    # t is a Python int on every path (0, then t + i): x * t is float32, as NumPy's
    source = textwrap.dedent("""
        import gradc
        from gradc import f32, i64


        @gradc.export
        def f(x: f32[:], n: i64) -> f32[:]:
            t = 0
            for i in range(n):
                t += i
            return x * t + float(n)
    """)
    module = infer_module(scan_module(SourceFile.parse(source, "loop.py"), "m"))
    assert str(_returned_type(module, "f")) == "array[f32,1,C]"
