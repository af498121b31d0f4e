"""Forward and reverse mode of every differentiable array operation, table-driven.

Each case of tests/ad/array_ops/cases.py (one operation: a ufunc, an operator with
broadcasting, a reduction with ``axis``/``keepdims``, a slice read or write, a view, a join,
a product, ...) is an export ``op_<k>`` with ``t_op_<k> = gradc.jvp(op_<k>, wrt=<its float
operands>)`` and ``v_op_<k> = gradc.vjp(...)``, all in one module built once per session.
On operands in C, Fortran, strided, reversed and broadcast (zero-stride) layouts, and with
0-length axes where the operation allows them:

(a) the value equals NumPy running the same source;
(b) the JVP equals central finite differences along a random direction;
(c) the VJP equals central finite differences of ``<f(x), w>``, element by element;
(d) the dot-product test ``<J v, w> == <v, J^T w>`` between (b) and (c).

The default run builds a module of one case per kind of rule (``DEFAULT_BODIES``, one
fixed example each plus 0-length ones); every case, and the hypothesis sweep over shapes
and layouts, are ``@pytest.mark.slow`` (the module of all cases takes minutes to build).

Coverage: :func:`test_every_differentiable_table_entry_has_a_case` reads the front end's
tables (the ones scripts/gen_supported.py renders into docs/supported.md) and fails for an
entry with neither a case nor a reason in ``NOT_DIFFERENTIABLE``. To cover a new operation,
add an ``OpCase("<table>:<name>", "<params>", "<expression or statements>", "<result>")``
to the matching list of cases.py (see its docstring for the keys, dims, domains and
kinks), or, when it has no derivative to check, its key and the reason to
``NOT_DIFFERENTIABLE`` there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ad.array_ops import checks as K
from tests.ad.array_ops.build import build_and_load
from tests.ad.array_ops.cases import CASES, NOT_DIFFERENTIABLE, OpCase

ROOT = Path(__file__).resolve().parents[2]
IDS = [f"{k:03d}-{c.key.split(':')[1][:24]}" for k, c in enumerate(CASES)]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_supported", ROOT / "scripts" / "gen_supported.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_supported", module)
    spec.loader.exec_module(module)
    return module


def table_keys() -> tuple[set[str], set[str]]:
    """(entries needing a derivative case, other keys a case may name): the front end's
    tables of array operations as scripts/gen_supported.py reads them."""
    from gradc.compiler.frontend import (
        array_functions,
        array_reductions,
        array_reorder,
        einsum,
        linalg_solve,
        lower_calls,
    )
    from gradc.compiler.frontend.numpy_linalg import CONSTRUCT_FUNCTIONS, LINALG_FUNCTIONS
    from gradc.compiler.frontend.slicing import VIEW_METHODS
    from gradc.compiler.ir import ufuncs
    from gradc.compiler.ir.types import F64, ScalarType

    gen = _generator()
    keys = set()
    for name in gen._user_ufuncs():
        result = ufuncs.result_type(name, [F64] * ufuncs.UFUNCS[name].arity)
        if isinstance(result, ScalarType) and result.is_float:
            keys.add(f"ufunc:{name}")
    tables = {
        "reduction": array_reductions.ARRAY_REDUCTIONS,
        "builtin": array_reductions.BUILTIN_REDUCTIONS,
        "function": array_functions.ARRAY_FUNCTIONS,
        "method": array_functions.ARRAY_METHODS,
        "allocator": lower_calls._NUMPY_ALLOCATORS,
        "construct": CONSTRUCT_FUNCTIONS,
        "linalg": LINALG_FUNCTIONS,
        "view": VIEW_METHODS,
        "indexing": [form for form, _ in gen.INDEXING],
        "reorder": array_reorder.REORDER_FUNCTIONS,
        "solve": linalg_solve.SOLVE_FUNCTIONS,
        "einsum": einsum.EINSUM_FORMS,
        # `@`/np.matmul of operands of more than 2 axes (docs/supported.md's note)
        "batched": ["matmul"],
    }
    for table, names in tables.items():
        keys |= {f"{table}:{name}" for name in names}
    return keys, {f"statement:{what}" for what, _ in gen.STATEMENTS}


#: The cases of the default run (one module of ~60 functions): one per kind of rule.
DEFAULT_BODIES = (
    "abs(x)", "np.exp(x)", "np.log1p(x)", "np.arccosh(x)", "np.floor(x)", "x / y", "x ** s",
    "np.minimum(x, y)", "np.where(x > 0.0, y, s)", "np.clip(x, y - 1.0, y + 1.0)",
    "np.sum(x, axis=1, keepdims=True)", "x.var(axis=1, ddof=1)", "x.max(axis=1, keepdims=True)",
    "np.cumprod(x)", "np.linalg.norm(x)", "x @ y", "np.outer(x, y)",
    "np.concatenate((x, y), axis=1)", "x[::-1, ::2] * 2.0", "x[i] * 2.0",
    "np.max(x, initial=s)", "x[i, i[::-1]] * x[i, -1]",
)  # fmt: skip
#: ... and the statements (slice assignment, in-place operators, an overlapping copy)
#: whose bodies start so.
DEFAULT_STATEMENTS = (
    "z = x * 1.0\nz[1:, ::-1] = y", "z = x * 1.0\nz += y", "z = x * 2.0\nz[::-1]",
    "z = x * 1.0\nz[x < 0.0] += y",
)  # fmt: skip
#: ... and the first case of each entry of these tables (operations whose other tests,
#: tests/ad/corpus/reorder.py, are slow), of the mask writes, and of three np.einsum forms
#: (the others lower to the products, views and sums above).
DEFAULT_TABLES = ("reorder", "solve", "einsum", "batched")
DEFAULT_EINSUM = ("einsum:ij,j->i", "einsum:ii->", "einsum:bij,bjk->bik", "einsum:ij,ij->i")
_FIRSTS = {c.key: k for k, c in reversed(list(enumerate(CASES)))}


def _first_of_new_entry(k: int, key: str) -> bool:
    table = key.split(":")[0]
    wanted = key in DEFAULT_EINSUM if table == "einsum" else table in DEFAULT_TABLES
    return _FIRSTS[key] == k and (wanted or "a[mask] =" in key)


DEFAULT = [
    k for k, c in enumerate(CASES)
    if _first_of_new_entry(k, c.key)
    or (c.key.split(":")[0] not in DEFAULT_TABLES
        and (c.body in DEFAULT_BODIES or c.body.startswith(DEFAULT_STATEMENTS)))
]  # fmt: skip


def module_source(indices: list[int]) -> str:
    """A module of cases ``indices``: ``op_<k>``, ``t_op_<k>``, ``v_op_<k>`` for each."""
    lines = ["import numpy as np", "", "import gradc", "from gradc import f64, i64", ""]
    for k in indices:
        case = CASES[k]
        wrt = ", ".join(f'"{n}"' for n, _, f in case.params if f)
        lines += ["", "@gradc.export", case.source(f"op_{k}"), ""]
        lines += [f"t_op_{k} = gradc.jvp(op_{k}, wrt=({wrt},))"]
        lines += [f"v_op_{k} = gradc.vjp(op_{k}, wrt=({wrt},))", ""]
    return "\n".join(lines)


def _build(tmp_path_factory: pytest.TempPathFactory, indices: list[int]) -> tuple[Any, ModuleType]:
    """(the compiled library of cases ``indices``, the same module run by NumPy)."""
    root = tmp_path_factory.mktemp("array_ops")
    path = root / "array_ops_ad.py"
    path.write_text(module_source(indices), encoding="utf-8")
    return build_and_load(path, root / "out.gradc")


@pytest.fixture(scope="module")
def default_modules(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, ModuleType]:
    return _build(tmp_path_factory, DEFAULT)


@pytest.fixture(scope="module")
def modules(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, ModuleType]:
    """The library of the cases the selected slow tests check (all of them unless ``-k``
    or node ids select fewer: the module of every case takes minutes to build)."""
    selected = {
        item.callspec.params["k"]
        for item in request.session.items
        if item.module is request.module
        and "modules" in getattr(item, "fixturenames", ())
        and "k" in getattr(getattr(item, "callspec", None), "params", {})
    }
    return _build(tmp_path_factory, sorted(selected))


def check(modules: tuple[Any, ModuleType], k: int, ex: K.Example, seed: int) -> None:
    """Checks (a)-(d) of case ``k`` on example ``ex`` (cotangent drawn from ``seed``)."""
    lib, plain = modules
    case = CASES[k]
    fn, idx = getattr(plain, f"op_{k}"), K.float_indices(case)
    where = f"case {k} `{case.body}` layouts {ex.layouts}"
    want = K.call(fn, ex.args)
    value, tangent = getattr(lib, f"t_op_{k}")(*K.fresh(ex), *ex.tangents)
    got = np.asarray(value)
    assert got.shape == want.shape and got.dtype == np.float64, where
    assert np.allclose(got, want, rtol=K.VALUE_RTOL, atol=1e-14, equal_nan=True), where
    scale = float(np.max(np.abs(want), initial=1.0))
    fd = K.fd_jvp(fn, ex.args, idx, ex.tangents)
    assert K.fd_close(tangent, fd, scale), f"{where}: jvp {tangent} vs FD {fd}"
    w = np.random.default_rng(seed).uniform(-1.0, 1.0, size=want.shape)
    cot = getattr(lib, f"v_op_{k}")(*K.fresh(ex), float(w) if w.ndim == 0 else w)
    assert len(cot) == len(idx), where
    fd_grads = K.fd_vjp(fn, ex.args, idx, w)
    for name, c, g in zip([case.params[i][0] for i in idx], cot, fd_grads, strict=True):
        assert K.fd_close(c, g, scale * max(1, want.size)), f"{where}: vjp {name} {c} vs FD {g}"
    lhs, lsize = K.inner([tangent], [w])
    rhs, rsize = K.inner(ex.tangents, cot)
    assert abs(lhs - rhs) <= K.DOT_RTOL * (lsize + rsize) + 1e-300, f"{where}: {lhs} vs {rhs}"


def _fixed_example(k: int, case: OpCase, dims: dict[str, int]) -> K.Example:
    rng = np.random.default_rng(1000 + k)
    layouts = [K.LAYOUTS[(k + j) % len(K.LAYOUTS)] for j in range(len(case.params))]
    ex = K.draw_example(case, rng, dims, layouts)
    assert ex is not None, f"case {k}: no operands away from its kinks"
    return ex


# ----------------------------------------------------------------------------- coverage


def test_every_differentiable_table_entry_has_a_case() -> None:
    required, extra = table_keys()
    covered = {c.key for c in CASES}
    missing = required - covered - set(NOT_DIFFERENTIABLE)
    assert not missing, (
        f"array operations with no derivative case: {sorted(missing)}; add an OpCase to "
        "tests/ad/array_ops/cases.py (or the reason to NOT_DIFFERENTIABLE there)"
    )
    assert covered <= required | extra, f"cases of no table entry: {covered - required - extra}"
    assert set(NOT_DIFFERENTIABLE) <= required - covered


def test_the_oracle_rejects_a_wrong_derivative(
    default_modules: tuple[Any, ModuleType],
) -> None:
    """(b)-(d) fail for a library whose exp VJP is off by a factor: the checks can fail."""
    lib, plain = default_modules
    k = next(i for i, c in enumerate(CASES) if c.body == "np.exp(x)")

    class Wrong:
        def __getattr__(self, name: str) -> Any:
            if name == f"v_op_{k}":
                return lambda *a: tuple(1.001 * c for c in getattr(lib, name)(*a))
            return getattr(lib, name)

    ex = _fixed_example(k, CASES[k], {"m": 2, "n": 3})
    with pytest.raises(AssertionError, match="vjp"):
        check((Wrong(), plain), k, ex, seed=k)


# ------------------------------------------------------------------------ default run


def _fixed_checks(modules: tuple[Any, ModuleType], k: int) -> None:
    """One example of case ``k`` (its layouts rotate with ``k``), and with a 0-length axis
    where the case allows one."""
    case = CASES[k]
    check(modules, k, _fixed_example(k, case, {"m": max(2, case.min_dim), "n": 3}), seed=k)
    if case.min_dim == 0:
        check(modules, k, _fixed_example(k, case, {"m": 2, "n": 0}), seed=k)
        check(modules, k, _fixed_example(k, case, {"m": 0, "n": 2}), seed=k)


@pytest.mark.parametrize("k", DEFAULT, ids=[IDS[k] for k in DEFAULT])
def test_op_derivatives(default_modules: tuple[Any, ModuleType], k: int) -> None:
    _fixed_checks(default_modules, k)


def test_the_default_run_has_a_case_per_kind_of_rule() -> None:
    bodies = {CASES[k].body for k in DEFAULT}
    assert bodies >= set(DEFAULT_BODIES), "a body matches no case"
    assert all(any(b.startswith(p) for b in bodies) for p in DEFAULT_STATEMENTS)
    kinds = {CASES[k].key.split(":")[0] for k in DEFAULT}
    assert kinds >= {"ufunc", "reduction", "linalg", "construct", "indexing", "statement"}
    required, _ = table_keys()
    keys = {CASES[k].key for k in DEFAULT}
    new = {key for key in required if key.split(":")[0] in DEFAULT_TABLES or "a[mask] =" in key}
    new -= {key for key in new if key.startswith("einsum:")} - set(DEFAULT_EINSUM)
    assert new - set(NOT_DIFFERENTIABLE) <= keys, "an entry of DEFAULT_TABLES with no case"


# ------------------------------------------------------------------------------- sweep


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_every_op_derivatives(modules: tuple[Any, ModuleType], k: int) -> None:
    _fixed_checks(modules, k)


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_op_derivatives_sweep(modules: tuple[Any, ModuleType], k: int) -> None:
    case = CASES[k]
    dim = st.integers(max(case.min_dim, 0), 3)

    @settings(max_examples=30, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(m=dim, n=dim, seed=st.integers(0, 2**32 - 1),
           layouts=st.lists(st.sampled_from(K.LAYOUTS), min_size=len(case.params),
                            max_size=len(case.params)))  # fmt: skip
    def run(m: int, n: int, seed: int, layouts: list[str]) -> None:
        ex = K.draw_example(case, np.random.default_rng(seed), {"m": m, "n": n}, layouts)
        if ex is not None:
            check(modules, k, ex, seed)

    run()
