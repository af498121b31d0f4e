"""Views in hand-written IR (compiler/ir/ops/views.py): the code generator's descriptor
arithmetic, the reference interpreter and NumPy agree on every drawn case.

Each IR function below makes one view of its array argument with run-time indices and
returns it; hypothesis draws the base's shape (0-length axes too), its layout (C, F, a
strided or a reversed view of a bigger buffer) and the indices (out of range, negative,
steps of both signs and 0). Compared: values, shape (the view's strides are the
descriptor's, so a wrong stride shows as wrong values), and exceptions (type and
message). The printed IR of each function parses back to the same text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradc.compiler.ir.interp import run_function
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.printer import print_module
from gradc.compiler.ir.verifier import verify_module
from gradc.compiler.options import CompilerOptions
from gradc.passes.registry import get
from tests.codegen.conftest import Toolkit, to_numpy

#: name -> (IR text, base rank, NumPy index of the scalar arguments ``v``).
CASES: dict[str, tuple[str, int, Any]] = {
    "full_1d": (
        """
func @full_1d(%a: array[f64,1,A], %lo: i64, %hi: i64, %st: i64) -> array[f64,1,A] {
^entry:
  %v = view %a, (%lo, %hi, %st), [s111] : array[f64,1,A]
  ret %v
}
""",
        1,
        lambda v: (slice(v[0], v[1], v[2]),),
    ),
    "step_only": (
        """
func @step_only(%a: array[f64,1,A], %st: i64, %x: i64, %y: i64) -> array[f64,1,A] {
^entry:
  %v = view %a, (%st), [s001] : array[f64,1,A]
  ret %v
}
""",
        1,
        lambda v: (slice(None, None, v[0]),),
    ),
    "start_step": (
        """
func @start_step(%a: array[f64,1,A], %lo: i64, %st: i64, %y: i64) -> array[f64,1,A] {
^entry:
  %v = view %a, (%lo, %st), [s101] : array[f64,1,A]
  ret %v
}
""",
        1,
        lambda v: (slice(v[0], None, v[1]),),
    ),
    "rows_cols": (
        """
func @rows_cols(%a: array[f64,2,A], %lo: i64, %hi: i64, %st: i64) -> array[f64,2,A] {
^entry:
  %v = view %a, (%lo, %hi, %st, %st), [s110, s011] : array[f64,2,A]
  ret %v
}
""",
        2,
        lambda v: (slice(v[0], v[1]), slice(None, v[2], v[2])),
    ),
    "int_then_slice": (
        """
func @int_then_slice(%a: array[f64,2,A], %i: i64, %lo: i64, %st: i64) -> array[f64,1,A] {
^entry:
  %v = view %a, (%i, %lo, %st), [int, s101] : array[f64,1,A]
  ret %v
}
""",
        2,
        lambda v: (v[0], slice(v[1], None, v[2])),
    ),
    "mixed_3d": (
        """
func @mixed_3d(%a: array[f64,3,A], %i: i64, %j: i64, %k: i64) -> array[f64,3,A] {
^entry:
  %v = view %a, (%j, %k, %i, %j, %k), [s011, int, new, s110] : array[f64,3,A]
  ret %v
}
""",
        3,
        lambda v: (slice(None, v[1], v[2]), v[0], None, slice(v[1], v[2])),
    ),
    "transpose_3d": (
        """
