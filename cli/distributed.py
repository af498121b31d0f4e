"""``gradc build DIR_OR_MODULES... [--executor SPEC]``: many modules, optionally fanned
out over a Dask cluster.

Without ``--executor`` each module is built here, one after the other, exactly as
``gradc build MODULE.py`` builds it (``driver.build_artifact``: a previous artifact's
intact entries are reused). With ``--executor`` the build is split into tasks
(``gradc.compiler.fanout``): the front end of each module (parse ... keys) is one task;
as soon as a module's front end is done, each of its (export, CPU variant), each kernel
(its PTX and cubins) and its runtime object is one more task, shipped as canonical IR
text; this process gathers the objects into one artifact per module and writes it, byte
for byte the artifact of the local build (tests/distributed/). Every task's worker first
checks that its toolchain (gradc, llvmlite, LLVM, runtime ABI; ptxas for
``--target cuda``) is this process's and the one the keys name, and refuses otherwise.

``local:N`` starts a ``distributed.LocalCluster`` of N single-threaded worker processes;
``tcp://host:8786`` uses a running scheduler, whose workers must read the modules at the
paths given here (a shared file system or the same checkout) and have gradc installed.
With ``--remote-cache`` the front-end tasks look keys up in the shared cache (their
warnings are printed here) and this process publishes what the workers compiled. Needs
``gradc[dask]``.

In both modes every module that compiles is built and written; each module that does not
is reported exactly as ``gradc build MODULE.py`` reports it, and the exit status is then
1 (70 for an internal compiler error). A worker returns an expected error (a compile
error ...) as a :class:`Failed` value instead of raising it, so that Dask logs no
"Compute Failed" traceback for it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from gradc.artifacts.remote import RemoteOptions
from gradc.compiler.fanout import EmitTask, Emitted, ModulePlan
from gradc.compiler.options import DEFAULT_CPU, CompilerOptions
from gradc.compiler.results import BuildOutput
from gradc.runtime_mode import REMOTE_READONLY_ENV, env_flag

#: Held while a task runs in the client's working directory (:func:`in_client_cwd`).
_CWD_LOCK = threading.Lock()


@contextlib.contextmanager
def in_client_cwd(cwd: str) -> Iterator[None]:
    """Run the body in ``cwd``, the client's working directory, so that the paths the
    user gave (relative ones too) name the same files and diagnostics read as a local
    build's; one body at a time per worker process (the working directory is the
    process's).

    Raises:
        FileNotFoundError: this worker does not see ``cwd`` (the modules must be at the
            same paths on every worker: a shared file system or the same checkout).
    """
    with _CWD_LOCK:
        before = os.getcwd()
        if not os.path.isdir(cwd):
            raise FileNotFoundError(
                f"this worker does not see the client's working directory {cwd}: the modules "
                "must be at the same paths on every worker (a shared file system)"
            )
        os.chdir(cwd)
        try:
            yield
        finally:
            os.chdir(before)


@dataclass(frozen=True)
class FrontTask:
    """One module's front end, as a worker runs it (:func:`front_end`), in ``cwd``."""

    source: Path
    options: CompilerOptions
    grads: tuple[str, ...]
    toolchain: Mapping[str, str]
    remote: RemoteOptions | None = None
    cwd: str = ""


@dataclass(frozen=True)
class Failed:
    """A task's expected error (``build_errors.expected_errors``: a compile error ...),
    returned by the worker rather than raised; the client reports it."""

    error: Exception


def emit(task: EmitTask, cwd: str) -> Emitted | Failed:
    """``fanout.emit_task(task)`` in the client's working directory ``cwd`` (on a worker:
    an internal error reads its source line there, as a local build does); an expected
    error as :class:`Failed`."""
    from gradc.cli.build_errors import expected_errors
    from gradc.compiler.fanout import emit_task

    try:
        with in_client_cwd(cwd):
            return emit_task(task)
    except expected_errors() as exc:
        return Failed(exc)


@dataclass(frozen=True)
class FrontResult:
    """A front-end task's plan, the remote cache's warnings and how many entries it
    downloaded."""

    plan: ModulePlan
    warnings: tuple[str, ...] = ()
    downloaded: int = 0


