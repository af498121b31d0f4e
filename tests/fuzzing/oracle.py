"""Oracles for one generated module: CPython for values and exceptions, finite differences
and forward-vs-reverse for derivatives.

``check_source(source, workdir)`` compiles the module through the real pipeline
(``build_module`` -> ``write_artifact`` -> ``gradc.load``), runs the same source as plain
CPython, and returns a :class:`Report`: one outcome class (the worst of its findings) and
the findings. Outcome classes, worst first (``CLASSES``):

* ``crash`` / ``timeout``: set by the runner (``tests/fuzzing/runner.py``), never here;
* ``ice``: the compiler raised something other than ``CompileError``;
* ``primal_value``: an export returned another value, or left its array arguments in
  another state, than CPython (ints and bools exactly and of the same type; floats
  exactly, or within ``MATH_RTOL`` in modules calling ``math`` or ``**``: libm and
  compiled code may differ in the last bits, loops amplify it);
* ``primal_exc``: another exception type or message than CPython, or an exception where
  CPython returns (or a value where it raises);
* ``deriv_raises``: a derivative export raises where the function returns a value;
* ``deriv_exc``: a derivative export raises another exception than the function (or
  returns where the function raises);
* ``deriv_value``: the value returned by a jvp/value_and_grad export is not the function's;
* ``nan_grad``: a non-finite derivative where the other mode and finite differences agree
  on a finite value;
* ``fwd_rev``: the dot-product test fails: <reverse gradient, v> != jvp(v);
* ``ad_fd``: forward and reverse agree with each other but not with finite differences
  at a point where finite differences at two step sizes agree (a smooth point), and no
  float intermediate of CPython's run exceeds ``MAX_DIFF_VALUE`` (one that does may
  absorb the rest: ``x + 1e35 - 1e35`` is flat in x, its derivative 1);
* ``oracle_error``: the fuzzer itself failed on the module (a bug here, not in gradc);
* ``compile_error``: a clear ``CompileError`` (counted by construct, ``Report.detail``);
* ``ok``.

CPython is run on an instrumented copy of the source (``instrument``): array element
reads become Python floats (gradc's f64 has Python float semantics, NumPy scalars do
not: ``np.float64(1) / 0.0`` is inf, not ZeroDivisionError), and every integer result
outside int64 raises ``IntOverflow`` (gradc's ints wrap; such inputs are skipped, as are
results CPython computes as complex numbers, or overflows computing them: documented
ValueErrors in gradc).
"""

from __future__ import annotations

import ast
import math
import os
import re
import shutil
import sys
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.fuzzing.smoothness import kink_at

os.environ.setdefault("GRADC_PLAIN_PYTHON", "1")

CLASSES = (
    "crash",
    "timeout",
    "ice",
    "primal_value",
    "primal_exc",
    "deriv_raises",
    "deriv_exc",
    "deriv_value",
    "nan_grad",
    "fwd_rev",
    "ad_fd",
    "oracle_error",
    "compile_error",
    "ok",
)
#: The classes that are compiler bugs (``oracle_error`` is a bug of the fuzzer itself).
FAILURES = CLASSES[: CLASSES.index("oracle_error")]

#: Inputs drawn per export.
N_INPUTS = 3
#: Float tolerance of primal values in modules using math or ** (relative).
MATH_RTOL = 1e-9
#: Finite differences: two steps; a point where they disagree is treated as non-smooth.
FD_STEPS = (1e-6, 1e-4)
FD_RTOL = 1e-6
FD_ATOL = 1e-6
#: The two central differences must agree this well for the point to count as smooth.
SMOOTH_RTOL = 1e-4
#: An AD/FD disagreement that vanishes this far away along v is at the point only.
ISOLATED_STEP = 1e-8
#: Finer central differences that decide whether FD_STEPS had converged (_fd_unresolved).
FINE_STEPS = (1e-7, 1e-8)
#: One-sided differences (error O(h)) at the small step must agree this well.
ONE_SIDED_RTOL = 1e-3
#: Dot-product test tolerance (relative to the magnitude of the summed terms).
DOT_RTOL = 1e-7
#: The same where float32 values take part: the two modes round each in float32 (eps
#: 1.2e-7) in other orders, and a solve or a long sum multiplies that (seed 630036:
#: ``np.linalg.solve`` of a float32 matrix, jvp and grad 9e-5 apart, relative).
F32_DOT_RTOL = 1e-3
#: Primal values larger than this are not differentiated (FD is meaningless there).
MAX_DIFF_VALUE = 1e8
#: A float intermediate of CPython's run beyond ``CANCEL_RATIO * max(1, |result|)`` makes
#: forward vs reverse no oracle either: the chain rule's terms then carry rounding errors of
#: ~eps * intermediate, more than DOT_RTOL of the result's scale once the intermediate is
#: past DOT_RTOL / eps of it, and the two modes add those terms in different orders (JAX's
#: grad and jvp disagree the same way: tests/fuzzing/corpus/fwd_rev_cancellation_930343.py).
CANCEL_RATIO = DOT_RTOL / sys.float_info.epsilon
INT64 = (-(2**63), 2**63 - 1)


