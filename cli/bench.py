"""``gradc bench TARGET``: what compiling, starting and calling cost, against plain CPython
and (when installed) Numba and JAX running the same source.

TARGET is a module (``m.py``) or an artifact directory (``build/m.gradc``; give the module
with ``--source`` to get the baselines). Rows:

=============== ============================================ ===============================
row             gradc                                        CPython baseline
=============== ============================================ ===============================
compile         ``gradc build`` in a fresh process, into a    ``compile()`` of the module's
                fresh temporary directory (truly cold)        source to bytecode
warm start      fresh process: ``import gradc`` +             fresh process, gradc inert
                ``gradc.load`` + first call                   (``GRADC_PLAIN_PYTHON=1``):
                                                              ``import m`` + first call
call overhead   one call of a scalar export, fast path        the same call of the plain
                and ctypes path                               Python function
run             each export on the same arguments             the plain Python function;
                (derivatives: also ÷ the primal's time)       peers: ``numba.njit``,
                                                              ``jax.jit`` of it
=============== ============================================ ===============================

The baselines run the module's source with gradc inert: it is imported with
``GRADC_PLAIN_PYTHON=1`` so that ``@gradc.export`` returns the Python function itself
(``Row.baseline_plain`` records that the timed function was a plain ``FunctionType``),
never runtime mode. Numba and JAX are optional: when missing, their columns are skipped
with a note (``"numba": "not installed"`` in ``--json``'s ``peers``).

Statistics: in-process figures are ``pyperf`` benchmarks of per-call times (the loop
count calibrated like ``timeit``'s ``autorange`` to ``--budget`` seconds, then ``--samples``
timed loops); the reported value is the median, with the standard deviation in ``stdev``.
Subprocess figures are the median of ``--repeat`` fresh processes, each timing itself from
before its first import to after its last statement (interpreter start-up excluded).

Arguments come from the signature: floats 0.5, ints ``dim // 2``, bools True, arrays of
``dim`` elements per axis unless ``--shape NAME=AxB`` gives the shape of the parameter
named NAME in every export (a tangent or shadow ``d_NAME`` takes NAME's shape); float
values in [0.5, 1.5), ints 0, 1, 2, ..., bools alternating; ``[::1, :]`` in Fortran order.
``--args NAME=LITERAL`` (``ast.literal_eval``: no code runs) sets parameter NAME in every
export, or, when NAME is an export, all its arguments as a tuple; lists become arrays of
the parameter's dtype. A row whose call fails says why in one line.

Nothing is written outside a temporary directory, except the files asked for (``-o``,
``--plot``): children run with ``PYTHONDONTWRITEBYTECODE=1`` and ``GRADC_CACHE_DIR`` in the
temporary directory, and the module is imported without writing bytecode.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from gradc.artifacts.abi import AbiType, Array, Scalar, Tuple, TypeStringError, parse_type
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Entry, Manifest
from gradc.artifacts.store import read_manifest

_PLAIN_ENV = "GRADC_PLAIN_PYTHON"  # gradc.runtime_mode.PLAIN_PYTHON_ENV
#: The peers whose ``jit`` of the plain Python function is timed when installed.
PEERS = ("numba", "jax")


@dataclass
class Row:
    """One line of the report (times in seconds per call or per process; None where not
    measured).

    ``baseline`` is plain CPython; ``peers`` maps a peer name (``numba``, ``jax``) to its
    time; ``baseline_plain`` is True when the baseline was timed on a plain Python
    function (gradc inert). Run rows name their ``export``; a derivative's run row names
    its primal in ``derivative_of`` and gives ``per_primal`` = derivative ÷ primal time.
    """

    kind: str  # "compile", "warm", "call", "run"
    what: str
    gradc: float | None
    baseline: float | None
    baseline_what: str
    note: str = ""
    stdev: float | None = None
    baseline_plain: bool = False
    export: str = ""
    peers: dict[str, float | None] = field(default_factory=dict)
    derivative_of: str = ""
    per_primal: float | None = None

    @property
    def ratio(self) -> float | None:
        """gradc ÷ CPython (below 1: gradc is faster); None if either is missing."""
        if self.gradc is None or not self.baseline:
            return None
        return self.gradc / self.baseline


def short_error(exc: BaseException, limit: int = 120) -> str:
    """``TypeName: first line of the message``, cut to ``limit`` characters (never whole
    array reprs in a table cell)."""
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    if len(message) > limit:
        message = message[: limit - 1] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# ---------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Stats:
    """Median and standard deviation (seconds) of a set of timings, from ``pyperf``."""

    median: float
    stdev: float | None


def stats(values: Sequence[float], name: str) -> Stats:
    """``pyperf``'s median and standard deviation of ``values`` (seconds, all > 0)."""
    import pyperf

    values = [max(v, 1e-12) for v in values]  # pyperf refuses zero
    run = pyperf.Run(values, metadata={"name": name, "unit": "second"}, collect_metadata=False)
    b = pyperf.Benchmark([run])
    return Stats(b.median(), b.stdev() if len(values) > 1 else None)