def front_end(task: FrontTask) -> FrontResult | Failed:
    """Run one module's front end (on a worker), looking keys up in ``task.remote``.

    Returns :class:`Failed` for an expected error: this worker's toolchain is not the
    client's (``ToolchainMismatchError``), a ``CompileError``, ``GradRequestError`` ...

    Raises:
        OSError ...: as ``driver.build_module``.
    """
    from gradc.artifacts.remote import RemoteCache, host_toolchain
    from gradc.cli.build_errors import expected_errors
    from gradc.compiler.fanout import plan_module

    problems: list[str] = []
    remote = None
    if task.remote is not None:
        remote = RemoteCache(task.remote, host_toolchain(), warn=problems.append)
    try:
        with in_client_cwd(task.cwd):
            plan = plan_module(
                task.source,
                task.options,
                task.toolchain,
                grads=task.grads,
                cache=remote.layered({}) if remote is not None else None,
            )
    except expected_errors() as exc:
        return Failed(exc)
    return FrontResult(plan, tuple(problems), len(remote.stats.hits) if remote else 0)


def find_modules(paths: Iterable[Path]) -> list[tuple[Path, Path]]:
    """(module, its path relative to the folder given) for each module: a file as it is,
    a folder's ``*.py`` files that mention ``gradc`` (recursively, sorted)."""
    out: list[tuple[Path, Path]] = []
    for p in paths:
        if p.is_dir():
            for f in sorted(p.rglob("*.py")):
                if "gradc" in f.read_text(encoding="utf-8", errors="replace"):
                    out.append((f, f.relative_to(p)))
        else:
            out.append((p, Path(p.name)))
    return out


def output_dirs(paths: Sequence[Path], output: Path | None) -> list[tuple[Path, Path]]:
    """(module, its artifact directory) for every module of ``paths``: with one module
    file, ``output`` is its artifact (as for ``gradc build MODULE.py``); otherwise
    ``output/<relative path>/<stem>.gradc``; without ``output``, ``build/<stem>.gradc``
    beside each module."""
    from gradc.cli.main import default_output_dir

    modules = find_modules(paths)
    if output is not None and len(paths) == 1 and not paths[0].is_dir():
        return [(modules[0][0], output)]
    if output is None:
        return [(src, default_output_dir(src)) for src, _ in modules]
    return [(src, output / rel.parent / f"{rel.stem}.gradc") for src, rel in modules]


def connect(executor: str) -> tuple[Any, Any]:
    """A ``distributed.Client`` for ``executor`` and the ``LocalCluster`` it started
    (None for a scheduler address).

    Raises:
        click.BadParameter: an unknown spec, or dask.distributed is not installed.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise click.BadParameter(
            f"needs dask.distributed: pip install 'gradc[dask]' ({exc})", param_hint="'--executor'"
        ) from None
    if executor.startswith("local:"):
        n = int(executor[6:]) if executor[6:].isdigit() else 0
        if n < 1:
            raise click.BadParameter(
                f"{executor!r}: local:N needs N >= 1", param_hint="'--executor'"
            )
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
        )
        return Client(cluster), cluster
    if "://" in executor:
        return Client(executor), None
    raise click.BadParameter(
        f"{executor!r}: use local:N or tcp://HOST:PORT", param_hint="'--executor'"
    )


def run_fanned_out(
    client: Any, tasks: Sequence[FrontTask]
) -> tuple[list[tuple[BuildOutput, FrontResult] | Exception], dict[str, float]]:
    """Build ``tasks`` on ``client``'s cluster: each module's front end, and its emit
    tasks as soon as that front end is done.

    Returns:
        per module, in order: (its ``BuildOutput``, its :class:`FrontResult`), or the
        error that stopped it (its first, in task order: a compile error, a toolchain
        mismatch ... exactly as raised on the worker); timings in seconds: ``front end``
        until the last plan arrived, ``emit`` until the last object arrived.
    """
    from distributed import as_completed

    begin = time.perf_counter()
    fronts = client.map(front_end, list(tasks), pure=False)
    index = {f.key: i for i, f in enumerate(fronts)}
    results: list[FrontResult | Failed | None] = [None] * len(tasks)
    emits: list[list[Any]] = [[] for _ in tasks]
    for done in as_completed(fronts):
        if done.status != "finished":
            continue  # its exception is collected below
        i = index[done.key]
        result = results[i] = done.result()
        if isinstance(result, FrontResult):
            plan_tasks = list(result.plan.tasks)
            cwds = [tasks[i].cwd] * len(plan_tasks)
            emits[i] = client.map(emit, plan_tasks, cwds, pure=False)
    times = {"front end": time.perf_counter() - begin}
    builds = [_gather(f, results[i], emits[i]) for i, f in enumerate(fronts)]
    times["emit"] = time.perf_counter() - begin
    return builds, times


def _gather(
    front: Any, result: FrontResult | Failed | None, emits: Sequence[Any]
) -> tuple[BuildOutput, FrontResult] | Exception:
    """One module's build from its front-end future, that future's result (None when it
    raised) and its emit futures; or the module's first error."""
    from gradc.compiler.fanout import assemble

    if isinstance(result, Failed):
        return result.error
    if result is None:
        error = front.exception()
        return error if isinstance(error, Exception) else RuntimeError(str(error))
    emitted: list[Emitted] = []
    for future in emits:
        try:
            value = future.result()
        except Exception as exc:  # an unexpected error of the worker: reported as such
            return exc
        if isinstance(value, Failed):
            return value.error
        emitted.append(value)
    return assemble(result.plan, emitted), result


