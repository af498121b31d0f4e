"""Derivatives of Fortran-ordered and fixed-layout array parameters in every flavour, of
array parameters outside ``wrt`` that active values are written into, and the issue #18
reproducers of classes 2 and 5 as filed (tests/ad/layouts/kernels.py). Oracles: central
finite differences of the plain Python functions (tests/ad/corpus/_harness.py) and
forward mode against reverse mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "layouts" / "kernels.py"
PLAIN = H.load_plain(KERNELS)

floats = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False)


def fortran(shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    n = int(np.prod(shape))
    return st.lists(floats, min_size=n, max_size=n).map(
        lambda xs: np.asfortranarray(np.array(xs).reshape(shape))
    )


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def close(a: Any, b: Any) -> bool:
    return bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def test_issue_forward_of_a_written_fortran_parameter(lib: Any) -> None:
    """Class 2 as filed: was `cast from array[f64,2,C] to array[f64,2,F]` at compile time."""
    b = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    tb = np.asfortranarray(np.ones((2, 3)))
    after = b.copy(order="F")
    PLAIN.f(True, after, 0.5, 3)
    value, tangent = lib.t_f(True, b, 0.5, 3, tb)
    fd = H.fd_directional(PLAIN.f, [True, b.copy(order="F"), 0.5, 3], [1], [tb])
    assert value == 1.0 and tangent == fd == 0.0
    assert np.array_equal(b, after) and b.flags.f_contiguous
    assert np.array_equal(tb, np.ones((2, 3))), "the tangent was written"


@settings(max_examples=15, deadline=None)
@given(x=floats, b=fortran((2, 2)), dx=floats, db=fortran((2, 2)))
def test_fortran_parameter_in_every_flavour(
    lib: Any, x: float, b: np.ndarray, dx: float, db: np.ndarray
) -> None:
    args = [x, b]
    value = PLAIN.fw(*H.copy_args(args))
    fd = H.fd_gradient(PLAIN.fw, args, [0, 1])
    H.assert_grad_matches_fd("d_fw", list(lib.d_fw(*H.copy_args(args))), fd, "xb", value)
    v, grad = lib.vg_fw(*H.copy_args(args))
    assert close(v, value)
    H.assert_grad_matches_fd("vg_fw", list(grad), fd, "xb", value)
    H.assert_grad_matches_fd(
        "v_fw", [g / 2.0 for g in lib.v_fw(*H.copy_args(args), 2.0)], fd, "xb", value
    )
    # gradc.reverse accumulates into an F-ordered shadow
    shadow = np.asfortranarray(np.zeros((2, 2)))
    v, adj_x = lib.r_fw(x, b.copy(order="F"), shadow)
    assert close(v, value) and shadow.flags.f_contiguous
    H.assert_grad_matches_fd("r_fw", [adj_x, shadow], fd, "xb", value)
    # forward mode: FD along (dx, db), and the dot product with the gradient
    along = H.fd_directional(PLAIN.fw, args, [0, 1], [dx, db])
    for name, (v, t) in {
        "t_fw": lib.t_fw(*H.copy_args(args), dx, db.copy(order="F")),
        "fw_fw": lib.fw_fw(x, dx, b.copy(order="F"), db.copy(order="F")),
    }.items():
        assert close(v, value), name
        assert H.fd_close(t, along, value), f"{name}: {t!r}, FD {along!r}"
        assert H.dot_close(list(lib.d_fw(*H.copy_args(args))), [dx, db], t, value), name
    # b outside wrt: its scratch tangent/shadow still carries x through b[1, 0]
    for name, got in {
        "d_fw_x": lib.d_fw_x(*H.copy_args(args)),
        "t_fw_x": lib.t_fw_x(*H.copy_args(args), 1.0)[1],
        "r_fw_x": lib.r_fw_x(*H.copy_args(args))[1],
        "fw_fw_x": lib.fw_fw_x(x, 1.0, b.copy(order="F"))[1],
    }.items():
        assert H.fd_close(got, fd[0], value), f"{name}: {got!r}, FD {fd[0]!r}"


@settings(max_examples=15, deadline=None)
@given(x=floats, a=st.lists(floats, min_size=2, max_size=2), c=fortran((2, 2)))
def test_parameters_outside_wrt_written_with_active_values(
    lib: Any, x: float, a: list[float], c: np.ndarray
) -> None:
    """Was a silent zero in forward mode: the tangent of a[0] = x was stored nowhere."""
    args = [x, np.array(a), np.ascontiguousarray(c)]
    value = PLAIN.store_param(*H.copy_args(args))
    (fd,) = H.fd_gradient(PLAIN.store_param, args, [0])
    for name, got in {
        "d_store_param": lib.d_store_param(*H.copy_args(args)),
        "t_store_param": lib.t_store_param(*H.copy_args(args), 1.0)[1],
        "r_store_param": lib.r_store_param(*H.copy_args(args))[1],
        "fw_store_param": lib.fw_store_param(x, 1.0, *H.copy_args(args[1:]))[1],
    }.items():
        assert H.fd_close(got, fd, value), f"{name}: {got!r}, FD {fd!r}"


def _fd_array(fn: Callable[..., np.ndarray], args: list[Any], wrt: list[int], v: list[Any]) -> Any:
    """Central difference of an array-valued ``fn`` along ``v``."""
    h = 1e-6

    def at(t: float) -> np.ndarray:
        moved = H.copy_args(args)
        for i, d in zip(wrt, v):
            moved[i] = moved[i] + t * d
        return np.array(fn(*moved))

    return (at(h) - at(-h)) / (2 * h)


@settings(max_examples=10, deadline=None)
@given(b=fortran((2, 3)), x=floats, db=fortran((2, 3)), dx=floats, ct=fortran((2, 3)))
def test_array_results_of_fortran_parameters(
    lib: Any, b: np.ndarray, x: float, db: np.ndarray, dx: float, ct: np.ndarray
) -> None:
    args = [b, x]
    for name in ("ret_param", "ret_new"):
        plain = getattr(PLAIN, name)
        value, tangent = getattr(lib, f"t_{name}")(*H.copy_args(args), db.copy(order="F"), dx)
        assert close(value, plain(*H.copy_args(args)))
        assert np.allclose(tangent, _fd_array(plain, args, [0, 1], [db, dx]), rtol=1e-6, atol=1e-7)
    # vjp against the jvp (dot-product test) of the same function
    g_b, g_x = lib.v_ret_new(*H.copy_args(args), ct)
    _, tangent = lib.t_ret_new(*H.copy_args(args), db.copy(order="F"), dx)
    lhs = float(np.sum(g_b * db)) + g_x * dx
    assert lhs == pytest.approx(float(np.sum(ct * tangent)), rel=1e-12, abs=1e-12)


def test_issue_return_in_one_branch_value_in_the_other(lib: Any) -> None:
    """Class 5 as filed: the jvp gave 0.0 at c=False (d/dy = 3)."""
    for y in (0.7, -1.3):
        for c in (False, True):
            fd = H.fd_directional(PLAIN.early, [y, c], [0], [1.0])
            value, tangent = lib.t_early(y, c, 1.0)
            assert value == PLAIN.early(y, c)
            assert H.fd_close(tangent, fd, value) and H.fd_close(lib.d_early(y, c), fd, value)
    assert lib.t_early(0.7, False, 1.0)[1] == 3.0


def test_issue_for_else_with_zero_trips(lib: Any) -> None:
    """Class 5 as filed: ``lib.t_f(-0.042, b, -0.232, tb)[1]`` was 0.0, not -0.232."""
    b, tb = np.array([0.3, -1.2, 2.0]), np.array([0.5, 0.25, -1.0])
    args = [-0.042, b]
    value, tangent = lib.t_for_else(*H.copy_args(args), -0.232, tb)
    fd = H.fd_directional(PLAIN.for_else, args, [0, 1], [-0.232, tb])
    assert value == PLAIN.for_else(*H.copy_args(args))
    assert H.fd_close(tangent, fd, value) and tangent == pytest.approx(-0.232)
    g_x, g_b = lib.d_for_else(*H.copy_args(args))
    assert H.dot_close([g_x, g_b], [-0.232, tb], tangent, value)


def test_issue_np_full_fill_value(lib: Any) -> None:
    """Class 5 as filed: the fill value of np.full had no derivative (0 where d/dy1 = 1)."""
    a = np.array([0.1, 0.2])
    args = [a, 1.7]
    fd = H.fd_gradient(PLAIN.g, args, [0, 1])
    H.assert_grad_matches_fd("d_g", list(lib.d_g(*H.copy_args(args))), fd, ("a0", "y1"), 1.7)
    value, tangent = lib.t_g(*H.copy_args(args), np.ones(2), 1.0)
    assert value == 1.7 and tangent == 1.0


def test_float32_casts_carry_derivatives(lib: Any) -> None:
    """f64 -> f32 stores, np.full with dtype float32, f32 loads: forward and reverse agree
    to float32 precision, and with a coarse central difference of the plain function."""
    x, y = 0.7, 1.3
    grad = lib.d_through_f32(x, y)
    for k, direction in enumerate(((1.0, 0.0), (0.0, 1.0))):
        _, tangent = lib.t_through_f32(x, y, *direction)
        h = 1e-3
        fd = (
            PLAIN.through_f32(x + h * direction[0], y + h * direction[1])
            - PLAIN.through_f32(x - h * direction[0], y - h * direction[1])
        ) / (2 * h)
        assert tangent == pytest.approx(grad[k], rel=1e-6)
        assert tangent == pytest.approx(fd, rel=1e-4)


ALIAS_CASES = [
    ("alias_ret", (0.7, 2)),
    ("alias_ret", (-1.1, 0)),
    ("tuple_to_helper", (0.7, 2)),
    ("tuple_phi", (0.7, True)),
    ("tuple_phi", (-0.4, False)),
    ("array_in_tuple", (1.3, 4)),
]


@pytest.mark.parametrize(("name", "args"), ALIAS_CASES)
def test_forward_through_tuples_and_returned_arguments(
    lib: Any, name: str, args: tuple[Any, ...]
) -> None:
    """A store through one name of an array, read through another (a tuple element, a
    helper's result that is its argument): forward mode gave a zero tangent."""
    plain = getattr(PLAIN, name)
    value, tangent = getattr(lib, f"t_{name}")(*args, 1.0)
    fd = H.fd_directional(plain, list(args), [0], [1.0])
    assert value == pytest.approx(plain(*args), rel=1e-14)
    assert H.fd_close(tangent, fd, value) and fd != 0.0, (tangent, fd)


@pytest.mark.parametrize(
    ("name", "construct"),
    [
        ("alias_ret", "a returned array that may be a parameter"),
        ("tuple_to_helper", "'extract' producing an array"),
        ("tuple_phi", "'extract' producing an array"),
    ],
)
def test_reverse_refuses_arrays_through_tuples_and_returned_arguments(
    tmp_path: Path, name: str, construct: str
) -> None:
    """Reverse mode has no shadow for these yet: a compile-time error naming the
    construct, never a wrong gradient."""
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    source = KERNELS.read_text() + f"\n\nd_{name} = gradc.grad({name}, wrt='x')\n"
    path = tmp_path / "refused.py"
    path.write_text(source)
    with pytest.raises(CompileError, match=f"cannot differentiate {construct}"):
        build_module(path, CompilerOptions())


@pytest.mark.parametrize("x", [1.3, -0.7])
def test_reverse_through_an_array_taken_from_a_tuple_just_built(lib: Any, x: float) -> None:
    """``c = (b, n)[0]`` is ``b`` itself (the builder folds an extract of a tuple just
    built), so reverse mode follows the store through ``c`` into ``b``: the gradient
    equals central differences and the jvp (it was refused before the fold)."""
    fd = H.fd_directional(PLAIN.array_in_tuple, [x, 4], [0], [1.0])
    grad = lib.d_array_in_tuple(x, 4)
    _value, tangent = lib.t_array_in_tuple(x, 4, 1.0)
    assert H.fd_close(grad, fd, PLAIN.array_in_tuple(x, 4)) and fd != 0.0, (grad, fd)
    assert grad == pytest.approx(tangent, rel=1e-14)


SELECT_IR = """
func @sel(%x: f64, %y: f64) -> f64 export {
^entry:
  %c = cmp gt %x, %y : i1
  %p = mul %x, %x : f64
  %q = mul %y, %x : f64
  %r = select %c, %p, %q : f64
  %s = select %c, %y, %r : f64
  %t = add %r, %s : f64
  ret %t
}
"""


def _plain_sel(x: float, y: float) -> float:
    r = x * x if x > y else y * x
    return r + (y if x > y else r)


@pytest.mark.parametrize(("x", "y"), [(0.7, -0.3), (-0.6, 1.1)])
def test_select_of_active_values(x: float, y: float) -> None:
    """``select`` (no front-end construct makes a float one yet): both modes, run by the
    reference interpreter, against FD and each other."""
    from gradc.compiler.ir.interp import run_function
    from gradc.compiler.ir.loc import UNKNOWN_LOC
    from gradc.compiler.ir.parser import parse_module
    from gradc.compiler.ir.verifier import verify_module
    from gradc.passes.ad.api import add_derivative_export
    from gradc.passes.registry import DEFAULT_PIPELINE
    from gradc.passes.registry import get as get_pass

    module = parse_module(SELECT_IR)
    add_derivative_export(module, "t_sel", "jvp", "sel", [0, 1], True, UNKNOWN_LOC)
    add_derivative_export(module, "d_sel", "grad", "sel", [0, 1], True, UNKNOWN_LOC)
    verify_module(module)
    for name in DEFAULT_PIPELINE:
        module = get_pass(name).run(module)
        verify_module(module)
    fd = H.fd_gradient(_plain_sel, [x, y], [0, 1])
    value = _plain_sel(x, y)
    grad = run_function(module, "d_sel", [x, y])
    H.assert_grad_matches_fd("d_sel", list(grad), fd, "xy", value)
    for v in ([1.0, 0.0], [0.0, 1.0], [0.3, -0.7]):
        got_value, tangent = run_function(module, "t_sel", [x, y, *v])
        assert got_value == value
        assert H.dot_close(list(grad), v, tangent, value)


DERIVATIVE_CODE_IR = """
func @acc(%a: array[f64,1,A], %b: array[f64,1,A]) -> f64 export {
^entry:
  arrayacc %b, %a
  %0 = const 0 : i64
  %p = elemaddr %b, (%0) : ptr[f64]
  %r = load %p : f64
  ret %r
}

func @pop(%x: f64) -> f64 export {
^entry:
  %t = tapenew : tape
  tapepush %t, %x
  %y = tapepop %t : f64
  tapefree %t
  ret %y
}
"""


def test_derivative_code_operations_reverse_mode_refuses() -> None:
    """An active value reaching a shadow accumulation in reverse mode: a clear error,
    where it used to be skipped (a zero derivative: d acc/d a[0] is 1)."""
    from gradc.compiler.ir.errors import PassError
    from gradc.compiler.ir.loc import UNKNOWN_LOC
    from gradc.compiler.ir.parser import parse_module
    from gradc.passes.ad.api import add_derivative_export

    module = parse_module(DERIVATIVE_CODE_IR)
    with pytest.raises(PassError, match="cannot differentiate 'arrayacc' \\(derivative code\\)"):
        add_derivative_export(module, "d_acc", "grad", "acc", [0], False, UNKNOWN_LOC)


@pytest.mark.parametrize(("target", "kind"), [("acc", "jvp"), ("pop", "jvp"), ("pop", "grad")])
def test_derivative_code_operations_are_differentiated_in_forward_mode(
    target: str, kind: str
) -> None:
    """Forward mode differentiates a tape (the tangent tape) and a shadow accumulation
    (forward-over-reverse, passes/ad/rules/derivative_code.py); a gradient of a function
    that makes a tape is assembled from forward-mode columns (passes/ad/columns.py). They
    used to be skipped (a zero derivative: d acc/d a[0] and d pop/d x are 1)."""
    from gradc.compiler.ir.interp import run_function
    from gradc.compiler.ir.loc import UNKNOWN_LOC
    from gradc.compiler.ir.parser import parse_module
    from gradc.passes.ad.api import add_derivative_export

    module = parse_module(DERIVATIVE_CODE_IR)
    add_derivative_export(module, f"d_{target}", kind, target, [0], False, UNKNOWN_LOC)
    if target == "pop":
        args: list[Any] = [2.5] if kind == "grad" else [2.5, 1.0]
        expected: Any = 1.0 if kind == "grad" else (2.5, 1.0)
    else:
        args = [np.array([2.0, 3.0]), np.array([0.5, 0.25]), np.array([1.0, 0.0])]
        expected = (2.5, 1.0)
    assert run_function(module, f"d_{target}", args) == expected