def per_call_stats(
    fn: Callable[..., Any], args: Sequence[Any], budget: float, samples: int = 5
) -> Stats:
    """Seconds per call of ``fn(*args)``: ``samples`` timed loops of a loop count
    calibrated to take ``budget`` seconds, summarised by :func:`stats`.

    The loop spells the arguments out (``fn(a0, a1)``) so that it adds no unpacking to
    what is measured.
    """
    import timeit

    names = [f"a{i}" for i in range(len(args))]
    namespace: dict[str, Any] = {"fn": fn, **dict(zip(names, args))}
    timer = timeit.Timer(f"fn({', '.join(names)})", globals=namespace)
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget or number >= 10**8:
            break
        number = max(number * 2, int(number * budget / max(elapsed, 1e-9) * 1.1))
    values = [t / number for t in timer.repeat(max(2, samples), number)]
    return stats(values, getattr(fn, "__name__", "call"))


def per_call(fn: Callable[..., Any], args: Sequence[Any], budget: float) -> float:
    """Median seconds per call of ``fn(*args)`` (:func:`per_call_stats`)."""
    return per_call_stats(fn, args, budget).median


def child_seconds(code: str, *, env: Mapping[str, str], cwd: Path | None = None) -> str:
    """Run ``code`` in a fresh interpreter with ``env`` added to the environment; return
    its last line of output (the child prints what it measured there).

    Raises RuntimeError with the last line of the child's stderr when it fails.
    """
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"child process failed: {tail[0][:200]}")
    return proc.stdout.strip().splitlines()[-1]


def child_env(tmp: Path) -> dict[str, str]:
    """What every child process gets added to its environment: no bytecode written, the
    runtime-mode cache inside ``tmp``."""
    return {"PYTHONDONTWRITEBYTECODE": "1", "GRADC_CACHE_DIR": str(tmp / "cache")}


# ---------------------------------------------------------------------------- measurements

_BUILD_CODE = """\
import sys, time
t0 = time.perf_counter()
from gradc.cli.main import cli
cli(["build", {source!r}, "-o", {out!r}], prog_name="gradc", standalone_mode=False)
print(time.perf_counter() - t0)
"""

_WARM_CODE = """\
import pickle, time
with open({args!r}, "rb") as f:
    args = pickle.load(f)
t0 = time.perf_counter()
import gradc
lib = gradc.load({artifact!r})
lib[{name!r}](*args)
print(time.perf_counter() - t0)
"""

_WARM_PLAIN_CODE = """\
import pickle, sys, time, types
with open({args!r}, "rb") as f:
    args = pickle.load(f)
sys.path.insert(0, {folder!r})
t0 = time.perf_counter()
import importlib.util
spec = importlib.util.spec_from_file_location({stem!r}, {source!r})
m = importlib.util.module_from_spec(spec)
sys.modules[{stem!r}] = m
spec.loader.exec_module(m)
fn = getattr(m, {name!r})
fn(*args)
t = time.perf_counter() - t0
print(isinstance(fn, types.FunctionType), t)
"""


def measure_compile(source: Path, tmp: Path, repeat: int, budget: float) -> tuple[Row, Path]:
    """Cold ``gradc build``: each of ``repeat`` fresh processes builds into a fresh
    directory under ``tmp`` (nothing to reuse), against ``compile()`` of the source.

    Returns the row and the artifact of the first build.

    Raises:
        RuntimeError: the build failed (its last line of stderr).
    """
    times: list[float] = []
    artifact: Path | None = None
    for _ in range(max(1, repeat)):
        fresh = Path(tempfile.mkdtemp(prefix="cold-", dir=tmp))
        out = fresh / f"{source.stem}.gradc"
        env = {**child_env(fresh)}
        code = _BUILD_CODE.format(source=str(source.resolve()), out=str(out))
        times.append(float(child_seconds(code, env=env, cwd=fresh)))
        artifact = artifact or out
    assert artifact is not None
    s = stats(times, "compile")
    text = source.read_text(encoding="utf-8")
    base = per_call(compile, (text, str(source), "exec"), budget)
    row = Row(
        "compile",
        f"gradc build {source.name} (fresh process, empty directory)",
        s.median,
        base,
        f"compile() of {source.name} to bytecode",
        stdev=s.stdev,
    )
    return row, artifact


