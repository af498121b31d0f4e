"""Abusive calls of loaded exports — derivative exports of every flavour included — raise
Python exceptions, never crash, and leak nothing.

Every argument of every export of ABUSE_SOURCE (the primal functions and their ``grad``,
``value_and_grad``, ``jvp``, ``vjp``, ``reverse`` and ``forward`` exports) is replaced in
turn by a wrong dtype, a wrong rank, None, a list, a float, an object or datetime or
big-endian array, a read-only array, non-contiguous, Fortran-order, reversed, zero-stride
and unaligned views, arrays of other lengths, NaN/inf, out-of-range and non-numeric
scalars. The calls run in a child process (a crash fails the test and names the case) with
its address space capped, so that an allocation of a huge gradient fails cleanly instead
of taking the machine's memory. Oracles: the unmodified call (a read-only or unaligned or
non-contiguous array must give the same result as a plain copy where the export accepts
it), CPython running the same source (NaN/inf and numeric scalars: the exception class or
the value), NumPy (index errors on views of more than 2**31 elements, allocation errors).

Leaks: allocating and derivative exports, including calls that raise, leave the runtime's
live-block counter unchanged and allocate no Python objects per call (10**4 calls in the
default run, 10**5 in the slow one, each in a fresh child process).
"""

from __future__ import annotations

import math
import pickle
import runpy
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

ROOT = Path(__file__).resolve().parents[2]

ABUSE_SOURCE = """\
import numpy as np

import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64, w: f64[:], n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s += w[i] * x
    return s * s


d_f = gradc.grad(f, wrt=("x", "w"))
vg_f = gradc.value_and_grad(f, wrt=("w",))
t_f = gradc.jvp(f, wrt=("x", "w"))
v_f = gradc.vjp(f, wrt=("w",))
r_f = gradc.reverse(f, x=gradc.Active, w=gradc.Duplicated)
fw_f = gradc.forward(f, x=gradc.Duplicated, w=gradc.Duplicated)


@gradc.export
def g(A: f64[:, ::1], y: f64) -> f64[:]:
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * y
        out[i] = s
    return out


v_g = gradc.vjp(g, wrt=("A", "y"))
t_g = gradc.jvp(g, wrt=("A", "y"))


@gradc.export
def h(w: f64[:], k: f64) -> f64:
    w[0] = w[0] * k
    return w[0] + w[1]


d_h = gradc.grad(h, wrt=("w", "k"))
r_h = gradc.reverse(h, w=gradc.Duplicated, k=gradc.Active)
t_h = gradc.jvp(h, wrt=("w", "k"))


@gradc.export
def sq(a: f64[:]) -> f64:
    s = 0.0
    for v in a:
        s += v * v
    return s


d_sq = gradc.grad(sq, wrt="a")


@gradc.export
def zeros_n(n: i64) -> f64[:]:
    return np.zeros(n)


@gradc.export
def zeros_nm(n: i64, m: i64) -> f64[:, :]:
    return np.zeros((n, m))


@gradc.export
def get(a: f64[:], i: i64) -> f64:
    return a[i]


@gradc.export
def get2(a: f64[:, :], i: i64, j: i64) -> f64:
    return a[i, j]


@gradc.export
def copy_of(a: f64[:]) -> f64[:]:
    return a.copy()
"""

W = np.array([1.0, 2.0, 3.0])
A23 = np.arange(6.0).reshape(2, 3)

#: export -> (its primal, the positions of the primal's arguments among its own,
#: whether its result carries the primal's value: "all", "first" or None, base arguments)
EXPORTS: dict[str, tuple[str, tuple[int, ...], str | None, tuple[Any, ...]]] = {
    "f": ("f", (0, 1, 2), "all", (0.5, W, 3)),
    "d_f": ("f", (0, 1, 2), None, (0.5, W, 3)),
    "vg_f": ("f", (0, 1, 2), "first", (0.5, W, 3)),
    "t_f": ("f", (0, 1, 2), "first", (0.5, W, 3, 1.0, W)),
    "v_f": ("f", (0, 1, 2), None, (0.5, W, 3, 1.0)),
    "r_f": ("f", (0, 1, 3), "first", (0.5, W, np.zeros(3), 3)),
    "fw_f": ("f", (0, 2, 4), "first", (0.5, 1.0, W, W, 3)),
    "g": ("g", (0, 1), "all", (A23, 2.0)),
    "v_g": ("g", (0, 1), None, (A23, 2.0, np.ones(2))),
    "t_g": ("g", (0, 1), "first", (A23, 2.0, A23, 1.0)),
    "h": ("h", (0, 1), "all", (W, 2.0)),
    "d_h": ("h", (0, 1), None, (W, 2.0)),
    "r_h": ("h", (0, 2), "first", (W, np.zeros(3), 2.0)),
    "t_h": ("h", (0, 1), "first", (W, 2.0, W, 1.0)),
    "sq": ("sq", (0,), "all", (W,)),
    "d_sq": ("sq", (0,), None, (W,)),
    "get": ("get", (0, 1), "all", (W, 1)),
    "get2": ("get2", (0, 1, 2), "all", (A23, 1, 2)),
    "copy_of": ("copy_of", (0,), "all", (W,)),
    "zeros_n": ("zeros_n", (0,), "all", (3,)),
    "zeros_nm": ("zeros_nm", (0, 1), "all", (2, 3)),
}

