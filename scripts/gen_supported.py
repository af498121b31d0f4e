"""Render docs/supported.md, the "Supported Python and NumPy" reference page, from the
front end's own tables (so the page cannot drift from what the compiler accepts).

    python scripts/gen_supported.py          # rewrite docs/supported.md
    python scripts/gen_supported.py --check  # exit 1 when docs/supported.md is stale

Every supported NumPy name comes from a table of the compiler: NUMPY_FUNCTIONS and
NUMPY_CONSTANTS (compiler/ir/numpy_math.py), UFUNCS (compiler/ir/ufuncs.py),
OPERATOR_UFUNCS/COMPARISON_UFUNCS/ARRAY_DTYPES (compiler/infer/elementwise.py),
ARRAY_REDUCTIONS/BUILTIN_REDUCTIONS (compiler/frontend/array_reductions.py),
LINALG_FUNCTIONS/CONSTRUCT_FUNCTIONS/SCALAR_TYPES (compiler/frontend/numpy_linalg.py),
VIEW_METHODS (compiler/frontend/slicing.py), ARRAY_FUNCTIONS/ARRAY_METHODS (compiler/
frontend/array_functions.py), GRID_FUNCTIONS (compiler/frontend/array_grids.py), CONVOLVE_FORM (compiler/frontend/convolve.py), REPEAT_FUNCTIONS (compiler/frontend/array_repeat.py), REORDER_FUNCTIONS (compiler/frontend/array_reorder.py), SOLVE_FUNCTIONS (compiler/frontend/
linalg_solve.py), EINSUM_FORMS (compiler/frontend/einsum.py), ARRAY_UFUNCS (compiler/frontend/
numpy_arrays.py), the allocators and dtype spellings (compiler/frontend/lower_calls.py),
MATH_FUNCTIONS (compiler/ir/ops/mathcall.py), MATH_CONSTANTS (compiler/frontend/
constants.py) and the unsupported constructs (compiler/frontend/constructs.py). Dtype
rules are computed by calling the tables' own loop rules on each dtype. What has no table
(statements, indexing forms) is listed here in :data:`STATEMENTS` and :data:`INDEXING`.

:func:`examples` gives one compilable call per supported name (tests/
test_docs_supported.py compiles them all in one module); a table entry without an example
here is an error, so a new function cannot be left off the page.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from gradc.compiler.frontend import (
    array_functions,
    array_grids,
    array_reductions,
    array_reorder,
    array_repeat,
    constructs,
    convolve,
    einsum,
    linalg_solve,
    lower_calls,
    lower_expr,
)
from gradc.compiler.frontend.annotations import SCALAR_NAMES
from gradc.compiler.frontend.constants import MATH_CONSTANTS
from gradc.compiler.frontend.derivatives import ACTIVITIES, DERIVATIVE_KINDS
from gradc.compiler.frontend.numpy_arrays import ARRAY_UFUNCS
from gradc.compiler.frontend.numpy_linalg import (
    CONSTRUCT_FUNCTIONS,
    LINALG_FUNCTIONS,
    SCALAR_TYPES,
)
from gradc.compiler.frontend.slicing import VIEW_METHODS
from gradc.compiler.infer.elementwise import (
    ARRAY_DTYPES,
    COMPARISON_UFUNCS,
    FAST_POWERS,
    OPERATOR_UFUNCS,
)
from gradc.compiler.ir import numpy_math, ops, ufuncs
from gradc.compiler.ir.types import F32, F64, I1, I32, I64, ScalarType
from gradc.passes.ad.rules import AD_RULES
from gradc.passes.ad.rules.base import NoDerivative

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "supported.md"

#: NumPy's names of gradc's scalar types, as the page shows dtypes.
NP_NAMES = {F64: "float64", F32: "float32", I64: "int64", I32: "int32", I1: "bool"}

#: Statements and language items (the front end's statement ``match``, lower_stmt.py, and
#: its iteration forms, lower_iter.py): (construct, note).
STATEMENTS = (
    ("`x = e`, `a, b = e` (tuples), `x: f64 = e`", "a variable keeps one type"),
    ("`x += e` (every arithmetic and bitwise operator)", "on scalars, arrays and `a[i]`"),
    ("`a[i] = v`, `a[i, j] = v`, `a[1:] = b`, `a[...] = 0.0`", "slice assignment broadcasts"),
    ("`if` / `elif` / `else`, `x if c else y`", ""),
    ("`while`, `break`, `continue`", ""),
    ("`for i in range(a, b, step)`", "also negative steps"),
    ("`for v in a`, `enumerate(a)`, `zip(a, b)`, `reversed(...)`, a tuple", "lower_iter.py"),
    ("`return e`, `return a, b`, `return` / `return None`", "`void(...)` signatures"),
    ("`raise ValueError(f'n={n}')`, `assert c, 'msg'`", "f-string fields: int, bool, f64"),
    ("`pass`, docstrings, expression statements", ""),
    ("`a.sort(axis=-1, kind=None)`", "in place, views too; a statement (NumPy's method returns"
     " None)"),
    ("`and`, `or`, `not`, chained comparisons", "short-circuit as CPython"),
    ("default parameter values", "exports are callable without them"),
    ("calls of module-level functions (helpers), with positional arguments", "specialised per"
     " argument types"),
    ("functions passed to helpers: `apply(_twice, x)`, `apply(f=math.sin, x=x)`, `np.tanh`",
     "specialised per function, as Numba; not to exports; also `g = _twice` (top level)"),
    ("module constants: numbers, `math`/`np` constant expressions, `np.float32(0.5)`,"
     " `np.array([...])`", "NumPy array constants are read-only"),
    ("`from helpers import f`, `import pkg.sub as s`, relative imports", "read, never run"),
)  # fmt: skip

#: Module-level code exercising :data:`STATEMENTS` (compiled and compared with CPython by
#: tests/test_docs_supported.py): an export ``check_statements`` taking the check's
#: parameters, and its helpers.
STATEMENTS_CHECK = """
W = np.array([1.0, 2.0])
EPS = np.float32(0.5)
SCALE = 2 * math.pi