@dataclass
class Finding:
    cls: str
    where: str
    detail: str


@dataclass
class Report:
    outcome: str = "ok"
    findings: list[Finding] = field(default_factory=list)
    detail: str = ""  # compile error / ICE message
    calls: int = 0
    deriv_checks: int = 0
    skipped: int = 0

    def add(self, cls: str, where: str, detail: str) -> None:
        self.findings.append(Finding(cls, where, detail[:2000]))
        if CLASSES.index(cls) < CLASSES.index(self.outcome):
            self.outcome = cls

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Report:
        r = Report(**{k: v for k, v in data.items() if k != "findings"})
        r.findings = [Finding(**f) for f in data.get("findings", [])]
        return r

    def key(self) -> str:
        """The failure's identity for minimization and de-duplication: the class, plus
        the exception type for ICEs and the derivative flavour for derivative classes."""
        if self.outcome in ("ice", "compile_error"):
            return f"{self.outcome}:{normalize_message(self.detail)}"
        if not self.findings:
            return self.outcome
        first = next(f for f in self.findings if f.cls == self.outcome)
        flavour = first.where.split(":")[0]
        return f"{self.outcome}:{flavour}"


def normalize_message(text: str) -> str:
    """An error message without the names and numbers that vary between programs (IR
    values, blocks, functions, source positions), so equal causes compare equal."""
    text = re.sub(r"`[^`]*`", "_", text)
    text = re.sub(r"[@^%][\w.$-]+", "_", text)
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\d+", "N", text)
    text = re.sub(r"\{[^}]*\}", "{}", text)
    return text[:160]


# ------------------------------------------------------------------ CPython side


class IntOverflow(Exception):
    """An int result outside int64 (gradc wraps; the input is skipped)."""


#: The largest magnitude of a float arithmetic result in the current CPython call.
_LARGEST = [0.0]


def _ck(value: Any) -> Any:
    if type(value) is int and not INT64[0] <= value <= INT64[1]:
        raise IntOverflow(value)
    if isinstance(value, complex):
        raise IntOverflow("complex")
    if type(value) is float and abs(value) > _LARGEST[0] and math.isfinite(value):
        _LARGEST[0] = abs(value)
    return value


def _el(value: Any) -> Any:
    return float(value) if isinstance(value, np.floating) else value


def _it(arr: Any) -> Any:
    return (float(v) for v in arr)