def build_fanned_out(
    modules: Sequence[tuple[Path, Path]],
    options: CompilerOptions,
    grads: tuple[str, ...],
    executor: str,
    remote: RemoteOptions | None,
    *,
    texts: bool = True,
    timings: bool = False,
) -> None:
    """``gradc build ... --executor``: build ``modules`` (source, artifact directory) on
    ``executor``, write the artifacts here, publish what was compiled, print a summary.

    Each module that failed (a compile error, any error of its tasks) is printed as
    ``gradc build`` prints it, in module order, after the others are written; the exit
    status is then the worst (1, or 70 for an internal compiler error).
    """
    from gradc.cli.build_errors import exit_for, report
    from gradc.compiler.fanout import toolchain_identity

    start = time.perf_counter()
    toolchain = toolchain_identity(bool(options.cuda_archs), options.cuda_home)
    cwd = os.getcwd()
    tasks = [FrontTask(src, options, grads, toolchain, remote, cwd) for src, _ in modules]
    client, cluster = connect(executor)
    times = {"start": time.perf_counter() - start}
    try:
        outcomes, phases = run_fanned_out(client, tasks)
    except Exception as exc:  # the cluster itself failed
        exit_for(exc, modules[0][0] if len(modules) == 1 else Path("the modules"), options.verbose)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    times.update(phases)
    begin = time.perf_counter()
    good = [(m, o) for m, o in zip(modules, outcomes, strict=True) if not isinstance(o, Exception)]
    built = [o for _, o in good if not isinstance(o, Exception)]
    _write_and_publish([m for m, _ in good], built, remote, texts)
    times["write"] = time.perf_counter() - begin
    status = 0
    for (src, _), outcome in zip(modules, outcomes, strict=True):
        if isinstance(outcome, Exception):
            status = max(status, report(outcome, src, options.verbose))
    if built:
        compiled = sum(len(r.plan.tasks) for _, r in built)
        downloaded = sum(r.downloaded for _, r in built)
        click.echo(
            f"wrote {len(built)} artifact{'s' * (len(built) != 1)} ({executor}): "
            f"{compiled} objects compiled"
            + (f", {downloaded} downloaded" if remote is not None else "")
            + f", in {time.perf_counter() - start:.2f} s"
        )
    if timings:
        for phase, seconds in times.items():
            click.echo(f"  {phase:<10} {seconds * 1e3:9.1f} ms")
    if status:
        sys.exit(status)


def _write_and_publish(
    modules: Sequence[tuple[Path, Path]],
    built: Sequence[tuple[BuildOutput, FrontResult]],
    remote: RemoteOptions | None,
    texts: bool,
) -> None:
    """Write each artifact; print each remote warning once; publish the compiled keys."""
    from gradc.artifacts.store import write_artifact
    from gradc.artifacts.stubs import write_stub

    shown: set[str] = set()
    cache = None
    if remote is not None and not remote.readonly:
        from gradc.cli.remote import open_remote

        cache = open_remote(remote.url, remote.readonly)
    for (src, out), (build, result) in zip(modules, built, strict=True):
        write_stub(out, write_artifact(out, build, texts=texts))
        for message in result.warnings:
            if message not in shown:  # each worker says "unreachable" once
                shown.add(message)
                click.echo(f"gradc: warning: {src.name}: {message}", err=True)
        if cache is not None:
            from gradc.artifacts.remote import build_entries

            compiled = {t.key for t in result.plan.tasks if t.kind in ("cpu", "runtime")}
            for key, entry in build_entries(build).items():
                if key in compiled:
                    cache.publish(key, entry)


