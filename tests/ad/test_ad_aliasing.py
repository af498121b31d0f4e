"""Derivative exports and array arguments that share memory (passes/ad/aliasing.py,
issue #18 class 6).

Where a write can reach one argument through another, every flavour either computes the
derivative through the shared memory (``gradc.reverse`` with one shared shadow) or
raises ValueError before running anything. Oracles: central finite differences of the
plain Python function called with the same aliased arguments, and CPython running the
primal with them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided

from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "alias" / "kernels.py"
P = H.load_plain(KERNELS)

RNG = np.random.default_rng(18)
SHARED = r"'a' and 'b' share memory and h\(\) writes to 'a'"


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def through(plain: Callable[..., float], views: Callable[[np.ndarray], tuple[Any, ...]]):
    """``base -> plain(*views(copy of base))``: the function of the shared memory."""

    def g(base: np.ndarray) -> float:
        return plain(*views(base.copy()))

    return g


def fd_through(plain: Callable[..., float], views: Callable, base: np.ndarray) -> np.ndarray:
    """FD gradient with respect to the memory the aliased arguments are views of."""
    return H.fd_gradient(through(plain, views), [base], [0])[0]


def assert_fd(where: str, got: np.ndarray, fd: np.ndarray, value: float) -> None:
    H.assert_grad_matches_fd(where, [got], [fd], ["memory"], value)


# ----------------------------------------------------------------- the reproducer


def test_allocating_flavours_refuse_a_write_through_a_shared_argument(lib: Any) -> None:
    y = np.array([3.0])
    calls = {
        "grad": lambda: lib.d_h(y, y),
        "value_and_grad": lambda: lib.vg_h(y, y),
        "vjp": lambda: lib.v_h(y, y, 1.0),
        "jvp": lambda: lib.t_h(y, y, np.ones(1), np.ones(1)),
    }
    for kind, call in calls.items():
        with pytest.raises(ValueError, match=SHARED) as info:
            call()
        message = str(info.value)
        assert f"gradc.{kind} would differentiate them as separate arrays" in message
        assert "pass copies" in message and "gradc.reverse" in message
        assert y[0] == 3.0, f"{kind} ran before refusing"
    # separate arrays: the separate-arrays answer, checked by FD
    a, b = np.array([3.0]), np.array([3.0])
    g_a, g_b = lib.d_h(a.copy(), b.copy())
    fd_a, fd_b = H.fd_gradient(P.h, [a, b], [0, 1])
    H.assert_grad_matches_fd("d_h", [g_a, g_b], [fd_a, fd_b], ["a", "b"], 9.0)


def test_forward_refuses_a_write_through_a_shared_argument(lib: Any) -> None:
    y, t = np.array([3.0]), np.ones(1)
    with pytest.raises(ValueError, match=SHARED + ".*forward mode cannot follow writes"):
        lib.fw_h(y, t, y, t)
    assert y[0] == 3.0


def test_reverse_with_one_shared_shadow_differentiates_through_the_shared_memory(
    lib: Any,
) -> None:
    y, d = np.array([3.0]), np.zeros(1)
    (value,) = lib.r_h(y, d, y, d)
    same = (lambda v: (v, v), lambda v: (v, v, 4))
    assert value == P.h(*same[0](np.array([3.0])))  # 36, as CPython
    assert_fd("r_h", d, fd_through(P.h, same[0], np.array([3.0])), value)  # 24
    for _ in range(3):
        base = RNG.uniform(-1.0, 1.0, 4)
        y, d = base.copy(), np.zeros(4)
        (value,) = lib.r_smooth(y, d, y, d, 4)
        assert value == pytest.approx(through(P.smooth, same[1])(base), rel=1e-13)
        assert_fd("r_smooth(y, y)", d, fd_through(P.smooth, same[1], base), value)


def test_reverse_shared_shadow_through_partly_overlapping_views(lib: Any) -> None:
    # a = m[0:4] and b = m[1:5] overlap in three elements; the shadows are the same
    # views of one shadow array, so each element of m has one shadow element
    def views(m: np.ndarray) -> tuple[Any, ...]:
        return (m[0:4], m[1:5], 4)

    for _ in range(3):
        base = RNG.uniform(-1.0, 1.0, 6)
        m, dm = base.copy(), np.zeros(6)
        (value,) = lib.r_smooth(m[0:4], dm[0:4], m[1:5], dm[1:5], 4)
        assert value == pytest.approx(through(P.smooth, views)(base), rel=1e-13)
        assert_fd("r_smooth(m[0:4], m[1:5])", dm, fd_through(P.smooth, views, base), value)
    # the same through reversed views: shadows taken the same way still fit
    base = RNG.uniform(-1.0, 1.0, 6)
    m, dm = base.copy(), np.zeros(6)

    def rviews(v: np.ndarray) -> tuple[Any, ...]:
        return (v[4::-1], v[5:1:-1], 4)

    (value,) = lib.r_smooth(m[4::-1], dm[4::-1], m[5:1:-1], dm[5:1:-1], 4)
    assert_fd("r_smooth(reversed views)", dm, fd_through(P.smooth, rviews, base), value)


def test_reverse_refuses_shadows_that_do_not_share_memory_as_the_arrays_do(lib: Any) -> None:
    y = np.array([3.0])
    with pytest.raises(ValueError, match=SHARED + ".*shadows 'd_a' and 'd_b' must share"):
        lib.r_h(y, np.zeros(1), y, np.zeros(1))
    m, dm = RNG.uniform(-1.0, 1.0, 6), np.zeros(6)
    with pytest.raises(ValueError, match="shadows 'd_a' and 'd_b' must share memory"):
        lib.r_smooth(m[0:4], dm[0:4], m[1:5], dm[2:6], 4)  # shadow moved by 2, arrays by 1
    with pytest.raises(ValueError, match="shadows 'd_a' and 'd_b' must share memory"):
        lib.r_smooth(m[0:4], dm[0:4], m[0:4], dm[1:5], 4)
    assert not dm.any()


def test_reverse_refuses_a_shadow_in_argument_memory(lib: Any) -> None:
    x, c, dc = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, 4), np.zeros(4)
    with pytest.raises(ValueError, match="shadow 'd_x' shares memory with argument 'x'"):
        lib.r_dot(x, x, c, dc)
    with pytest.raises(ValueError, match="shadow 'd_x' shares memory with argument 'c'"):
        lib.r_dot(x, c[::-1], c, dc)


def test_reverse_refuses_one_shadow_for_separate_arrays(lib: Any) -> None:
    x, c, d = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, 4), np.zeros(4)
    with pytest.raises(ValueError, match="shadows 'd_x' and 'd_c' share memory but 'x' and 'c'"):
        lib.r_dot(x, d, c, d)


def test_forward_refuses_a_tangent_in_memory_the_function_writes(lib: Any) -> None:
    a, b, t = np.array([3.0]), np.array([2.0]), np.ones(1)
    message = r"tangent 'd_b' shares memory with 'a', which h\(\) writes"
    with pytest.raises(ValueError, match=message):
        lib.t_h(a, b, t, a)
    with pytest.raises(ValueError, match=message):
        lib.fw_h(a, t, b, a)
    assert a[0] == 3.0
    # a tangent in memory nobody writes is fine, even an argument's own: the direction x
    x, c = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, 4)
    value = P.dot(x, c)
    fd = H.fd_directional(P.dot, [x, c], [0, 1], [x.copy(), c.copy()])
    assert H.fd_close(lib.t_dot(x, c, x, c)[1], fd, value)


# ----------------------------------------------------------------- overlap without a write


def test_read_only_overlap_gets_each_argument_its_partial_derivative(lib: Any) -> None:
    y = RNG.uniform(-1.0, 1.0, 4)
    value = P.dot(y, y)
    fd_x, fd_c = H.fd_gradient(P.dot, [y, y.copy()], [0, 1])  # partials at (y, y)
    H.assert_grad_matches_fd("d_dot", [lib.d_dot(y, y)], [fd_x], ["x"], value)
    H.assert_grad_matches_fd("d2_dot", list(lib.d2_dot(y, y)), [fd_x, fd_c], ["x", "c"], value)
    tx, tc = RNG.uniform(-1.0, 1.0, 4), RNG.uniform(-1.0, 1.0, 4)
    fd = H.fd_directional(P.dot, [y, y.copy()], [0, 1], [tx, tc])
    assert H.fd_close(lib.t_dot(y, y, tx, tc)[1], fd, value)
    fd = H.fd_directional(P.dot, [y, y.copy()], [0], [tx])
    assert H.fd_close(lib.fw_dot(y, tx, y)[1], fd, value)
    # gradc.reverse: separate shadows get the partials, one shared shadow their sum,
    # which is the derivative through the shared memory
    dx, dc = np.zeros(4), np.zeros(4)
    lib.r_dot(y, dx, y, dc)
    H.assert_grad_matches_fd("r_dot", [dx, dc], [fd_x, fd_c], ["x", "c"], value)
    d = np.zeros(4)
    lib.r_dot(y, d, y, d)
    assert_fd("r_dot shared", d, fd_through(P.dot, lambda v: (v, v), y), value)


# ----------------------------------------------------------------- Const arrays


def test_a_written_const_array_over_an_active_one_is_refused(lib: Any) -> None:
    y = np.array([0.5, -1.5, 2.0, 0.25])
    keep = y.copy()
    message = r"'x' and 'c' share memory and poke\(\) writes to 'c'"
    for call in (
        lambda: lib.d_poke(y, y),
        lambda: lib.t_poke(y, y, np.ones(4)),
        lambda: lib.r_poke(y, np.zeros(4), y),
        lambda: lib.d_poke(y[::-1], y[1:3]),  # a reversed view over a slice
    ):
        with pytest.raises(ValueError, match=message):
            call()
    assert (y == keep).all()
    # views that do not overlap: differentiated as separate arrays
    m = y.copy()
    got = lib.d_poke(m[:2], m[2:])
    fd = fd_through(P.poke, lambda v: (v[:2], v[2:]), y)
    assert_fd("d_poke(m[:2], m[2:])", np.concatenate([got, np.zeros(2)]), fd, 0.25)


def test_const_arrays_made_active_by_a_store_are_checked(lib: Any) -> None:
    y = np.array([0.5, -1.5, 2.0, 0.25])
    message = r"'c1' and 'c2' share memory and fill\(\) writes to 'c1'"
    for call in (
        lambda: lib.d_fill(2.0, y, y),
        lambda: lib.r_fill(2.0, y, y),
        lambda: lib.fw_fill(2.0, 1.0, y, y),
    ):
        with pytest.raises(ValueError, match=message):
            call()
    # apart: the derivative of the plain function with separate arrays
    m = y.copy()
    fd = H.fd_gradient(lambda x: P.fill(x, m[:2].copy(), m[2:].copy()), [2.0], [0])[0]
    assert H.fd_close(lib.d_fill(2.0, m[:2], m[2:]), fd, 1.0)


# ----------------------------------------------------------------- views of one base


def test_views_that_do_not_overlap_are_not_refused(lib: Any) -> None:
    base = RNG.uniform(-1.0, 1.0, 6)
    m = base.copy()
    g_a, g_b = lib.d_smooth(m[:3], m[3:], 3)
    fd = fd_through(P.smooth, lambda v: (v[:3], v[3:], 3), base)
    assert_fd("d_smooth(m[:3], m[3:])", np.concatenate([g_a, g_b]), fd, 1.0)
    m = base.copy()
    value, tangent = lib.fw_smooth(m[:3], np.ones(3), m[3:], np.ones(3), 3)
    fd_dir = H.fd_directional(
        through(P.smooth, lambda v: (v[:3], v[3:], 3)), [base], [0], [np.ones(6)]
    )
    assert H.fd_close(tangent, fd_dir, value)
    # interleaved without a common element: columns of a matrix, even and odd elements
    grid = RNG.uniform(-1.0, 1.0, (4, 2))

    def columns(v: np.ndarray) -> tuple[Any, ...]:
        return (v.reshape(4, 2)[:, 0], v.reshape(4, 2)[:, 1], 4)

    y = grid.copy()
    g_a, g_b = lib.d_smooth(y[:, 0], y[:, 1], 4)
    fd = fd_through(P.smooth, columns, grid.ravel())
    assert_fd("d_smooth(columns)", np.stack([g_a, g_b], axis=1).ravel(), fd, 1.0)
    m = base.copy()
    dm = np.zeros(6)
    lib.r_smooth(m[::2], dm[::2], m[1::2], dm[1::2], 3)  # shadows interleaved the same way
    fd = fd_through(P.smooth, lambda v: (v[::2], v[1::2], 3), base)
    assert_fd("r_smooth(m[::2], m[1::2])", dm, fd, 1.0)


def test_overlapping_strided_views_are_refused(lib: Any) -> None:
    m = RNG.uniform(-1.0, 1.0, 8)
    for a, b in [
        (m[::2], m[2::2]),  # every other element, shifted by one step
        (m[1::3], m[::2]),  # different strides meeting at m[4]
        (m[7::-3], m[1::3]),  # opposite strides meeting at m[4], m[1]
        (m[::-1], m[3:5]),  # a reversed view over a slice
        (m.reshape(2, 4)[:, 1], m[5:6]),  # a column over a row's element
    ]:
        with pytest.raises(ValueError, match=SHARED):
            lib.d_h(a, b)


def _refused(call: Callable[[], Any]) -> bool:
    try:
        call()
    except ValueError as exc:
        assert "share memory" in str(exc), exc
        return True
    except IndexError:  # ran: h reads b[0] of an empty view
        pass
    return False


slices = st.tuples(st.integers(-12, 12), st.integers(-12, 12), st.integers(-4, 4).filter(bool)).map(
    lambda t: slice(*t)
)


@settings(max_examples=200, deadline=None)
@given(first=slices, second=slices)
def test_1d_views_are_refused_exactly_when_they_share_memory(
    lib: Any, first: slice, second: slice
) -> None:
    """Oracle: NumPy. One stride: ``np.shares_memory`` (exact); else the extents."""
    m = np.zeros(12)
    a, b = m[first], m[second]
    if a.strides == b.strides:
        expected = np.shares_memory(a, b)
    else:
        expected = np.may_share_memory(a, b)
    assert _refused(lambda: lib.d_h(a, b)) == expected, (first, second)


@settings(max_examples=100, deadline=None)
@given(first=st.tuples(slices, slices), second=st.tuples(slices, slices), t=st.booleans())
def test_2d_views_are_refused_when_their_extents_meet(
    lib: Any, first: tuple[slice, slice], second: tuple[slice, slice], t: bool
) -> None:
    """Oracle: ``np.may_share_memory`` (the memory bounds), which never misses a shared
    element (``np.shares_memory`` implies it)."""
    m = np.zeros((4, 5))
    a, b = m[first], (m.T if t else m)[second]
    expected = np.may_share_memory(a, b) and a.size > 0
    assert _refused(lambda: lib.d_h2(a, b)) == expected, (first, second, t)


@settings(max_examples=150, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), min_size=2, max_size=2),
    strides=st.lists(st.sampled_from([-24, -16, -8, 0, 8, 16, 24]), min_size=2, max_size=2),
)
def test_a_written_array_whose_elements_share_memory_is_refused(
    lib: Any, shape: list[int], strides: list[int]
) -> None:
    """Oracle: the element byte offsets, enumerated. A collision is always refused; a
    layout slicing could make (nested strides) never is."""
    buf = np.zeros(64)
    a = as_strided(buf[32:], shape, strides, writeable=True)
    offsets = [sum(i * s for i, s in zip(idx, strides)) for idx in np.ndindex(*shape)]
    collide = len(set(offsets)) < len(offsets)
    refused = _refused(lambda: lib.d_scale2(a))
    assert refused or not collide, (shape, strides)
    axes = sorted((abs(s), n) for s, n in zip(strides, shape) if n > 1)
    nested = all(s >= 8 + sum((m - 1) * t for t, m in axes[:k]) for k, (s, _) in enumerate(axes))
    assert refused == (0 not in shape and not nested), (shape, strides)


def test_views_numpy_makes_are_not_refused_and_shadows_must_not_fold(lib: Any) -> None:
    m = RNG.uniform(-1.0, 1.0, (4, 6))
    for view in (lambda v: v.T, lambda v: v[::-1, ::2], lambda v: v[1:3].T[::-2]):
        a = view(m.copy())
        got = lib.d_scale2(a)
        fd = H.fd_gradient(P.scale2, [view(m.copy())], [0])[0]
        H.assert_grad_matches_fd("d_scale2(view)", [got], [fd], ["a"], 1.0)
    d = np.zeros(6)
    folded = as_strided(d, (3, 2), (0, 8), writeable=True)
    with pytest.raises(ValueError, match="elements of shadow 'd_a' share memory with each other"):
        lib.r_scale2(m[:3, :2].copy(), folded)
    broadcast = as_strided(m.copy(), (3, 2), (0, 8), writeable=True)
    with pytest.raises(ValueError, match="elements of 'a' share memory with each other"):
        lib.d_scale2(broadcast)


# ----------------------------------------------------------------- vjp cotangents


def test_vjp_cotangent_in_written_memory_is_refused(lib: Any) -> None:
    x, w = RNG.uniform(-1.0, 1.0, 4), np.zeros(4)
    with pytest.raises(ValueError, match=r"the cotangent shares memory with 'w', which twice"):
        lib.v_twice(x, w, w)
    # a cotangent in memory nobody writes is fine, even an argument's
    np.testing.assert_allclose(lib.v_twice(x, w, x), lib.v_twice(x, w, x.copy()), rtol=0)
    np.testing.assert_allclose(lib.v_twice(x, w, x), 4.0 * x * x, rtol=1e-14)


# ----------------------------------------------------------------- primal exports


def test_primal_exports_keep_python_semantics_with_aliased_arguments(lib: Any) -> None:
    y, z = np.array([3.0]), np.array([3.0])
    assert lib.h(y, y) == P.h(z, z) == 36.0
    assert (y == z).all()
    base = RNG.uniform(-1.0, 1.0, 6)
    y, z = base.copy(), base.copy()
    assert lib.smooth(y[0:4], y[1:5], 4) == pytest.approx(P.smooth(z[0:4], z[1:5], 4), rel=1e-14)
    np.testing.assert_allclose(y, z, rtol=1e-14)


# ----------------------------------------------------------------- the IR and the interpreter


@pytest.fixture(scope="module")
def ir_module() -> Any:
    return H.build_ir_module(KERNELS)


def test_checks_are_emitted_only_where_a_write_can_reach_a_derivative(ir_module: Any) -> None:
    from gradc.compiler.ir import ops

    def checks(name: str) -> int:
        fn = ir_module.functions[name]
        return sum(isinstance(i, ops.ArrayAddress) for i in fn.instructions())

    assert checks("d_dot") == 0  # nothing written, no shadows or tangents to check
    assert checks("d2_dot") == 0
    assert checks("d_h") > 0 and checks("t_h") > 0 and checks("r_h") > 0
    assert checks("h") == 0  # primal exports are never checked


def test_the_interpreter_refuses_and_shares_shadows_as_compiled_code(ir_module: Any) -> None:
    lib = H.InterpLibrary(ir_module)
    y = np.array([3.0])
    with pytest.raises(ValueError, match=SHARED):
        lib.d_h(y, y)
    d = np.zeros(1)
    lib.r_h(y, d, y, d)
    assert_fd("r_h (interpreter)", d, fd_through(P.h, lambda v: (v, v), np.array([3.0])), 36.0)
    m = np.zeros(6)
    lib.d_h(m[::2], m[1::2])  # apart
    with pytest.raises(ValueError, match=SHARED):
        lib.d_h(m[::2], m[2::2])


def test_a_refused_call_allocates_nothing(lib: Any) -> None:
    import gradc

    y, t = np.array([3.0]), np.ones(1)
    before = gradc.runtime_stats()["live"]
    for _ in range(200):
        for call in (
            lambda: lib.d_h(y, y),
            lambda: lib.t_h(y, y, t, t),
            lambda: lib.r_h(y, np.zeros(1), y, np.zeros(1)),
            lambda: lib.fw_h(y, t, y, t),
        ):
            with pytest.raises(ValueError, match="share memory"):
                call()
    assert gradc.runtime_stats()["live"] == before