#: Substitutions that are not an array of the right dtype and rank: TypeError, naming the
#: parameter.
NOT_AN_ARRAY = ("f32", "i64", "rank+1", "rank-1", "none", "list", "float", "object",
                "datetime", "bigendian")  # fmt: skip
#: Views of the right dtype and rank that are not C-contiguous.
NONCONTIGUOUS = ("strided", "reversed", "fortran", "zerostride")
#: Numeric scalars a float parameter accepts (CPython computes with them too).
NUMERIC = ("nan", "inf", "big", "neg_big", "huge", "minus", "np_nan", "bool", "np_i", "array0d")


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


def _unaligned(a: np.ndarray) -> np.ndarray:
    buf = bytearray(1 + a.nbytes)
    view = np.frombuffer(buf, dtype=a.dtype, offset=1, count=a.size).reshape(a.shape)
    view[...] = a
    return view


def bad_arrays(a: np.ndarray) -> Iterator[tuple[str, Any]]:
    """(what, value) for each substitution of array argument ``a``."""
    yield "f32", a.astype(np.float32)
    yield "i64", a.astype(np.int64)
    yield "rank+1", a[..., None]
    yield "rank-1", a.reshape(-1)[0] if a.ndim == 1 else a[0]
    yield "none", None
    yield "list", a.tolist()
    yield "float", 1.5
    yield "object", np.array(a.tolist(), dtype=object)
    yield "datetime", a.astype("m8[s]")
    yield "bigendian", a.astype(">f8")
    yield "readonly", _readonly(a)
    yield "strided", np.repeat(a, 2, axis=-1)[..., ::2]
    yield "reversed", a[..., ::-1].copy()[..., ::-1]
    yield "fortran", np.asfortranarray(a) if a.ndim > 1 else a[::-1][::-1].copy()
    yield "zerostride", as_strided(a.copy().reshape(-1)[1:2], shape=a.shape, strides=(0,) * a.ndim)
    yield "unaligned", _unaligned(a)
    yield "short", a[..., :1].copy()
    yield "long", np.concatenate([a, a], axis=-1)
    yield "empty", np.zeros((0,) * a.ndim)
    yield "nan", np.full_like(a, math.nan)
    yield "inf", np.full_like(a, -math.inf)


def bad_scalars() -> Iterator[tuple[str, Any]]:
    yield from [
        ("none", None), ("str", "1"), ("complex", 1j), ("list", [1.0]), ("arr1", np.array([1.0])),
        ("nan", math.nan), ("inf", -math.inf), ("big", 2**63), ("neg_big", -(2**63) - 1),
        ("huge", 2**62), ("minus", -1), ("np_nan", np.float64("nan")), ("bool", True),
        ("np_i", np.int64(2)), ("array0d", np.array(1.0)),
    ]  # fmt: skip


def cases() -> list[tuple[str, str, int, str, list[Any]]]:
    """(case id, export, argument position, substitution, arguments) for every export."""
    out = []
    for name, (_, _, _, base) in EXPORTS.items():
        for k, v in enumerate(base):
            subs = bad_arrays(v) if isinstance(v, np.ndarray) else bad_scalars()
            for what, bad in subs:
                args = [a.copy() if isinstance(a, np.ndarray) else a for a in base]
                args[k] = bad
                out.append((f"{name}[{k}]={what}", name, k, what, args))
    return out


def _outcome(fn: Callable[..., Any], args: list[Any]) -> tuple[str, Any]:
    try:
        return "value", fn(*args)
    except Exception as exc:
        return type(exc).__name__, str(exc)