def build_many(
    paths: Sequence[Path],
    output: Path | None,
    executor: str | None,
    options: CompilerOptions,
    grads: tuple[str, ...],
    remote_url: str | None,
    readonly: bool,
    *,
    texts: bool = True,
    timings: bool = False,
    explain: bool = False,
) -> None:
    """``gradc build PATHS...`` with several modules, a folder or an ``--executor``
    (:func:`output_dirs` says where each artifact goes).

    Raises:
        click.UsageError: ``--explain`` (it explains one local build), or no module found.
        click.BadParameter: a bad ``--remote-cache`` URL or ``--executor`` spec.
    """
    from gradc.cli.build_errors import exit_for
    from gradc.compiler.driver import CompileForbiddenError
    from gradc.runtime_mode import NO_COMPILE_ENV

    if explain:
        raise click.UsageError("--explain explains the build of one module, without --executor")
    modules = output_dirs(paths, output)
    if not modules:
        raise click.UsageError(f"no module mentioning gradc in {', '.join(map(str, paths))}")
    if executor is None:
        build_sequential(
            modules, options, grads, remote_url, readonly, texts=texts, timings=timings
        )
        return
    if env_flag(NO_COMPILE_ENV):
        exit_for(
            CompileForbiddenError(
                f"compiling {modules[0][0]} is forbidden (GRADC_NO_COMPILE=1): unset "
                "GRADC_NO_COMPILE to build on a cluster"
            ),
            modules[0][0],
            options.verbose,
        )
    try:
        remote = RemoteOptions(remote_url, readonly) if remote_url else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--remote-cache'") from None
    build_fanned_out(modules, options, grads, executor, remote, texts=texts, timings=timings)


def build_sequential(
    modules: Sequence[tuple[Path, Path]],
    options: CompilerOptions,
    grads: tuple[str, ...],
    remote_url: str | None,
    readonly: bool,
    *,
    texts: bool = True,
    timings: bool = False,
) -> None:
    """``gradc build`` of each of ``modules`` (source, artifact directory) in turn, in
    this process, each with ``gradc build``'s summary line (and ``--timings``). A module
    that fails is reported as its own build would be and the others are built; the exit
    status is then the worst (1 for a compile error, 70 for an internal one)."""
    from gradc.artifacts.remote import RemoteStats
    from gradc.cli.build_errors import report
    from gradc.cli.main import _build, _print_summary, _print_timings
    from gradc.cli.remote import open_remote

    remote = open_remote(remote_url, readonly)
    status = 0
    for src, out in modules:
        start = time.perf_counter()
        if remote is not None:  # each summary line counts its module's downloads
            remote.stats = RemoteStats()
        try:
            built = _build(src, out, options, grads, remote, texts=texts, raise_errors=True)
        except Exception as exc:  # reported as a build of this module alone; go on
            status = max(status, report(exc, src, options.verbose))
            continue
        seconds = time.perf_counter() - start
        same = built.previous is not None and built.previous.encode() == built.manifest.encode()
        _print_summary(out, built.manifest, built.output, remote, seconds, options.verbose, same)
        if timings:
            _print_timings(dict(built.timings), seconds)
    if status:
        sys.exit(status)


@click.command("build-all")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("build"),
    show_default=True,
    help="Folder of the artifacts: OUTPUT/<relative path of the module>/<stem>.gradc.",
)
@click.option(
    "--executor",
    default="sequential",
    show_default=True,
    help="local:N (a Dask LocalCluster of N processes), tcp://HOST:PORT (a Dask "
    "scheduler) or sequential (this process).",
)
@click.option("-O", "--opt-level", type=click.IntRange(0, 3), default=2, show_default=True)
@click.option("--cpu", default=DEFAULT_CPU, show_default=True, help="Target CPU (one).")
@click.option("--timings", is_flag=True, help="Print start-up and build times.")
@click.option(
    "--remote-cache",
    metavar="URL",
    envvar="GRADC_REMOTE_CACHE",
    help="Shared cache the workers download from and publish to (as for gradc build).",
)
@click.option(
    "--remote-cache-readonly",
    is_flag=True,
    default=lambda: env_flag(REMOTE_READONLY_ENV),  # the flag rule of runtime mode
    help="The workers look up the remote cache only, never publish. "
    "[env: GRADC_REMOTE_CACHE_READONLY]",
)
@click.pass_context
def build_all_command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    output: Path,
    executor: str,
    opt_level: int,
    cpu: str,
    timings: bool,
    remote_cache: str | None,
    remote_cache_readonly: bool,
) -> None:
    """Alias of ``gradc build DIR_OR_MODULES... -o build --executor EXECUTOR`` (kept for
    scripts written before ``gradc build`` took several modules)."""
    from gradc.cli.main import build

    args = [str(p) for p in paths] + ["-o", str(output), "-O", str(opt_level), "--cpu", cpu]
    if len(paths) == 1 and not paths[0].is_dir():  # gradc build's -o names this artifact
        args[args.index("-o") + 1] = str(output / f"{paths[0].stem}.gradc")
    if executor != "sequential":
        args += ["--executor", executor]
    if timings:
        args.append("--timings")
    if remote_cache:
        args += ["--remote-cache", remote_cache]
    if remote_cache_readonly:
        args.append("--remote-cache-readonly")
    ctx.invoke(build, **build.make_context("build", args, parent=ctx.parent).params)
