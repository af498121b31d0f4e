"""Differential tests for arrays: every export of tests/codegen/corpus_arrays/, compiled by gradc,
against CPython + NumPy.

The corpus modules are ordinary Python (``@gradc.export`` is inert, ``f64[:]`` is an
inert annotation), so the plain function run by CPython + NumPy is the oracle. The same
file is compiled by gradc (which never imports it) and loaded back.

Exports and parameter types are found with ``ast`` (annotations or signature strings
such as ``"f64(f64[:], f64[:])"``). Each module describes the inputs of its exports in
module-level dicts (all optional except SHAPES for array parameters)::

    SHAPES   = {"matvec": {"A": ("m", "n"), "x": ("n",)}}   # symbolic or fixed dims
    DIMS     = {"export": {"m": (1, 6)}}          # symbolic dim ranges, default (0, 6)
    ELEMENTS = {"export": {"A": (lo, hi)}}        # element range ("any": every float)
    DOMAINS  = {"export": {"i": (lo, hi)}}        # scalar parameters, as tests/codegen/corpus
    RAISES   = {"export": "IndexError"}           # exception the oracle may raise
    MUTATES  = {"export": ("A",)}                 # array arguments the export writes
    ULP      = {"export"}                         # compare floats within ULP_SPACINGS ulp (math)
    SUMMED   = {"export"}                         # floats within SUM_TOLERANCE (np.sum...)
    SLOW     = True      # the compiled tests of every export are @pytest.mark.slow (a big
                         # module whose operations a small default-run module also covers)

Defaults: float elements and scalars in [-10, 10], int elements in [-20, 20], int
scalars in [-9, 9], bools both.

Layouts, built around the same values: ``C`` order, ``F`` order (np.asfortranarray),
``strided`` (a view ``[1::2, 1:, ::3]`` of a bigger buffer) and ``reversed`` (``[::-1,
::-1, ...]`` of a padded buffer). The padding of strided and reversed buffers holds
sentinels (NaN, -123456789, True): the whole buffer, padding included, must be identical
after the plain and the compiled call. Parameters annotated ``[::1]`` always get
C-contiguous arrays.

Tests against the compiled code:
- ``test_matches_numpy[export]``: hypothesis (MAX_EXAMPLES), drawing dims (0..6), values,
  scalars and a layout for each array argument;
- ``test_layout[export-layout]``: every argument in one layout, seeded random dims and
  values (LAYOUT_CASES + 1 cases);
- ``test_zero_length_axes[export]``: each symbolic dim 0 in turn, then all, every layout;
- ``test_zero_stride_readonly_inputs[export]``: read-only zero-stride views
  (np.broadcast_to) for every export that does not write its arguments.
Tests of the oracle alone (no compiler): the spec tables name real parameters, the corpus
covers the issue's constructs, and ``test_corpus_runs_under_numpy`` (consistent result
types matching the declared ones, exceptions only as RAISES says, writes only as MUTATES
says, the same result in every layout).

Comparison (plain function on one copy of the inputs, compiled on another):
- CPython raises IndexError / ZeroDivisionError / AssertionError / ValueError /
  OverflowError → gradc raises the same type; for IndexError with the same message
  (NumPy's "index 5 is out of bounds for axis 0 with size 3"). Any other exception, a
  NumPy warning (run with np.errstate(all="raise", under="ignore")), or an exception from
  an export not in RAISES is a corpus bug.
- array results: exactly ``np.ndarray``, same dtype and shape, equal values (NaN equal
  NaN; exact, or within ULP_SPACINGS ulp for ULP exports, or for SUMMED exports — NumPy's reductions,
  whose pairwise summation order gradc does not follow — within SUM_TOLERANCE of the
  dtype relative to max(1, |value|): a bound on both summation errors for the corpus's
  elements (at most 6**3 of magnitude <= 10), far below any wrong element or axis), not
  sharing memory with any argument,
  still intact after a second compiled call on other values (a result whose buffer was
  freed on return would be overwritten);
- scalars: bool / int / float by value and Python type (NumPy scalars from the oracle
  are converted first: np.float32 → float is exact, so f32 results compare exactly);
- tuples elementwise, ``None`` for functions without a result;
- every argument buffer afterwards (in-place exports, partial writes before an
  IndexError, and untouched arguments and padding everywhere else).
"""

from __future__ import annotations

import ast
import importlib.util
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

CORPUS_DIR = Path(__file__).parent / "corpus_arrays"

#: Exceptions the oracle may raise (for exports listed in RAISES).
EXPECTED_ERRORS = (IndexError, ZeroDivisionError, AssertionError, ValueError, OverflowError)
ERROR_NAMES = {cls.__name__: cls for cls in EXPECTED_ERRORS}

MAX_EXAMPLES = 25  # hypothesis examples per export (layouts drawn per argument)
LAYOUT_CASES = 6  # seeded random cases per export and layout
ORACLE_CASES = 12  # seeded random cases per export for the oracle self-check
DEFAULT_DIM = (0, 6)
DEFAULT_FLOAT = (-10.0, 10.0)
DEFAULT_INT_ELEMENT = (-20, 20)
DEFAULT_INT_SCALAR = (-9, 9)

LAYOUTS = ("C", "F", "strided", "reversed")

#: Per-axis (start, step) of the ``strided`` layout: ``a[1::2, 1:, ::3]``.
STRIDED = ((1, 2), (1, 1), (0, 3))