def run_child(artifact: str, out: str, which: str) -> None:
    """In the child process: every case of ``which`` ("abuse" or "huge"), with both call
    paths; prints each case before running it, pickles {case: (kind, value)} to ``out``."""
    import gradc

    results: dict[str, Any] = {}
    for fast in (True, False):
        lib = gradc.load(artifact, fastcall=fast)
        todo = cases() if which == "abuse" else huge_cases()
        for case, name, _, _, args in todo:
            print(f"START {case} fastcall={fast}", flush=True)
            # a plain copy before the call (it may write its arguments)
            copy = _plain_copy(args) if which == "abuse" else None
            results[f"{case} fastcall={fast}"] = _outcome(lib[name], args)
            if which == "abuse":
                results[f"{case} base fastcall={fast}"] = _outcome(
                    lib[name],
                    [a.copy() if isinstance(a, np.ndarray) else a for a in EXPORTS[name][3]],
                )
                if copy is not None:
                    results[f"{case} copy fastcall={fast}"] = _outcome(lib[name], copy)
    Path(out).write_bytes(pickle.dumps(results))


def _plain_copy(args: list[Any]) -> list[Any] | None:
    """``args`` with every array replaced by a C-contiguous, aligned, writable copy of the
    same values (None when no argument is an array)."""
    if not any(isinstance(a, np.ndarray) and a.dtype.kind != "O" for a in args):
        return None
    return [np.array(a, order="C") if isinstance(a, np.ndarray) else a for a in args]


#: Address-space cap of the child (bytes): a gradient of 2**31 elements (16 GiB) must
#: fail with MemoryError instead of being allocated and zeroed.
CHILD_ADDRESS_SPACE = 8 << 30