def _twice(v: f64) -> f64:
    return 2.0 * v


def _apply(v, k=3):
    return _twice(v) + k


def _call(f, v):
    return f(v)


def _fill(out, v):
    out[...] = v
    return


@gradc.export
def check_statements(x: f64[:], y: f64[:], A: f64[:, :], i: i64[:], j: i64[:],
                     b: bool_[:], c: bool_[:], s: f64, n: i64, m: i64 = 2) -> f64:
    t: f64 = 0.0
    p, q = s, 2.0 * s
    t += p * q + W[1] * SCALE + float(EPS)
    z = np.zeros(n)
    z += x
    z[1:] = y[:-1]
    z[0] = s
    z[::-1].sort()
    _fill(A[0], 1.0)
    for k in range(n - 1, -1, -2):
        t += z[k] if k % 2 == 0 else -z[k]
    for k, v in enumerate(x):
        if k == 0 and v > 0.0 or not b[k]:
            continue
        elif 0.0 < v < 1.0:
            t += v
        else:
            break
    for u, v in zip(x, y):
        t += u * v
    for v in reversed(x):
        t += v
    for v in (1.0, s, 3.0):
        t += v
    while n > 0:
        n -= 1
        if n == 1:
            break
    assert m > 0, "m must be positive"
    if t < -1e300:
        raise ValueError(f"t={t} at n={n}")
    t += _apply(s) + m + A[0, 1] + _call(_twice, s) + _call(f=math.sin, v=s)
    return t