class _Instrument(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        return _wrap("__ck", node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return _wrap("__ck", node) if isinstance(node.op, ast.USub) else node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in ("int", "abs", "floor", "ceil", "trunc", "pow", "min", "max"):
            return _wrap("__ck", node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and not (
            isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
        ):
            return _wrap("__el", node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.target, ast.Name):
            load = ast.Name(node.target.id, ast.Load())
            value = _wrap("__ck", ast.BinOp(load, node.op, node.value))
            return ast.copy_location(ast.Assign([node.target], value), node)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.iter, ast.Name):
            node.iter = _wrap("__it", node.iter)
        return node


def _wrap(fn: str, arg: ast.expr) -> ast.expr:
    return ast.copy_location(ast.Call(ast.Name(fn, ast.Load()), [arg], []), arg)


def instrument(source: str) -> ast.Module:
    """The source's AST with the oracle's checks (see the module docstring)."""
    tree = ast.parse(source)
    tree = _Instrument().visit(tree)
    return ast.fix_missing_locations(tree)


def load_plain(source: str, name: str) -> dict[str, Any]:
    """Run the instrumented module as plain CPython; return its namespace."""
    ns: dict[str, Any] = {"__name__": name, "__ck": _ck, "__el": _el, "__it": _it}
    exec(compile(instrument(source), f"<{name}>", "exec"), ns)
    return ns


# ------------------------------------------------------------------ module description


@dataclass(frozen=True)
class Decl:
    name: str
    kind: str  # grad | value_and_grad | vjp | jvp
    target: str
    wrt: tuple[str, ...]
    single: bool


def describe(source: str) -> tuple[dict[str, dict[str, Any]], list[Decl]]:
    """The ``FUZZ`` input table and the derivative declarations of a module."""
    tree = ast.parse(source)
    fuzz: dict[str, dict[str, Any]] = {}
    decls: list[Decl] = []
    exports = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.decorator_list:
            exports.add(stmt.name)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id == "FUZZ":
            fuzz = ast.literal_eval(stmt.value)
        call = stmt.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "gradc"
            and isinstance(target, ast.Name)
        ):
            wrt_node = next(kw.value for kw in call.keywords if kw.arg == "wrt")
            wrt = ast.literal_eval(wrt_node)
            single = isinstance(wrt, str)
            fn = call.args[0]
            assert isinstance(fn, ast.Name)
            decls.append(
                Decl(target.id, call.func.attr, fn.id, (wrt,) if single else tuple(wrt), single)
            )
    fuzz = {k: v for k, v in fuzz.items() if k in exports}
    decls = [d for d in decls if d.target in fuzz]
    return fuzz, decls


# ------------------------------------------------------------------ inputs


def fixed_inputs(source: str) -> dict[str, list[tuple[Any, ...]]]:
    """The optional ``FUZZ_INPUTS = {export: [args, ...]}`` table of a module (arrays as
    nested lists): inputs checked before the drawn ones (hand-reduced reproducers)."""
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "FUZZ_INPUTS" for t in stmt.targets
        ):
            return ast.literal_eval(stmt.value)
    return {}


def _fixed_args(spec: dict[str, Any], values: tuple[Any, ...]) -> list[Any]:
    out: list[Any] = []
    for t, value in zip(spec.values(), values):
        if isinstance(t, tuple):
            out.append(
                ArrayArg(np.array(value, dtype=float).reshape(t[1]), "F" if t[2] == "F" else "C")
            )
        else:
            out.append(value)
    return out


@dataclass
class ArrayArg:
    values: np.ndarray  # C order
    how: str  # C | F | S (a strided view into a bigger buffer)

    def make(self) -> np.ndarray:
        if self.how == "F":
            return np.asfortranarray(self.values.copy())
        if self.how == "S":
            big = np.full(tuple(2 * n for n in self.values.shape), np.nan)
            view = big[tuple(slice(None, None, 2) for _ in self.values.shape)]
            view[...] = self.values
            return view
        return self.values.copy()


def draw_inputs(spec: dict[str, Any], rng: np.random.Generator) -> list[Any]:
    out: list[Any] = []
    for t in spec.values():
        if t == "f64":
            out.append(
                float(np.round(rng.uniform(-2.0, 2.0), 4))
                if rng.random() < 0.9
                else float(rng.choice([0.0, 1.0, -1.0]))
            )
        elif t == "i64":
            out.append(int(rng.integers(-3, 8)))
        elif t == "bool":
            out.append(bool(rng.random() < 0.5))
        else:
            _, shape, layout = t
            vals = rng.uniform(-2.0, 2.0, size=shape)
            how = {"C": "C", "F": "F"}.get(layout) or str(rng.choice(["C", "F", "S"]))
            out.append(ArrayArg(vals, how))
    return out


def materialize(args: list[Any]) -> list[Any]:
    return [a.make() if isinstance(a, ArrayArg) else a for a in args]


# ------------------------------------------------------------------ comparison


