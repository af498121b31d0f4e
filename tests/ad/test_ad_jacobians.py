"""``gradc.jacfwd`` / ``gradc.jacrev`` (passes/ad/jacobians.py) of array-valued
functions (tests/ad/api/jacobians.py): against central finite differences of the
compiled primal and against each other, JAX's layout (``shape(out) + shape(p)``), the
Jacobian of a scalar function against ``gradc.grad``; inputs drawn by hypothesis in
C, Fortran, reversed and strided layouts."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

KERNELS = Path(__file__).parent / "api" / "jacobians.py"
NESTED = Path(__file__).parent / "api" / "jacobians_nested.py"
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}
floats = st.floats(-1.5, 1.5, allow_nan=False, allow_subnormal=False)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@st.composite
def arrays(draw: st.DrawFn, shape: tuple[int, ...]) -> np.ndarray:
    """A float array of ``shape`` in a drawn layout: C, Fortran, reversed or strided."""
    data = np.array(
        draw(st.lists(floats, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    )
    a = data.reshape(shape)
    layout = draw(st.sampled_from(["C", "F", "reversed", "strided"]))
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "reversed":
        r = np.ascontiguousarray(a[(slice(None, None, -1),) * a.ndim])
        return r[(slice(None, None, -1),) * a.ndim]
    if layout == "strided":
        big = np.zeros(tuple(2 * s for s in shape))
        view = big[(slice(None, None, 2),) * a.ndim]
        view[...] = a
        return view
    return a


def fd_jacobian(f: Callable[..., Any], args: list[Any], j: int) -> list[np.ndarray]:
    """Central differences of ``f``'s outputs (a list) by parameter ``j``: per output,
    an array of shape ``shape(out) + shape(p_j)``."""

    def outputs(a: list[Any]) -> list[np.ndarray]:
        r = f(*a)
        return [np.asarray(o, dtype=float) for o in (r if isinstance(r, tuple) else (r,))]

    p = np.asarray(args[j], dtype=float)
    base = outputs(args)
    blocks = [np.zeros(o.shape + p.shape) for o in base]
    for k in np.ndindex(p.shape):
        h = 1e-6 * max(1.0, abs(float(p[k])))
        cols = []
        for sign in (1.0, -1.0):
            q = p.copy()
            q[k] += sign * h
            a = list(args)
            a[j] = q if p.ndim else float(q)
            cols.append(outputs(a))
        for i, blk in enumerate(blocks):
            blk[(..., *k)] = (cols[0][i] - cols[1][i]) / (2 * h)
    return blocks


def leaves(x: Any) -> list[Any]:
    """The blocks of a nested result, in order."""
    return [y for e in x for y in leaves(e)] if isinstance(x, tuple) else [x]


def check(lib: Any, name: str, args: list[Any], wrt: list[int]) -> None:
    """``jf_<name>`` and ``jr_<name>`` (where declared, ``wrt`` a tuple) equal central
    differences of ``name`` block by block, and each other to rounding."""
    f = getattr(lib, name)
    kinds = [k for k in ("jf", "jr") if hasattr(lib, f"{k}_{name}")]
    got = {k: getattr(lib, f"{k}_{name}")(*args) for k in kinds}
    outs = len(f(*args)) if isinstance(f(*args), tuple) else 1
    fd = [fd_jacobian(f, args, j) for j in wrt]
    expected = [fd[j][i] for i in range(outs) for j in range(len(wrt))]
    for kind, result in got.items():
        blocks = leaves(result)
        assert len(blocks) == len(expected)
        for block, want in zip(blocks, expected, strict=True):
            assert np.shape(block) == want.shape, (kind, name)
            if np.ndim(block):
                assert block.flags.c_contiguous
            else:
                assert type(block) is float
            scale = max(1.0, float(np.abs(want).max(initial=0.0)))
            np.testing.assert_allclose(
                block, want, rtol=1e-6, atol=1e-7 * scale, err_msg=f"{kind}_{name}"
            )
    if len(got) == 2:
        for a, b in zip(leaves(got["jf"]), leaves(got["jr"]), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=name)


@settings(max_examples=8, **SETTINGS)
@given(n=st.integers(1, 4), m=st.integers(1, 3), data=st.data())
def test_jacobians_equal_finite_differences_and_each_other(
    lib: Any, n: int, m: int, data: st.DataObject
) -> None:
    x, y = data.draw(arrays((n,))), data.draw(arrays((m,)))
    a = data.draw(arrays((m, n)))
    c = data.draw(floats)
    check(lib, "elementwise", [x, c], [0, 1])
    check(lib, "rowsums", [a], [0])
    check(lib, "matvec", [a, x], [0, 1])
    check(lib, "slices", [x], [0])
    check(lib, "recurrence", [x, c, data.draw(st.integers(0, 3))], [0, 1])
    check(lib, "outer", [x, y], [0, 1])
    check(lib, "pair", [x, c], [0, 1])
    check(lib, "scalar_fn", [x, c], [0, 1])


def test_jacobian_of_a_scalar_function_is_the_gradient(lib: Any) -> None:
    x, c = np.array([0.5, -1.0, 0.25]), 0.7
    gx, gc = lib.g_scalar(x, c)
    for kind in ("jf", "jr"):
        jx, jc = getattr(lib, f"{kind}_scalar")(x, c)
        np.testing.assert_allclose(jx, gx, rtol=1e-14)
        assert jc == pytest.approx(gc, rel=1e-14)
    assert lib.jf_ss(0.3) == lib.jr_ss(0.3) == pytest.approx(np.cos(0.3) * 0.3 + np.sin(0.3))


@settings(max_examples=5, **SETTINGS)
@given(n=st.integers(1, 5), data=st.data())
def test_width_lanes_equal_separate_jvps_and_columns(lib: Any, n: int, data: st.DataObject) -> None:
    """``gradc.jvp(width=4)`` lanes equal 4 width-1 JVPs and ``jacfwd(width=3)`` the
    width-1 Jacobian, bit for bit (3 need not divide the columns)."""
    x, c, steps = data.draw(arrays((n,))), data.draw(floats), data.draw(st.integers(0, 3))
    dx, dc = data.draw(arrays((4, n))), data.draw(arrays((4,)))
    value, t4 = lib.t4_recurrence(x, c, steps, dx, dc)
    assert t4.shape == (4, n)
    for lane in range(4):
        v1, t1 = lib.t_recurrence(x, c, steps, dx[lane], dc[lane])
        np.testing.assert_array_equal(v1, value)
        np.testing.assert_array_equal(t1, t4[lane])
    wide, narrow = lib.jf3_recurrence(x, c, steps), lib.jf_recurrence(x, c, steps)
    for got, want in zip(leaves(wide), leaves(narrow), strict=True):
        np.testing.assert_array_equal(got, want)


def test_zero_length_parameters_and_results(lib: Any) -> None:
    empty = np.zeros(0)
    jx, jc = lib.jf_elementwise(empty, 2.0)
    assert jx.shape == (0, 0) and jc.shape == (0,)
    jx, jc = lib.jr_elementwise(empty, 2.0)
    assert jx.shape == (0, 0) and jc.shape == (0,)
    assert lib.jf_slices(np.ones(1)).shape == (0, 1) == lib.jr_slices(np.ones(1)).shape


@pytest.fixture(scope="module")
def nested(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(NESTED)


@pytest.mark.slow
@settings(max_examples=5, **SETTINGS)
@given(n=st.integers(1, 4), data=st.data())
def test_jacobians_of_jacobians_are_hessians(nested: Any, n: int, data: st.DataObject) -> None:
    """jacfwd(jacrev(f)), jacrev(jacfwd(f)) and jacrev(jacrev(f)) (by columns) equal
    ``gradc.hessian``; the derivative of an array function's Jacobian equals central
    differences of that Jacobian (shape ``out + in + in``)."""
    x, c = data.draw(arrays((n,))), data.draw(floats)
    h = nested.h_scalar(x, c)
    for name in ("jfjr_scalar", "jrjf_scalar", "jrjr_scalar"):
        np.testing.assert_allclose(getattr(nested, name)(x, c), h, rtol=1e-12, atol=1e-13)
    a = data.draw(arrays((2, n)))
    (want,) = fd_jacobian(nested.jr_matvec_x, [a, x], 1)
    got = nested.jfjr_matvec(a, x)
    assert got.shape == (2, n, n)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        (
            "gradc.jacrev(p, wrt='x')",
            r"gradc.jacrev of 'p' returning tuple\[f64,f64\[::1\]\]: its result must be an f64 or",
        ),
        ("gradc.jacfwd(w, wrt='x')", "which may write its array argument 'a'"),
        ("gradc.jacfwd(p, wrt='n')", "only float scalars and float arrays have derivatives"),
        ("gradc.jacfwd(q, wrt='x')", r"returning i64: its result must be an f64, an f64 arr"),
        ("gradc.jacfwd(p, width=0)", "width must be between 1 and 64"),
        ("gradc.jacrev(p, width=2)", "unexpected keyword 'width'"),
    ],
)
def test_what_has_no_jacobian_is_a_compile_error(
    tmp_path: Path, declaration: str, message: str
) -> None:
    from gradc.compiler.diagnostics import CompileError

    src = tmp_path / "m.py"
    src.write_text(
        textwrap.dedent(f"""\
            import gradc
            from gradc import f64, i64

            @gradc.export
            def p(x: f64[:], n: i64) -> tuple[f64, f64[:]]:
                return x[0] * 2.0, x * x

            @gradc.export
            def w(x: f64, a: f64[:]) -> f64:
                a[0] = x
                return x * a[0]

            @gradc.export
            def q(x: f64) -> i64:
                return int(x)

            d = {declaration}
            """)
    )
    with pytest.raises(CompileError, match=message) as info:
        build_module(src, CompilerOptions())
    assert "m.py:17:" in str(info.value)


# -- the AD corpus: the Jacobian of each scalar function is its gradient -----------------

CORPUS = ["loops", "arrays", "numpy_reductions", "views"]


def _with_jacobians(path: Path, out_dir: Path) -> tuple[Path, list[Any]]:
    """A copy of corpus module ``path`` declaring ``jf_f``/``jr_f`` (jacfwd, jacrev by
    ``d_f``'s ``wrt``) for each export ``f`` with a gradient; exports AD refuses a
    Jacobian of (they write an array argument) are left out, one failed build each."""
    from gradc.compiler.diagnostics import CompileError
    from tests.ad.corpus import _harness as H

    cases = [c for c in H.discover(path) if c.grad_name is not None]
    while True:
        text = path.read_text()
        for c in cases:
            w = ", ".join(repr(n) for n in c.grad_wrt or ()) + ","
            text += (
                f"\njf_{c.name} = gradc.jacfwd({c.name}, wrt=({w}))"
                f"\njr_{c.name} = gradc.jacrev({c.name}, wrt=({w}))\n"
            )
        out = out_dir / path.name
        out.write_text(text)
        try:
            build_module(out, CompilerOptions())
        except CompileError as exc:
            refused = [
                c
                for c in cases
                if f"gradc.jacfwd of '{c.name}'" in exc.message
                or f"gradc.jacrev of '{c.name}'" in exc.message
            ]
            if not refused:
                raise
            cases = [c for c in cases if c not in refused]
            continue
        return out, cases


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_jacobians_of_scalar_functions_are_gradients(
    compile_module: Callable[[Path], Any], tmp_path: Path, name: str
) -> None:
    from tests.ad.corpus import _harness as H

    path, cases = _with_jacobians(H.CORPUS_DIR / f"{name}.py", tmp_path)
    lib = compile_module(path)
    assert len(cases) >= 5
    for case in cases:

        @settings(max_examples=3, **SETTINGS)
        @given(data=st.data())
        def check(data: st.DataObject) -> None:
            _check_gradient(lib, case, data)  # noqa: B023  (run before the loop moves on)

        check()


def _check_gradient(lib: Any, case: Any, data: st.DataObject) -> None:
    from tests.ad.corpus import _harness as H

    args = data.draw(H.inputs(case), label="args")
    grad = getattr(lib, f"d_{case.name}")(*H.copy_args(args))
    for kind in ("jf", "jr"):
        got = getattr(lib, f"{kind}_{case.name}")(*H.copy_args(args))
        for a, b in zip(leaves(got), leaves(grad), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=case.id)