def measure_warm(
    artifact: Path,
    source: Path | None,
    name: str,
    args: tuple[Any, ...],
    tmp: Path,
    repeat: int,
) -> Row:
    """Fresh process: ``import gradc`` + ``gradc.load`` + first call of ``name``, against
    a fresh process importing the module with gradc inert + the same first call.

    The arguments are unpickled in the child before its clock starts (so numpy may be
    imported already, in both children).
    """
    args_file = tmp / f"args-{name}.pkl"
    args_file.write_bytes(pickle.dumps(args))
    env = child_env(tmp)
    code = _WARM_CODE.format(args=str(args_file), artifact=str(artifact), name=name)
    try:
        s = stats([float(child_seconds(code, env=env)) for _ in range(repeat)], "warm")
    except RuntimeError as exc:
        return Row("warm", f"warm start: {name}", None, None, "", str(exc))
    row = Row(
        "warm",
        f"warm start: import gradc + load + first {name}() (fresh process)",
        s.median,
        None,
        "(no source)",
        stdev=s.stdev,
    )
    if source is None:
        return row
    code = _WARM_PLAIN_CODE.format(
        args=str(args_file),
        folder=str(source.parent.resolve()),
        stem=source.stem,
        source=str(source.resolve()),
        name=name,
    )
    try:
        lines = [child_seconds(code, env={**env, _PLAIN_ENV: "1"}) for _ in range(repeat)]
    except RuntimeError as exc:
        row.baseline_what = f"plain Python failed: {exc}"
        return row
    row.baseline_plain = all(line.split()[0] == "True" for line in lines)
    row.baseline = stats([float(line.split()[1]) for line in lines], "warm-plain").median
    row.baseline_what = f"import {source.stem} + first call (gradc inert, fresh process)"
    return row


# ---------------------------------------------------------------------------- arguments