DTYPES: dict[str, np.dtype[Any]] = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "i64": np.dtype(np.int64),
    "i32": np.dtype(np.int32),
    "bool": np.dtype(np.bool_),
}
SENTINELS = {"f": np.nan, "i": -123456789, "b": True}

#: Annotation / signature spelling -> gradc scalar type.
TYPE_NAMES = {
    "f64": "f64",
    "float64": "f64",
    "float": "f64",
    "double": "f64",
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
}

INT_RANGES = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1)}

SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ------------------------------------------------------------------------- types


@dataclass(frozen=True)
class ArrayT:
    """An array type: element type, rank, C-contiguous (``[::1]``) or any layout."""

    dtype: str
    ndim: int
    contiguous: bool = False

    def __str__(self) -> str:
        dims = [":"] * self.ndim
        if self.contiguous:
            dims[-1] = "::1"
        return f"{self.dtype}[{', '.join(dims)}]"


@dataclass(frozen=True)
class TupleT:
    elements: tuple[Any, ...]


NONE_T = "none"


def parse_type(node: ast.expr) -> Any:
    """An annotation or signature-string node -> ``"f64"`` / ArrayT / TupleT / NONE_T.

    Raises:
        ValueError: not a type this harness knows.
    """
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE_T
        if isinstance(node.value, str):
            return parse_type(ast.parse(node.value.strip(), mode="eval").body)
    if isinstance(node, ast.Name) and node.id in TYPE_NAMES:
        return TYPE_NAMES[node.id]
    if isinstance(node, ast.Attribute) and node.attr in TYPE_NAMES:
        return TYPE_NAMES[node.attr]
    if isinstance(node, ast.Subscript):
        base = parse_type(node.value) if not _is_tuple_name(node.value) else None
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base is None:
            return TupleT(tuple(parse_type(e) for e in items))
        if isinstance(base, str) and items and all(isinstance(s, ast.Slice) for s in items):
            last = items[-1]
            contiguous = (
                isinstance(last, ast.Slice)
                and isinstance(last.step, ast.Constant)
                and last.step.value == 1
            )
            return ArrayT(base, len(items), contiguous)
    raise ValueError(f"unknown type {ast.unparse(node)!r}")


def _is_tuple_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("tuple", "Tuple")


def parse_signature(text: str) -> tuple[Any, list[Any]]:
    """``"f64[:](f64[:, :], f64[:])"`` -> (result type, parameter types)."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call):
        raise ValueError(f"cannot parse signature string {text!r}")
    void = isinstance(node.func, ast.Name) and node.func.id == "void"  # Numba's spelling
    return NONE_T if void else parse_type(node.func), [parse_type(a) for a in node.args]


# ------------------------------------------------------------------------- discovery


SPEC_NAMES = ("SHAPES", "DIMS", "ELEMENTS", "DOMAINS", "RAISES", "MUTATES", "ULP", "SUMMED")
#: SUMMED exports: float results within this bound times max(1, |value|), by dtype.
SUM_TOLERANCE = {"float64": 1e-9, "float32": 1e-3}


@dataclass(frozen=True)
class Export:
    """One exported function of a corpus module, with its input spec."""

    module: str
    path: Path
    name: str
    params: tuple[tuple[str, Any], ...]  # (name, "f64" | ArrayT)
    result: Any  # declared result type, None when not declared
    lineno: int
    shapes: dict[str, tuple[Any, ...]] = field(hash=False, compare=False)
    dims: dict[str, tuple[int, int]] = field(hash=False, compare=False)
    elements: dict[str, Any] = field(hash=False, compare=False)
    domains: dict[str, Any] = field(hash=False, compare=False)
    raises: type[BaseException] | None = None
    mutates: tuple[str, ...] = ()
    ulp: bool = False
    summed: bool = False
    slow: bool = False

    @property
    def id(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def array_params(self) -> list[tuple[str, ArrayT]]:
        return [(n, t) for n, t in self.params if isinstance(t, ArrayT)]

    @property
    def symbols(self) -> list[str]:
        """Symbolic dims of the array parameters, in order of first use."""
        seen: list[str] = []
        for name, _ in self.array_params:
            for d in self.shapes.get(name, ()):
                if isinstance(d, str) and d not in seen:
                    seen.append(d)
        return seen

    def dim_range(self, sym: str) -> tuple[int, int]:
        return tuple(self.dims.get(sym, DEFAULT_DIM))  # type: ignore[return-value]

    def element_range(self, param: str, t: ArrayT) -> Any:
        if param in self.elements:
            return self.elements[param]
        if t.dtype in ("f64", "f32"):
            return DEFAULT_FLOAT
        if t.dtype in ("i64", "i32"):
            return DEFAULT_INT_ELEMENT
        return None

    def domain(self, param: str, ptype: str) -> Any:
        if param in self.domains:
            return self.domains[param]
        if ptype in ("f64", "f32"):
            return DEFAULT_FLOAT
        if ptype in ("i64", "i32"):
            return DEFAULT_INT_SCALAR
        return None


def _is_export(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return (
            node.attr == "export" and isinstance(node.value, ast.Name) and node.value.id == "gradc"
        )
    return isinstance(node, ast.Name) and node.id == "export"


@cache
def load_plain(path: Path) -> ModuleType:
    """Import a corpus module as plain Python (the decorator is inert)."""
    spec = importlib.util.spec_from_file_location(f"gradc_corpus_arrays_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def module_spec(path: Path) -> dict[str, Any]:
    module = load_plain(path)
    spec = {name: getattr(module, name, None) for name in SPEC_NAMES}
    for name in ("SHAPES", "DIMS", "ELEMENTS", "DOMAINS", "RAISES", "MUTATES"):
        spec[name] = spec[name] or {}
    spec["ULP"] = set(spec["ULP"] or ())
    spec["SUMMED"] = set(spec["SUMMED"] or ())
    return spec


def export_nodes(path: Path) -> list[tuple[ast.FunctionDef, ast.expr]]:
    """(function, decorator) of every ``@gradc.export`` in the module, in source order."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for deco in stmt.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            if _is_export(target):
                found.append((stmt, deco))
    return found