def _same(expected: Any, actual: Any, rtol: float) -> str | None:
    """None if equal under the oracle's rules, else a description of the difference."""
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            return f"expected {expected!r}, got {actual!r}"
        for e, a in zip(expected, actual):
            d = _same(e, a, rtol)
            if d:
                return d
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray) or actual.shape != expected.shape:
            return f"expected array {expected!r}, got {actual!r}"
        for e, a in zip(expected.ravel().tolist(), actual.ravel().tolist()):
            d = _same(e, a, rtol)
            if d:
                return f"arrays differ: {d}"
        return None
    if type(expected) is not type(actual):
        return f"expected {type(expected).__name__} {expected!r}, got {type(actual).__name__} {actual!r}"
    if isinstance(expected, float):
        if math.isnan(expected) or math.isnan(actual):
            return (
                None
                if math.isnan(expected) and math.isnan(actual)
                else f"expected {expected!r}, got {actual!r}"
            )
        if expected == actual:
            return None
        if rtol and not (math.isinf(expected) or math.isinf(actual)):
            if abs(expected - actual) <= rtol * max(1.0, abs(expected), abs(actual)):
                return None
        return f"expected {expected!r}, got {actual!r}"
    return None if expected == actual else f"expected {expected!r}, got {actual!r}"


def _call(fn: Callable[..., Any], args: list[Any]) -> tuple[Any, BaseException | None, list[Any]]:
    live = materialize(args)
    try:
        return fn(*live), None, live
    except IntOverflow:
        raise
    except OverflowError as exc:
        if str(exc) == "complex exponentiation":  # a complex result that overflowed
            raise IntOverflow("complex") from None
        return None, exc, live
    except Exception as exc:
        return None, exc, live


def _exc(e: BaseException) -> str:
    return f"{type(e).__name__}({e})"


def _fmt_args(args: list[Any]) -> str:
    parts = []
    for a in args:
        if isinstance(a, ArrayArg):
            parts.append(f"np.array({a.values.tolist()!r}) [{a.how}]")
        else:
            parts.append(repr(a))
    return "(" + ", ".join(parts) + ")"


# ------------------------------------------------------------------ the check


def compile_source(source: str, workdir: Path, name: str, opt_level: int) -> tuple[Any, Report]:
    """Build and load the module; the report says compile_error/ice when that fails."""
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    report = Report()
    path = workdir / f"{name}.py"
    path.write_text(source)
    try:
        out = build_module(path, CompilerOptions(opt_level=opt_level))
    except CompileError as exc:
        report.outcome = "compile_error"
        report.detail = _compile_error_construct(str(exc))
        return None, report
    except Exception as exc:
        report.outcome = "ice"
        tb = traceback.format_exception(exc)
        report.detail = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        report.findings.append(Finding("ice", "compile", "".join(tb[-6:])[:3000]))
        return None, report
    art = workdir / f"{name}.gradc"
    if art.exists():
        shutil.rmtree(art)
    write_artifact(art, out)
    return gradc.load(art), report


def _compile_error_construct(message: str) -> str:
    """The construct a CompileError names (its first line without the location)."""
    first = message.strip().splitlines()[0] if message.strip() else "?"
    # "file:line:col: message" -> message
    parts = first.split(": ", 1)
    return parts[1] if len(parts) == 2 and ":" in parts[0] else first


def check_source(
    source: str, workdir: Path, *, name: str = "fz", opt_level: int = 2, input_seed: int = 0
) -> Report:
    """Compile, load and check one module against the oracles (see the module docstring)."""
    lib, report = compile_source(source, workdir, name, opt_level)
    if lib is None:
        return report
    try:
        ns = load_plain(source, name)
    except Exception as exc:
        report.skipped += 1
        report.detail = f"plain module failed: {_exc(exc)}"
        return report
    fuzz, decls = describe(source)
    rtol = MATH_RTOL if ("math." in source or "**" in source) else 0.0
    fixed = fixed_inputs(source)
    for export, spec in fuzz.items():
        rng = np.random.default_rng([input_seed, sum(map(ord, export))])
        drawn = [draw_inputs(spec, rng) for _ in range(N_INPUTS)]
        for args in [_fixed_args(spec, a) for a in fixed.get(export, [])] + drawn:
            try:
                _check_input(
                    report,
                    lib,
                    ns,
                    export,
                    args,
                    [d for d in decls if d.target == export],
                    rtol,
                    rng,
                )
            except IntOverflow:
                report.skipped += 1
    return report


