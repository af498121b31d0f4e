"""``gradc bench TARGET``: what compiling, loading and calling cost, against CPython.

TARGET is a module (``m.py``) or an artifact directory (``build/m.gradc``; give the module
with ``--source`` to get the CPython columns). Every figure comes with a CPython baseline
measured in the same run, and the ratio gradc / CPython (below 1: gradc is faster):

=============== ========================================= ===============================
row             gradc                                     CPython baseline
=============== ========================================= ===============================
compile         ``gradc build`` in a fresh process        ``import m`` in a fresh process
                (cold: no cache, imports included)        without ``.pyc`` (bytecode
                                                          compile + module body)
load            fresh process: ``import gradc`` +         fresh process: ``import m``
                ``gradc.load(artifact)``                  (``.pyc`` cached)
call overhead   one call of a scalar export, fast path    the same call of ``m.<export>``
                and ctypes path
run             each export on the same arguments         ``m.<export>(*args)``
=============== ========================================= ===============================

Subprocess figures are the best of ``--repeat`` runs of the time the child measures
itself (from before its first import to after its last statement; interpreter start-up
excluded, it is the same for both). In-process figures are the best of 5 repeats of a
``timeit`` loop of at least ``--budget`` seconds, per call.

Arguments: ``--args 'NAME=EXPR'`` (a Python expression for the argument tuple, with
``np`` in scope; a single value needs a trailing comma) or defaults from the signature:
floats 0.5, ints ``dim // 2``, bools True, arrays of ``dim`` elements per axis (float
values in [0.5, 1.5), ints 0, 1, 2, ..., bools alternating; ``[::1, :]`` in Fortran order).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import timeit
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Entry, Manifest
from gradc.artifacts.store import read_manifest

_SCALARS = ("f64", "f32", "i64", "i32", "bool", "none")
_DTYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32", "bool": "bool"}
_ARRAY = re.compile(r"(f64|f32|i64|i32|bool)\[([:\s,1]*)\]")


@dataclass
class Row:
    """One line of the report (times in seconds; None where not measured)."""

    kind: str  # "compile", "load", "call", "run"
    what: str
    gradc: float | None
    baseline: float | None
    baseline_what: str
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.gradc is None or not self.baseline:
            return None
        return self.gradc / self.baseline


# ---------------------------------------------------------------------------- timing


def child_seconds(
    code: str, *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> float:
    """Run ``code`` in a fresh interpreter; it must print the seconds it measured as its
    last line. Raises RuntimeError with the child's stderr when it fails."""
    run_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=run_env
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"child process failed: {tail[0]}")
    return float(proc.stdout.strip().splitlines()[-1])


def best_of(measure: Callable[[], float], repeat: int) -> float:
    return min(measure() for _ in range(max(1, repeat)))


def per_call(fn: Callable[..., Any], args: Sequence[Any], budget: float) -> float:
    """Seconds per call of ``fn(*args)``: best of 5 timeit loops of >= ``budget`` s each.

    The statement spells the arguments out (``fn(a0, a1)``) so that the loop adds no
    unpacking to what is measured.
    """
    names = [f"a{i}" for i in range(len(args))]
    namespace: dict[str, Any] = {"fn": fn, **dict(zip(names, args))}
    timer = timeit.Timer(f"fn({', '.join(names)})", globals=namespace)
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget or number >= 10**8:
            break
        number = max(number * 2, int(number * budget / max(elapsed, 1e-9) * 1.1))
    return min(timer.repeat(5, number)) / number


# ---------------------------------------------------------------------------- measurements

_LOAD_CODE = """\
import time
t0 = time.perf_counter()
import gradc
lib = gradc.load({artifact!r})
print(time.perf_counter() - t0)
"""

_IMPORT_CODE = """\
import sys, time
sys.path.insert(0, {folder!r})
sys.dont_write_bytecode = {no_pyc}
t0 = time.perf_counter()
import {module}
print(time.perf_counter() - t0)
"""