def parse_shapes(values: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """``["alphas=25 means=25x10"]`` -> ``{"alphas": (25,), "means": (25, 10)}``.

    Each value holds one or more whitespace-separated ``NAME=N[xM...]`` items.

    Raises:
        click.BadParameter: an item is not of that form (the message shows the form).
    """
    out: dict[str, tuple[int, ...]] = {}
    for value in values:
        for item in value.split():
            name, sep, dims = item.partition("=")
            if not sep or not name.isidentifier() or not dims:
                raise click.BadParameter(
                    f"expected NAME=N or NAME=NxM (e.g. means=25x10), got {item!r}",
                    param_hint="--shape",
                )
            try:
                shape = tuple(int(d) for d in dims.lower().split("x"))
            except ValueError:
                raise click.BadParameter(
                    f"{item!r}: sizes are integers separated by 'x' (e.g. means=25x10)",
                    param_hint="--shape",
                ) from None
            if any(n < 0 for n in shape):
                raise click.BadParameter(f"{item!r}: negative size", param_hint="--shape")
            out[name] = shape
    return out


def parse_args_option(values: Sequence[str]) -> dict[str, Any]:
    """``["f=(1.0, 2)", "gamma=0.5"]`` -> ``{"f": (1.0, 2), "gamma": 0.5}``.

    Values are Python literals (``ast.literal_eval``: numbers, strings, tuples, lists,
    ...); no code runs.

    Raises:
        click.BadParameter: not ``NAME=LITERAL``, or the value is no literal.
    """
    out: dict[str, Any] = {}
    for item in values:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise click.BadParameter(
                f"expected NAME=LITERAL (e.g. gamma=0.5 or f=(1.0, 2)), got {item!r}",
                param_hint="--args",
            )
        try:
            out[name.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            raise click.BadParameter(
                f"{item!r}: not a Python literal ({short_error(exc, 60)})", param_hint="--args"
            ) from None
    return out


def _array_type(text: str) -> Array | None:
    """The array type ``text`` names (``"f64[:, ::1]"``); None for any other type."""
    try:
        t = parse_type(text)
    except TypeStringError:
        return None
    return t if isinstance(t, Array) else None


def _default(text: str, dim: int, shape: tuple[int, ...] | None = None) -> Any:
    text = text.strip()
    if text in ("f64", "f32"):
        return 0.5
    if text in ("i64", "i32"):
        return dim // 2
    if text == "bool":
        return True
    parsed = _array_type(text)
    if parsed is None:
        raise ValueError(f"no default argument for type {text}")
    import numpy as np

    if shape is None:
        shape = (dim,) * parsed.ndim
    elif len(shape) != parsed.ndim:
        raise ValueError(f"--shape gives {len(shape)} axes, the parameter is {text}")
    n = math.prod(shape)
    dtype = parsed.numpy_dtype
    if dtype == "bool":
        flat = np.arange(n) % 2 == 0
    elif dtype.startswith("float"):
        flat = 0.5 + (np.arange(n) % 1000) / 1000.0
    else:
        flat = np.arange(n) % max(dim, 1)
    a = flat.astype(dtype).reshape(shape)
    if parsed.layout == "F":
        a = np.asfortranarray(a)
    return a


def _coerce(value: Any, text: str) -> Any:
    """A literal given for a parameter of type ``text``: lists become arrays."""
    parsed = _array_type(text)
    if parsed is None or not isinstance(value, (list, tuple)):
        return value
    import numpy as np

    a = np.asarray(value, dtype=parsed.numpy_dtype)
    if a.ndim != parsed.ndim:
        raise ValueError(f"a literal with {a.ndim} axes for a parameter of type {text}")
    return np.asfortranarray(a) if parsed.layout == "F" else a


def arguments_for(
    entry: Entry, shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, Any], dim: int
) -> tuple[Any, ...]:
    """The arguments of ``entry``: ``values[entry.name]`` (all of them), else per parameter
    ``values[param]`` or a default shaped by ``shapes`` (see the module docstring).

    Raises:
        ValueError: a literal does not fit its parameter, or no default exists.
    """
    params = entry.signature.params
    if entry.name in values:
        given = values[entry.name]
        given = given if isinstance(given, tuple) else (given,)
        if len(given) != len(params):
            raise ValueError(
                f"--args {entry.name}: {len(params)} values expected, got {len(given)}"
            )
        return tuple(_coerce(v, t) for v, (_, t) in zip(given, params))
    out = []
    for name, t in params:
        if name in values:
            out.append(_coerce(values[name], t))
            continue
        shape = shapes.get(name)
        if shape is None and name.startswith("d_"):
            shape = shapes.get(name[2:])
        out.append(_default(t, dim, shape))
    return tuple(out)


def default_args(entry: Entry, dim: int) -> tuple[Any, ...]:
    """Arguments for ``entry`` from its signature alone (see the module docstring)."""
    return arguments_for(entry, {}, {}, dim)


def _copy_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if hasattr(a, "copy") and hasattr(a, "dtype") else a for a in args)


def _is_scalar_signature(entry: Entry) -> bool:
    def scalar(t: AbiType) -> bool:
        return isinstance(t, Scalar) or (isinstance(t, Tuple) and all(map(scalar, t.elements)))

    try:
        sig = entry.signature.abi
    except TypeStringError:
        return False
    return all(scalar(t) for _, t in sig.params) and scalar(sig.result)