_CHILD = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    from tests.artifacts.test_call_abuse import run_child
    run_child(sys.argv[1], sys.argv[2], sys.argv[3])
    """
)


def _run(artifact: Path, out: Path, which: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD.format(limit=CHILD_ADDRESS_SPACE),
            str(artifact),
            str(out),
            which,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    started = [ln for ln in done.stdout.splitlines() if ln.startswith("START")]
    assert done.returncode == 0, (
        f"the child died (status {done.returncode}) in {started[-1] if started else 'set-up'}:\n"
        f"{done.stderr[-3000:]}"
    )
    results: dict[str, Any] = pickle.loads(out.read_bytes())
    return results


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    folder = tmp_path_factory.mktemp("abuse")
    source = folder / "abuse_mod.py"
    source.write_text(ABUSE_SOURCE)
    out = folder / "abuse_mod.gradc"
    write_artifact(out, build_module(source, CompilerOptions()))
    return out


@pytest.fixture(scope="module")
def python(artifact: Path) -> dict[str, Any]:
    """The primal functions run by CPython (the oracle)."""
    return runpy.run_path(str(artifact.parent / "abuse_mod.py"))


def _same(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN, tuples and arrays element by element."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(np.array_equal(np.asarray(a, float), np.asarray(b, float), equal_nan=True))
    except (TypeError, ValueError):
        return False


def _value_part(kind: str | None, value: Any) -> Any:
    return value if kind == "all" else value[0]


def _check(
    case: tuple[str, str, int, str, list[Any]],
    results: dict[str, Any],
    fast: bool,
    python: dict[str, Any],
    signature: Any,
) -> str | None:
    """What is wrong with one case's outcome (None: it is right)."""
    case_id, name, k, what, args = case
    key = f"{case_id} fastcall={fast}"
    kind, value = results[key]
    base_kind, base_value = results[f"{case_id} base fastcall={fast}"]
    if base_kind != "value":
        return f"the unmodified call raised {base_kind}: {base_value!r}"
    primal, positions, carries, _ = EXPORTS[name]
    pname, ptype = signature.params[k]
    is_array = "[" in ptype
    in_primal = k in positions

    def raises(cls: str, *words: str) -> str | None:
        if kind != cls:
            return f"expected {cls}, got {kind}: {value!r}"[:300]
        missing = [w for w in words if w not in value]
        return f"{cls} message lacks {missing}: {value!r}" if missing else None

    def like_copy() -> str | None:
        ckind, cvalue = results[f"{case_id} copy fastcall={fast}"]
        if (kind, ckind) == ("value", "value"):
            return None if _same(value, cvalue) else f"{value!r} != copy's {cvalue!r}"
        return None if kind == ckind else f"{kind} where a plain copy gives {ckind}"

    def like_python() -> str | None:
        pargs = [args[p] for p in positions]
        if what == "bool" and ptype in ("i64", "i32"):
            # an int parameter takes a bool as the int it is (True is 1), where NumPy would
            # read a bool index or shape differently
            pargs = [int(a) if p == k else a for p, a in zip(positions, pargs)]
        try:
            with np.errstate(all="ignore"):
                expect = python[primal](
                    *[a.copy() if isinstance(a, np.ndarray) else a for a in pargs]
                )
        except Exception as exc:  # the derivative must raise the primal's exception
            return raises(type(exc).__name__)
        if kind != "value":
            return f"{kind}: {value!r} where CPython returns {expect!r}"[:300]
        if carries is not None and not _same(_value_part(carries, value), expect):
            return f"value {_value_part(carries, value)!r} != CPython's {expect!r}"
        return None

    if is_array:
        if what in NOT_AN_ARRAY:
            return raises("TypeError", f"'{pname}'")
        if what == "readonly":
            if pname in signature.writes:
                return raises("ValueError", f"'{pname}'", "read-only")
            return (
                None if (kind, _same(value, base_value)) == ("value", True) else "read-only differs"
            )
        if what in NONCONTIGUOUS:
            if "::1" in ptype:
                return raises("ValueError", f"'{pname}'", "contiguous")
            if what == "zerostride" and pname in signature.writes:
                return None  # a self-overlapping written array: see the module notes
            return like_copy()
        if what == "unaligned":
            return like_copy()
        if not in_primal:  # a shadow, tangent or cotangent of another length, or NaN/inf
            if what in ("short", "long", "empty"):
                return raises("ValueError", f"'{pname}'" if pname != "cotangent" else "cotangent")
            if carries is None:
                return None if kind == "value" else f"{kind}: {value!r}"
            ok = kind == "value" and _same(
                _value_part(carries, value), _value_part(carries, base_value)
            )
            return None if ok else f"{kind} {value!r}: the primal value changed"
        if what in ("short", "long", "empty") and len(args) != len(positions):
            # the primal argument changed shape but its shadow did not
            if kind == "ValueError" and ("shape" in value or "must have" in value):
                return None
        return like_python()
    # scalars
    if what in ("none", "str", "complex", "list", "arr1"):
        return raises("TypeError", f"'{pname}'")
    if ptype in ("i64", "i32"):
        if what in ("nan", "inf", "np_nan", "array0d"):
            return raises("TypeError", f"'{pname}'")
        if what in ("big", "neg_big"):
            return raises("OverflowError", f"'{pname}'")
    if not in_primal:
        if carries is None:
            return None if kind == "value" else f"{kind}: {value!r}"
        ok = kind == "value" and _same(
            _value_part(carries, value), _value_part(carries, base_value)
        )
        return None if ok else f"{kind} {value!r}: the primal value changed"
    if name.startswith("zeros") and what == "huge":
        # NumPy raises ValueError("array is too big; ..."); compiled code MemoryError with
        # NumPy's message (tests/codegen/test_arrays.py): either is a clean error.
        if kind in ("ValueError", "MemoryError") and "too big" in str(value):
            return None
        return f"{kind}: {value!r}"
    return like_python()


def test_abusive_arguments_raise_python_exceptions(
    artifact: Path, python: dict[str, Any], tmp_path: Path
) -> None:
    import gradc

    results = _run(artifact, tmp_path / "abuse.pickle", "abuse")
    manifest = gradc.load(artifact, fastcall=False).manifest
    problems = []
    for case in cases():
        signature = manifest.entry(case[1]).signature
        for fast in (True, False):
            why = _check(case, results, fast, python, signature)
            if why is not None:
                problems.append(f"{case[0]} (fastcall={fast}): {why}")
    assert not problems, f"{len(problems)} wrong outcomes:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------- huge sizes

HUGE = 2**31 + 5


def _huge_1d() -> np.ndarray:
    """A read-only view of 2**31 + 5 elements over one float (zero stride)."""
    return as_strided(np.array([7.25]), shape=(HUGE,), strides=(0,), writeable=False)


def _huge_2d() -> np.ndarray:
    return as_strided(
        np.array([-1.5]), shape=(2**16 + 1, 2**16 + 1), strides=(0, 0), writeable=False
    )


