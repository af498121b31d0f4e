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
the parameter's dtype. A row whose call fails says why in one line: for gradc and for the
plain Python baseline alike (``gradc raised ...``, ``CPython raised ...``), and the other
rows are still measured.

Exit status: 0 when at least one figure was measured, even if some rows failed (their
notes say why); 1 when nothing could be measured (every row failed), or on an error
before measuring (a failed build, an unreadable artifact, a bad option).

Nothing is written outside a temporary directory, except the files asked for (``-o``,
``--plot``): children run with ``PYTHONDONTWRITEBYTECODE=1`` and ``GRADC_CACHE_DIR`` in the
temporary directory, and the module is imported without writing bytecode.

The command is this module; its parts are modules of one job each: ``bench_stats`` (the
report row, timing statistics), ``bench_args`` (arguments and result comparison),
``bench_baselines`` (the module as plain Python, Numba and JAX), ``bench_measure`` (the
compile, warm-start, call and run rows), ``bench_report`` (table and chart).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import click

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Entry, Manifest
from gradc.artifacts.store import read_manifest
from gradc.cli.bench_args import (
    arguments_for,
    check_names,
    module_defaults,
    parse_args_option,
    parse_shapes,
)
from gradc.cli.bench_baselines import PEERS, import_plain, load_peers
from gradc.cli.bench_measure import call_entry, measure_calls, measure_compile, measure_warm
from gradc.cli.bench_report import plot, print_report
from gradc.cli.bench_stats import Row


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

    Exit status 0 when anything was measured (a failed row says why in its note), 1 when
    nothing was or on an error.
    """
    settings = _Settings(
        exports,
        call_export,
        parse_shapes(shape_specs),
        parse_args_option(arg_specs),
        dim,
        repeat,
        budget,
    )
    if plot_path is not None and importlib.util.find_spec("matplotlib") is None:
        raise click.ClickException("--plot needs matplotlib: pip install 'gradc[plot]'")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="gradc-bench-") as tmp_name:
        tmp = Path(tmp_name)
        built_here = False
        if target.is_dir():
            artifact = target
        else:
            source = target
            artifact, compile_row = _artifact_of(target, tmp, no_compile, output, settings)
            if compile_row is not None:
                rows.append(compile_row)
                built_here = True
        if no_python:
            source = None
        try:
            manifest, measured, peer_notes = _measure_artifact(artifact, source, tmp, settings)
        except (ArtifactError, KeyError, RuntimeError, ImportError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            click.echo(f"gradc bench: error: {message}", err=True)
            sys.exit(1)
        rows.extend(measured)
        title = f"gradc bench: {manifest.module}"
        if plot_path is not None:
            _plot_with_config_in(tmp, rows, plot_path, f"{title}: time per call (log scale)")
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
    if not any(_measured(r) for r in rows):
        click.echo("gradc bench: nothing was measured: every row failed (see its note)", err=True)
        sys.exit(1)


def _measured(row: Row) -> bool:
    """Whether ``row`` holds a figure (gradc, the baseline or a peer)."""
    return row.gradc is not None or row.baseline is not None or any(row.peers.values())


@dataclass(frozen=True)
class _Settings:
    """The options of ``gradc bench`` that the measurements read."""

    exports: tuple[str, ...]
    call_export: str | None
    shapes: dict[str, tuple[int, ...]]
    values: dict[str, Any]
    dim: int
    repeat: int
    budget: float


def _artifact_of(
    target: Path, tmp: Path, no_compile: bool, output: Path | None, settings: _Settings
) -> tuple[Path, Row | None]:
    """The artifact of module ``target`` and the compile row: built cold under ``tmp``
    (copied to ``output`` when given), or with ``no_compile`` the one already in
    ``output`` (no row).

    Raises:
        click.UsageError: ``no_compile`` without ``output``.
        SystemExit: the build failed (the error is printed).
    """
    if no_compile:
        if output is None:
            raise click.UsageError("--no-compile needs -o with an artifact built before")
        return output, None
    try:
        row, artifact = measure_compile(target, tmp, settings.repeat, settings.budget)
    except RuntimeError as exc:
        click.echo(f"gradc bench: building {target} failed: {exc}", err=True)
        sys.exit(1)
    if output is not None:
        shutil.copytree(artifact, output, dirs_exist_ok=True)
    return artifact, row


def _measure_artifact(
    artifact: Path, source: Path | None, tmp: Path, settings: _Settings
) -> tuple[Manifest, list[Row], dict[str, str]]:
    """The warm-start, call and run rows of ``artifact`` (baselines from ``source``, when
    given), and a note for each peer that was skipped.

    Shapes and values the module declares in ``__gradc_bench__`` are overridden by the
    command line's.

    Raises:
        ArtifactError, KeyError, RuntimeError, ImportError: reading or loading the
            artifact, importing the module, or an unknown export (``bench`` reports them).
        click.ClickException, click.BadParameter: a bad ``__gradc_bench__`` or an unknown
            ``--shape``/``--args`` name.
    """
    manifest = read_manifest(artifact)
    module = import_plain(source) if source is not None else None
    declared_shapes, declared_values = module_defaults(module)
    shapes = {**declared_shapes, **settings.shapes}
    values = {**declared_values, **settings.values}
    check_names(manifest, shapes, values)

    def arguments(e: Entry) -> tuple[Any, ...]:
        return arguments_for(e, shapes, values, settings.dim)

    rows: list[Row] = []
    first = call_entry(manifest, settings.call_export) or manifest.entries[0]
    try:
        warm_args = arguments(first)
    except ValueError as exc:
        rows.append(Row("warm", "warm start", None, None, "", str(exc)))
    else:
        rows.append(
            measure_warm(
                artifact,
                source,
                first.name,
                warm_args,
                tmp,
                settings.repeat,
                plain_name=first.dispatch or first.name,  # f.f64: the function f
            )
        )
    import gradc

    lib = gradc.load(artifact)
    jits: dict[str, Callable[[Any], Any]] = {}
    peer_notes: dict[str, str] = {}
    if module is not None:
        jits, peer_notes = load_peers()
    rows.extend(
        measure_calls(
            lib,
            manifest,
            module,
            settings.exports,
            arguments,
            settings.call_export,
            settings.budget,
            jits,
        )
    )
    return manifest, rows, peer_notes


def _plot_with_config_in(tmp: Path, rows: list[Row], path: Path, title: str) -> None:
    """:func:`plot`, with matplotlib's font cache in ``tmp`` unless MPLCONFIGDIR is set."""
    # matplotlib's font cache goes to the temporary directory, not to HOME
    saved = os.environ.get("MPLCONFIGDIR")
    os.environ.setdefault("MPLCONFIGDIR", str(tmp / "matplotlib"))
    try:
        plot(rows, path, title)
    finally:
        if saved is None:
            os.environ.pop("MPLCONFIGDIR", None)