func @transpose_3d(%a: array[f64,3,A], %i: i64, %j: i64, %k: i64) -> array[f64,3,A] {
^entry:
  %v = transpose %a, [2, 0, 1] : array[f64,3,A]
  ret %v
}
""",
        3,
        None,
    ),
}

LAYOUTS = ("C", "F", "strided", "reversed")


def _base(shape: tuple[int, ...], layout: str) -> np.ndarray:
    values = np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)
    if layout == "F":
        return np.asfortranarray(values)
    if layout == "strided":
        big = np.full(tuple(2 * n + 1 for n in shape), np.nan)
        view = big[tuple(slice(1, None, 2) for _ in shape)]
        view[...] = values
        return view
    if layout == "reversed":
        big = np.full(tuple(n + 2 for n in shape), np.nan)
        view = big[tuple(slice(n, 0, -1) for n in shape)]
        view[...] = values
        return view
    return values


def _outcome(fn: Any) -> tuple[Any, ...]:
    try:
        return ("ok", np.asarray(fn()))
    except (IndexError, ValueError) as exc:
        return ("raise", type(exc), str(exc))


def _same(x: tuple[Any, ...], y: tuple[Any, ...]) -> bool:
    if x[0] != y[0]:
        return False
    if x[0] == "raise":
        return x == y
    return x[1].shape == y[1].shape and np.array_equal(x[1], y[1])


@pytest.fixture(scope="module")
def compiled(codegen: Toolkit) -> dict[str, Any]:
    text = "\n".join(t for t, _, _ in CASES.values())
    module = parse_module(text)
    verify_module(module)
    get("lifetimes").run(module)
    verify_module(module)
    return codegen.build(module, list(CASES), CompilerOptions())


@pytest.mark.parametrize("name", list(CASES))
def test_ir_text_round_trips(name: str) -> None:
    text = CASES[name][0].strip() + "\n"
    module = parse_module(text)
    verify_module(module)
    assert text.strip() in print_module(module)  # after the module's header line


@pytest.mark.parametrize("name", list(CASES))
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_codegen_interpreter_and_numpy_agree(
    name: str, data: st.DataObject, compiled: dict[str, Any]
) -> None:
    text, rank, index = CASES[name]
    shape = data.draw(st.tuples(*[st.integers(0, 5)] * rank), label="shape")
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    v = data.draw(st.tuples(*[st.integers(-7, 7)] * 3), label="scalars")
    a = _base(shape, layout)

    def numpy() -> Any:
        if index is None:
            return a.transpose(2, 0, 1)
        return a[index(v)]

    expected = _outcome(numpy)
    module = parse_module(text)
    interpreted = _outcome(lambda: run_function(module, name, [a, *v]))
    fn = compiled[name]

    def native() -> Any:
        desc = fn(a, *v)
        return to_numpy(desc, np.float64)

    got = _outcome(native)
    assert _same(expected, interpreted), (expected, interpreted)
    assert _same(expected, got), (expected, got)


RESHAPE = """
func @reshape2(%a: array[f64,1,C], %m: i64, %n: i64) -> array[f64,2,C] {
^entry:
  %v = reshape %a, (%m, %n), "cannot reshape array of size {0} into shape ({1},{2})" : array[f64,2,C]
  ret %v
}
"""


@pytest.mark.parametrize(
    ("size", "m", "n"),
    [
        (6, 2, 3),
        (6, -1, 3),
        (6, 4, -1),  # not a divisor
        (6, -1, -1),  # two unknown dimensions
        (0, 0, -1),  # the known sizes are 0
        (0, 2**32, 2**32),  # the product wraps to 0 in int64
        (0, 2**62, -1),  # too big for int64 bytes
        (0, 3, 0),
    ],
)
def test_reshape_sizes_and_errors(codegen: Toolkit, size: int, m: int, n: int) -> None:
    a = np.arange(float(size))
    module = parse_module(RESHAPE)
    verify_module(module)
    interpreted = _outcome(lambda: run_function(parse_module(RESHAPE), "reshape2", [a, m, n]))
    get("lifetimes").run(module)
    fn = codegen.build(module, ["reshape2"])["reshape2"]
    expected = _outcome(lambda: a.reshape(m, n))
    got = _outcome(lambda: to_numpy(fn(a, m, n), np.float64))
    if expected[0] == "raise" and "newaxis" in expected[2]:
        # run-time dimensions show as numbers (ops.Reshape): -1, where NumPy says newaxis
        expected = (*expected[:2], expected[2].replace("newaxis", "-1"))
    assert _same(expected, got), (expected, got)
    assert _same(expected, interpreted), (expected, interpreted)