def huge_cases() -> list[tuple[str, str, int, str, list[Any]]]:
    """Arrays of more than 2**31 elements (zero-stride views) and sizes that overflow."""
    one, two = _huge_1d(), _huge_2d()
    rows: list[tuple[str, str, list[Any]]] = [
        ("get_far", "get", [one, 2**31 + 3]),
        ("get_last", "get", [one, -1]),
        ("get_past", "get", [one, HUGE]),
        ("get_before", "get", [one, -HUGE - 1]),
        ("get2_far", "get2", [two, 2**16, 2**16 - 3]),
        ("get2_past", "get2", [two, 2**16 + 1, 0]),
        ("get2_past_axis1", "get2", [two, 0, -(2**16) - 2]),
        ("t_f_tangent_shape", "t_f", [0.5, one, 3, 1.0, W]),
        ("t_f_huge_both", "t_f", [0.5, one, 3, 1.0, one]),
        ("t_f_small", "t_f", [0.5, np.full(3, one[0]), 3, 1.0, np.full(3, one[0])]),
        ("fw_f_huge_both", "fw_f", [0.5, 1.0, one, one, 3]),
        ("fw_f_small", "fw_f", [0.5, 1.0, np.full(3, one[0]), np.full(3, one[0]), 3]),
        ("r_f_shadow_shape", "r_f", [0.5, one, np.zeros(3), 3]),
        ("d_f_huge", "d_f", [0.5, one, 3]),
        ("v_f_huge", "v_f", [0.5, one, 3, 1.0]),
        ("d_sq_huge", "d_sq", [one]),
        ("copy_huge", "copy_of", [one]),
        ("zeros_product", "zeros_nm", [2**32, 2**32]),
        ("zeros_product_big", "zeros_nm", [2**62, 4]),
        ("zeros_wrap", "zeros_nm", [2**63 - 1, 2]),
        ("zeros_zero_times_huge", "zeros_nm", [0, 2**62]),
        ("zeros_bytes_overflow", "zeros_n", [2**61]),
        ("zeros_negative", "zeros_nm", [3, -1]),
        ("zeros_negative_zero", "zeros_nm", [0, -1]),
    ]
    return [(case, name, 0, "", args) for case, name, args in rows]


def _numpy_outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", fn()
    except Exception as exc:
        return type(exc).__name__, str(exc)


def test_huge_sizes_raise_python_exceptions(artifact: Path, tmp_path: Path) -> None:
    results = _run(artifact, tmp_path / "huge.pickle", "huge")
    one, two = _huge_1d(), _huge_2d()
    # NumPy itself on the same views and shapes is the oracle.
    numpy = {
        "get_far": _numpy_outcome(lambda: one[2**31 + 3]),
        "get_last": _numpy_outcome(lambda: one[-1]),
        "get_past": _numpy_outcome(lambda: one[HUGE]),
        "get_before": _numpy_outcome(lambda: one[-HUGE - 1]),
        "get2_far": _numpy_outcome(lambda: two[2**16, 2**16 - 3]),
        "get2_past": _numpy_outcome(lambda: two[2**16 + 1, 0]),
        "get2_past_axis1": _numpy_outcome(lambda: two[0, -(2**16) - 2]),
        "zeros_negative": _numpy_outcome(lambda: np.zeros((3, -1))),
        "zeros_negative_zero": _numpy_outcome(lambda: np.zeros((0, -1))),
        "zeros_zero_times_huge": _numpy_outcome(lambda: np.zeros((0, 2**62))),
    }
    for fast in (True, False):
        got = {case: results[f"{case} fastcall={fast}"] for case, *_ in huge_cases()}
        for case, (kind, value) in numpy.items():
            assert got[case][0] == kind, (case, fast, got[case], (kind, value))
            if kind == "value":
                assert got[case][1] == value, (case, fast, got[case][1], value)
            elif kind == "IndexError":
                assert got[case][1] == value, (case, fast)  # NumPy's own message
        # Too big for any allocator (NumPy: ValueError "array is too big"), or a gradient
        # of 2**31 elements (16 GiB) beyond the child's address space: a clean error.
        for case in ("zeros_product", "zeros_product_big", "zeros_wrap", "zeros_bytes_overflow"):
            assert got[case][0] in ("ValueError", "MemoryError"), (case, got[case])
            assert "too big" in got[case][1], (case, got[case])
        for case in ("d_f_huge", "v_f_huge", "d_sq_huge", "copy_huge"):
            assert got[case][0] == "MemoryError", (case, got[case])
        for case in ("t_f_tangent_shape", "r_f_shadow_shape"):
            assert got[case][0] == "ValueError" and "'d_w'" in got[case][1], (case, got[case])
        # A tangent as long as its parameter: the function reads three elements of each,
        # so it computes what it computes on three-element copies.
        assert got["t_f_huge_both"][0] == "value", got["t_f_huge_both"]
        assert got["t_f_huge_both"] == got["t_f_small"]
        assert got["fw_f_huge_both"] == got["fw_f_small"]