def _check_input(
    report: Report,
    lib: Any,
    ns: dict[str, Any],
    export: str,
    args: list[Any],
    decls: list[Decl],
    rtol: float,
    rng: np.random.Generator,
) -> None:
    where = f"{export}{_fmt_args(args)}"
    _LARGEST[0] = 0.0
    expected, e_exc, e_live = _call(ns[export], args)
    # an intermediate beyond MAX_DIFF_VALUE can absorb the rest (x + 1e35 - 1e35 is flat
    # in x): finite differences are no oracle there, forward vs reverse still is
    largest = _LARGEST[0]
    fd_meaningful = largest <= MAX_DIFF_VALUE
    compiled = getattr(lib, export)
    actual, a_exc, a_live = _call(compiled, args)
    report.calls += 2
    if e_exc is not None and not isinstance(
        e_exc, (ValueError, ZeroDivisionError, OverflowError, AssertionError, IndexError)
    ):
        report.skipped += 1  # CPython raised something outside the subset (a generator bug)
        return
    if e_exc is not None or a_exc is not None:
        if e_exc is None:
            report.add(
                "primal_exc",
                f"primal:{where}",
                f"CPython returns {expected!r}, gradc raises {_exc(a_exc)}",
            )
            return
        if a_exc is None:
            report.add(
                "primal_exc",
                f"primal:{where}",
                f"CPython raises {_exc(e_exc)}, gradc returns {actual!r}",
            )
            return
        if type(e_exc) is not type(a_exc) or str(e_exc) != str(a_exc):
            report.add(
                "primal_exc",
                f"primal:{where}",
                f"CPython raises {_exc(e_exc)}, gradc raises {_exc(a_exc)}",
            )
            return
    else:
        diff = _same(expected, actual, rtol)
        if diff is None:
            for i, (e, a) in enumerate(zip(e_live, a_live)):
                if isinstance(e, np.ndarray):
                    d = _same(e, a, rtol)
                    if d:
                        diff = f"argument {i} after the call: {d}"
                        break
        if diff is not None:
            report.add("primal_value", f"primal:{where}", diff)
            return
    groups: dict[tuple[str, ...], list[Decl]] = {}
    for decl in decls:
        groups.setdefault(decl.wrt, []).append(decl)
    names = list(ns[export].__code__.co_varnames[: len(args)])
    for _wrt, group in groups.items():
        _check_group(
            report,
            lib,
            compiled,
            group,
            args,
            names,
            expected,
            e_exc,
            rng,
            where,
            fd_meaningful,
            largest,
        )


def _direction(args: list[Any], idx: list[int], rng: np.random.Generator) -> list[Any]:
    out = []
    for i in idx:
        a = args[i]
        out.append(
            rng.normal(size=a.values.shape) if isinstance(a, ArrayArg) else float(rng.normal())
        )
    return out


def _shift(args: list[Any], idx: list[int], v: list[Any], h: float) -> list[Any]:
    out = list(args)
    for i, d in zip(idx, v):
        a = args[i]
        out[i] = ArrayArg(a.values + h * d, a.how) if isinstance(a, ArrayArg) else a + h * d
    return out


def _fd(
    compiled: Any, args: list[Any], idx: list[int], v: list[Any], value: float
) -> list[float] | None:
    """Central differences along v at the two FD_STEPS, or None where the primal raises
    or is not smooth: the two central differences disagree, or the one-sided ones at the
    small step do (a symmetric kink such as ``abs`` at 0 fools central differences)."""
    out = []
    scale = max(1.0, abs(value))
    for h in FD_STEPS:
        fp, ep, _ = _call(compiled, _shift(args, idx, v, h))
        fm, em, _ = _call(compiled, _shift(args, idx, v, -h))
        if ep or em or not isinstance(fp, float) or not math.isfinite(fp) or not math.isfinite(fm):
            return None
        out.append((fp - fm) / (2 * h))
        if h == FD_STEPS[0]:
            forward, backward = (fp - value) / h, (value - fm) / h
            if (
                abs(forward - backward)
                > ONE_SIDED_RTOL * max(abs(forward), abs(backward)) + FD_ATOL * 10 * scale
            ):
                return None
    if abs(out[0] - out[1]) > SMOOTH_RTOL * max(abs(out[0]), abs(out[1])) + FD_ATOL * scale:
        return None
    return out