"""

#: Indexing and view forms (compiler/frontend/slicing.py, lower_expr.py): (form, note).
INDEXING = (
    ("`a[i]`, `a[i, j]`, negative indices", "bounds-checked (IndexError) unless --no-boundscheck"),
    ("`a[i]` of a 2-D array, `a[i][j]`", "a row view"),
    ("`a[lo:hi:step]` on any axis, negative steps, `...`, `None`/`np.newaxis`", "a view"),
    ("`a[idx]` with an integer array, `a[mask]` with a bool array", "a copy (reads)"),
    ("`a[rows, cols]`, `a[rows, j]`, `a[i, cols]` (an integer index per axis, arrays among"
     " them)", "a copy (reads) of the index arrays' broadcast shape"),
    ("`a[mask] = v`, `a[mask] += v` (a bool mask of `a`'s shape)", "`v` a scalar, or a 1-D"
     " array of one value per true element (or one value)"),
    ("`a[idx] = v`, `a[idx] += v` (an integer array `idx`)", "`v` a scalar or an array"
     " broadcasting to `idx.shape + a.shape[1:]`; a repeated index keeps the last value"),
    ("`a.flat[i]`", "reads"),
    ("`a.T`", "a view"),
    ("`a.shape`, `np.shape(a)`, `a.size`, `a.ndim`, `a.dtype`, `len(a)`", ""),
    ("`a.copy()`, `a.astype(dtype)`", "new C-contiguous arrays"),
    ("`a.reshape(...)`, `a.ravel()`", "a view of an array declared C-contiguous (`f64[:, ::1]`"
     " or new); of others a compile error: reshape `a.copy()`"),
)  # fmt: skip


def _unparse(op: type[ast.operator]) -> str:
    return ast.unparse(ast.BinOp(ast.Name("a"), op(), ast.Name("b")))


def _operator_forms() -> dict[str, str]:
    """ufunc name -> the Python operator that applies it (``a + b``)."""
    by_op = {v: k for k, v in lower_expr._BINOPS.items()}
    forms: dict[str, str] = {}
    for cls, name in OPERATOR_UFUNCS.items():
        if cls in by_op:
            forms[name] = _unparse(by_op[cls])
    forms.update({"negative": "-a", "absolute": "abs(a)", "invert": "~a"})
    cmp = {v: k for k, v in lower_expr._CMP_PREDICATES.items()}
    for pred, name in COMPARISON_UFUNCS.items():
        node = ast.Compare(ast.Name("a"), [cmp[pred]()], [ast.Name("b")])
        forms[name] = ast.unparse(node)
    return forms


def _rule(loop: object, types: tuple[ScalarType, ...]) -> str:
    """One line: the result dtype per operand dtype, or ``refused`` (``loop(t)`` gives the
    result type or the refusal's reason)."""
    parts = []
    for t in types:
        r = loop(t)  # type: ignore[operator]
        parts.append(f"{NP_NAMES[t]}→{NP_NAMES[r] if isinstance(r, ScalarType) else 'refused'}")
    return ", ".join(parts)


def _user_ufuncs() -> list[str]:
    """The ufuncs a user reaches (``power_scalar`` is ``x ** p``'s internal loop)."""
    return [n for n in ufuncs.UFUNCS if n in _operator_forms() or n in numpy_math.NUMPY_FUNCTIONS
            or n in ARRAY_UFUNCS]  # fmt: skip


def _reduction_keywords(name: str) -> list[str]:
    spec = array_reductions.ARRAY_REDUCTIONS[name]
    return [
        p
        for p in spec.params
        if (p in array_reductions._SUPPORTED or p == "initial")
        and (p != "dtype" or spec.fn in array_reductions._WITH_DTYPE)
        and (p != "initial" or spec.fn in array_reductions._WITH_INITIAL)
    ]


def _operands(name: str) -> tuple[str, ...]:
    """Operand names of the compile check for ufunc ``name``: the first dtype of
    x, y (f64), i, j (i64), b, c (bool) whose loop gradc supports."""
    u = ufuncs.UFUNCS[name]
    for t, names in ((F64, ("x", "y", "x")), (I64, ("i", "j", "i")), (I1, ("b", "c", "b"))):
        if isinstance(ufuncs.result_type(name, [t] * u.arity), ScalarType):
            return names[: u.arity]
    raise ValueError(f"ufunc {name} supports none of f64, i64, bool")


#: Functions whose domain excludes the check's operands in (0, 1): their argument, shifted.
_SHIFTED = frozenset({"acosh", "arccosh"})


def _arg(name: str, operand: str) -> str:
    return f"(1.0 + {operand})" if name in _SHIFTED else operand


def _finite(constant: str) -> str:
    """``constant``, or for inf/NaN a comparison of it (so that a sum stays comparable)."""
    return f"({constant} if math.isfinite({constant}) else float({constant} > 0.0))"


def ufunc_example(name: str) -> str:
    """The compile check's expression applying ufunc ``name`` (``np.sum(x % y)``)."""
    args = _operands(name)
    forms = _operator_forms()
    if name in forms:
        text = re.sub(r"\bb\b", args[-1], re.sub(r"\ba\b", args[0], forms[name]))
    elif name == "where":
        text = "np.where(b, x, y)"
    else:
        text = f"np.{name}({', '.join(_arg(name, a) for a in args)})"
    return f"np.sum({text})"


def ad_refused() -> list[str]:
    """The ufuncs of operators whose float loop has no derivative rule yet (registered
    ``NoDerivative`` in passes/ad/rules): differentiating through them is a compile
    error."""
    refused = []
    for cls, name in OPERATOR_UFUNCS.items():
        rule = AD_RULES._rules.get(cls)
        result = ufuncs.result_type(name, [F64] * ufuncs.UFUNCS[name].arity)
        if isinstance(rule, NoDerivative) and isinstance(result, ScalarType) and result.is_float:
            refused.append(name)
    return refused


def examples() -> dict[str, list[str]]:
    """Section -> expressions calling each supported name once, in the compile check's
    scope: ``x, y: f64[:]``, ``A: f64[:, :]``, ``i, j: i64[:]``, ``b, c: bool_[:]``,
    ``s: f64``, ``n: i64``. Each expression has a scalar value."""
    out: dict[str, list[str]] = {}
    out["builtins"] = [f"{f}(s)" if f in ("abs", "int") else f"{f}(n)" if f in ("float", "bool")
                       else "len(x)" if f == "len" else f"{f}(s, s)"
                       for f in lower_calls.SUPPORTED_BUILTINS]  # fmt: skip
    out["builtins"] += [f"{f}(x)" for f in array_reductions.BUILTIN_REDUCTIONS]
    math_fns = [f for f in ops.MATH_FUNCTIONS.values() if not f.internal]
    out["math"] = [f"math.{f.name}({', '.join([_arg(f.name, 's')] * f.arity)})" for f in math_fns]
    out["math"] += [_finite(f"math.{c}") for c in MATH_CONSTANTS]
    out["numpy scalar"] = [
        f"np.{n}({', '.join([_arg(n, 's')] * f.arity)})"
        for n, f in numpy_math.NUMPY_FUNCTIONS.items()
    ]
    out["numpy scalar"] += [_finite(f"np.{c}") for c in numpy_math.NUMPY_CONSTANTS]
    out["numpy scalar"] += [f"np.{n}(s)" for n in SCALAR_TYPES]
    out["ufuncs"] = [ufunc_example(name) for name in _user_ufuncs()]
    out["reductions"] = []
    for name, spec in array_reductions.ARRAY_REDUCTIONS.items():
        call = f"np.{name}(x)"
        if spec.fn in {k.value for k in ops.CumKind}:
            call = f"np.sum({call})"
        out["reductions"].append(call)
        if spec.method:
            out["reductions"].append(f"np.sum(A.{name}(axis=0))")
    out["views"] = ["np.sum(A.T)", "A.shape[0]", "np.shape(x)[0]"]
    out["views"] += [
        {"transpose": "np.sum(A.transpose(1, 0))", "reshape": "np.sum(A.copy().reshape(A.size))",
         "ravel": "np.sum(A.copy().ravel())", "flatten": "np.sum(A.flatten())"}[m]
        for m in VIEW_METHODS
    ]  # fmt: skip
    array_fns = {
        "diff": "np.sum(np.diff(A, axis=0))",
        "clip": "np.sum(A.clip(0.2, s))",
        "flip": "np.sum(np.flip(A, 0) * np.flip(A))",
        "count_nonzero": "np.count_nonzero(A) + np.sum(np.count_nonzero(A, axis=1))",
        "trapezoid": "np.trapezoid(x, y) + np.sum(np.trapezoid(A, dx=s, axis=0))",
        "meshgrid": "np.sum(np.meshgrid(x, y)[0] * np.meshgrid(x, y, indexing='ij')[1])",
        "isclose": "np.sum(np.isclose(x, y, atol=s))",
        "allclose": "float(np.allclose(x, y, equal_nan=True))",
        "column_stack": "np.sum(np.column_stack((x, y * s)) * np.column_stack([y, x]))",
        "convolve": "np.sum(np.convolve(x, y)) + np.sum(np.convolve(y, x, 'same') * s)",
        "repeat": "np.sum(np.repeat(x, 2) * np.tile(y, 2))",
        "tile": "np.sum(np.tile(x, n % 3))",
        "polyval": "np.sum(np.polyval([s, 2.0, -1.0], x)) + np.polyval((1.5, s), s)",
        "transpose": "np.sum(np.transpose(A) @ A)",
    }
    out["array functions"] = [array_fns[n] for n in
                              (*array_functions.ARRAY_FUNCTIONS, *array_grids.GRID_FUNCTIONS, "convolve",
                               *array_repeat.REPEAT_FUNCTIONS,
                               *array_functions.ARRAY_METHODS)]  # fmt: skip
    reorder = {
        "diag": "np.sum(np.diag(x, 1)) + np.sum(np.diag(A))", "tril": "np.sum(np.tril(A, -1))",
        "triu": "np.sum(np.triu(A))", "roll": "np.sum(np.roll(x, n) * y)",
        "sort": "np.sum(np.sort(x) * y)", "argsort": "np.sum(np.argsort(A))",
        "median": "np.median(A)",
    }  # fmt: skip
    out["array functions"] += [reorder[n] for n in array_reorder.REORDER_FUNCTIONS]
    out["views"] += ["np.sum(x[1:] - x[:-1])", "np.sum(A[::-1, 0])", "np.sum(x[i])",
                     "np.sum(x[b])", "x.flat[0]", "np.sum(x.astype(np.float32))",
                     "np.sum(x.copy())"]  # fmt: skip
    alloc = {"shape": "n", "fill_value": "1.0", "a": "x"}
    out["construction"] = [
        # the elements of np.empty are undefined: only its length
        f"{'len' if 'empty' in n else 'np.sum'}(np.{n}({', '.join(alloc[p] for p in ps if p != 'dtype')}))"
        for n, ps in lower_calls._NUMPY_ALLOCATORS.items()
    ]
    construct = {
        "arange": "np.arange(n)", "linspace": "np.linspace(0.0, 1.0, n)", "eye": "np.eye(n)",
        "identity": "np.identity(n)", "array": "np.array([[1.0, 2.0], [3.0, s]])",
        "concatenate": "np.concatenate((x, y))", "stack": "np.stack((x, y), axis=1)",
        "vstack": "np.vstack((x, y))", "hstack": "np.hstack((x, y))",
    }  # fmt: skip
    out["construction"] += [f"np.sum({construct[n]})" for n in CONSTRUCT_FUNCTIONS]
    linalg = {
        "matmul": "np.sum(np.matmul(A, A))", "dot": "np.dot(x, y)", "inner": "np.inner(x, y)",
        "vdot": "np.vdot(x, y)", "outer": "np.sum(np.outer(x, y))", "trace": "np.trace(A)",
    }  # fmt: skip
    out["linalg"] = [linalg[n] for n in LINALG_FUNCTIONS] + ["np.sum(A @ x)"]
    solve = {"inv": "np.sum(np.linalg.inv(A + 9.0 * np.eye(A.shape[0])))",
             "solve": "np.sum(np.linalg.solve(A + 9.0 * np.eye(A.shape[0]), A[0]))",
             "det": "np.linalg.det(A + 9.0 * np.eye(A.shape[0]))",
             "cholesky": "np.sum(np.linalg.cholesky(A @ A.T + np.eye(A.shape[0])))"}  # fmt: skip
    out["linalg"] += [solve[n] for n in linalg_solve.SOLVE_FUNCTIONS]
    out["linalg"] += ["np.sum(np.einsum('ij,jk->ik', A, A))"]
    return out


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return [*lines, ""]


def _doc_bullets(path: str, heading: str) -> list[str]:
    """The bullets of section ``## heading`` of a doc page, each joined to one line."""
    text = (ROOT / path).read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    items = re.split(r"\n[-*] ", "\n" + section.strip())
    return [" ".join(i.split()) for i in items if i.strip()]


def _language() -> list[str]:
    lines = ["## Statements and language items", ""]
    lines += _table(("construct", "note"), list(STATEMENTS))
    types = ", ".join(f"`{n}`" for n in SCALAR_NAMES)
    lines += [f"Scalar type names: {types}; arrays as `f64[:]`, `f64[:, ::1]`, `f64[::1, :]`.", ""]
    lines += ["### Not supported (compile errors, with what to write instead)", ""]
    rows = [(what, help or "") for what, help in constructs._CONSTRUCTS.values()]
    rows = list(dict.fromkeys(rows))
    rows += [(f"the operator `{op}`", h) for op, h in constructs._OPERATOR_HELP.items()]
    rows += [(f"the builtin `{b}()`", h) for b, h in constructs._BUILTIN_HELP.items()]
    return lines + _table(("construct", "instead"), rows)


def _builtins_math() -> list[str]:
    lines = ["## Builtins", ""]
    names = ", ".join(f"`{b}()`" for b in lower_calls.SUPPORTED_BUILTINS)
    reds = ", ".join(f"`{b}(a)`" for b in array_reductions.BUILTIN_REDUCTIONS)
    lines += [f"{names}; `range()` as a `for` loop's iterable; {reds} of a 1-D array.", ""]
    lines += ["## `math`", ""]
    rows = []
    for f in ops.MATH_FUNCTIONS.values():
        if f.internal:
            continue
        raises = {"domain": "ValueError", "overflow": "OverflowError"}.get(str(f.check), "")
        if str(f.check) == "pow":
            raises = "ValueError, OverflowError, ZeroDivisionError"
        rows.append((f"`math.{f.name}`", str(f.arity), raises or "never"))
    lines += _table(("function", "arguments", "raises as CPython"), rows)
    consts = ", ".join(f"`math.{c}`" for c in MATH_CONSTANTS)
    return [*lines, f"Constants: {consts}.", ""]


def _numpy_scalar() -> list[str]:
    lines = ["## NumPy functions on scalars", ""]
    lines += [
        "NumPy's semantics on 0-d operands: nothing raises (`np.sqrt(-1.0)` is NaN). "
        "Result dtype per operand dtype:",
        "",
    ]
    rows = []
    for name, fn in numpy_math.NUMPY_FUNCTIONS.items():

        def loop(t: ScalarType, name: str = name, k: int = fn.arity) -> object:
            return numpy_math.result_type(name, [t] * k)

        rows.append((f"`np.{name}`", str(fn.arity), _rule(loop, (F64, F32, I64, I32, I1))))
    lines += _table(("function", "operands", "dtypes"), rows)
    consts = ", ".join(f"`np.{c}`" for c in numpy_math.NUMPY_CONSTANTS)
    convs = ", ".join(f"`np.{n}(x)`" for n in SCALAR_TYPES)
    return [*lines, f"Constants: {consts}. Conversions: {convs}.", ""]


def _ufuncs() -> list[str]:
    lines = ["## Whole-array arithmetic and ufuncs", ""]
    lines += [
        "Operands broadcast as NumPy's; a Python scalar operand is weak (NEP 50). "
        "`np.<ufunc>(..., out=o)` (or `o` as the argument after the operands) writes the "
        "result into the array `o` and returns `o`. "
        "Result dtype per common operand dtype (arrays of "
        + ", ".join(NP_NAMES[t] for t in ARRAY_DTYPES)
        + "):",
        "",
    ]
    forms = _operator_forms()
    rows = []
    for name in _user_ufuncs():
        u = ufuncs.UFUNCS[name]
        spelled = f"`{forms[name]}`, `np.{name}`" if name in forms else f"`np.{name}`"

        def loop(t: ScalarType, name: str = name, k: int = u.arity) -> object:
            return ufuncs.result_type(name, [t] * k)

        rows.append((spelled, _rule(loop, ARRAY_DTYPES)))
    lines += _table(("ufunc", "dtypes"), rows)
    powers = ", ".join(f"`x ** {p:g}` is `np.{u}`" for p, u in FAST_POWERS.items())
    return [*lines, f"For float arrays {powers} (NumPy's `fast_scalar_power`).", ""]


def _reductions() -> list[str]:
    lines = ["## Reductions", ""]
    rows = []
    for name, spec in array_reductions.ARRAY_REDUCTIONS.items():
        forms = f"`np.{name}(a)`" + (f", `a.{name}()`" if spec.method else "")
        kws = ", ".join(f"`{k}=`" for k in _reduction_keywords(name))
        axis = {"tuple": "int, tuple or None", "int": "int or None", "none": "None"}[spec.axes]
        rows.append((forms, kws, axis))
    lines += _table(("reduction", "keywords", "axis"), rows)
    return [*lines, "Other NumPy parameters are compile errors (`out=None` is accepted).", ""]


def _views_construction_linalg() -> list[str]:
    lines = ["## Indexing and views", ""]
    lines += _table(("form", "note"), list(INDEXING))
    lines += _table(("method", "accepts"), [(f"`a.{m}`", d) for m, d in VIEW_METHODS.items()])
    rows = [(f"`np.{n}`", d) for n, d in array_functions.ARRAY_FUNCTIONS.items()]
    rows += [(f"`np.{n}`", d) for n, d in array_grids.GRID_FUNCTIONS.items()]
    rows += [("`np.convolve`", convolve.CONVOLVE_FORM)]
    rows += [(f"`np.{n}`", d) for n, d in array_repeat.REPEAT_FUNCTIONS.items()]
    rows += [(f"`a.{n}`", d) for n, d in array_functions.ARRAY_METHODS.items()]
    rows += [(f"`np.{n}`", d) for n, (_, _, d) in array_reorder.REORDER_FUNCTIONS.items()]
    lines += _table(("array function or method", "accepts"), rows)
    lines += ["## Construction", ""]
    rows = [
        (f"`np.{n}`", ", ".join(ps))
        for n, ps in (lower_calls._NUMPY_ALLOCATORS | {
            n: f.params for n, f in CONSTRUCT_FUNCTIONS.items()}).items()
    ]  # fmt: skip
    lines += _table(("function", "parameters (NumPy's names)"), rows)
    spellings = ", ".join(f"`{s}`" for s in lower_calls._DTYPES)
    lines += [f"dtype spellings (as `np.<name>`, builtins or strings): {spellings}.", ""]
    lines += ["## Linear algebra", ""]
    rows = [(f"`np.{n}`", ", ".join(f.params)) for n, f in LINALG_FUNCTIONS.items()]
    rows += [(f"`np.linalg.{n}`", ", ".join(ps)) for n, (ps, _) in
             linalg_solve.SOLVE_FUNCTIONS.items()]  # fmt: skip
    forms = ", ".join(f"`'{f}'`" for f in einsum.EINSUM_FORMS)
    rows += [("`np.einsum`", f"subscripts (one of {forms}), *operands")]
    lines += _table(("function (1-D and 2-D operands)", "parameters"), rows)
    return [*lines, "`a @ b` is `np.matmul`; `@`/`np.matmul` also of operands of more than 2 "
            "axes (batched, broadcasting the leading axes). Details: "
            "[arrays_linalg.md](arrays_linalg.md).", ""]  # fmt: skip


def _ad() -> list[str]:
    lines = ["## Automatic differentiation", ""]
    kinds = ", ".join(f"`gradc.{k}`" for k in DERIVATIVE_KINDS)
    acts = ", ".join(f"`gradc.{a}`" for a in ACTIVITIES)
    lines += [
        f"Declarations: {kinds}; activities {acts}; `gradc.custom_jvp`/`gradc.custom_vjp`.",
        "",
    ]
    lines += [f"- {line}" for line in AD_NOTES]
    forms = _operator_forms()
    refused = ", ".join(f"`{forms[n]}` (`np.{n}`)" for n in ad_refused())
    if refused:
        lines += [
            f"- Differentiating through {refused} of floats is a compile error (no rule yet)."
        ]
    lines += ["", 'Not yet supported ([ad.md](ad.md) "Not yet supported"):', ""]
    return [*lines, *(f"- {b}" for b in _doc_bullets("docs/ad.md", "Not yet supported")), ""]


#: What differentiates and what is refused (docs/ad.md, compiler/frontend/derivatives.py,
#: custom_rules.py, kernels.py).
AD_NOTES = (
    "Everything on this page that computes floats differentiates, whole-array code "
    'included (lowered to loops before AD, docs/ad.md "Whole-array code"); integers and '
    "bools carry no derivative (comparisons, `int()`, `math.floor` cut it).",
    "`wrt=` (names or positions) or JAX's `argnums=` (positions): float scalars and float "
    "arrays only; an int or bool parameter in `wrt` is a compile error.",
    "`has_aux=True` for `grad` and `value_and_grad` (the function may not write its array "
    "arguments); refused for `jvp`, `vjp`, `hessian`.",
    "Higher order: `grad`/`jvp`/`vjp` of a declaration above (forward-over-reverse), "
    "`gradc.hessian` of f64 scalar and 1-D f64 array parameters, third derivatives; "
    "`gradc.jacfwd`/`jacrev` of f64 and f64-array results by f64 scalar and array "
    "parameters (JAX's layout); `width=k` for `jvp`/`jacfwd` (k tangents per sweep); "
    "functions that write their array arguments are refused.",
    "`gradc.custom_jvp`/`custom_vjp` with `defjvp`/`defvjp`: helpers and exports of f64 "
    "scalar and f64 array parameters (not F-ordered) returning an f64 or an f64 array, "
    "also in imported modules.",
    "Derivatives of `@gradc.kernel` CUDA kernels are a compile error (not built yet).",
)

#: Documented differences from NumPy, by the module whose docstring states them.
DIFFERENCES = (
    ("compiler/ir/broadcasting.py", "Broadcast errors needing more than three run-time sizes "
     "name the two sizes that differ and the axis (`operands could not be broadcast together "
     "(sizes 3 and 4 at axis -1)`) instead of NumPy's full shapes."),
    ("compiler/infer/weak.py", "NEP 50's weak scalars: literals, module constants, "
     "`float()`/`int()`/`math.*` results and an export's `f64`/`i64`/`i32`/`bool` "
     "parameters are Python scalars (an `np.float64` argument is taken as `float(x)`: `f32_array * s` is "
     "float32); `np.float64(x)`, `a[i]`, reductions and NumPy functions' results are NumPy "
     "scalars (`f32_array * a64[0]` is float64). A scalar that may be either (a variable "
     "assigned both, a helper's parameter, a call's result) with an array or in a NumPy "
     "function is a compile error where the two give different dtypes; in a scalar "
     "operator it takes the join (`s = 0.0; s += x32[i]` accumulates in float64, as "
     "Numba does, where NumPy's `s` becomes a float32). An int32 NumPy scalar with a Python int "
     "constant is int32 (`a32[i] + 1`); with a non-constant one (`a32[i] - i`) gradc "
     "computes in int64 as Python would, where NumPy converts the int to int32 (raising "
     "OverflowError if it does not fit) and wraps on overflow: equal values, once stored "
     "back into an int32 array, and without overflow."),
    ("compiler/ir/numpy_math.py", "Float functions of float32 compute in float64 and round: "
     "within 1 ulp of the correctly rounded result, more accurate than NumPy's own float32 "
     "loops (up to 4 ulp from it: `log`, `tan`), so results may differ from NumPy's by up "
     "to 4 ulp (tests/codegen/test_float32_math.py). Float functions of bools are compile "
     "errors (NumPy computes them in float16)."),
    ("compiler/codegen/vexp.py", "`np.exp` (and the `exp` in derivative code) is computed "
     "inline, not by a libm call, so that loops over it vectorise: within 1 ulp of glibc's "
     "`exp` (about 0.5 % of drawn inputs differ by 1 ulp); NumPy's own SIMD `exp` differs from "
     "libm's within 1 ulp too. `math.exp` is libm's."),
    ("compiler/codegen/vlog.py", "`np.log` is computed inline too (compiler/codegen/vlog.py): "
     "within 1 ulp of glibc's `log` (about 2 % of inputs drawn over the whole range differ "
     "by 1 ulp). `math.log` is libm's."),
    ("compiler/ir/ufuncs.py", "The sign of a NaN that an invalid operation makes "
     "(`x % 0.0`, `np.log(-1.0)`, `np.arcsin(2.0)`, `np.power(-2.0, 0.5)` of arrays) may "
     "differ from NumPy's: IEEE 754-2019 (6.3) leaves it unspecified; x86 makes negative "
     "NaNs, gradc's guarded operations return a positive NaN constant. Only "
     "`np.copysign` and `np.signbit` of such a NaN show it (the fuzzer's array oracle "
     "checks both signs, tests/fuzzing/array_oracle.py)."),
    ("passes/arrays/reduce.py", "Float sums add in C order into 4 partial sums, not NumPy's "
     "pairwise blocks: results may differ within `(n/4)·eps·Σ|x|`."),
    ("compiler/infer/rules.py", "Scalars are Python numbers, also where NumPy's are NumPy "
     "scalars (`np.sum(a)`, `np.dot(a, b)`, an element `a[i]`): a scalar `/`, `//` or `%` "
     "by zero raises ZeroDivisionError (as CPython and Numba's default error model do) "
     "where NumPy returns inf/nan with a RuntimeWarning; so does `0.0 ** y` for a negative "
     "`y` (NumPy: inf), a negative float to a fractional power raises ValueError (NumPy: "
     "nan), and an int to a negative int power raises ValueError (CPython: a float; "
     "gradc's ints stay ints). Whole-array division and powers follow NumPy (inf/nan, no "
     "exception)."),
    ("compiler/frontend/ufunc_out.py", "`out=o` of a ufunc whose result does not "
     "broadcast to `o`'s shape raises ValueError with the slice assignment's message "
     "(`could not broadcast input array from shape ...`), not NumPy's `non-broadcastable "
     "output operand ...`; `np.add`, `np.divide` and the other operator ufuncs of two "
     "scalars are the operators (`np.divide(1.0, 0.0)` raises ZeroDivisionError as "
     "`1.0 / 0.0` does)."),
)  # fmt: skip


def _differences() -> list[str]:
    lines = ["## Differences from NumPy", ""]
    lines += [f"- {text} ({src})" for src, text in DIFFERENCES]
    lines += [f"- {b} (docs/arrays_linalg.md)" for b in
              _doc_bullets("docs/arrays_linalg.md", "Differences from NumPy")]  # fmt: skip
    return [*lines, ""]


def render() -> str:
    """The whole page."""
    lines = [
        "# Supported Python and NumPy",
        "",
        "<!-- generated by scripts/gen_supported.py from the compiler's tables: do not edit -->",
        "",
        "What compiled code (`@gradc.export` functions and the helpers they call) accepts. "
        "Anything else is a compile error naming the file, line and construct.",
        "",
    ]
    for part in (_language, _builtins_math, _numpy_scalar, _ufuncs, _reductions,
                 _views_construction_linalg, _ad, _differences):  # fmt: skip
        lines += part()
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write docs/supported.md, or with ``--check`` compare; 1 when stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is stale: run python scripts/gen_supported.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
