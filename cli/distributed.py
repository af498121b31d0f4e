"""``gradc build-all DIR_OR_MODULES... --executor SPEC``: many modules, built on a Dask cluster.

Each module is one task: a worker runs the whole pipeline for it (front end and emission,
``gradc.compiler.driver.build_module``) and returns the ``BuildOutput``; this process
writes every artifact (``gradc.artifacts.store.write_artifact``), so the artifacts are
byte-identical to sequential builds of the same modules with the same options. Before
compiling, a worker compares its toolchain (gradc, llvmlite and LLVM versions, runtime
ABI) with this process's and refuses the task when they differ: objects compiled by
another toolchain would carry keys that do not describe them.

``--executor local:N`` starts a ``distributed.LocalCluster`` of N single-threaded worker
processes; ``--executor tcp://host:8786`` uses a running scheduler; ``--executor
sequential`` builds in this process (the baseline). Needs ``gradc[dask]`` except for
``sequential``. With ``--remote-cache URL`` (or ``GRADC_REMOTE_CACHE``) each worker
downloads what the shared cache has and publishes what it compiled
(``gradc.artifacts.remote``); its warnings are printed by the client. Not done yet
(issue 15): fanning out emission per (function, CPU variant) inside one module, which
pays for few large modules.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from gradc.artifacts.remote import RemoteOptions
from gradc.compiler.options import DEFAULT_CPU, CompilerOptions
from gradc.runtime_mode import REMOTE_READONLY_ENV, env_flag


class ToolchainMismatchError(RuntimeError):
    """A worker's toolchain differs from the client's: it refuses to compile."""


@dataclass(frozen=True)
class ModuleTask:
    """One module to build: its source, where its artifact goes, the build's options,
    the toolchain the client expects the worker to have, and the remote cache to use."""

    source: Path
    output: Path
    options: CompilerOptions
    toolchain: Mapping[str, str]
    remote: RemoteOptions | None = None


@dataclass(frozen=True)
class ModuleResult:
    """What a worker returns: the module's ``BuildOutput``, the remote cache's warnings,
    and how many objects it downloaded."""

    build: Any
    warnings: tuple[str, ...] = ()
    downloaded: int = 0


def toolchain() -> dict[str, str]:
    """This process's toolchain identity: gradc, llvmlite, LLVM and runtime ABI versions."""
    from gradc.artifacts.abi import RUNTIME_ABI
    from gradc.artifacts.remote import host_toolchain

    return {**host_toolchain(), "runtime": RUNTIME_ABI}


def run_task(task: ModuleTask) -> ModuleResult:
    """Build one module (on a worker), through ``task.remote`` when given.

    Raises:
        ToolchainMismatchError: this worker's toolchain is not the client's.
        CompileError: the module does not compile.
    """
    from gradc.compiler.driver import build_module

    mine = toolchain()
    if mine != dict(task.toolchain):
        raise ToolchainMismatchError(
            f"worker toolchain {mine} differs from the client's {dict(task.toolchain)}: "
            f"refusing to compile {task.source}"
        )
    if task.remote is None:
        return ModuleResult(build_module(task.source, task.options))
    from gradc.artifacts.remote import RemoteCache, host_toolchain

    problems: list[str] = []
    remote = RemoteCache(task.remote, host_toolchain(), warn=problems.append)
    result = build_module(task.source, task.options, cache=remote.layered({}))
    remote.publish_build(result)
    return ModuleResult(result, tuple(problems), len(remote.stats.hits))


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


def build_all(
    tasks: Sequence[ModuleTask], executor: str
) -> tuple[list[ModuleResult], dict[str, float]]:
    """Run ``tasks`` on ``executor``; their results in order, and timings
    (``start``: cluster start-up and connection, ``build``: the tasks, in seconds).

    Raises:
        click.BadParameter: an unknown executor spec, or dask is not installed.
        Exception: the first task's error (a compile error, a toolchain mismatch).
    """
    times: dict[str, float] = {}
    start = time.perf_counter()
    if executor == "sequential":
        times["start"] = 0.0
        results = [run_task(t) for t in tasks]
        times["build"] = time.perf_counter() - start
        return results, times
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise click.BadParameter(
            f"needs dask.distributed: pip install 'gradc[dask]' ({exc})", param_hint="'--executor'"
        ) from None
    cluster = None
    if executor.startswith("local:"):
        try:
            n = int(executor.removeprefix("local:"))
        except ValueError:
            n = 0
        if n < 1:
            raise click.BadParameter(
                f"{executor!r}: local:N needs N >= 1", param_hint="'--executor'"
            )
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    elif "://" in executor:
        client = Client(executor)
    else:
        raise click.BadParameter(
            f"{executor!r}: use local:N, tcp://HOST:PORT or sequential", param_hint="'--executor'"
        )
    try:
        times["start"] = time.perf_counter() - start
        begin = time.perf_counter()
        futures = client.map(run_task, tasks, pure=False)
        results = client.gather(futures)
        times["build"] = time.perf_counter() - begin
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return list(results), times


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
def build_all_command(
    paths: tuple[Path, ...],
    output: Path,
    executor: str,
    opt_level: int,
    cpu: str,
    timings: bool,
    remote_cache: str | None,
    remote_cache_readonly: bool,
) -> None:
    """Build every module of DIR_OR_MODULES (a folder: its .py files that mention gradc),
    one task per module, on EXECUTOR; write one artifact per module."""
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.diagnostics import CompileError

    options = CompilerOptions(opt_level=opt_level, cpu=cpu)
    try:
        remote = RemoteOptions(remote_cache, remote_cache_readonly) if remote_cache else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--remote-cache'") from None
    mine = toolchain()
    modules = find_modules(paths)
    tasks = [
        ModuleTask(src, output / rel.parent / f"{rel.stem}.gradc", options, mine, remote)
        for src, rel in modules
    ]
    try:
        results, times = build_all(tasks, executor)
    except CompileError as exc:
        click.echo(exc.render(), err=True)
        raise SystemExit(1) from None
    except ToolchainMismatchError as exc:
        click.echo(f"gradc: error: {exc}", err=True)
        raise SystemExit(1) from None
    begin = time.perf_counter()
    shown: set[str] = set()
    for task, result in zip(tasks, results, strict=True):
        write_artifact(task.output, result.build)
        for message in result.warnings:
            if message not in shown:  # each worker says "unreachable" once
                shown.add(message)
                click.echo(f"gradc: warning: {task.source.name}: {message}", err=True)
    times["write"] = time.perf_counter() - begin
    downloaded = sum(r.downloaded for r in results)
    click.echo(
        f"wrote {len(tasks)} artifacts under {output} ({executor})"
        + (f", {downloaded} objects downloaded" if remote is not None else "")
    )
    if timings:
        for phase, seconds in times.items():
            click.echo(f"  {phase:<6} {seconds * 1e3:9.1f} ms")