def _dot(grads: list[Any], v: list[Any]) -> tuple[float, float]:
    total, mag = 0.0, 0.0
    for g, d in zip(grads, v):
        terms = np.asarray(g, dtype=float) * np.asarray(d)
        total += float(np.sum(terms))
        mag += float(np.sum(np.abs(terms)))
    return total, mag


def _finite(x: Any) -> bool:
    return bool(np.all(np.isfinite(np.asarray(x, dtype=float))))


def _fd_unresolved(
    compiled: Any,
    args: list[Any],
    idx: list[int],
    v: list[Any],
    ad: float,
    coarse: float,
    value: float,
    scale: float,
) -> bool:
    """Whether FD's estimate ``coarse`` (at FD_STEPS) has not converged and the central
    differences at FINE_STEPS approach the derivative ``ad``: the two FD_STEPS can agree
    with each other and both be off where the function turns on a scale near them
    (``cos(a * cosh(1/log(|a| + 0.5)))`` at a = -0.589 turns ~4 rad per 1e-6 of a,
    corpus/ad_fd_unresolved_fd_940455.py). The finest difference's truncation error is
    about a hundredth of the gap between the two fine ones (it shrinks as h**2; a tenth
    is allowed); its rounding error about eps * |f| / h. A wrong rule stays a finding: FD
    converges to the function's derivative, not to the rule's."""
    fine: list[float] = []
    for h in FINE_STEPS:
        fp, ep, _ = _call(compiled, _shift(args, idx, v, h))
        fm, em, _ = _call(compiled, _shift(args, idx, v, -h))
        if ep or em or not isinstance(fp, float) or not (math.isfinite(fp) and math.isfinite(fm)):
            return False
        fine.append((fp - fm) / (2 * h))
    finest = fine[-1]
    if _close(finest, coarse, scale):
        return False  # FD had converged at FD_STEPS: the disagreement is AD's
    rounding = 4 * sys.float_info.epsilon * max(abs(value), 1.0) / FINE_STEPS[-1]
    return abs(finest - ad) <= abs(fine[0] - finest) / 10 + rounding + FD_ATOL * scale


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= FD_RTOL * max(abs(a), abs(b)) + FD_ATOL * scale


