"""Derivatives of functions with error exits (issue #18, class 1).

A block that cannot reach a ``return`` (it ends in ``raise``, a failed ``assert`` or a
zero ``range`` step) has no reverse: the derivative call raises there. The reverse CFG
counts only the successors that reach a return (passes/ad/reverse_sweep.py); before the fix a
reverse block waited for an edge from the raising block that never came, and kept a phi
without incoming values (an internal compiler error).

Oracles: CPython running the same source (the value, or the exception's type and
message, and what the call leaves in its array arguments), for the primal, the ``grad``
and the ``jvp`` exports alike; where the function returns, finite differences of the plain
function and the dot-product test of reverse against forward mode (the AD corpus
harness, tests/ad/corpus/_harness.py, with the kernels' DOMAINS and KINKS).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradc
from tests.ad.corpus import _harness as H

HERE = Path(__file__).parent / "error_exits"
KERNELS = HERE / "kernels.py"
REPROS = HERE / "repros.py"
CASES = H.discover(KERNELS)

SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much],
}

#: Inputs that take each exit of each kernel (checked to do so: both outcomes must occur).
FIXED: dict[str, list[tuple[Any, ...]]] = {
    "always": [(0.5,)],
    "asserted": [(1.0, 2.0), (-1.0, 2.0)],
    "step": [(0.5, 7, 2), (0.5, 7, 0), (0.5, 7, -1), (0.3, -5, -2)],
    "in_loop": [(0.5, 1.5, 4), (1.5, 1.5, 4), (1.5, 2.0, 2)],
    "in_while": [(1.5, 1.0), (0.5, 1.0), (1.3, 0.6)],
    "nested": [(0.5, 0.5), (0.5, 1.5), (-0.5, -1.5), (-1.5, -1.5), (-0.5, 0.5)],
    "after_writes": [(0.5, np.array([1.0, 2.0, 3.0])), (3.0, np.array([1.0, 2.0, 3.0]))],
    "calls": [(0.5, 0.7), (1.5, 0.7), (0.5, 1.7)],
    "loop_arrays": [(0.5, 4), (2.0, 4), (-2.0, 5)],
}


def _ids(case: H.Case) -> str:
    return case.name


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def _run(fn: Callable[..., Any], args: list[Any]) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except Exception as exc:  # the outcome under test
        return None, exc


def _unit(a: Any) -> Any:
    return np.linspace(-1.0, 1.0, a.size).reshape(a.shape) if isinstance(a, np.ndarray) else 0.5


def check(case: H.Case, lib: Any, args: tuple[Any, ...], v: list[Any]) -> bool:
    """The primal, ``grad`` and ``jvp`` exports return or raise as CPython does, and
    leave the array arguments as it does; where it returns, the derivatives match finite
    differences and each other. Returns whether the plain function raised."""
    plain = H.plain_fn(case)
    plain_args = H.copy_args(args)
    value, error = _run(plain, plain_args)
    calls = {
        case.name: [],
        case.grad_name: [],
        case.jvp_name: H.copy_args(v),
    }
    for name, extra in calls.items():
        assert name is not None
        call_args = H.copy_args(args)
        result, exc = _run(getattr(lib, name), [*call_args, *extra])
        where = f"{name}{args!r}"
        if error is not None:
            assert exc is not None, f"{where} returned {result!r}; CPython raises {error!r}"
            assert type(exc) is type(error) and str(exc) == str(error), (
                f"{where} raised {exc!r}; CPython raises {error!r}"
            )
        else:
            assert exc is None, f"{where} raised {exc!r}; CPython returns {value!r}"
        for mine, theirs in zip(call_args, plain_args, strict=True):
            if isinstance(theirs, np.ndarray):
                np.testing.assert_array_equal(mine, theirs, err_msg=f"{where}: argument after")
    if error is not None:
        return True
    assert getattr(lib, case.name)(*H.copy_args(args)) == pytest.approx(value, rel=1e-12)
    H.check_jvp_value(case, lib, args, v)
    H.check_reverse(case, lib, args)
    H.check_forward(case, lib, args, v)
    H.check_dot_product(case, lib, args, v)
    return False


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_fixed_inputs_take_each_exit(case: H.Case, lib: Any) -> None:
    raised = [
        check(case, lib, args, [_unit(args[i]) for i in case.wrt_indices])
        for args in FIXED[case.name]
    ]
    assert any(raised), f"{case.name}: no fixed input raises"
    if case.name != "always":
        assert not all(raised), f"{case.name}: no fixed input returns"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_drawn_inputs(case: H.Case, lib: Any) -> None:
    @settings(max_examples=15, **SETTINGS)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case), label="args")
        check(case, lib, args, data.draw(H.directions(case, args), label="v"))

    run()


def _live() -> int:
    return int(gradc.runtime_stats()["live"])


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_returning_calls_release_everything(case: H.Case, lib: Any) -> None:
    for args in FIXED[case.name]:
        if _run(H.plain_fn(case), H.copy_args(args))[1] is not None:
            continue
        v = [_unit(args[i]) for i in case.wrt_indices]
        before = _live()
        for _ in range(3):
            getattr(lib, case.grad_name)(*H.copy_args(args))
            getattr(lib, case.jvp_name)(*H.copy_args(args), *v)
        assert _live() == before, f"{case.name}{args!r}: {_live() - before} arrays leaked"


def test_reproducers_of_the_issue(compile_module: Callable[[Path], Any]) -> None:
    """The two modules of issue #18 class 1, verbatim: they build, and derivatives
    match CPython (value or exception) and finite differences."""
    repro = compile_module(REPROS)
    plain = H.load_plain(REPROS)
    for x0 in (0.0, 0.75, -2.5):
        assert repro.d_f(x0, 1.0, 2.0) == 0.0 == H.fd_partial(plain.f, [x0, 1.0, 2.0], 0)
        assert repro.t_f(x0, 1.0, 2.0, 1.0) == (plain.f(x0, 1.0, 2.0), 0.0)
    # ``if x0: raise``: only x0 == 0.0 returns; FD there steps into the raise, and the
    # derivative of the identity is 1 (forward and reverse must agree on it)
    assert repro.d_g(0.0) == 1.0
    assert repro.t_g(0.0, 1.0) == (0.0, 1.0)
    for x0 in (0.5, -1e-300):
        with pytest.raises(ValueError):
            plain.g(x0)
        for export, extra in ((repro.d_g, ()), (repro.t_g, (1.0,)), (repro.g, ())):
            with pytest.raises(ValueError) as info:
                export(x0, *extra)
            assert type(info.value) is ValueError and str(info.value) == ""


def test_other_reverse_flavours_raise_or_agree_with_grad(lib: Any) -> None:
    """``value_and_grad``, ``vjp`` and ``gradc.reverse`` share the reverse functions:
    they raise what CPython raises, or return what ``grad`` returns."""
    plain = H.load_plain(KERNELS)

    def reverse_after_writes(x: float, a: np.ndarray) -> tuple[float, list[float]]:
        d_a = np.zeros(3)
        _, d_x = lib.r_after_writes(x, a, d_a)
        return d_x, list(d_a)

    flavours: dict[str, Callable[..., Any]] = {
        "nested": lambda x, y: lib.vg_nested(x, y)[1],
        "calls": lambda x, y: lib.v_calls(x, y, 1.0),
        "after_writes": reverse_after_writes,
    }
    for name, flavour in flavours.items():
        for args in FIXED[name]:
            _, error = _run(getattr(plain, name), H.copy_args(args))
            result, exc = _run(flavour, H.copy_args(args))
            if error is not None:
                assert type(exc) is type(error) and str(exc) == str(error), (name, args, exc)
                continue
            assert exc is None, (name, args, exc)
            grad = getattr(lib, f"d_{name}")(*H.copy_args(args))
            if name == "after_writes":
                grad = (grad[0], list(grad[1]))
            assert tuple(result) == tuple(grad), (name, args, result, grad)


@pytest.mark.parametrize("name", ["after_writes", "loop_arrays"])
def test_raising_calls_release_everything(name: str, lib: Any) -> None:
    case = next(c for c in CASES if c.name == name)
    raising = [a for a in FIXED[name] if _run(H.plain_fn(case), H.copy_args(a))[1] is not None]
    before = _live()
    for args in raising:
        for _ in range(3):
            _run(getattr(lib, case.grad_name), H.copy_args(args))
    assert _live() == before, f"{name}: {_live() - before} arrays leaked"