def _agree(a: Any, b: Any) -> bool:
    """Results equal (NaN equals NaN; floats within 1e-9 relative; arrays elementwise;
    array-likes such as JAX arrays are compared as numpy arrays)."""
    import numpy as np

    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_agree(x, y) for x, y in zip(a, b))
    a, b = (np.asarray(v) if hasattr(v, "__array__") else v for v in (a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(
                np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-9, atol=0, equal_nan=True)
            )
        except TypeError:
            return bool(np.array_equal(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            return False
        return (math.isnan(fa) and math.isnan(fb)) or math.isclose(fa, fb, rel_tol=1e-9)
    return bool(a == b)


def _short(args: tuple[Any, ...]) -> str:
    parts = []
    for a in args:
        shape = getattr(a, "shape", None)
        if shape:  # an array with at least one axis
            parts.append(f"{a.dtype}[{'x'.join(map(str, shape))}]")
        else:
            text = repr(a)
            parts.append(text if len(text) <= 20 else text[:19] + "…")
    return ", ".join(parts)


# ---------------------------------------------------------------------------- baselines


@contextmanager
def gradc_inert() -> Iterator[None]:
    """While active, ``@gradc.export`` returns the Python function itself (plain mode)
    and imports write no bytecode."""
    saved_env, saved_bytecode = os.environ.get(_PLAIN_ENV), sys.dont_write_bytecode
    os.environ[_PLAIN_ENV] = "1"
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = saved_bytecode
        if saved_env is None:
            os.environ.pop(_PLAIN_ENV, None)
        else:
            os.environ[_PLAIN_ENV] = saved_env


def import_plain(source: Path) -> ModuleType:
    """Import ``source`` as plain Python with gradc inert (its body runs; no bytecode is
    written). Its exports are then plain ``FunctionType`` objects.

    Raises:
        ImportError: the file cannot be imported; any exception its body raises.
    """
    spec = importlib.util.spec_from_file_location(source.stem, source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {source}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(source.parent.resolve()))
    try:
        with gradc_inert():
            spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def load_peers() -> tuple[dict[str, Callable[[Any], Any]], dict[str, str]]:
    """The installed peers' jit decorators (``numba.njit``, ``jax.jit``), and a note
    (``"not installed"``, or why the import failed) for each missing one."""
    import importlib

    jits: dict[str, Callable[[Any], Any]] = {}
    notes: dict[str, str] = {}
    for name in PEERS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            notes[name] = "not installed"
            continue
        except Exception as exc:  # a broken installation: say so, do not fail the bench
            notes[name] = f"import failed: {short_error(exc, 60)}"
            continue
        jits[name] = module.njit if name == "numba" else module.jit
    return jits, notes


def _plain_function(module: ModuleType | None, name: str) -> Callable[..., Any] | None:
    fn = getattr(module, name, None) if module is not None else None
    return fn if isinstance(fn, types.FunctionType) else None


def _primal_of(module: ModuleType | None, name: str) -> str:
    """The primal's name when ``module.name`` is a derivative declaration, else ``""``."""
    import gradc

    obj = getattr(module, name, None) if module is not None else None
    if isinstance(obj, gradc.DerivativePlaceholder):
        return str(getattr(obj.fn, "__name__", ""))
    return ""


# ---------------------------------------------------------------------------- calls and runs


def measure_calls(
    lib: Any,
    manifest: Manifest,
    module: ModuleType | None,
    exports: Sequence[str],
    arguments: Callable[[Entry], tuple[Any, ...]],
    call_export: str | None,
    budget: float,
    jits: Mapping[str, Callable[[Any], Any]],
) -> list[Row]:
    """The call-overhead rows (one scalar export) and a run row per export; derivative
    rows get ``per_primal``."""
    rows: list[Row] = []
    entries = [manifest.entry(n) for n in exports] if exports else list(manifest.entries)
    chosen = call_entry(manifest, call_export)
    if chosen is None:
        rows.append(Row("call", "call overhead", None, None, "", "no scalar export"))
    else:
        rows.extend(_call_rows(lib, module, chosen, arguments, budget))
    runs = [_run_row(lib, module, e, arguments, budget, jits) for e in entries]
    by_name = {r.export: r for r in runs}
    for r in runs:
        primal = by_name.get(r.derivative_of)
        if primal is not None and primal.gradc and r.gradc:
            r.per_primal = r.gradc / primal.gradc
    return rows + runs


def call_entry(manifest: Manifest, name: str | None) -> Entry | None:
    """``--call``'s export, else the scalar export with the fewest parameters."""
    if name:
        return manifest.entry(name)
    scalar = [e for e in manifest.entries if _is_scalar_signature(e)]
    return min(scalar, key=lambda e: len(e.signature.params)) if scalar else None


def _call_rows(
    lib: Any,
    module: ModuleType | None,
    e: Entry,
    arguments: Callable[[Entry], tuple[Any, ...]],
    budget: float,
) -> list[Row]:
    try:
        a = arguments(e)
    except ValueError as exc:
        return [Row("call", f"call {e.name}", None, None, "", str(exc))]
    py = _plain_function(module, e.name)
    base = per_call(py, a, budget) if py is not None else None
    base_what = f"{e.name} (plain Python)" if py is not None else "(no source)"
    where = f"{e.name}({_short(a)})"
    fast = lib.is_fast(e.name)
    s = per_call_stats(lib[e.name], a, budget)
    rows = [
        Row(
            "call",
            f"call {where}, {'fast path' if fast else 'ctypes path (no wrapper)'}",
            s.median,
            base,
            base_what,
            stdev=s.stdev,
            baseline_plain=py is not None,
        )
    ]
    if fast:
        s = per_call_stats(lib.ctypes_function(e.name), a, budget)
        rows.append(
            Row(
                "call",
                f"call {where}, ctypes path",
                s.median,
                base,
                base_what,
                stdev=s.stdev,
                baseline_plain=py is not None,
            )
        )
    return rows


def _run_row(
    lib: Any,
    module: ModuleType | None,
    e: Entry,
    arguments: Callable[[Entry], tuple[Any, ...]],
    budget: float,
    jits: Mapping[str, Callable[[Any], Any]],
) -> Row:
    try:
        a = arguments(e)
    except ValueError as exc:
        return Row("run", e.name, None, None, "", str(exc), export=e.name)
    row = Row("run", f"{e.name}({_short(a)})", None, None, "", export=e.name)
    row.derivative_of = _primal_of(module, e.name)
    fn = lib[e.name]
    try:
        got = fn(*_copy_args(a))
    except Exception as exc:
        hint = (
            " (give consistent sizes with --shape or --args)" if isinstance(exc, IndexError) else ""
        )
        row.note = f"gradc raised {short_error(exc)}{hint}"
        return row
    s = per_call_stats(fn, a, budget)
    row.gradc, row.stdev = s.median, s.stdev
    py = _plain_function(module, e.name)
    if py is None:
        if module is None:
            row.baseline_what = "(no source)"
        elif row.derivative_of:
            row.baseline_what = f"(derivative of {row.derivative_of}: no Python version)"
        else:
            row.baseline_what = "(no plain Python function)"
        return row
    row.baseline_what, row.baseline_plain = f"{e.name} (plain Python)", True
    try:
        want = py(*_copy_args(a))
    except Exception as exc:
        row.note = f"CPython raised {short_error(exc)}"
        return row
    row.note = "same result" if _agree(got, want) else "RESULTS DIFFER"
    row.baseline = per_call(py, a, budget)
    notes = []
    for name, jit in jits.items():
        try:
            peer = jit(py)
            peer_got = peer(*_copy_args(a))  # compiles: not timed
        except Exception as exc:
            row.peers[name] = None
            notes.append(f"{name} failed: {short_error(exc, 60)}")
            continue
        if not _agree(peer_got, want):
            notes.append(f"{name}: RESULTS DIFFER")
        row.peers[name] = per_call(peer, a, budget)
    if notes:
        row.note = "; ".join([row.note, *notes])
    return row


# ---------------------------------------------------------------------------- report


def format_seconds(s: float | None) -> str:
    """``0.0123`` -> ``"12.3 ms"``; None -> ``"—"``."""
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def print_report(rows: Sequence[Row], title: str, peer_notes: Mapping[str, str]) -> None:
    """The rows as a rich table on stdout, with the skipped peers under it."""
    from rich.console import Console
    from rich.table import Table

    peers = [p for p in PEERS if any(p in r.peers for r in rows)]
    table = Table(title=title)
    table.add_column("measurement")
    table.add_column("gradc", justify="right")
    table.add_column("CPython baseline", justify="right")
    table.add_column("baseline is")
    table.add_column("gradc ÷ CPython", justify="right")
    for p in peers:
        table.add_column(p, justify="right")
    table.add_column("note")
    for r in rows:
        ratio = r.ratio
        text = "—" if ratio is None else f"{ratio:.3g}×"
        style = "" if ratio is None else ("green" if ratio < 1 else "red")
        note = r.note
        if r.per_primal is not None:
            note = f"{r.per_primal:.3g}× the time of {r.derivative_of}" + (
                f"; {note}" if note else ""
            )
        table.add_row(
            r.what,
            format_seconds(r.gradc),
            format_seconds(r.baseline),
            r.baseline_what,
            f"[{style}]{text}[/{style}]" if style else text,
            *(format_seconds(r.peers.get(p)) for p in peers),
            note,
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(table)
    for name, why in peer_notes.items():
        console.print(f"{name}: skipped ({why})")


def _peer_value(name: str) -> Callable[[Row], float | None]:
    def value(r: Row) -> float | None:
        return r.peers.get(name)

    return value


def _speed_text(ratio: float) -> str:
    """gradc ÷ CPython as words: ``0.02`` -> ``"50× faster than CPython"``."""
    if ratio <= 1:
        return f"{1 / ratio:.3g}× faster than CPython"
    return f"{ratio:.3g}× slower than CPython"


def plot(rows: Sequence[Row], path: Path, title: str) -> None:
    """A horizontal bar chart of the run rows: time per call (log scale) of gradc, plain
    CPython and each peer, one group of bars per export, written to ``path`` (PNG).

    Raises:
        click.ClickException: matplotlib is not installed (``pip install 'gradc[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.ClickException("--plot needs matplotlib: pip install 'gradc[plot]'") from None
    runs = [r for r in rows if r.kind == "run"]
    series: list[tuple[str, Callable[[Row], float | None], str]] = [
        ("gradc", lambda r: r.gradc, "tab:blue"),
        ("CPython (plain)", lambda r: r.baseline, "tab:gray"),
    ]
    colors = {"numba": "tab:orange", "jax": "tab:green"}
    for p in PEERS:
        if any(r.peers.get(p) for r in runs):
            series.append((p, _peer_value(p), colors[p]))
    height = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.35 * len(series) * max(1, len(runs))))
    labels = []
    for i, r in enumerate(runs):
        label = r.export
        if r.derivative_of:
            label += f"\n(derivative of {r.derivative_of})"
        if r.gradc is None:
            label += "\n(failed: see the table)"
        labels.append(label)
        for j, (_, value, color) in enumerate(series):
            v = value(r)
            if v:
                y = i + (j - (len(series) - 1) / 2) * height
                ax.barh(y, v, height=height * 0.9, color=color)
                if j == 0 and r.ratio:
                    ax.text(v, y, "  " + _speed_text(r.ratio), va="center", fontsize=8)
                elif j == 0 and r.per_primal is not None:
                    text = f"  {r.per_primal:.3g}× the time of {r.derivative_of} (no CPython twin)"
                    ax.text(v, y, text, va="center", fontsize=8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(runs)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("time per call, seconds (log scale; shorter is faster)")
    ax.set_ylabel("export")
    ax.set_title(title)
    from matplotlib.patches import Patch

    handles = [Patch(color=color, label=name) for name, _, color in series]
    ax.legend(handles=handles, loc="best", fontsize=8)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------- command


@click.command("bench")
@click.argument("target", type=click.Path(exists=True, path_type=Path), metavar="TARGET")
@click.option(
    "--source",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The module an ARTIFACT was built from (for the baselines).",
)
@click.option("-e", "--export", "exports", multiple=True, help="Export(s) to run [default: all].")
@click.option("--call", "call_export", help="Scalar export for the call-overhead rows.")
@click.option(
    "--shape",
    "shape_specs",
    multiple=True,
    metavar="NAME=AxB ...",
    help="Shape of the array parameter NAME in every export, e.g. 'alphas=25 means=25x10'.",
)
@click.option(
    "-a",
    "--args",
    "arg_specs",
    multiple=True,
    metavar="NAME=LITERAL",
    help="A parameter's value (every export), or an export's argument tuple; Python literals.",
)
@click.option("--dim", default=64, show_default=True, help="Default array size per axis.")
@click.option("--repeat", default=3, show_default=True, help="Fresh processes per figure.")
@click.option(
    "--budget", default=0.1, show_default=True, help="Seconds per timed loop (in process)."
)
@click.option("--samples", default=5, show_default=True, help="Timed loops per figure.")
@click.option("--no-compile", is_flag=True, help="Skip the compile row (reuse -o's artifact).")
@click.option("--no-python", is_flag=True, help="Do not import the module (no baselines).")
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also copy the built artifact here [default: only a temporary directory].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Draw the run rows as a bar chart (PNG; needs gradc[plot]).",
)
def bench(
    target: Path,
    source: Path | None,
    exports: tuple[str, ...],
    call_export: str | None,
    shape_specs: tuple[str, ...],
    arg_specs: tuple[str, ...],
    dim: int,
    repeat: int,
    budget: float,
    samples: int,
    no_compile: bool,
    no_python: bool,
    output: Path | None,
    as_json: bool,
    plot_path: Path | None,
) -> None:
    """Time compiling, starting and calling TARGET (MODULE.py or an ARTIFACT) against
    plain CPython (and Numba / JAX when installed).

    Cold figures run in fresh processes and fresh temporary directories; the baselines
    import the module with gradc inert (its body runs) unless --no-python. Nothing is
    written outside a temporary directory except -o and --plot.
    """
    shapes = parse_shapes(shape_specs)
    values = parse_args_option(arg_specs)
    if plot_path is not None and importlib.util.find_spec("matplotlib") is None:
        raise click.ClickException("--plot needs matplotlib: pip install 'gradc[plot]'")
    rows: list[Row] = []
    peer_notes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="gradc-bench-") as tmp_name:
        tmp = Path(tmp_name)
        built_here = False
        if target.is_dir():
            artifact = target
        else:
            source = target
            if no_compile:
                if output is None:
                    raise click.UsageError("--no-compile needs -o with an artifact built before")
                artifact = output
            else:
                try:
                    row, artifact = measure_compile(target, tmp, repeat, budget)
                except RuntimeError as exc:
                    click.echo(f"gradc bench: building {target} failed: {exc}", err=True)
                    sys.exit(1)
                rows.append(row)
                built_here = True
                if output is not None:
                    shutil.copytree(artifact, output, dirs_exist_ok=True)
        if no_python:
            source = None
        try:
            manifest = read_manifest(artifact)
            module = import_plain(source) if source is not None else None
            declared_shapes, declared_values = module_defaults(module)
            shapes = {**declared_shapes, **shapes}
            values = {**declared_values, **values}
            _check_names(manifest, shapes, values)

            def arguments(e: Entry) -> tuple[Any, ...]:
                return arguments_for(e, shapes, values, dim)

            first = call_entry(manifest, call_export) or manifest.entries[0]
            try:
                warm_args = arguments(first)
            except ValueError as exc:
                rows.append(Row("warm", "warm start", None, None, "", str(exc)))
            else:
                rows.append(measure_warm(artifact, source, first.name, warm_args, tmp, repeat))
            import gradc

            lib = gradc.load(artifact)
            jits: dict[str, Callable[[Any], Any]] = {}
            if module is not None:
                jits, peer_notes = load_peers()
            rows.extend(
                measure_calls(lib, manifest, module, exports, arguments, call_export, budget, jits)
            )
        except (ArtifactError, KeyError, RuntimeError, ImportError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            click.echo(f"gradc bench: error: {message}", err=True)
            sys.exit(1)
        title = f"gradc bench: {manifest.module}"
        if plot_path is not None:
            # matplotlib's font cache goes to the temporary directory, not to HOME
            saved = os.environ.get("MPLCONFIGDIR")
            os.environ.setdefault("MPLCONFIGDIR", str(tmp / "matplotlib"))
            try:
                plot(rows, plot_path, f"{title}: time per call (log scale)")
            finally:
                if saved is None:
                    os.environ.pop("MPLCONFIGDIR", None)
    if as_json:
        data = {
            "module": manifest.module,
            "artifact": None if built_here and output is None else str(output or artifact),
            "peers": {**{p: "measured" for p in PEERS if p not in peer_notes}, **peer_notes}
            if source is not None
            else {},
            "rows": [{**asdict(r), "ratio": r.ratio} for r in rows],
        }
        click.echo(json.dumps(data, indent=2))
    else:
        print_report(
            rows, f"{title} ({'temporary build' if not target.is_dir() else artifact})", peer_notes
        )


def module_defaults(
    module: ModuleType | None,
) -> tuple[dict[str, tuple[int, ...]], dict[str, Any]]:
    """The shapes and values a module declares for ``gradc bench`` in a module-level
    ``__gradc_bench__ = {"shape": "alphas=25 means=25x10", "args": {"m": 0}}`` (both keys
    optional; the same forms as ``--shape`` and ``--args``, which override them).

    Raises:
        click.ClickException: the declaration is not of that form.
    """
    spec = getattr(module, "__gradc_bench__", None)
    if spec is None:
        return {}, {}
    where = f"{getattr(module, '__name__', 'module')}.__gradc_bench__"
    if not isinstance(spec, dict) or set(spec) - {"shape", "args"}:
        raise click.ClickException(f'{where}: expected {{"shape": "...", "args": {{...}}}}')
    shape = spec.get("shape", "")
    args = spec.get("args", {})
    if not isinstance(shape, str) or not isinstance(args, dict):
        raise click.ClickException(f"{where}: 'shape' is a string, 'args' a dict")
    try:
        return parse_shapes([shape]), dict(args)
    except click.BadParameter as exc:
        raise click.ClickException(f"{where}: {exc.message}") from None


def _check_names(
    manifest: Manifest, shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, Any]
) -> None:
    """Every ``--shape``/``--args`` name is an export or a parameter of one.

    Raises:
        click.BadParameter: an unknown name (the message lists the known ones).
    """
    params = {n for e in manifest.entries for n, _ in e.signature.params}
    exports = {e.name for e in manifest.entries}
    for option, names, known in (("--shape", shapes, params), ("--args", values, params | exports)):
        unknown = sorted(set(names) - known)
        if unknown:
            raise click.BadParameter(
                f"no parameter named {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                param_hint=option,
            )
