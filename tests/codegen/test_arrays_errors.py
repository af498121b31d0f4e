"""Array errors: what the wrapper rejects, what compiled code raises, what the compiler
refuses.

Wrapper (every array argument is checked before the call):
- wrong dtype, wrong rank, or a non-array (list, None, float) → TypeError naming the
  parameter (quoted: ``'A'``), the expected type and the actual one;
- a read-only array passed to a parameter the function writes (also through a helper)
  → ValueError, and the array is untouched; read-only arrays are fine where only read.

Compiled code:
- out-of-bounds reads and writes → IndexError with NumPy's exact message ("index 5 is
  out of bounds for axis 0 with size 3"; the axis of the first bad index; negative
  indices as written), nothing written, and the process alive for the next call;
- ``CompilerOptions(boundscheck=False)`` / ``gradc build --no-boundscheck`` builds
  different code (different cache keys) that still computes in-bounds calls right.

Compiler: misuse of arrays is a CompileError at the offending line, with the message
substrings listed for each program in COMPILE_ERRORS (case-insensitive; a tuple means
"any of these"), rendered like every other CompileError (tests/frontend/test_errors.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.codegen.test_arrays_differential import build_library
from tests.frontend.test_errors import check_rendering

CORPUS = Path(__file__).parent / "corpus_arrays"


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Callable[[str], Any]:
    return lambda stem: build_library(compile_module, CORPUS / f"{stem}.py")


# ------------------------------------------------------------------------- TypeError

DTYPE_WORDS = {
    "f64": ("f64", "float64"),
    "f32": ("f32", "float32"),
    "i64": ("i64", "int64"),
    "i32": ("i32", "int32"),
    "bool": ("bool",),
}


def _rank_words(ndim: int) -> list[str]:
    """Regexes that spell "rank ndim": 2-d, 2d, ndim=2, 2 dims, rank 2, [:, :], array[f64,2."""
    colons = r",\s*".join([r":"] * ndim)
    return [
        rf"(?<![\w.]){ndim}-?d\b",
        rf"\bndim\W{{0,3}}{ndim}\b",
        rf"(?<![\w.]){ndim}[ -]dim",
        rf"\brank\W{{0,3}}{ndim}\b",
        rf"\[{colons}\]",
        rf"array\[\w+,\s*{ndim}\b",
    ]


def _mentions_rank(message: str, ndim: int) -> bool:
    return any(re.search(p, message) for p in _rank_words(ndim))


def _mentions_any(message: str, words: tuple[str, ...]) -> bool:
    return any(w in message for w in words)


def _names_param(message: str, name: str) -> bool:
    return f"'{name}'" in message or f'"{name}"' in message


A23 = np.arange(6, dtype=np.float64).reshape(2, 3)
X3 = np.array([1.0, -2.0, 0.5])

#: (id, module, export, args, kwargs, parameter, expected (dtype|rank), actual words/rank)
TYPE_ERRORS: list[tuple[str, str, str, tuple[Any, ...], dict[str, Any], str, Any, Any]] = [
    ("dtype_f32", "reductions", "sum_2d", (A23.astype(np.float32),), {}, "A", "f64", "f32"),
    ("dtype_i64", "reductions", "dot", (X3, X3.astype(np.int64)), {}, "b", "f64", "i64"),
    ("dtype_bool", "reductions", "count_true", (X3,), {}, "m", "bool", "f64"),
    ("dtype_i32", "reductions", "sum_i32", (np.arange(3),), {}, "a", "i32", "i64"),
    ("dtype_f64_for_i64", "indexing", "get_i64", (X3, 0), {}, "a", "i64", "f64"),
    ("dtype_second", "reductions", "masked_sum", (X3, X3), {}, "m", "bool", "f64"),
    ("matvec_x", "kernels", "matvec", (A23, X3.astype(np.float32)), {}, "x", "f64", "f32"),
    ("rank_1_for_2", "reductions", "sum_2d", (X3,), {}, "A", 2, 1),
    ("rank_2_for_1", "reductions", "dot", (X3, A23), {}, "b", 1, 2),
    ("rank_2_for_3", "reductions", "sum_3d", (A23,), {}, "T", 3, 2),
    ("rank_0", "reductions", "sum_f64", (np.array(1.0),), {}, "a", 1, 0),
    ("list", "reductions", "sum_2d", ([[1.0, 2.0, 3.0]],), {}, "A", "f64", ("list",)),
    ("none", "reductions", "dot", (X3, None), {}, "b", "f64", ("None",)),
    ("float", "indexing", "get", (2.5, 0), {}, "a", "f64", ("float",)),
    ("keyword", "reductions", "dot", (), {"a": X3.astype(np.float32), "b": X3}, "a", "f64", "f32"),
]


@pytest.mark.parametrize(
    ("module", "name", "args", "kwargs", "param", "expected", "actual"),
    [pytest.param(*case[1:], id=case[0]) for case in TYPE_ERRORS],
)
def test_bad_argument_is_a_type_error(
    lib: Callable[[str], Any],
    module: str,
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    param: str,
    expected: Any,
    actual: Any,
) -> None:
    fn = getattr(lib(module), name)
    with pytest.raises(TypeError) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert _names_param(msg, param), f"parameter {param!r} not named in: {msg}"
    if isinstance(expected, int):
        assert _mentions_rank(msg, expected), f"expected rank {expected} not in: {msg}"
        assert _mentions_rank(msg, actual), f"actual rank {actual} not in: {msg}"
    else:
        assert _mentions_any(msg, DTYPE_WORDS[expected]), f"expected {expected} not in: {msg}"
        words = actual if isinstance(actual, tuple) else DTYPE_WORDS[actual]
        assert _mentions_any(msg, words), f"actual type {words} not in: {msg}"
    # the library is still usable
    assert lib("reductions").dot(X3, X3) == 5.25


def test_noncontiguous_for_contiguous_parameter_is_refused_or_right(
    lib: Callable[[str], Any],
) -> None:
    """``f64[::1]`` with a strided view: a TypeError/ValueError, or (if the wrapper copies)
    the right answer — never a read of the wrong elements."""
    fn = lib("reductions").sum_contiguous
    base = np.arange(10, dtype=np.float64)
    view = base[::2]
    expected = sum(float(v) * (i + 1) for i, v in enumerate(view))
    try:
        got = fn(view)
    except (TypeError, ValueError) as exc:
        assert _names_param(str(exc), "a"), str(exc)
    else:
        assert got == expected
    assert fn(np.ascontiguousarray(view)) == expected


# ------------------------------------------------------------------------- read-only


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


#: (id, module, export, make args): one argument is read-only and the export writes it
READONLY_WRITERS: list[tuple[str, str, str, Callable[[], tuple[Any, ...]]]] = [
    ("set_at", "indexing", "set_at", lambda: (_readonly(X3), 0, 1.0)),
    ("prefix_sum", "kernels", "prefix_sum_inplace", lambda: (_readonly(X3),)),
    ("axpy_y", "kernels", "axpy_inplace", lambda: (2.0, X3.copy(), _readonly(X3))),
    ("set2", "indexing", "set2", lambda: (_readonly(A23), 0, 0, 1.0)),
    ("helper_writes", "calls", "accumulate_into", lambda: (_readonly(X3), X3.copy())),
    ("helper_writes_2d", "calls", "fill_rows_via_helper", lambda: (_readonly(A23), 1.0)),
    ("aug_i64", "augassign", "aug_add_i64", lambda: (_readonly(np.arange(4)), 1)),
    ("bool", "indexing", "toggle_bool", lambda: (_readonly(np.array([True, False])), 0)),
]


@pytest.mark.parametrize(
    ("module", "name", "make_args"),
    [pytest.param(*case[1:], id=case[0]) for case in READONLY_WRITERS],
)
def test_readonly_array_to_a_writer_is_a_value_error(
    lib: Callable[[str], Any], module: str, name: str, make_args: Callable[[], tuple[Any, ...]]
) -> None:
    args = make_args()
    snapshot = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(ValueError):
        getattr(lib(module), name)(*args)
    for before, after in zip(snapshot, args):
        if isinstance(after, np.ndarray):
            np.testing.assert_array_equal(after, before)


def test_readonly_arrays_are_fine_where_only_read(lib: Callable[[str], Any]) -> None:
    A, x = _readonly(A23), _readonly(X3)
    assert lib("reductions").sum_2d(A) == 15.0
    np.testing.assert_array_equal(lib("reductions").column_sums(A), A23.sum(axis=0))
    assert lib("indexing").get(x, -1) == 0.5
    y = np.zeros(3)
    lib("indexing").scatter_add(y, np.array([0, 1, 2]), x)  # x read-only, only y written
    np.testing.assert_array_equal(y, X3)
    zero_stride = np.broadcast_to(np.array([2.0]), (5,))
    assert lib("reductions").sum_f64(zero_stride) == 10.0


def test_readonly_arrays_are_fine_where_a_helper_only_reads(lib: Callable[[str], Any]) -> None:
    A, x = _readonly(A23), _readonly(X3)
    np.testing.assert_array_equal(lib("kernels").matvec(A, x), A23 @ X3)
    y = np.zeros(3)
    lib("kernels").axpy_inplace(2.0, x, y)  # x read-only, only y written
    np.testing.assert_array_equal(y, 2.0 * X3)
    acc = np.zeros(3)
    lib("calls").accumulate_into(acc, x)  # x passed on to a helper that only reads it
    np.testing.assert_array_equal(acc, 2.0 * X3)


# ------------------------------------------------------------------------- IndexError


def _numpy_message(array: np.ndarray, index: Any) -> str:
    with pytest.raises(IndexError) as info:
        array[index]
    return str(info.value)


#: (id, module, export, array, indices, extra args (values to store) or ())
OUT_OF_BOUNDS: list[tuple[str, str, str, np.ndarray, tuple[int, ...], tuple[Any, ...]]] = [
    ("read_past_end", "indexing", "get", X3, (5,), ()),
    ("read_at_len", "indexing", "get", X3, (3,), ()),
    ("read_negative", "indexing", "get", X3, (-4,), ()),
    ("read_huge", "indexing", "get", X3, (2**62,), ()),
    ("read_min_int", "indexing", "get", X3, (-(2**63),), ()),
    ("read_empty", "indexing", "get", np.zeros(0), (0,), ()),
    ("write_past_end", "indexing", "set_at", X3, (3,), (9.0,)),
    ("write_negative", "indexing", "set_at", X3, (-4,), (9.0,)),
    ("read_2d_axis1", "indexing", "get2", A23, (1, 3), ()),
    ("read_2d_axis0", "indexing", "get2", A23, (-3, 0), ()),
    ("read_2d_both", "indexing", "get2", A23, (7, 7), ()),
    ("write_2d_axis1", "indexing", "set2", A23, (0, -4), (9.0,)),
    ("read_3d_axis2", "indexing", "get3", np.zeros((2, 3, 4)), (1, 2, 4), ()),
    ("write_3d_axis1", "indexing", "set3", np.zeros((2, 3, 4), np.int64), (0, -4, 0), (1,)),
    ("aug_write", "augassign", "aug_at", X3, (3,), (1.0,)),
    ("bool_read", "indexing", "get_bool", np.array([True, False, True]), (-5,), ()),
]


@pytest.mark.parametrize(
    ("module", "name", "array", "index", "extra"),
    [pytest.param(*case[1:], id=case[0]) for case in OUT_OF_BOUNDS],
)
def test_out_of_bounds_is_an_index_error(
    lib: Callable[[str], Any],
    module: str,
    name: str,
    array: np.ndarray,
    index: tuple[int, ...],
    extra: tuple[Any, ...],
) -> None:
    fn = getattr(lib(module), name)
    a = array.copy()
    expected = _numpy_message(a, index if len(index) > 1 else index[0])
    with pytest.raises(IndexError) as info:
        fn(a, *index, *extra)
    assert str(info.value) == expected
    np.testing.assert_array_equal(a, array)  # nothing written
    # alive: an in-bounds call right after
    alive = np.ones((3,) * array.ndim, dtype=array.dtype)
    fn(alive, *(0 for _ in index), *extra)


def test_issue_example_message(lib: Callable[[str], Any]) -> None:
    with pytest.raises(IndexError) as info:
        lib("indexing").get(np.zeros(3), 5)
    assert str(info.value) == "index 5 is out of bounds for axis 0 with size 3"


def test_index_error_inside_a_loop(lib: Callable[[str], Any]) -> None:
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(IndexError) as info:
        lib("indexing").sum_one_past_end(a)
    assert str(info.value) == "index 3 is out of bounds for axis 0 with size 3"
    with pytest.raises(IndexError) as info:
        lib("indexing").gather(a, np.array([0, 2, -4]))
    assert str(info.value) == "index -4 is out of bounds for axis 0 with size 3"
    with pytest.raises(IndexError) as info:
        lib("reductions").row_max(np.zeros((2, 0)))
    assert str(info.value) == "index 0 is out of bounds for axis 1 with size 0"
    assert lib("indexing").get(a, 2) == 3.0


def test_index_error_inside_a_helper(lib: Callable[[str], Any]) -> None:
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(IndexError) as info:
        lib("calls").raise_with_temp(a, -7)
    assert str(info.value) == "index -7 is out of bounds for axis 0 with size 3"
    with pytest.raises(IndexError) as info:
        lib("calls").median(np.zeros(0))
    assert str(info.value) == "index 0 is out of bounds for axis 0 with size 0"


# ------------------------------------------------------------------------- boundscheck off

BOUNDS_SOURCE = """\
import gradc
from gradc import f64, i64


@gradc.export
def bc_get(a: f64[:], i: i64) -> f64:
    return a[i]


@gradc.export
def bc_set2(A: f64[:, :], i: i64, j: i64, v: f64) -> None:
    A[i, j] = v
"""


def test_boundscheck_off_builds_other_code(tmp_path: Path) -> None:
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    source = tmp_path / "bounds_mod.py"
    source.write_text(BOUNDS_SOURCE)
    checked = build_module(source, CompilerOptions())
    unchecked = build_module(source, CompilerOptions(boundscheck=False))
    for on, off in zip(checked.entries, unchecked.entries):
        assert on.name == off.name
        assert on.key != off.key, f"{on.name}: boundscheck must change the cache key"
        assert on.symbol != off.symbol
    out = tmp_path / "bounds_mod.gradc"
    write_artifact(out, unchecked)
    lib = gradc.load(out)
    a = np.array([1.0, 2.0, 3.0])
    assert lib.bc_get(a, 1) == 2.0
    assert lib.bc_get(a, -1) == 3.0  # negative indices keep Python's meaning
    A = np.zeros((2, 3))
    lib.bc_set2(A, 1, -1, 4.0)
    expected = np.zeros((2, 3))
    expected[1, 2] = 4.0
    np.testing.assert_array_equal(A, expected)


def test_cli_no_boundscheck_flag(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gradc.artifacts.store import read_manifest
    from gradc.cli.main import cli

    source = tmp_path / "bounds_mod.py"
    source.write_text(BOUNDS_SOURCE)
    runner = CliRunner()
    keys = {}
    for flag in ([], ["--no-boundscheck"]):
        out = tmp_path / f"out{len(flag)}"
        result = runner.invoke(cli, ["build", str(source), "-o", str(out), *flag])
        assert result.exit_code == 0, result.output
        keys[bool(flag)] = {e.name: e.key for e in read_manifest(out).entries}
    assert set(keys[True]) == set(keys[False]) == {"bc_get", "bc_set2"}
    for name in keys[True]:
        assert keys[True][name] != keys[False][name]


# ------------------------------------------------------------------------- compile errors

HEADER = "import numpy as np\n\nimport gradc\nfrom gradc import f64, i32, i64\n\n\n"

#: name -> (message substrings, each a str or a tuple of alternatives; program body).
#: The error must be reported on the line marked ``# error-here``.
COMPILE_ERRORS: dict[str, tuple[tuple[Any, ...], str]] = {
    # T[i, j] of a 3-D array is a row (a view): adding it to a float makes an array
    "partial_index_3d": (
        ("cannot unify types f64 and f64[::1] for variable 's'",),
        "@gradc.export\ndef f(T: f64[:, :, :], i: i64) -> f64:\n"
        "    s = 0.0\n    for j in range(T.shape[1]):\n"
        "        s += T[i, j]  # error-here\n    return s\n",
    ),
    "zeros_float_shape": (
        (("shape", "int"),),
        "@gradc.export\ndef f(x: f64) -> f64:\n"
        "    a = np.zeros(x)  # error-here\n    return a[0]\n",
    ),
    "zeros_float_in_tuple_shape": (
        (("shape", "int"),),
        "@gradc.export\ndef f(n: i64) -> f64:\n"
        "    a = np.zeros((n, 2.0))  # error-here\n    return a[0, 0]\n",
    ),
    "unknown_numpy_function": (
        ("numpy",),
        "@gradc.export\ndef f(a: f64[:]) -> f64:\n"
        "    b = np.foo(a)  # error-here\n    return b[0]\n",
    ),
    "too_many_indices_1d": (
        ("ind",),
        "@gradc.export\ndef f(a: f64[:], i: i64, j: i64) -> f64:\n"
        "    return a[i, j]  # error-here\n",
    ),
    "too_many_indices_2d": (
        ("ind",),
        "@gradc.export\ndef f(A: f64[:, :], i: i64) -> None:\n    A[i, i, i] = 1.0  # error-here\n",
    ),
    "float_index": (
        ("ind",),
        "@gradc.export\ndef f(a: f64[:], x: f64) -> f64:\n    return a[x]  # error-here\n",
    ),
}


def _program(name: str) -> str:
    return HEADER + COMPILE_ERRORS[name][1]


def _marked_line(source: str) -> int:
    lines = [i for i, line in enumerate(source.splitlines(), 1) if "# error-here" in line]
    assert len(lines) == 1
    return lines[0]


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_error_program_is_valid_python(name: str) -> None:
    source = _program(name)
    compile(source, f"{name}.py", "exec")
    _marked_line(source)


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_array_compile_error(name: str, tmp_path: Path) -> None:
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    source = _program(name)
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    with pytest.raises(CompileError) as info:
        build_module(path, CompilerOptions())
    err = info.value
    message = err.message.lower()
    for want in COMPILE_ERRORS[name][0]:
        options = want if isinstance(want, tuple) else (want,)
        assert any(w.lower() in message for w in options), (
            f"message {err.message!r} lacks {' or '.join(map(repr, options))}"
        )
    assert err.loc.line == _marked_line(source), f"wrong line:\n{err}"
    check_rendering(err, path, source)