def discover(path: Path) -> list[Export]:
    """Every export of the module at ``path``, with its spec."""
    spec = module_spec(path)
    exports = []
    for fn, deco in export_nodes(path):
        names = [a.arg for a in fn.args.args]
        if isinstance(deco, ast.Call) and deco.args:
            sig = deco.args[0]
            assert isinstance(sig, ast.Constant) and isinstance(sig.value, str)
            result, types = parse_signature(sig.value)
            assert len(types) == len(names), f"{path}:{fn.lineno}: arity of signature"
        else:
            types = []
            for a in fn.args.args:
                assert a.annotation is not None, f"{path}:{fn.lineno}: no type for {a.arg!r}"
                types.append(parse_type(a.annotation))
            result = parse_type(fn.returns) if fn.returns is not None else None
        raises = spec["RAISES"].get(fn.name)
        exports.append(
            Export(
                module=path.stem,
                path=path,
                name=fn.name,
                params=tuple(zip(names, types)),
                result=result,
                lineno=fn.lineno,
                shapes=dict(spec["SHAPES"].get(fn.name, {})),
                dims=dict(spec["DIMS"].get(fn.name, {})),
                elements=dict(spec["ELEMENTS"].get(fn.name, {})),
                domains=dict(spec["DOMAINS"].get(fn.name, {})),
                raises=ERROR_NAMES.get(raises),
                mutates=tuple(spec["MUTATES"].get(fn.name, ())),
                ulp=fn.name in spec["ULP"],
                summed=fn.name in spec["SUMMED"],
                slow=bool(getattr(load_plain(path), "SLOW", False)),
            )
        )
    return exports


CORPUS_FILES = sorted(CORPUS_DIR.glob("*.py"))
EXPORTS = [e for path in CORPUS_FILES for e in discover(path)]
ARRAY_EXPORTS = [e for e in EXPORTS if e.array_params]


def compiled_params(exports: list[Export]) -> list[Any]:
    """``exports`` as parameters of the tests that compile them: slow for a module
    declaring ``SLOW = True``."""
    return [pytest.param(e, id=e.id, marks=[pytest.mark.slow] if e.slow else []) for e in exports]


# ------------------------------------------------------------------------- inputs


@dataclass
class Case:
    """Logical inputs of one call: C-ordered values of every parameter, a layout per array."""

    values: dict[str, Any]
    layouts: dict[str, str]
    dims: dict[str, int]

    def __repr__(self) -> str:
        parts = []
        for name, v in self.values.items():
            if isinstance(v, np.ndarray):
                text = np.array2string(v, precision=17, separator=", ", threshold=10**6)
                parts.append(f"{name}={self.layouts[name]}:{v.dtype}{v.shape} {text}")
            else:
                parts.append(f"{name}={v!r}")
        return f"Case({'; '.join(parts)})"


def shape_of(export: Export, param: str, dims: dict[str, int]) -> tuple[int, ...]:
    return tuple(dims[d] if isinstance(d, str) else int(d) for d in export.shapes[param])


def _number_strategy(dtype: str, bounds: Any) -> st.SearchStrategy[Any]:
    """Values of a gradc scalar type within ``bounds`` ((lo, hi), or "any" for floats)."""
    if dtype == "bool":
        return st.booleans()
    if dtype in ("i64", "i32"):
        lo, hi = bounds
        return st.integers(int(lo), int(hi))
    width: Literal[32, 64] = 32 if dtype == "f32" else 64
    if bounds == "any":
        return st.floats(width=width)
    lo, hi = bounds
    return st.floats(float(lo), float(hi), width=width, allow_nan=False)


def element_strategy(export: Export, param: str, t: ArrayT) -> st.SearchStrategy[Any]:
    return _number_strategy(t.dtype, export.element_range(param, t))


def scalar_strategy(export: Export, param: str, ptype: str) -> st.SearchStrategy[Any]:
    return _number_strategy(ptype, export.domain(param, ptype))


def layout_for(t: ArrayT, layout: str) -> str:
    return "C" if t.contiguous else layout


@st.composite
def cases(draw: Any, export: Export, mode: str) -> Case:
    dims = {s: draw(st.integers(*export.dim_range(s)), label=s) for s in export.symbols}
    values: dict[str, Any] = {}
    layouts: dict[str, str] = {}
    for name, t in export.params:
        if isinstance(t, ArrayT):
            values[name] = draw(
                hnp.arrays(
                    DTYPES[t.dtype],
                    shape_of(export, name, dims),
                    elements=element_strategy(export, name, t),
                ),
                label=name,
            )
            chosen = draw(st.sampled_from(LAYOUTS)) if mode == "mixed" else mode
            layouts[name] = layout_for(t, chosen)
        else:
            values[name] = draw(scalar_strategy(export, name, t), label=name)
    return Case(values, layouts, dims)


