"""``gradc bench``'s measurements: compile and warm start in fresh processes, calls and runs
in process, each giving report rows.

Subprocess figures are the median of ``repeat`` fresh processes, each timing itself from
before its first import to after its last statement (interpreter start-up excluded).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from gradc.artifacts.manifest import Entry, Manifest
from gradc.cli.bench_args import agree, copy_args, is_scalar_signature, short_args
from gradc.cli.bench_baselines import PLAIN_ENV, plain_function, primal_of
from gradc.cli.bench_stats import Row, per_call, per_call_stats, short_error, stats


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
    plain_name: str = "",
) -> Row:
    """Fresh process: ``import gradc`` + ``gradc.load`` + first call of ``name``, against
    a fresh process importing the module with gradc inert + the same first call of
    ``plain_name`` (default ``name``; for one of several signatures, such as ``f.f64``,
    the Python function ``f`` its manifest entry names in ``dispatch``).

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
        name=plain_name or name,
    )
    try:
        lines = [child_seconds(code, env={**env, PLAIN_ENV: "1"}) for _ in range(repeat)]
    except RuntimeError as exc:
        row.baseline_what = f"plain Python failed: {exc}"
        return row
    row.baseline_plain = all(line.split()[0] == "True" for line in lines)
    row.baseline = stats([float(line.split()[1]) for line in lines], "warm-plain").median
    row.baseline_what = f"import {source.stem} + first call (gradc inert, fresh process)"
    return row


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
    scalar = [e for e in manifest.entries if is_scalar_signature(e)]
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
    where = f"{e.name}({short_args(a)})"
    py_name = e.dispatch or e.name  # one of several signatures, f.f64: the function f
    py = plain_function(module, py_name)
    base_what = f"{py_name} (plain Python)" if py is not None else "(no source)"
    # each side is timed when one untimed call of it returns; a failure is a note
    notes = []
    failed = _failure(lib[e.name], a)
    if failed:
        notes.append(f"gradc raised {failed}")
    base = None
    if py is not None:
        py_failed = _failure(py, a)
        if py_failed:
            notes.append(f"CPython raised {py_failed}")
        else:
            base = per_call(py, a, budget)
    note, plain = "; ".join(notes), py is not None
    if failed:
        return [Row("call", f"call {where}", None, base, base_what, note, baseline_plain=plain)]
    paths = [(lib[e.name], "fast path" if lib.is_fast(e.name) else "ctypes path (no wrapper)")]
    if lib.is_fast(e.name):
        paths.append((lib.ctypes_function(e.name), "ctypes path"))
    rows = []
    for fn, path in paths:
        s = per_call_stats(fn, a, budget)
        what = f"call {where}, {path}"
        rows.append(Row("call", what, s.median, base, base_what, note, s.stdev, plain))
    return rows


def _failure(fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """``""`` when one untimed call ``fn(*copies of args)`` returns, else the exception
    it raised in one line (:func:`short_error`), for the row's note."""
    try:
        fn(*copy_args(args))
    except Exception as exc:
        return short_error(exc)
    return ""


def _peer_jit(
    name: str, jit: Callable[..., Any], py: Callable[..., Any], args: tuple[Any, ...]
) -> Callable[..., Any]:
    """``jit(py)`` as a user of the peer writes it: JAX's with the Python ints and bools
    among ``args`` static (``static_argnums``: a loop bound such as ``range(n)`` cannot be
    traced)."""
    static = tuple(i for i, v in enumerate(args) if isinstance(v, int))
    peer: Callable[..., Any] = jit(py, static_argnums=static) if name == "jax" else jit(py)
    return peer


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
    row = Row("run", f"{e.name}({short_args(a)})", None, None, "", export=e.name)
    row.derivative_of = primal_of(module, e.dispatch or e.name)
    fn = lib[e.name]
    try:
        got = fn(*copy_args(a))
    except Exception as exc:
        hint = (
            " (give consistent sizes with --shape or --args)" if isinstance(exc, IndexError) else ""
        )
        row.note = f"gradc raised {short_error(exc)}{hint}"  # the baseline is still timed
    else:
        s = per_call_stats(fn, a, budget)
        row.gradc, row.stdev = s.median, s.stdev
    py = plain_function(module, e.dispatch or e.name)  # one of several signatures: f
    if py is None:
        if module is None:
            row.baseline_what = "(no source)"
        elif row.derivative_of:
            row.baseline_what = f"(derivative of {row.derivative_of}: no Python version)"
        else:
            row.baseline_what = "(no plain Python function)"
        return row
    row.baseline_what, row.baseline_plain = f"{e.dispatch or e.name} (plain Python)", True
    try:
        want = py(*copy_args(a))
    except Exception as exc:
        row.note = "; ".join(filter(None, [row.note, f"CPython raised {short_error(exc)}"]))
        return row
    row.baseline = per_call(py, a, budget)
    if row.gradc is None:
        return row
    row.note = "same result" if agree(got, want) else "RESULTS DIFFER"
    notes = []
    for name, jit in jits.items():
        try:
            peer = _peer_jit(name, jit, py, a)
            peer_got = peer(*copy_args(a))  # compiles: not timed
        except Exception as exc:
            row.peers[name] = None
            notes.append(f"{name} failed: {short_error(exc, 60)}")
            continue
        if not agree(peer_got, want):
            notes.append(f"{name}: RESULTS DIFFER")
        row.peers[name] = per_call(peer, a, budget)
    if notes:
        row.note = "; ".join([row.note, *notes])
    return row
