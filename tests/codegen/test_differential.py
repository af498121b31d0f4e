"""Differential tests: every export of the corpus, compiled by gradc, against CPython.

The corpus modules (tests/codegen/corpus/*.py) are ordinary Python: ``@gradc.export`` returns the
function unchanged, so importing a module runs it as plain CPython, which is the oracle.
The same file is compiled by gradc (which never imports it) and loaded back.

Exports are discovered by parsing each module with ``ast`` (functions decorated with
``gradc.export`` or ``gradc.export("sig")``), with parameter types taken from the
annotations or the signature string. Inputs are drawn by hypothesis from the parameter
types, narrowed by the module's ``DOMAINS`` dict::

    DOMAINS = {"func": {"param": (lo, hi), "other": "any"}}

``(lo, hi)`` bounds a parameter (inclusive); ``"any"`` lets a float parameter take every
float, NaN and infinities included. Defaults: floats in [-100, 100], ints in [-50, 50],
bools both. Each export also runs on a fixed set of corner inputs (bounds, zeros, ±1).

Comparison:
- CPython raises ZeroDivisionError/ValueError/OverflowError/AssertionError → the compiled
  function raises the same type (any other exception from CPython is a corpus bug), and
  for ZeroDivisionError the same message;
- ints and bools exactly, with the same Python type; tuples elementwise;
- floats equal (or both NaN) — exactly in modules that do not import math, within 1 ulp in
  modules that do (libm may differ in the last bit), within 1e-14 relative for the few
  exports in ``LOOSE`` (CPython computes gamma and lgamma with its own code, not libm);
- an export whose declared result is f32 is compared after rounding both sides to
  float32, within 2 float32 ulps (CPython computes in double, gradc in single precision).
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CORPUS_DIR = Path(__file__).parent / "corpus"

#: Exceptions CPython may raise on a corpus input; gradc must raise the same type.
EXPECTED_ERRORS = (ZeroDivisionError, ValueError, OverflowError, AssertionError)

DEFAULT_FLOAT = (-100.0, 100.0)
DEFAULT_INT = (-50, 50)

#: Exports compared with a relative tolerance instead of 1 ulp: CPython's own gamma and
#: lgamma (mathmodule.c, Lanczos) differ from glibc's by up to ~8 ulp (1.2e-15 relative);
#: lgamma near its roots only to an absolute 1e-16.
LOOSE = {
    "mathfns.gamma_fn": 1e-14,
    "mathfns.lgamma_fn": 1e-14,
    # NumPy's SIMD tanh differs from the C library's by up to 2 ulp (4.4e-16 relative)
    "numpy_scalars.hyperbolic": 5e-16,
}

#: Annotation or signature-string spelling -> gradc scalar type.
TYPE_NAMES = {
    "f64": "f64",
    "float64": "f64",
    "float": "f64",
    "f32": "f32",
    "float32": "f32",
    "i64": "i64",
    "int64": "i64",
    "int": "i64",
    "i32": "i32",
    "int32": "i32",
    "bool": "bool",
    "boolean": "bool",
    "bool_": "bool",
    "b1": "bool",
}

INT_RANGES = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1)}

MAX_CORNERS = 48


# ------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class Export:
    """One exported function of a corpus module, as seen in its source."""

    module: str
    path: Path
    name: str
    params: tuple[tuple[str, str], ...]  # (name, gradc type)
    result: str | None  # declared gradc result type, None when not declared or a tuple
    domains: dict[str, Any] = field(hash=False, compare=False)
    float_mode: str = "exact"  # "exact" | "ulp" | "rel"
    rel_tol: float = 0.0

    @property
    def id(self) -> str:
        return f"{self.module}.{self.name}"

    def domain(self, param: str, ptype: str) -> Any:
        if param in self.domains:
            return self.domains[param]
        if ptype in ("f64", "f32"):
            return DEFAULT_FLOAT
        if ptype in ("i64", "i32"):
            return DEFAULT_INT
        return None


def _type_name(node: ast.expr | None) -> str | None:
    """``f64`` / ``gradc.f64`` / ``"f64"`` / ``float`` -> gradc type; None otherwise."""
    if isinstance(node, ast.Name):
        return TYPE_NAMES.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "gradc":
            return TYPE_NAMES.get(node.attr)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return TYPE_NAMES.get(node.value.strip())
    return None


def _is_export(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return (
            node.attr == "export" and isinstance(node.value, ast.Name) and node.value.id == "gradc"
        )
    return isinstance(node, ast.Name) and node.id == "export"


_SIG_RE = re.compile(r"^\s*(?P<result>[A-Za-z_][A-Za-z0-9_]*)?\s*\((?P<params>.*)\)\s*$")


def parse_signature(text: str) -> tuple[str | None, list[str]]:
    """``"f64(f64, i64)"`` -> ``("f64", ["f64", "i64"])`` (scalar types only)."""
    m = _SIG_RE.match(text)
    if m is None:
        raise ValueError(f"cannot parse signature string {text!r}")
    params = [p.strip() for p in m.group("params").split(",") if p.strip()]
    types = [TYPE_NAMES.get(p) for p in params]
    if None in types:
        raise ValueError(f"unknown type in signature string {text!r}")
    result = TYPE_NAMES.get(m.group("result") or "")
    return result, [t for t in types if t is not None]


def _module_domains(tree: ast.Module, path: Path) -> dict[str, dict[str, Any]]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "DOMAINS" for t in stmt.targets
        ):
            value = ast.literal_eval(stmt.value)
            assert isinstance(value, dict), f"{path}: DOMAINS must be a dict"
            return value
    return {}


def _imports_math(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Import) and any(a.name == "math" for a in node.names)
        for node in ast.walk(tree)
    )


def discover(path: Path) -> list[Export]:
    """Every ``@gradc.export`` function of the module at ``path``, in source order."""
    tree = ast.parse(path.read_text(), filename=str(path))
    domains = _module_domains(tree, path)
    uses_libm = _imports_math(tree)
    exports = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for deco in stmt.decorator_list:
            call = deco if isinstance(deco, ast.Call) else None
            target = call.func if call is not None else deco
            if not _is_export(target):
                continue
            names = [a.arg for a in stmt.args.args]
            if call is not None and call.args:
                sig = call.args[0]
                assert isinstance(sig, ast.Constant) and isinstance(sig.value, str)
                result, types = parse_signature(sig.value)
                assert len(types) == len(names), f"{path}:{stmt.lineno}: arity of signature"
            else:
                types = []
                for a in stmt.args.args:
                    t = _type_name(a.annotation)
                    assert t is not None, f"{path}:{stmt.lineno}: no type for {a.arg!r}"
                    types.append(t)
                result = _type_name(stmt.returns)
            key = f"{path.stem}.{stmt.name}"
            if key in LOOSE:
                mode, rel = "rel", LOOSE[key]
            else:
                mode, rel = ("ulp" if uses_libm else "exact"), 0.0
            exports.append(
                Export(
                    module=path.stem,
                    path=path,
                    name=stmt.name,
                    params=tuple(zip(names, types)),
                    result=result,
                    domains=domains.get(stmt.name, {}),
                    float_mode=mode,
                    rel_tol=rel,
                )
            )
    return exports


CORPUS_FILES = sorted(CORPUS_DIR.glob("*.py"))
EXPORTS = [e for path in CORPUS_FILES for e in discover(path)]


@cache
def load_plain(path: Path) -> ModuleType:
    """Import a corpus module as plain Python (the decorator is inert)."""
    spec = importlib.util.spec_from_file_location(f"gradc_corpus_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------- inputs


def param_strategy(export: Export, name: str, ptype: str) -> st.SearchStrategy[Any]:
    dom = export.domain(name, ptype)
    if ptype == "bool":
        return st.booleans()
    if ptype in ("i64", "i32"):
        lo, hi = dom
        return st.integers(int(lo), int(hi))
    width = 32 if ptype == "f32" else 64
    if dom == "any":
        return st.floats(width=width)
    lo, hi = dom
    return st.floats(float(lo), float(hi), width=width)


def args_strategy(export: Export) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(*(param_strategy(export, n, t) for n, t in export.params))


def _param_corners(export: Export, name: str, ptype: str) -> list[Any]:
    dom = export.domain(name, ptype)
    if ptype == "bool":
        return [False, True]
    if dom == "any":
        return [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan]
    lo, hi = dom
    if ptype in ("i64", "i32"):
        cands = [lo, hi, 0, 1, -1, 2]
    else:
        cands = [float(lo), float(hi), 0.0, -0.0, 1.0, -1.0, 0.5]
    out: list[Any] = []
    for c in cands:
        if lo <= c <= hi and not any(
            c == o and math.copysign(1, c) == math.copysign(1, o) for o in out
        ):
            if ptype == "f32" and float(np.float32(c)) != c:
                continue
            out.append(c)
    return out


def corner_inputs(export: Export) -> list[tuple[Any, ...]]:
    """Bounds, zeros and ±1 of every parameter; a fixed sample when there are many."""
    combos = list(itertools.product(*(_param_corners(export, n, t) for n, t in export.params)))
    if len(combos) > MAX_CORNERS:
        combos = random.Random(export.id).sample(combos, MAX_CORNERS)
    return combos


# ------------------------------------------------------------------------- comparison


def _shape(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_shape(v) for v in value)
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return type(value).__name__


def _floats_match(export: Export, expected: float, actual: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if export.result == "f32":
        e32, a32 = np.float32(expected), np.float32(actual)
        if e32 == a32:
            return True
        return bool(abs(e32 - a32) <= 2 * np.spacing(max(abs(e32), abs(a32))))
    if expected == actual:
        return True
    if math.isinf(expected) or math.isinf(actual) or export.float_mode == "exact":
        return False
    if export.float_mode == "ulp":
        return abs(expected - actual) <= math.ulp(max(abs(expected), abs(actual)))
    return abs(expected - actual) <= export.rel_tol * max(1.0, abs(expected), abs(actual))


def assert_same(export: Export, expected: Any, actual: Any, where: str = "result") -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"{where}: expected a tuple, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: expected {expected!r}, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(export, e, a, f"{where}[{i}]")
    elif isinstance(expected, bool):
        assert type(actual) is bool and actual == expected, (
            f"{where}: expected {expected!r}, got {actual!r}"
        )
    elif isinstance(expected, int):
        assert isinstance(actual, int) and not isinstance(actual, bool), (
            f"{where}: expected int {expected!r}, got {type(actual).__name__} {actual!r}"
        )
        assert actual == expected, f"{where}: expected {expected!r}, got {actual!r}"
    else:
        assert isinstance(expected, float), f"{where}: corpus returned {expected!r}"
        assert isinstance(actual, float), (
            f"{where}: expected float {expected!r}, got {type(actual).__name__} {actual!r}"
        )
        assert _floats_match(export, expected, actual), (
            f"{where}: expected {expected!r}, got {actual!r} ({export.float_mode})"
        )


def run_plain(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except EXPECTED_ERRORS as exc:
        return None, exc


def check_one(export: Export, plain: Callable[..., Any], compiled: Any, args: tuple[Any, ...]):
    expected, error = run_plain(plain, args)
    if error is not None:
        try:
            got = compiled(*args)
        except type(error) as exc:
            # CPython's ZeroDivisionError messages are fixed strings that say which
            # operation on which types failed ("division by zero" for int / int, "float
            # division by zero", "integer modulo by zero", ...): they must match too
            if isinstance(error, ZeroDivisionError) and str(exc) != str(error):
                pytest.fail(
                    f"{export.id}{args!r}: CPython raises ZeroDivisionError({error}), "
                    f"gradc raised ZeroDivisionError({exc})"
                )
            return
        except Exception as exc:
            pytest.fail(
                f"{export.id}{args!r}: CPython raises {type(error).__name__}({error}), "
                f"gradc raised {type(exc).__name__}({exc})"
            )
        pytest.fail(
            f"{export.id}{args!r}: CPython raises {type(error).__name__}({error}), "
            f"gradc returned {got!r}"
        )
    try:
        actual = compiled(*args)
    except Exception as exc:
        pytest.fail(
            f"{export.id}{args!r}: CPython returns {expected!r}, gradc raised "
            f"{type(exc).__name__}({exc})"
        )
    try:
        assert_same(export, expected, actual)
    except AssertionError as exc:
        raise AssertionError(f"{export.id}{args!r}: {exc}") from None


# ------------------------------------------------------------------------- tests


def test_corpus_has_enough_exports() -> None:
    assert len(CORPUS_FILES) >= 6
    assert len(EXPORTS) >= 70, f"only {len(EXPORTS)} exports found"
    assert len({e.id for e in EXPORTS}) == len(EXPORTS)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_domains_name_real_parameters(path: Path) -> None:
    exports = {e.name: e for e in discover(path)}
    tree = ast.parse(path.read_text())
    for fname, params in _module_domains(tree, path).items():
        assert fname in exports, f"DOMAINS names {fname!r}, which is not an export"
        types = dict(exports[fname].params)
        for pname, dom in params.items():
            assert pname in types, f"DOMAINS[{fname!r}] names unknown parameter {pname!r}"
            t = types[pname]
            if dom == "any":
                assert t in ("f64", "f32"), f"{fname}.{pname}: 'any' is for floats"
                continue
            lo, hi = dom
            assert lo <= hi, f"{fname}.{pname}: empty domain"
            if t in INT_RANGES:
                assert isinstance(lo, int) and isinstance(hi, int), f"{fname}.{pname}"
                assert INT_RANGES[t][0] <= lo and hi <= INT_RANGES[t][1]


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.id)
def test_corpus_runs_under_cpython(export: Export) -> None:
    """The oracle itself: plain CPython returns one consistent type or raises cleanly."""
    fn = getattr(load_plain(export.path), export.name)
    shapes: set[Any] = set()

    def run(args: tuple[Any, ...]) -> None:
        value, error = run_plain(fn, args)
        if error is not None:
            return
        shape = _shape(value)
        shapes.add(shape)
        assert len(shapes) == 1, f"{export.id}{args!r}: result types vary: {shapes}"
        declared = {"f64": "float", "f32": "float", "i64": "int", "i32": "int", "bool": "bool"}
        if export.result is not None:
            assert shape == declared[export.result], f"{export.id}{args!r} -> {value!r}"
        for leaf in _leaves(value):
            if isinstance(leaf, int) and not isinstance(leaf, bool):
                lo, hi = INT_RANGES["i32" if export.result == "i32" else "i64"]
                assert lo <= leaf <= hi, f"{export.id}{args!r}: int result overflows"

    for args in corner_inputs(export):
        run(args)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(args=args_strategy(export))
    def drawn(args: tuple[Any, ...]) -> None:
        run(args)

    drawn()


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.id)
def test_matches_cpython(export: Export, compile_module: Callable[[Path], Any]) -> None:
    plain = getattr(load_plain(export.path), export.name)
    library = compile_module(export.path)
    compiled = getattr(library, export.name)

    for args in corner_inputs(export):
        check_one(export, plain, compiled, args)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(args=args_strategy(export))
    def drawn(args: tuple[Any, ...]) -> None:
        check_one(export, plain, compiled, args)

    drawn()