def random_values(export: Export, dims: dict[str, int], rng: np.random.Generator) -> dict[str, Any]:
    """Deterministic inputs: uniform elements and scalars from the spec'd ranges."""
    values: dict[str, Any] = {}
    for name, t in export.params:
        if isinstance(t, ArrayT):
            shape = shape_of(export, name, dims)
            r = export.element_range(name, t)
            if t.dtype == "bool":
                values[name] = rng.random(shape) < 0.5
            elif t.dtype in ("i64", "i32"):
                values[name] = rng.integers(r[0], r[1], size=shape, endpoint=True).astype(
                    DTYPES[t.dtype]
                )
            else:
                lo, hi = (-1e3, 1e3) if r == "any" else r
                values[name] = rng.uniform(lo, hi, size=shape).astype(DTYPES[t.dtype])
        else:
            dom = export.domain(name, t)
            if t == "bool":
                values[name] = bool(rng.random() < 0.5)
            elif t in ("i64", "i32"):
                values[name] = int(rng.integers(dom[0], dom[1], endpoint=True))
            else:
                lo, hi = (-1e3, 1e3) if dom == "any" else dom
                v = float(rng.uniform(lo, hi))
                values[name] = float(np.float32(v)) if t == "f32" else v
    return values


def deterministic_case(
    export: Export, dims: dict[str, int], layout: str = "C", seed: int = 0
) -> Case:
    rng = np.random.default_rng([seed, *[ord(c) for c in export.id]])
    values = random_values(export, dims, rng)
    layouts = {n: layout_for(t, layout) for n, t in export.array_params}
    return Case(values, layouts, dims)


def random_dims(export: Export, rng: np.random.Generator) -> dict[str, int]:
    return {s: int(rng.integers(*export.dim_range(s), endpoint=True)) for s in export.symbols}


def middle_dims(export: Export, size: int = 3) -> dict[str, int]:
    return {
        s: min(max(size, export.dim_range(s)[0]), export.dim_range(s)[1]) for s in export.symbols
    }


# ------------------------------------------------------------------------- layouts