# ---------------------------------------------------------------------------- leaks

_LEAK_CHILD = textwrap.dedent(
    """
    import gc, json, sys
    import numpy as np
    import gradc

    lib = gradc.load(sys.argv[1])
    n = int(sys.argv[2])
    w = np.array([1.0, 2.0, 3.0])
    A = np.arange(6.0).reshape(2, 3)
    calls = {
        "d_f": lambda: lib.d_f(0.5, w, 3),
        "vg_f": lambda: lib.vg_f(0.5, w, 3),
        "t_f": lambda: lib.t_f(0.5, w, 3, 1.0, w),
        "v_f": lambda: lib.v_f(0.5, w, 3, 1.0),
        "r_f": lambda: lib.r_f(0.5, w, np.zeros(3), 3),
        "fw_f": lambda: lib.fw_f(0.5, 1.0, w, w, 3),
        "g": lambda: lib.g(A, 2.0),
        "v_g": lambda: lib.v_g(A, 2.0, np.ones(2)),
        "t_g": lambda: lib.t_g(A, 2.0, A, 1.0),
        "d_h": lambda: lib.d_h(w.copy(), 2.0),
        "r_h": lambda: lib.r_h(w.copy(), np.zeros(3), 2.0),
        "copy_of": lambda: lib.copy_of(w),
        "d_sq": lambda: lib.d_sq(w),
        "zeros_nm": lambda: lib.zeros_nm(4, 5),
        # calls that raise: in compiled code (primal and derivative), in the checks
        "f!": lambda: lib.f(0.5, w, 5),
        "d_f!": lambda: lib.d_f(0.5, w, 5),
        "t_f!": lambda: lib.t_f(0.5, w, 5, 1.0, w),
        "r_f!": lambda: lib.r_f(0.5, w, np.zeros(3), 5),
        "v_f!": lambda: lib.v_f(0.5, w, 5, 1.0),
        "v_g!": lambda: lib.v_g(A, 2.0, np.ones(3)),
        "get!": lambda: lib.get(w, 7),
        "zeros_nm!": lambda: lib.zeros_nm(2**62, 4),
        "d_f_type!": lambda: lib.d_f(0.5, None, 3),
        "r_f_readonly!": lambda: lib.r_f(0.5, w, np.broadcast_to(0.0, 3), 3),
    }

    def live():
        return gradc.runtime_stats()["live"]

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    out = {}
    for name, fn in calls.items():
        def run():
            try:
                fn()
            except (IndexError, ValueError, TypeError, MemoryError):
                pass
        for _ in range(200):
            run()
        gc.collect()
        l0, b0, r0 = live(), sys.getallocatedblocks(), rss()
        for _ in range(n):
            run()
        gc.collect()
        out[name] = [live() - l0, sys.getallocatedblocks() - b0, rss() - r0]
    print(json.dumps(out))
    """
)


def _leaks(artifact: Path, calls: int) -> dict[str, list[int]]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", _LEAK_CHILD, str(artifact), str(calls)],
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, list[int]] = json.loads(done.stdout.splitlines()[-1])
    return result


def _assert_no_leaks(measured: dict[str, list[int]], calls: int, rss_bytes: int) -> None:
    for name, (live, blocks, rss) in measured.items():
        assert live == 0, f"{name}: {live} runtime blocks leaked over {calls} calls"
        # A Python object leaked per call would show as >= `calls` allocated blocks.
        assert blocks < calls // 2, f"{name}: {blocks} Python blocks more after {calls} calls"
        assert rss < rss_bytes, f"{name}: RSS grew by {rss} bytes over {calls} calls"


def test_no_leaks_in_1000_calls_each(artifact: Path) -> None:
    """24 exports and calls, 1,000 calls each (24,000 in all, about a second)."""
    _assert_no_leaks(_leaks(artifact, 1_000), 1_000, 8 << 20)


@pytest.mark.slow
def test_no_leaks_in_100k_calls_each(artifact: Path) -> None:
    _assert_no_leaks(_leaks(artifact, 100_000), 100_000, 4 << 20)