_BUILD_CODE = """\
import sys, time
t0 = time.perf_counter()
from gradc.cli.main import cli
try:
    cli(["build", {source!r}, "-o", {out!r}], prog_name="gradc", standalone_mode=False)
finally:
    print(time.perf_counter() - t0)
"""


def measure_compile(source: Path, out: Path, repeat: int) -> Row:
    """Cold ``gradc build`` in a fresh process vs ``import m`` without bytecode cache."""
    gradc_s = best_of(
        lambda: child_seconds(_BUILD_CODE.format(source=str(source), out=str(out))), repeat
    )
    try:
        base: float | None = best_of(lambda: _import_seconds(source, no_pyc=True), repeat)
        base_what = f"import {source.stem} (no .pyc)"
    except RuntimeError as exc:
        base, base_what = None, f"import {source.stem} failed: {exc}"
    return Row("compile", f"gradc build {source.name} (fresh process)", gradc_s, base, base_what)


def _import_seconds(source: Path, *, no_pyc: bool) -> float:
    code = _IMPORT_CODE.format(
        folder=str(source.parent.resolve()), module=source.stem, no_pyc=no_pyc
    )
    env = {"PYTHONDONTWRITEBYTECODE": "1"} if no_pyc else {}
    with tempfile.TemporaryDirectory() as prefix:
        if no_pyc:  # a fresh, empty bytecode cache: the module is compiled from source
            env["PYTHONPYCACHEPREFIX"] = prefix
        return child_seconds(code, env=env)


def measure_load(artifact: Path, source: Path | None, repeat: int) -> Row:
    """Fresh process: ``import gradc`` + ``gradc.load`` vs ``import m`` (``.pyc`` cached)."""
    gradc_s = best_of(lambda: child_seconds(_LOAD_CODE.format(artifact=str(artifact))), repeat)
    base: float | None = None
    base_what = "(no source: pass --source)"
    if source is not None:
        try:
            _import_seconds(source, no_pyc=False)  # writes the .pyc
            base = best_of(lambda: _import_seconds(source, no_pyc=False), repeat)
            base_what = f"import {source.stem} (.pyc cached)"
        except RuntimeError as exc:
            base_what = f"import {source.stem} failed: {exc}"
    return Row("load", "import gradc + gradc.load (fresh process)", gradc_s, base, base_what)


# ---------------------------------------------------------------------------- arguments


def default_args(entry: Entry, dim: int) -> tuple[Any, ...]:
    """Arguments for ``entry`` from its signature (see the module docstring)."""
    return tuple(_default(t, dim) for _, t in entry.signature.params)


def _default(text: str, dim: int) -> Any:
    text = text.strip()
    if text in ("f64", "f32"):
        return 0.5
    if text in ("i64", "i32"):
        return dim // 2
    if text == "bool":
        return True
    m = _ARRAY.fullmatch(text)
    if m is None:
        raise ValueError(f"no default argument for type {text}")
    import numpy as np

    axes = [a.strip() for a in m.group(2).split(",")]
    shape = (dim,) * len(axes)
    n = math.prod(shape)
    dtype = _DTYPES[m.group(1)]
    if dtype == "bool":
        flat = np.arange(n) % 2 == 0
    elif dtype.startswith("float"):
        flat = 0.5 + (np.arange(n) % 1000) / 1000.0
    else:
        flat = np.arange(n) % max(dim, 1)
    a = flat.astype(dtype).reshape(shape)
    if len(axes) > 1 and axes[0] == "::1":
        a = np.asfortranarray(a)
    return a


def parse_args_option(values: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """``["f=(1.0, 2)", ...]`` -> ``{"f": (1.0, 2)}`` (expressions see ``np`` and ``math``)."""
    import numpy as np

    out: dict[str, tuple[Any, ...]] = {}
    for item in values:
        name, sep, expr = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"expected NAME=EXPR, got {item!r}", param_hint="--args")
        try:
            value = eval(expr, {"np": np, "math": math})
        except Exception as exc:
            raise click.BadParameter(f"{item!r}: {exc}", param_hint="--args") from None
        out[name.strip()] = value if isinstance(value, tuple) else (value,)
    return out