def place(values: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """(array, buffer): an array equal to ``values`` in ``layout``, and its whole buffer.

    The buffer of the strided and reversed layouts is bigger than the array; the rest of
    it holds the dtype's sentinel.
    """
    shape = values.shape
    if layout == "C":
        arr = np.array(values, order="C", copy=True)
        return arr, arr
    if layout == "F":
        arr = np.array(values, order="F", copy=True)
        return arr, arr
    sentinel = SENTINELS[values.dtype.kind]
    if layout == "strided":
        steps = [STRIDED[k % len(STRIDED)] for k in range(len(shape))]
        buf_shape = tuple(start + step * d + 1 for (start, step), d in zip(steps, shape))
        index = tuple(
            slice(start, start + step * d, step) for (start, step), d in zip(steps, shape)
        )
    elif layout == "reversed":
        buf_shape = tuple(d + 2 for d in shape)
        index = tuple(slice(d, 0, -1) for d in shape)
    else:
        raise ValueError(f"unknown layout {layout!r}")
    buf = np.full(buf_shape, sentinel, dtype=values.dtype)
    arr = buf[index]
    assert arr.shape == shape
    arr[...] = values
    return arr, buf


def perturbed(case: Case) -> Case:
    """Same dims and layouts, other values: arrays flipped, floats also shifted."""
    values = {}
    for name, v in case.values.items():
        if isinstance(v, np.ndarray):
            v = np.flip(v)
            if v.dtype.kind == "f":
                v = v + v.dtype.type(1.5)
        values[name] = v
    return Case(values, case.layouts, case.dims)


def materialize(export: Export, case: Case) -> tuple[tuple[Any, ...], dict[str, np.ndarray]]:
    """Fresh arguments for one call, and the buffer behind every array argument."""
    args = []
    buffers: dict[str, np.ndarray] = {}
    for name, t in export.params:
        v = case.values[name]
        if isinstance(t, ArrayT):
            arr, buf = place(v, case.layouts[name])
            args.append(arr)
            buffers[name] = buf
        else:
            args.append(v)
    return tuple(args), buffers


# ------------------------------------------------------------------------- running


#: How many spacings of the result a ULP export's floats may differ by.
ULP_SPACINGS = 4


class CorpusBug(AssertionError):
    """The oracle itself misbehaved: an unexpected exception or a NumPy warning."""


def run_plain(
    export: Export, fn: Callable[..., Any], args: tuple[Any, ...]
) -> tuple[Any, BaseException | None]:
    """Run the oracle; NumPy warnings are errors; only EXPECTED_ERRORS may escape."""
    try:
        with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            return fn(*args), None
    except EXPECTED_ERRORS as exc:
        if isinstance(exc, np.linalg.LinAlgError):  # gradc raises its base class, ValueError
            exc = ValueError(str(exc))  # with its message (docs/arrays_linalg.md)
        if export.raises is None or not isinstance(exc, export.raises):
            raise CorpusBug(
                f"{export.id}: the oracle raised {type(exc).__name__}({exc}), "
                f"but RAISES says {export.raises.__name__ if export.raises else 'nothing'}"
            ) from exc
        return None, exc
    except Exception as exc:
        raise CorpusBug(f"{export.id}: the oracle raised {type(exc).__name__}({exc})") from exc


def normalize(value: Any) -> Any:
    """NumPy scalars from the oracle -> Python scalars; arrays and tuples kept."""
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _float_arrays_match(export: Export, expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    same = (e == a) | (np.isnan(e) & np.isnan(a))
    if export.ulp:
        with np.errstate(invalid="ignore"):
            # ULP_SPACINGS of the result: each transcendental is within 1 ulp (NumPy's
            # SIMD loops are not correctly rounded: its pow(x, 3.0) is 1 ulp off glibc's),
            # and an expression of several adds their errors (CI, 2026-12-02: 2 ulp)
            spacing = np.spacing(np.maximum(np.abs(e), np.abs(a)).astype(expected.dtype))
            tol = ULP_SPACINGS * spacing.astype(np.float64)
            same |= np.isfinite(e) & np.isfinite(a) & (np.abs(e - a) <= tol)
    if export.summed:
        bound = SUM_TOLERANCE[expected.dtype.name] * np.maximum(1.0, np.abs(e))
        with np.errstate(invalid="ignore"):
            same |= np.isfinite(e) & np.isfinite(a) & (np.abs(e - a) <= bound)
    return np.asarray(same, dtype=bool)


def assert_same(export: Export, expected: Any, actual: Any, where: str = "result") -> None:
    if expected is None:
        assert actual is None, f"{where}: expected None, got {actual!r}"
    elif isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"{where}: expected a tuple, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: expected {expected!r}, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(export, e, a, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert type(actual) is np.ndarray, (
            f"{where}: expected a numpy array, got {type(actual).__name__} {actual!r}"
        )
        assert actual.dtype == expected.dtype, (
            f"{where}: expected dtype {expected.dtype}, got {actual.dtype}"
        )
        assert actual.shape == expected.shape, (
            f"{where}: expected shape {expected.shape}, got {actual.shape}"
        )
        if expected.dtype.kind == "f":
            same = _float_arrays_match(export, expected, actual)
        else:
            same = expected == actual
        if not np.all(same):
            bad = tuple(int(i) for i in np.argwhere(~same)[0])
            raise AssertionError(
                f"{where}: first difference at {bad}: expected {expected[bad]!r}, "
                f"got {actual[bad]!r}\nexpected {expected!r}\ngot      {actual!r}"
            )
    elif isinstance(expected, bool):
        assert type(actual) is bool and actual == expected, (
            f"{where}: expected {expected!r}, got {type(actual).__name__} {actual!r}"
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
        if math.isnan(expected) or math.isnan(actual):
            ok = math.isnan(expected) and math.isnan(actual)
        elif expected == actual:
            ok = True
        elif export.ulp and math.isfinite(expected) and math.isfinite(actual):
            ok = abs(expected - actual) <= ULP_SPACINGS * math.ulp(max(abs(expected), abs(actual)))
        elif export.summed and math.isfinite(expected) and math.isfinite(actual):
            ok = abs(expected - actual) <= SUM_TOLERANCE["float64"] * max(1.0, abs(expected))
        else:
            ok = False
        assert ok, f"{where}: expected {expected!r}, got {actual!r}"


def arrays_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape and elements, NaN equal to NaN."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    return bool(np.all(a == b))


def assert_buffers_same(
    export: Export, expected: dict[str, np.ndarray], actual: dict[str, np.ndarray]
) -> None:
    for name, e in expected.items():
        a = actual[name]
        if not arrays_equal(e, a):
            same = (e == a) | (np.isnan(e) & np.isnan(a)) if e.dtype.kind == "f" else e == a
            bad = tuple(int(i) for i in np.argwhere(~same)[0])
            raise AssertionError(
                f"argument {name!r} afterwards (buffer incl. padding): first difference at "
                f"{bad}: expected {e[bad]!r}, got {a[bad]!r}\nexpected {e!r}\ngot      {a!r}"
            )


def _arrays_in(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [a for v in value for a in _arrays_in(v)]
    return [value] if isinstance(value, np.ndarray) else []


def check_case(
    export: Export, plain: Callable[..., Any], compiled: Callable[..., Any], case: Case
) -> None:
    """Run the oracle and the compiled function on copies of ``case``; compare everything."""
    p_args, p_bufs = materialize(export, case)
    c_args, c_bufs = materialize(export, case)
    expected, error = run_plain(export, plain, p_args)
    expected = normalize(expected)
    try:
        if error is not None:
            try:
                got = compiled(*c_args)
            except type(error) as exc:
                if isinstance(error, IndexError):
                    assert str(exc) == str(error), (
                        f"IndexError message: expected {str(error)!r}, got {str(exc)!r}"
                    )
            except Exception as exc:
                raise AssertionError(
                    f"CPython raises {type(error).__name__}({error}), "
                    f"gradc raised {type(exc).__name__}({exc})"
                ) from None
            else:
                raise AssertionError(
                    f"CPython raises {type(error).__name__}({error}), gradc returned {got!r}"
                )
        else:
            try:
                actual = compiled(*c_args)
            except Exception as exc:
                raise AssertionError(
                    f"CPython returns {expected!r}, gradc raised {type(exc).__name__}({exc})"
                ) from None
            assert_same(export, expected, actual)
            plain_inputs = [a for a in p_args if isinstance(a, np.ndarray)]
            aliasing = any(
                np.may_share_memory(r, a) for r in _arrays_in(expected) for a in plain_inputs
            )
            for result in _arrays_in(actual) if not aliasing else ():
                for name, arg in zip((n for n, _ in export.params), c_args):
                    if isinstance(arg, np.ndarray):
                        assert not np.may_share_memory(result, arg), (
                            f"result shares memory with argument {name!r}"
                        )
        assert_buffers_same(export, p_bufs, c_bufs)
        if error is None and _arrays_in(expected):
            # A result whose block was freed on return would be overwritten by a second
            # call on other values, which reuses the block: the first result must hold.
            again_args, _ = materialize(export, perturbed(case))
            try:
                second = compiled(*again_args)
            except Exception:
                second = None
            assert_same(export, expected, actual, "result after a second call")
            del second
    except AssertionError as exc:
        raise AssertionError(f"{export.id} {case!r}:\n{exc}") from None


# ------------------------------------------------------------------------- oracle tests


def test_corpus_has_enough_exports() -> None:
    assert 4 <= len(CORPUS_FILES) <= 20  # language.py, elementwise.py ...: issue 11 families
    assert len(EXPORTS) >= 60, f"only {len(EXPORTS)} exports found"
    assert len({e.id for e in EXPORTS}) == len(EXPORTS)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_spec_names_real_parameters(path: Path) -> None:
    """SHAPES & co. name real exports and parameters, of the right kind and rank."""
    spec = module_spec(path)
    exports = {e.name: e for e in discover(path)}
    for table in ("SHAPES", "DIMS", "ELEMENTS", "DOMAINS", "RAISES", "MUTATES"):
        for fname in spec[table]:
            assert fname in exports, f"{table} names {fname!r}, which is not an export"
    for table in ("ULP", "SUMMED"):
        for fname in spec[table]:
            assert fname in exports, f"{table} names {fname!r}, which is not an export"
    for e in exports.values():
        types = dict(e.params)
        arrays = dict(e.array_params)
        assert set(e.shapes) == set(arrays), (
            f"{e.name}: SHAPES gives {sorted(e.shapes)}, array parameters are {sorted(arrays)}"
        )
        for pname, shape in e.shapes.items():
            assert len(shape) == arrays[pname].ndim, f"{e.name}.{pname}: rank of SHAPES entry"
            for d in shape:
                assert isinstance(d, str) or (isinstance(d, int) and d >= 0), (e.name, pname)
        for sym, (lo, hi) in e.dims.items():
            assert sym in e.symbols, f"DIMS[{e.name!r}] names unknown dim {sym!r}"
            assert 0 <= lo <= hi <= 8, f"{e.name}.{sym}: dims stay small"
        for pname, rng in e.elements.items():
            assert pname in arrays, f"ELEMENTS[{e.name!r}] names non-array {pname!r}"
            t = arrays[pname]
            if rng == "any":
                assert t.dtype in ("f64", "f32"), f"{e.name}.{pname}: 'any' is for floats"
                continue
            lo, hi = rng
            assert lo <= hi
            if t.dtype in INT_RANGES:
                assert isinstance(lo, int) and isinstance(hi, int)
                assert INT_RANGES[t.dtype][0] <= lo and hi <= INT_RANGES[t.dtype][1]
        for pname, dom in e.domains.items():
            assert pname in types and not isinstance(types[pname], ArrayT), (
                f"DOMAINS[{e.name!r}] names {pname!r}, which is not a scalar parameter"
            )
            if dom != "any":
                assert dom[0] <= dom[1]
        for pname in e.mutates:
            assert pname in arrays, f"MUTATES[{e.name!r}] names non-array {pname!r}"
        if e.name in spec["RAISES"]:
            assert e.raises is not None, f"RAISES[{e.name!r}]: unknown exception name"


#: Constructs the corpus must exercise (the issue's scope), checked on the sources.
NP_ALLOCATORS = ("zeros", "ones", "empty", "full")
NP_LIKE = ("zeros_like", "ones_like", "empty_like")
NP_DTYPES = ("float64", "float32", "int64", "int32", "bool_")


def _corpus_facts() -> dict[str, set[Any]]:
    facts: dict[str, set[Any]] = {
        k: set()
        for k in (
            "np_calls",
            "dtypes",
            "aug_ops",
            "attrs",
            "param_types",
            "result_types",
            "misc",
        )
    }
    for path in CORPUS_FILES:
        tree = ast.parse(path.read_text())
        exports = {e.name: e for e in discover(path)}
        for fn in (s for s in tree.body if isinstance(s, ast.FunctionDef)):
            e = exports.get(fn.name)
            ptypes = dict(e.params) if e else {}
            if e:
                facts["param_types"].update(ptypes.values())
                facts["result_types"].add(e.result)
                if isinstance(e.result, TupleT) and any(
                    isinstance(t, ArrayT) for t in e.result.elements
                ):
                    facts["misc"].add("tuple of arrays result")
            else:
                facts["misc"].add("helper")
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    f = node.func
                    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                        if f.value.id == "np":
                            shape = node.args[0] if node.args else None
                            kind = "tuple" if isinstance(shape, ast.Tuple) else "int"
                            facts["np_calls"].add((f.attr, kind))
                            facts["np_calls"].add(f.attr)
                            if len(node.args) >= 2 and f.attr in ("zeros", "ones", "empty"):
                                facts["misc"].add("positional dtype")
                            if len(node.args) >= 3 and f.attr == "full":
                                facts["misc"].add("positional dtype")
                            for kw in node.keywords:
                                if kw.arg == "dtype":
                                    facts["misc"].add(f"dtype= in {f.attr}")
                        if f.attr == "copy" and not node.args:
                            facts["misc"].add("copy")
                    if isinstance(f, ast.Name) and f.id == "len":
                        facts["misc"].add("len")
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    if node.value.id == "np" and node.attr in NP_DTYPES:
                        facts["dtypes"].add(node.attr)
                    if node.attr in ("shape", "size", "ndim"):
                        facts["attrs"].add(node.attr)
                if (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "shape"
                ):
                    facts["attrs"].add("shape[k]")
                if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                    base = node.target.value
                    if isinstance(base, ast.Name) and isinstance(ptypes.get(base.id), ArrayT):
                        facts["aug_ops"].add((ptypes[base.id].dtype, type(node.op).__name__))
                if isinstance(node, ast.For):
                    it = node.iter
                    if isinstance(it, ast.Name) and isinstance(ptypes.get(it.id), ArrayT):
                        facts["misc"].add("for v in a")
                    if (
                        isinstance(it, ast.Call)
                        and isinstance(it.func, ast.Name)
                        and it.func.id == "range"
                        and any(
                            isinstance(a, ast.Call)
                            and isinstance(a.func, ast.Name)
                            and a.func.id == "len"
                            for a in it.args
                        )
                    ):
                        facts["misc"].add("range(len(a))")
                if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.UnaryOp):
                    facts["misc"].add("negative index")
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
                    if isinstance(node.value, ast.Tuple) and all(
                        isinstance(x, ast.Name) for x in node.value.elts
                    ):
                        facts["misc"].add("swap")
    return facts


def test_corpus_covers_the_issue() -> None:
    facts = _corpus_facts()
    for name in NP_ALLOCATORS:
        for kind in ("int", "tuple"):
            assert (name, kind) in facts["np_calls"], f"np.{name} with an {kind} shape"
    for name in NP_LIKE:
        assert name in facts["np_calls"], f"np.{name}"
    assert set(NP_DTYPES) <= facts["dtypes"], facts["dtypes"]
    assert {"dtype= in zeros", "dtype= in zeros_like", "positional dtype"} <= facts["misc"]
    f64_ops = {"Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow"}
    i64_ops = f64_ops - {"Div"}
    assert {("f64", op) for op in f64_ops} <= facts["aug_ops"], facts["aug_ops"]
    assert {("i64", op) for op in i64_ops} <= facts["aug_ops"], facts["aug_ops"]
    assert {"shape", "size", "ndim", "shape[k]"} <= facts["attrs"]
    for misc in (
        "copy",
        "len",
        "for v in a",
        "range(len(a))",
        "negative index",
        "swap",
        "helper",
        "tuple of arrays result",
    ):
        assert misc in facts["misc"], misc
    for dtype in DTYPES:
        for ndim in (1, 2, 3) if dtype in ("f64", "i64", "i32") else (1, 2):
            assert ArrayT(dtype, ndim) in facts["param_types"] | facts["result_types"], (
                f"no {dtype} array of rank {ndim}"
            )
    assert ArrayT("f64", 1, contiguous=True) in facts["param_types"]
    for ndim in (1, 2, 3):
        assert ArrayT("f64", ndim) in facts["result_types"]
    raisers = [e for e in EXPORTS if e.raises is IndexError]
    assert len(raisers) >= 10
    assert sum(bool(e.mutates) for e in EXPORTS) >= 10
    assert any(isinstance(d, int) for e in EXPORTS for shape in e.shapes.values() for d in shape), (
        "a fixed dim in SHAPES"
    )


@pytest.mark.parametrize("export", EXPORTS, ids=lambda e: e.id)
def test_corpus_runs_under_numpy(export: Export) -> None:
    """The oracle itself: consistent result types matching the declared ones, no NumPy
    warnings, exceptions only as RAISES says, arguments written only as MUTATES says,
    and the same result in every layout."""
    fn = getattr(load_plain(export.path), export.name)
    kinds: set[str] = set()

    def run(case: Case) -> None:
        names = [n for n, _ in export.params]
        outcomes = []
        for layout in LAYOUTS:
            layouts = {n: layout_for(t, layout) for n, t in export.array_params}
            args, _ = materialize(export, Case(case.values, layouts, case.dims))
            value, error = run_plain(export, fn, args)
            named = dict(zip(names, args))
            for name, _ in export.array_params:
                if name not in export.mutates:
                    assert arrays_equal(named[name], case.values[name]), (
                        f"{export.id}: writes {name!r}, which MUTATES does not list"
                    )
            after = {n: np.array(named[n]) for n in export.mutates}
            outcomes.append((normalize(value), error, after))
        value, error, after = outcomes[0]
        for other_value, other_error, other_after in outcomes[1:]:
            if error is not None:
                assert type(other_error) is type(error) and str(other_error) == str(error)
            else:
                assert other_error is None, f"{export.id}: raises in one layout only"
                assert_same(export, value, other_value, "result in another layout")
            for name in export.mutates:
                assert arrays_equal(after[name], other_after[name]), f"{export.id}: {name}"
        if error is not None:
            return
        kinds.add(_kind(value))
        assert len(kinds) == 1, f"{export.id}: result kinds vary: {kinds}"
        if export.result is not None:
            _check_declared(export, export.result, value)

    rng = np.random.default_rng([1, *export.id.encode()])
    run(deterministic_case(export, middle_dims(export)))
    for seed in range(ORACLE_CASES):
        run(deterministic_case(export, random_dims(export, rng), seed=seed))


def _kind(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(_kind(v) for v in value) + ")"
    if isinstance(value, np.ndarray):
        return f"{value.dtype}[{value.ndim}]"
    return type(value).__name__


def _check_declared(export: Export, declared: Any, value: Any) -> None:
    if declared == NONE_T:
        assert value is None, f"{export.id}: declared None, returns {value!r}"
    elif isinstance(declared, TupleT):
        assert isinstance(value, tuple) and len(value) == len(declared.elements)
        for t, v in zip(declared.elements, value):
            _check_declared(export, t, v)
    elif isinstance(declared, ArrayT):
        assert isinstance(value, np.ndarray), f"{export.id}: declared {declared}, got {value!r}"
        assert value.dtype == DTYPES[declared.dtype] and value.ndim == declared.ndim, (
            f"{export.id}: declared {declared}, returns {value.dtype} of rank {value.ndim}"
        )
    else:
        python = {"f64": float, "f32": float, "i64": int, "i32": int, "bool": bool}[declared]
        assert type(value) is python, f"{export.id}: declared {declared}, returns {value!r}"
        if isinstance(value, int) and declared in INT_RANGES:
            lo, hi = INT_RANGES[declared]
            assert lo <= value <= hi


# ------------------------------------------------------------------------- gradc tests


_BUILD_FAILURES_SHOWN: set[Path] = set()


def build_library(compile_module: Callable[[Path], Any], path: Path) -> Any:
    """``compile_module(path)``; a module that does not build fails the test.

    The first test to meet a build failure shows the whole traceback; later ones get a
    one-line summary (re-raising the cached exception would grow its traceback by every
    test that meets it, and formatting it would cost more and more).
    """
    try:
        return compile_module(path)
    except Exception as exc:
        if path not in _BUILD_FAILURES_SHOWN:
            _BUILD_FAILURES_SHOWN.add(path)
            raise
        lines = str(exc).strip().splitlines() or [""]
        pytest.fail(
            f"gradc cannot build {path.name} (traceback shown once, or run "
            f"`gradc build {path}`): {type(exc).__name__}: " + "\n".join(lines[:12]),
            pytrace=False,
        )


def _compiled(export: Export, compile_module: Callable[[Path], Any]) -> Callable[..., Any]:
    fn: Callable[..., Any] = getattr(build_library(compile_module, export.path), export.name)
    return fn


@pytest.mark.parametrize("export", compiled_params(EXPORTS))
def test_matches_numpy(export: Export, compile_module: Callable[[Path], Any]) -> None:
    """Hypothesis: drawn dims, values, scalars, and a layout drawn for every argument."""
    plain = getattr(load_plain(export.path), export.name)
    compiled = _compiled(export, compile_module)

    @SETTINGS
    @given(case=cases(export, "mixed"))
    def drawn(case: Case) -> None:
        check_case(export, plain, compiled, case)

    drawn()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("export", compiled_params(ARRAY_EXPORTS))
def test_layout(export: Export, layout: str, compile_module: Callable[[Path], Any]) -> None:
    """Every array argument in one layout: seeded random dims and values."""
    plain = getattr(load_plain(export.path), export.name)
    compiled = _compiled(export, compile_module)
    rng = np.random.default_rng([2, *export.id.encode(), *layout.encode()])
    check_case(export, plain, compiled, deterministic_case(export, middle_dims(export), layout))
    for seed in range(LAYOUT_CASES):
        dims = random_dims(export, rng)
        check_case(export, plain, compiled, deterministic_case(export, dims, layout, seed))


def zero_dim_variants(export: Export) -> list[dict[str, int]]:
    """Each symbolic dim at 0 with the others at 3, then all at 0 (where DIMS allows)."""
    base = middle_dims(export)
    variants = []
    for sym in export.symbols:
        if export.dim_range(sym)[0] == 0:
            variants.append({**base, sym: 0})
    if export.symbols and all(export.dim_range(s)[0] == 0 for s in export.symbols):
        variants.append(dict.fromkeys(export.symbols, 0))
    return variants


@pytest.mark.parametrize("export", compiled_params(ARRAY_EXPORTS))
def test_zero_length_axes(export: Export, compile_module: Callable[[Path], Any]) -> None:
    plain = getattr(load_plain(export.path), export.name)
    compiled = _compiled(export, compile_module)
    variants = zero_dim_variants(export)
    assert variants or not export.symbols
    for dims in variants:
        for layout in LAYOUTS:
            check_case(export, plain, compiled, deterministic_case(export, dims, layout))


def broadcast_case(export: Export) -> tuple[Case, dict[str, np.ndarray]] | None:
    """Inputs whose arrays are read-only zero-stride views (np.broadcast_to)."""
    if any(t.contiguous for _, t in export.array_params):
        return None
    case = deterministic_case(export, middle_dims(export), "C", seed=7)
    views = {}
    for name, _ in export.array_params:
        v = case.values[name]
        if v.ndim == 0 or v.shape[0] == 0:
            views[name] = v
            continue
        row = v[:1]  # constant along axis 0: stride 0 there
        views[name] = np.broadcast_to(row, v.shape)
        case.values[name] = np.array(views[name])
    return case, views


@pytest.mark.parametrize("export", compiled_params([e for e in ARRAY_EXPORTS if not e.mutates]))
def test_zero_stride_readonly_inputs(export: Export, compile_module: Callable[[Path], Any]) -> None:
    built = broadcast_case(export)
    if built is None:
        pytest.skip("C-contiguous parameter")
    case, views = built
    plain = getattr(load_plain(export.path), export.name)
    compiled = _compiled(export, compile_module)
    names = [n for n, _ in export.params]
    p_args = tuple(views.get(n, case.values[n]) for n in names)
    c_args = tuple(views.get(n, case.values[n]) for n in names)
    assert all(not v.flags.writeable for v in views.values() if v.size)
    expected, error = run_plain(export, plain, p_args)
    if error is not None:
        with pytest.raises(type(error)):
            compiled(*c_args)
        return
    try:
        assert_same(export, normalize(expected), compiled(*c_args))
    except AssertionError as exc:
        raise AssertionError(f"{export.id} {case!r} (zero strides):\n{exc}") from None