def _check_group(
    report: Report,
    lib: Any,
    compiled: Any,
    group: list[Decl],
    args: list[Any],
    names: list[str],
    value: Any,
    p_exc: BaseException | None,
    rng: np.random.Generator,
    where: str,
    fd_meaningful: bool = True,
    largest: float = 0.0,
    dot_rtol: float = DOT_RTOL,
) -> None:
    """Check the derivative declarations of one export sharing one wrt set at one input
    (``fd_meaningful``: see :func:`_verdict`'s ``fd_values``; ``largest``: the largest float
    intermediate of CPython's run, see :data:`CANCEL_RATIO`; ``dot_rtol``: the forward vs
    reverse tolerance, :data:`F32_DOT_RTOL` where float32 values take part)."""
    idx = [names.index(w) for w in group[0].wrt]
    v = _direction(args, idx, rng)
    ct = float(rng.uniform(0.5, 2.0))
    fd: list[float] | None = None
    fd_done = False
    fwd: list[tuple[float, float, str]] = []
    rev: list[tuple[float, float, str]] = []
    for decl in group:
        tagged = f"{decl.kind}:{decl.name}{where[where.index('(') :]}"
        report.deriv_checks += 1
        res, d_exc = _call_decl(lib, decl, args, idx, v, ct)
        if p_exc is not None:
            if d_exc is None:
                report.add(
                    "deriv_exc",
                    tagged,
                    f"the function raises {_exc(p_exc)}, the derivative returns {res!r}",
                )
            elif type(d_exc) is not type(p_exc) or str(d_exc) != str(p_exc):
                report.add(
                    "deriv_exc",
                    tagged,
                    f"the function raises {_exc(p_exc)}, the derivative raises {_exc(d_exc)}",
                )
            continue
        if d_exc is not None:
            report.add(
                "deriv_raises",
                tagged,
                f"the function returns {value!r}, the derivative raises {_exc(d_exc)}",
            )
            continue
        if not isinstance(value, float) or not math.isfinite(value) or abs(value) > MAX_DIFF_VALUE:
            report.skipped += 1
            continue
        ad, mag, val = _reading(decl, res, v, ct)
        if val is not None and _same(value, val, MATH_RTOL):
            report.add(
                "deriv_value",
                tagged,
                f"the function returns {value!r}, the derivative export {val!r}",
            )
        if not fd_done:
            fd_done = True
            fd = _fd(compiled, args, idx, v, value)  # None: no FD verdict here
        (fwd if decl.kind == "jvp" else rev).append((ad, mag, tagged))
    if fwd or rev:
        scale = max(1.0, abs(value)) if isinstance(value, float) else 1.0
        finite = [math.isfinite(e[0]) for e in fwd + rev]
        kink = (
            fd is None
            and any(finite)
            and not all(finite)
            and kink_at(lambda h: _call(compiled, _shift(args, idx, v, h))[:2], value, scale)
        )
        first = next(d for d in group if d.kind == "jvp") if fwd else group[0]

        def isolated() -> bool:
            if fd is None:
                return False
            ad = (fwd or rev)[0][0]
            return _fd_unresolved(compiled, args, idx, v, ad, fd[0], value, scale) or _isolated(
                lib, first, args, idx, v, ct, fd[0], scale
            )

        modes = largest <= CANCEL_RATIO * scale
        _verdict(report, fwd, rev, fd, scale, fd_meaningful, kink, isolated, modes, dot_rtol)


def _call_decl(
    lib: Any, decl: Decl, args: list[Any], idx: list[int], v: list[Any], ct: float
) -> tuple[Any, Exception | None]:
    """Call derivative export ``decl`` at ``args`` (direction ``v``, cotangent ``ct``):
    its result and exception."""
    extra: list[Any] = [ct] if decl.kind == "vjp" else []
    if decl.kind == "jvp":
        # tangents in their parameter's layout (an F parameter takes an F tangent)
        extra = [
            ArrayArg(d, "F" if args[i].how == "F" else "C").make()
            if isinstance(d, np.ndarray)
            else d
            for i, d in zip(idx, v)
        ]
    live = materialize(args) + [
        e.copy(order="K") if isinstance(e, np.ndarray) else e for e in extra
    ]
    try:
        return getattr(lib, decl.name)(*live), None
    except Exception as exc:
        return None, exc


def _reading(decl: Decl, res: Any, v: list[Any], ct: float) -> tuple[float, float, Any]:
    """The directional derivative along ``v`` that derivative export ``decl`` returned
    (NaN if any part is not finite), the magnitude of its terms, and the primal value it
    returned beside (None for grad and vjp)."""
    val = None
    if decl.kind == "jvp":
        val, tangent = res
        return float(tangent), abs(float(tangent)), val
    if decl.kind == "value_and_grad":
        val, g = res
        derivs = [g] if decl.single else list(g)
    else:
        derivs = [res] if decl.single else list(res)
    if decl.kind == "vjp":
        derivs = [np.asarray(d, dtype=float) / ct for d in derivs]
    ad, mag = _dot(derivs, v)
    if not all(_finite(d) for d in derivs):
        ad = math.nan
    return ad, mag, val