def _copy_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if hasattr(a, "copy") and hasattr(a, "dtype") else a for a in args)


def _is_scalar_signature(entry: Entry) -> bool:
    def scalar(t: str) -> bool:
        t = t.strip()
        if t.startswith("tuple[") and t.endswith("]"):
            return all(scalar(p) for p in t[6:-1].split(","))
        return t in _SCALARS

    return all(scalar(t) for _, t in entry.signature.params) and scalar(entry.signature.result)


def _agree(a: Any, b: Any) -> bool:
    """Results equal (NaN equals NaN; floats within 1e-9 relative; arrays elementwise)."""
    import numpy as np

    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_agree(x, y) for x, y in zip(a, b))
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
            parts.append(repr(a))
    return ", ".join(parts)


def measure_calls(
    lib: Any,
    manifest: Manifest,
    module: ModuleType | None,
    exports: Sequence[str],
    args: dict[str, tuple[Any, ...]],
    call_export: str | None,
    dim: int,
    budget: float,
) -> list[Row]:
    """The call-overhead rows (one scalar export) and a run row per export."""
    rows: list[Row] = []
    entries = [manifest.entry(n) for n in exports] if exports else list(manifest.entries)
    scalar = [e for e in manifest.entries if _is_scalar_signature(e)]
    chosen = manifest.entry(call_export) if call_export else None
    if chosen is None and scalar:
        chosen = min(scalar, key=lambda e: len(e.signature.params))
    if chosen is None:
        rows.append(Row("call", "call overhead", None, None, "", "no scalar export"))
    else:
        rows.extend(_call_rows(lib, module, chosen, args, dim, budget))
    for e in entries:
        rows.append(_run_row(lib, module, e, args, dim, budget))
    return rows


def _python_function(module: ModuleType | None, name: str) -> Callable[..., Any] | None:
    fn = getattr(module, name, None) if module is not None else None
    return fn if callable(fn) and not type(fn).__name__.startswith("Derivative") else None


def _call_rows(
    lib: Any,
    module: ModuleType | None,
    e: Entry,
    args: dict[str, tuple[Any, ...]],
    dim: int,
    budget: float,
) -> list[Row]:
    a = args.get(e.name) or default_args(e, dim)
    py = _python_function(module, e.name)
    base = per_call(py, a, budget) if py is not None else None
    base_what = f"{module.__name__}.{e.name}" if py is not None and module else "(no source)"
    where = f"{e.name}({_short(a)})"
    rows = []
    fast = lib.is_fast(e.name)
    rows.append(
        Row(
            "call",
            f"call {where}, {'fast path' if fast else 'ctypes path (no wrapper)'}",
            per_call(lib[e.name], a, budget),
            base,
            base_what,
        )
    )
    if fast:
        slow = lib.ctypes_function(e.name)
        rows.append(
            Row("call", f"call {where}, ctypes path", per_call(slow, a, budget), base, base_what)
        )
    return rows


def _run_row(
    lib: Any,
    module: ModuleType | None,
    e: Entry,
    args: dict[str, tuple[Any, ...]],
    dim: int,
    budget: float,
) -> Row:
    try:
        a = args.get(e.name) or default_args(e, dim)
    except ValueError as exc:
        return Row("run", e.name, None, None, "", str(exc))
    what = f"{e.name}({_short(a)})"
    fn = lib[e.name]
    try:
        got = fn(*_copy_args(a))
    except Exception as exc:
        return Row("run", what, None, None, "", f"gradc raised {type(exc).__name__}: {exc}")
    py = _python_function(module, e.name)
    note = ""
    base = None
    base_what = "(no source)" if module is None else "(no Python function)"
    if py is not None:
        base_what = f"{module.__name__}.{e.name}" if module else ""
        try:
            want = py(*_copy_args(a))
            note = "same result" if _agree(got, want) else "RESULTS DIFFER"
            base = per_call(py, a, budget)
        except Exception as exc:
            note = f"CPython raised {type(exc).__name__}: {exc}"
    return Row("run", what, per_call(fn, a, budget), base, base_what, note)


