"""Second derivatives (passes/ad/higher.py, columns.py, rules/derivative_code.py):
``gradc.hessian``, ``gradc.jvp`` of ``gradc.grad`` (forward-over-reverse), ``gradc.grad``
of ``gradc.grad``, ``gradc.vjp`` of ``gradc.jvp`` (reverse-over-forward).

Oracles: analytic Hessians (Rosenbrock, a quadratic form, log-sum-exp, a scalar and an
array), central finite differences of the *compiled* gradient over corpus functions,
and forward-over-reverse against reverse-over-forward Hessian-vector products."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "api" / "higher.py"
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much],
}
vectors = st.integers(2, 6).flatmap(
    lambda n: st.lists(st.floats(-1.5, 1.5, allow_subnormal=False), min_size=n, max_size=n)
)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


def _rosen_hessian(x: np.ndarray) -> np.ndarray:
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i, i + 1] -= 400.0 * x[i]
        h[i + 1, i] -= 400.0 * x[i]
        h[i + 1, i + 1] += 200.0
    return h


@settings(max_examples=10, **SETTINGS)
@given(xs=vectors)
def test_hessians_equal_the_analytic_ones(lib: Any, xs: list[float]) -> None:
    x = np.array(xs)
    n = len(x)
    np.testing.assert_allclose(lib.h_rosen(x), _rosen_hessian(x), rtol=1e-13, atol=1e-10)
    a = np.arange(n * n, dtype=float).reshape(n, n) / 7.0 - 1.0
    np.testing.assert_allclose(lib.h_quad(x, a), a + a.T, rtol=1e-13, atol=1e-13)
    p = np.exp(x - x.max())
    p /= p.sum()
    np.testing.assert_allclose(lib.h_lse(x), np.diag(p) - np.outer(p, p), atol=1e-14)
    c = 0.75
    (haa, hax), (hxa, hxx) = lib.h_mixed(c, x)
    assert haa == pytest.approx(2.0 * (x @ x) - np.sin(c), rel=1e-13)
    np.testing.assert_allclose(hax, 4.0 * c * x, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(hxa, 4.0 * c * x, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(hxx, 2.0 * c * c * np.eye(n), rtol=1e-13)
    assert hxx.shape == (n, n) and hxx.flags.c_contiguous


@settings(max_examples=10, **SETTINGS)
@given(xs=vectors, data=st.data())
def test_jvp_of_grad_is_the_hessian_vector_product(
    lib: Any, xs: list[float], data: st.DataObject
) -> None:
    x = np.array(xs)
    v = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=len(x), max_size=len(x))))
    g, hv = lib.hvp_rosen(x, v)
    np.testing.assert_array_equal(g, lib.g_rosen(x))
    np.testing.assert_allclose(hv, _rosen_hessian(x) @ v, rtol=1e-12, atol=1e-10)


def test_grad_of_grad(lib: Any) -> None:
    c, x = 0.75, np.array([0.5, -1.0, 2.0])
    d2a, d2ax = lib.gga_mixed(c, x)
    assert d2a == pytest.approx(2.0 * (x @ x) - np.sin(c), rel=1e-13)
    np.testing.assert_allclose(d2ax, 4.0 * c * x, rtol=1e-13)
    value, d2 = lib.vgga_mixed(c, x)
    assert value == lib.ga_mixed(c, x) and d2 == d2a
    assert lib.t_ga_mixed(c, x, 1.0) == (value, d2a)


@settings(max_examples=10, **SETTINGS)
@given(xs=vectors, data=st.data())
def test_vjp_of_grad_is_the_cotangent_times_the_hessian(
    lib: Any, xs: list[float], data: st.DataObject
) -> None:
    x = np.array(xs)
    ct = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=len(x), max_size=len(x))))
    np.testing.assert_allclose(lib.v_rosen(x, ct), ct @ _rosen_hessian(x), rtol=1e-12, atol=1e-10)
    d2a, d2ax = lib.gga_mixed(0.75, x)
    va, vx = lib.v_ga_mixed(0.75, x, -2.0)
    assert va == -2.0 * d2a
    np.testing.assert_array_equal(vx, -2.0 * d2ax)


def test_vjp_of_grad_checks_the_cotangent_length(lib: Any) -> None:
    with pytest.raises(ValueError, match="cotangent 'cotangent' must have the shape"):
        lib.v_rosen(np.ones(3), np.ones(2))


def test_nested_derivatives_are_named_by_content() -> None:
    from gradc.compiler.driver import add_derivative_exports
    from gradc.compiler.frontend.module_scan import scan_module
    from gradc.compiler.infer import infer_module
    from gradc.compiler.sources import read_source

    _, source = read_source(KERNELS)
    info = scan_module(source, KERNELS.stem)
    module = infer_module(info)
    add_derivative_exports(module, info, source)
    nested = sorted(n for n in module.functions if n.startswith("d."))
    # g_rosen, and ga_mixed/ga_again (one function under two names): two copies
    copies = [n for n in nested if n.count(".") == 1]
    assert len(copies) == 2, nested
    for name in copies:
        assert len(name) == 18 and int(name[2:], 16) >= 0
    assert {n.split(".")[2] for n in nested if n not in copies} == {"jvp"}
    assert not any("ga_again" in n or "ga_mixed" in n for n in module.functions if "." in n)


# -- the corpus: Hessians vs finite differences of the compiled gradient ------------------


def _eligible(case: H.Case) -> bool:
    return (
        case.grad_name is not None
        and case.jvp_name is not None
        and all(p.kind != "array" or p.ndim == 1 for p in case.params)
    )


def _with_second_derivatives(path: Path, out_dir: Path) -> tuple[Path, list[H.Case]]:
    """A copy of corpus module ``path`` declaring, for each eligible export ``f``,
    ``hess_f`` (Hessian), ``fr_f`` (jvp of d_f) and ``rf_f`` (vjp of t_f)."""
    cases = [c for c in H.discover(path) if _eligible(c)]
    text = path.read_text()
    for c in cases:
        w = ", ".join(repr(n) for n in c.float_params) + ","
        text += (
            f"\nhess_{c.name} = gradc.hessian({c.name}, wrt=({w}))"
            f"\nfr_{c.name} = gradc.jvp(d_{c.name}, wrt=({w}))"
            f"\nrf_{c.name} = gradc.vjp(t_{c.name}, wrt=({w}))\n"
        )
    out = out_dir / path.name
    out.write_text(text)
    return out, cases


def _fd_hessian(grad: Callable[..., Any], args: tuple[Any, ...], wrt: list[int]) -> list[Any]:
    """``fd[i][j]``: central differences of the compiled gradient, block (i, j)."""
    base = [np.atleast_1d(np.asarray(g, dtype=float)) for g in grad(*H.copy_args(args))]
    blocks: list[list[Any]] = [[None] * len(wrt) for _ in wrt]
    for j, pj in enumerate(wrt):
        x = np.atleast_1d(np.asarray(args[pj], dtype=float))
        cols = [np.zeros((b.size, x.size)) for b in base]
        for k in range(x.size):
            h = 1e-5 * max(1.0, abs(x[k]))
            shifted = []
            for sign in (1.0, -1.0):
                a = H.copy_args(args)
                if isinstance(a[pj], np.ndarray):
                    a[pj][k] += sign * h
                else:
                    a[pj] = a[pj] + sign * h
                shifted.append([np.atleast_1d(np.asarray(g, dtype=float)) for g in grad(*a)])
            for i in range(len(base)):
                cols[i][:, k] = (shifted[0][i] - shifted[1][i]) / (2 * h)
        for i in range(len(base)):
            blocks[i][j] = cols[i]
    return blocks


def _as_matrix(block: Any, rows: int, cols: int) -> np.ndarray:
    return np.asarray(block, dtype=float).reshape(rows, cols)


CORPUS = ["loops", "arrays", "branches"]  # 48 exports; compiling them takes a while


@pytest.fixture(scope="module")
def corpora(compile_module: Callable[[Path], Any], tmp_path_factory: Any) -> Any:
    built: dict[str, tuple[Any, list[H.Case]]] = {}

    def get(name: str) -> tuple[Any, list[H.Case]]:
        if name not in built:
            path, cases = _with_second_derivatives(
                H.CORPUS_DIR / f"{name}.py", tmp_path_factory.mktemp(f"higher_{name}")
            )
            built[name] = (compile_module(path), cases)
        return built[name]

    return get


def _check_corpus(lib: Any, cases: list[H.Case]) -> None:
    assert len(cases) >= 10
    for case in cases:

        @settings(max_examples=3, **SETTINGS)
        @given(data=st.data())
        def check(data: st.DataObject) -> None:
            _check_case(lib, case, data)  # noqa: B023  (run before the loop moves on)

        check()


def _check_case(lib: Any, case: H.Case, data: st.DataObject) -> None:
    """The Hessian vs FD of the compiled gradient, its symmetry, and H·v vs
    forward-over-reverse and reverse-over-forward products."""
    wrt = case.wrt_indices
    args = data.draw(H.inputs(case), label="args")
    sizes = [np.asarray(args[p]).size for p in wrt]
    hess = getattr(lib, f"hess_{case.name}")(*H.copy_args(args))
    fd = _fd_hessian(getattr(lib, f"d_{case.name}"), args, wrt)
    blocks = {
        (i, j): _as_matrix(hess[i][j], sizes[i], sizes[j])
        for i, j in np.ndindex(len(wrt), len(wrt))
    }
    scale = max(1.0, abs(H.plain_fn(case)(*H.copy_args(args))))
    scale = max([scale, *(float(np.abs(b).max(initial=0.0)) for b in blocks.values())])
    for (i, j), ad in blocks.items():
        np.testing.assert_allclose(
            ad, fd[i][j], rtol=1e-5, atol=1e-6 * scale, err_msg=f"{case.id} H[{i}][{j}]"
        )
        np.testing.assert_allclose(ad, blocks[j, i].T, rtol=1e-9, atol=1e-12 * scale)
    v = data.draw(H.directions(case, args), label="v")
    _, fr = getattr(lib, f"fr_{case.name}")(*H.copy_args(args), *v)
    rf = getattr(lib, f"rf_{case.name}")(*H.copy_args(args), *v, 0.0, 1.0)
    for i in range(len(wrt)):
        hv = sum(blocks[i, j] @ np.ravel(v[j]) for j in range(len(wrt)))
        for got in (fr[i], rf[i]):
            np.testing.assert_allclose(
                np.ravel(got),
                hv,
                rtol=1e-9,
                atol=1e-11 * scale * len(wrt),
                err_msg=f"{case.id}: H·v, block {i}",
            )


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_hessians(corpora: Any, name: str) -> None:
    _check_corpus(*corpora(name))