def _isolated(
    lib: Any,
    decl: Decl,
    args: list[Any],
    idx: list[int],
    v: list[Any],
    ct: float,
    fd: float,
    scale: float,
) -> bool:
    """Whether derivative export ``decl`` disagrees with the finite difference ``fd`` at
    the point only: at ``x ± ISOLATED_STEP·v`` it agrees.

    AD applies the chain rule, which holds only where every intermediate is
    differentiable; at a point where one is not (a jump of ``np.copysign(1, x)`` or
    ``np.sign`` at an input of exactly 0, a tie of ``np.fmax``) AD returns the derivative
    of the branch taken, which may differ from the function's where the function is
    smooth nonetheless (``fmax(exp(x), copysign(1, x))`` is ``exp(x)`` near 0: derivative
    1, the tie gives copysign's 0). Such points are a set of measure zero (Kakade & Lee,
    "Provably correct automatic subdifferentiation", 2018); JAX, PyTorch and any other
    AD return the same there. A wrong rule is wrong on an interval, so its neighbours
    disagree too and the finding stays."""
    for sign in (1.0, -1.0):
        res, exc = _call_decl(lib, decl, _shift(args, idx, v, sign * ISOLATED_STEP), idx, v, ct)
        if exc is not None:
            return False
        ad = _reading(decl, res, v, ct)[0]
        if not (math.isfinite(ad) and _close(ad, fd, scale)):
            return False
    return True


def _verdict(
    report: Report,
    fwd: list[tuple[float, float, str]],
    rev: list[tuple[float, float, str]],
    fd: list[float] | None,
    scale: float,
    fd_values: bool = True,
    kink: bool = False,
    isolated: Callable[[], bool] | None = None,
    modes: bool = True,
    dot_rtol: float = DOT_RTOL,
) -> None:
    """Classify forward/reverse/FD (dis)agreement for one wrt set at one input. Without
    ``fd_values`` (a huge intermediate may have absorbed the rest) a finite FD still makes
    a non-finite derivative a ``nan_grad``, but its value is no ``ad_fd`` verdict. With
    ``kink`` (the primal has no derivative at the point: ``smoothness.kink_at``) a
    non-finite derivative beside a finite one is no finding; where ``isolated()`` (AD
    disagrees with FD at the point only: :func:`_isolated`) an ``ad_fd`` is none. Without
    ``modes`` (an intermediate past :data:`CANCEL_RATIO`) two finite derivatives that
    differ are no ``fwd_rev``; each is still compared with FD where FD is meaningful."""

    def fd_ok(x: float) -> bool:
        return fd is not None and math.isfinite(x) and _close(x, fd[0], scale)

    pairs = (
        [(f, r) for f in fwd for r in rev] or [(e, None) for e in fwd] or [(None, e) for e in rev]
    )
    for f, r in pairs:
        entries = [e for e in (f, r) if e is not None]
        bad = [e for e in entries if not math.isfinite(e[0])]
        good = [e for e in entries if math.isfinite(e[0])]
        if bad:
            if any(fd_ok(e[0]) for e in good) or (not good and fd is not None):
                report.add(
                    "nan_grad",
                    bad[0][2],
                    f"non-finite derivative {bad[0][0]!r}; other mode {[e[0] for e in good]!r}, FD {fd!r}",
                )
            elif good and not kink:
                report.add("fwd_rev", bad[0][2], f"{bad[0][0]!r} vs {good[0][0]!r} (FD {fd!r})")
            continue
        if f is not None and r is not None:
            t, tmag, _ttag = f
            rv, rmag, rtag = r
            if abs(t - rv) > dot_rtol * (tmag + rmag) + 1e-12 * scale and modes:
                which = ""
                if fd is not None:
                    which = (
                        " (FD agrees with "
                        + ("jvp" if fd_ok(t) else "grad" if fd_ok(rv) else "neither")
                        + ")"
                    )
                report.add("fwd_rev", rtag, f"jvp {t!r} vs <grad, v> {rv!r}, FD {fd!r}{which}")
                continue
        if (
            fd is not None
            and fd_values
            and not fd_ok(entries[0][0])
            and not (isolated is not None and isolated())
        ):
            report.add(
                "ad_fd",
                entries[-1][2],
                f"derivative {[e[0] for e in entries]!r} (forward/reverse agree); FD {fd[0]!r} (h={FD_STEPS[0]}), {fd[1]!r} (h={FD_STEPS[1]})",
            )


def run_checks(source: str, workdir: Path, **kw: Any) -> Report:
    """:func:`check_source`, the entry point (kept for the runner's import)."""
    return check_source(source, workdir, **kw)