def import_source(source: Path) -> ModuleType:
    """Import ``source`` as a plain Python module (its body runs)."""
    spec = importlib.util.spec_from_file_location(source.stem, source)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {source}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(source.parent.resolve()))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


# ---------------------------------------------------------------------------- report


def format_seconds(s: float | None) -> str:
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def print_report(rows: Sequence[Row], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    table.add_column("measurement")
    table.add_column("gradc", justify="right")
    table.add_column("CPython baseline", justify="right")
    table.add_column("baseline is")
    table.add_column("gradc ÷ CPython", justify="right")
    table.add_column("note")
    for r in rows:
        ratio = r.ratio
        text = "—" if ratio is None else f"{ratio:.3g}×"
        style = "" if ratio is None else ("green" if ratio < 1 else "red")
        table.add_row(
            r.what,
            format_seconds(r.gradc),
            format_seconds(r.baseline),
            r.baseline_what,
            f"[{style}]{text}[/{style}]" if style else text,
            r.note,
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(table)


# ---------------------------------------------------------------------------- command


@click.command("bench")
@click.argument("target", type=click.Path(exists=True, path_type=Path), metavar="TARGET")
@click.option(
    "--source",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The module an ARTIFACT was built from (for the CPython baselines).",
)
@click.option("-e", "--export", "exports", multiple=True, help="Export(s) to run [default: all].")
@click.option("--call", "call_export", help="Scalar export for the call-overhead rows.")
@click.option(
    "-a", "--args", "arg_specs", multiple=True, metavar="NAME=EXPR", help="Arguments of an export."
)
@click.option("--dim", default=64, show_default=True, help="Default array size per axis.")
@click.option("--repeat", default=3, show_default=True, help="Fresh processes per figure.")
@click.option(
    "--budget", default=0.1, show_default=True, help="Seconds per timeit loop (in process)."
)
@click.option("--no-compile", is_flag=True, help="Skip the compile row (reuse -o's artifact).")
@click.option("--no-python", is_flag=True, help="Do not import the module (no baselines).")
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to build a MODULE.py [default: a temporary directory].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def bench(
    target: Path,
    source: Path | None,
    exports: tuple[str, ...],
    call_export: str | None,
    arg_specs: tuple[str, ...],
    dim: int,
    repeat: int,
    budget: float,
    no_compile: bool,
    no_python: bool,
    output: Path | None,
    as_json: bool,
) -> None:
    """Time compiling, loading and calling TARGET (MODULE.py or an ARTIFACT) against CPython.

    Runs child processes for the cold figures (compile, load) and imports the module as
    plain Python for the baselines (its body runs) unless --no-python.
    """
    args = parse_args_option(arg_specs)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="gradc-bench-") as tmp:
        if target.is_dir():
            artifact = target
        else:
            source = target
            artifact = output or Path(tmp) / f"{target.stem}.gradc"
            if no_compile and output is None:
                raise click.UsageError("--no-compile needs -o with an artifact built before")
            if not no_compile:
                try:
                    rows.append(measure_compile(target, artifact, repeat))
                except RuntimeError as exc:
                    click.echo(f"gradc bench: building {target} failed: {exc}", err=True)
                    sys.exit(1)
        if no_python:
            source = None
        try:
            manifest = read_manifest(artifact)
            rows.append(measure_load(artifact, source, repeat))
            import gradc

            lib = gradc.load(artifact)
            module = import_source(source) if source is not None else None
            rows.extend(
                measure_calls(lib, manifest, module, exports, args, call_export, dim, budget)
            )
        except (ArtifactError, KeyError, RuntimeError, ImportError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            click.echo(f"gradc bench: error: {message}", err=True)
            sys.exit(1)
    if as_json:
        data = [{**asdict(r), "ratio": r.ratio} for r in rows]
        click.echo(json.dumps(data, indent=2))
    else:
        print_report(rows, f"gradc bench: {manifest.module} ({artifact})")
