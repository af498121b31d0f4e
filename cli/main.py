"""The ``gradc`` command line: the only code that reads ``sys.argv`` (DESIGN.md §1).

::

    gradc build MODULE.py [-o DIR] [-O 0..3] [--cpu NAME[,NAME...]] [--fastmath] [--no-boundscheck]
                          [--no-texts]
                          [--grad F[:X,Y]] [--timings] [--explain] [-v]
    gradc inspect ARTIFACT [--json] [--ir NAME] [--llvm NAME] [--asm NAME] [--key NAME]
    gradc bench MODULE.py | ARTIFACT [--source MODULE.py] [-e NAME] [--shape NAME=AxB ...]
                          [-a NAME=LITERAL] [--json] [--plot FILE.png]
    gradc cache info | list | clear [PATTERN...]

Options are read here, once, into a frozen ``CompilerOptions`` that is passed down; so
is the environment: ``GRADC_NO_COMPILE=1`` makes ``build`` refuse to compile.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gradc.artifacts.manifest import Manifest
from gradc.cli.build_options import tape_budget_option
from gradc.cli.console import wide_console
from gradc.compiler.gc_pause import paused_gc
from gradc.compiler.options import DEFAULT_CPUS, CompilerOptions
from gradc.runtime_mode import NO_COMPILE_ENV, REMOTE_READONLY_ENV, default_build_dir, env_flag

if TYPE_CHECKING:
    from gradc.artifacts.remote import RemoteCache
    from gradc.compiler.driver import ArtifactBuild
    from gradc.compiler.results import BuildOutput


#: ``--cpu``'s default: :data:`DEFAULT_CPUS`, the vector variants only for array code.
AUTO_CPU = "auto"


def default_output_dir(source: Path) -> Path:
    """Where ``gradc build`` writes without ``-o``: ``build/<stem>.gradc`` in the module's
    folder (``gradc.runtime_mode.default_build_dir``, where runtime mode looks too)."""
    return default_build_dir(source)


def parse_cpu_list(text: str) -> tuple[str, ...]:
    """``--cpu`` as a tuple of CPU names: ``"x86-64-v2, x86-64-v3,native"`` ->
    ``("x86-64-v2", "x86-64-v3", "native")``, in order, duplicates dropped.

    Raises:
        ValueError: an empty name (``"a,,b"``, ``""``) or a name with characters LLVM CPU
            names never have.
    """
    names = [n.strip() for n in text.split(",")]
    for n in names:
        if not n:
            raise ValueError(f"empty CPU name in {text!r}")
        if not all(c.isalnum() or c in "-_." for c in n):
            raise ValueError(f"{n!r} is not a CPU name")
    return tuple(dict.fromkeys(names))


#: The other commands, imported only when one runs (or ``--help`` lists them): ``gradc
#: build`` does not pay for their imports (the bench harness, Dask fan-out, the pass
#: driver ...). Name -> (module, attribute).
LAZY_COMMANDS = {
    "bench": ("gradc.cli.bench", "bench"),
    "build-all": ("gradc.cli.distributed", "build_all_command"),
    "cache": ("gradc.cli.cache", "cache_command"),
    "inspect": ("gradc.cli.inspect_command", "inspect"),
    "opt": ("gradc.cli.opt", "opt"),
}


class _LazyGroup(click.Group):
    """A group whose :data:`LAZY_COMMANDS` are imported when first looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            import importlib

            module, attribute = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gradc", prog_name="gradc")
def cli() -> None:
    """gradc: ahead-of-time compiler for numeric Python with automatic differentiation."""


@cli.command()
@click.argument(
    "modules", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path),
    metavar="MODULE.py|DIR...",
)  # fmt: skip
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Artifact directory to write [default: build/<MODULE>.gradc beside MODULE.py]; "
    "with several modules or a folder: OUTPUT/<relative path>/<MODULE>.gradc.",
)
@click.option(
    "--executor",
    metavar="local:N|tcp://HOST:PORT",
    help="Build on a Dask cluster (gradc[dask]): each module's front end, then each "
    "export's CPU variants, kernels and runtime, as separate tasks; local:N starts N "
    "worker processes. The artifacts are those of a local build (docs/remote.md).",
)
@click.option(
    "-O",
    "--opt-level",
    type=click.IntRange(0, 3),
    default=2,
    show_default=True,
    help="LLVM optimisation level (-O0 .. -O3).",
)
@click.option(
    "--cpu",
    default=AUTO_CPU,
    show_default=True,
    help="Target CPU name (x86-64, x86-64-v3, znver4, ...) or 'native'; a comma-separated "
    "list (x86-64-v2,x86-64-v3,native) builds one object per CPU variant, and the loader "
    "picks the best one the host supports. List the most portable first. 'auto': x86-64, "
    "plus an x86-64-v3 (AVX2, FMA) variant when the module's code handles arrays.",
)
@click.option("--fastmath", is_flag=True, help="Allow fast-math floating-point rewrites.")
@click.option("--no-boundscheck", is_flag=True, help="Do not check array indices.")
@click.option(
    "--no-texts",
    is_flag=True,
    help="Leave out the IR, LLVM and assembly texts (gradc inspect --ir/--llvm/--asm); "
    "for artifacts that are shipped.",
)
@click.option(
    "--target",
    type=click.Choice(["cpu", "cuda"]),
    default="cpu",
    show_default=True,
    help="cuda: also build every @gradc.kernel to PTX and cubins (no GPU needed; ptxas and "
    "libdevice from CUDA_HOME or PATH).",
)
@click.option(
    "--cuda-arch",
    default="sm_80",
    show_default=True,
    help="With --target cuda: comma-separated archs (sm_80,sm_90); PTX for the lowest.",
)
@click.option(
    "--grad",
    "grads",
    multiple=True,
    metavar="F[:X,Y]",
    help="Also export d_F, the gradient of export F with respect to parameters X, Y "
    "(names or positions; default the first), as d_F = gradc.grad(F, wrt=...) would. "
    "Repeatable.",
)
@tape_budget_option
@click.option("--timings", is_flag=True, help="Print the time of every compiler phase.")
@click.option(
    "--explain", is_flag=True, help="Say per entry whether it was reused (hit) or why not."
)
@click.option("-v", "--verbose", is_flag=True, help="Print each export's signature and symbol.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes for code generation [default: the available cores]; the "
    "artifact is the same for every N.",
)
@click.option(
    "--remote-cache",
    metavar="URL",
    envvar="GRADC_REMOTE_CACHE",
    help="Shared cache (s3://bucket/prefix, any fsspec URL; needs gradc[remote]): download "
    "what another machine compiled, publish what this build compiled (docs/remote.md). "
    "[env: GRADC_REMOTE_CACHE]",
)
@click.option(
    "--remote-cache-readonly",
    is_flag=True,
    default=lambda: env_flag(REMOTE_READONLY_ENV),  # the flag rule of runtime mode
    help="Look up the remote cache only, never publish. [env: GRADC_REMOTE_CACHE_READONLY]",
)
@paused_gc()  # its imports and writes too, not only build_module (compiler/gc_pause.py)
def build(
    modules: tuple[Path, ...],
    output: Path | None,
    executor: str | None,
    opt_level: int,
    cpu: str,
    fastmath: bool,
    no_boundscheck: bool,
    no_texts: bool,
    target: str,
    cuda_arch: str,
    grads: tuple[str, ...],
    tape_budget: int,
    timings: bool,
    explain: bool,
    verbose: bool,
    jobs: int | None,
    remote_cache: str | None,
    remote_cache_readonly: bool,
) -> None:
    """Compile the exports of MODULE.py (or of each module of DIR: its .py files that
    mention gradc) into an artifact directory.

    The module is read, never imported or run. An entry whose cache key matches an
    intact entry of the artifact already there is reused, not recompiled; when nothing
    changed, nothing is written. On a compile error the diagnostic is printed and nothing
    is written (exit status 1). GRADC_NO_COMPILE=1 refuses to compile (exit status 1).
    """
    options = _compiler_options(opt_level, cpu, fastmath, no_boundscheck, timings, verbose)
    from gradc.compiler.emit_pool import available_cores

    options = dataclasses.replace(options, jobs=jobs or available_cores(), tape_budget=tape_budget)
    if target == "cuda":
        from gradc.cli.cuda import cuda_options

        options = cuda_options(options, cuda_arch)
    if executor is not None or len(modules) > 1 or modules[0].is_dir():
        from gradc.cli.distributed import build_many

        build_many(modules, output, executor, options, grads, remote_cache, remote_cache_readonly,
                   texts=not no_texts, timings=timings, explain=explain)  # fmt: skip
        return
    module = modules[0]
    out_dir = output if output is not None else default_output_dir(module)
    start = time.perf_counter()
    remote = None
    if remote_cache:
        from gradc.cli.remote import open_remote

        remote = open_remote(remote_cache, remote_cache_readonly)
    from gradc.cli.build_progress import BuildProgress

    with BuildProgress(module.name) as progress:
        built = _build(
            module, out_dir, options, grads, remote, texts=not no_texts, progress=progress
        )
    end = time.perf_counter()
    if explain:
        from gradc.cli.explain import explain as explain_lines

        hits = remote.stats.hits if remote is not None else {}
        for line in explain_lines(built.previous, built.output.entries, built.output.callees, hits):
            click.echo(line)
    up_to_date = built.previous is not None and built.previous.encode() == built.manifest.encode()
    _print_summary(out_dir, built.manifest, built.output, remote, end - start, verbose, up_to_date)
    if timings:
        phases = dict(built.timings)
        if remote is not None:  # downloads (during the build) and uploads (after it)
            phases["remote"] = remote.stats.seconds
        _print_timings(phases, end - start)


def _compiler_options(
    opt_level: int, cpu: str, fastmath: bool, no_boundscheck: bool, timings: bool, verbose: bool
) -> CompilerOptions:
    """``gradc build``'s options as the frozen object passed down to the compiler.

    Raises:
        click.BadParameter: a ``--cpu`` name LLVM does not know (checked before any work:
            LLVM would abort on some bad names).
    """
    from gradc.compiler.codegen.emit import check_cpu

    auto = cpu == AUTO_CPU
    try:
        cpus = DEFAULT_CPUS if auto else parse_cpu_list(cpu)
        for name in cpus:
            check_cpu(name)  # before any work: LLVM would abort on some bad names
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--cpu'") from None
    return CompilerOptions(
        opt_level=opt_level,
        cpu=cpus[0],
        cpus=cpus if len(cpus) > 1 else (),
        vector_variants_only=auto,
        fastmath=fastmath,
        boundscheck=not no_boundscheck,
        timings=timings,
        verbose=verbose,
    )


def _build(
    module: Path,
    out_dir: Path,
    options: CompilerOptions,
    grads: tuple[str, ...],
    remote: RemoteCache | None,
    *,
    texts: bool = True,
    raise_errors: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ArtifactBuild:
    """``build_artifact`` of ``module`` into ``out_dir`` (with the texts unless
    ``texts=False``), warnings printed. With ``raise_errors`` an error is raised instead
    (the caller reports it: ``build_errors.report``). ``progress`` hears the stages
    (``build_artifact``'s).

    A compile error, a refused compile (``GRADC_NO_COMPILE=1``), an unwritable output or
    a bad ``--grad`` is printed and exits with status 1; any other exception is an
    internal compiler error: printed (with the traceback under ``-v``), exit status 70.
    Nothing is written then.
    """
    from gradc.artifacts.stubs import write_stub
    from gradc.cli.build_errors import exit_for
    from gradc.compiler.driver import build_artifact

    def warn(message: str) -> None:
        click.echo(f"gradc: warning: {message}", err=True)

    try:
        built = build_artifact(
            module,
            out_dir,
            options,
            grads,
            allow_compile=not env_flag(NO_COMPILE_ENV),
            remote=remote,
            warn=warn,
            on_damage=warn,
            texts=texts,
            progress=progress,
        )
        write_stub(out_dir, built.manifest)  # m.pyi: the compiled API, for type checkers
        return built
    except Exception as exc:
        if raise_errors:
            raise
        exit_for(exc, module, options.verbose)


def _print_summary(
    out_dir: Path,
    manifest: Manifest,
    result: BuildOutput,
    remote: RemoteCache | None,
    seconds: float,
    verbose: bool,
    up_to_date: bool = False,
) -> None:
    """``wrote DIR: N exports (names), K reused[, remote figures], in S s`` (``DIR is up
    to date: ...`` when the artifact was already this one: nothing was written); with
    ``verbose`` each export's signature and symbol under it."""
    names = ", ".join(manifest.names()) or "no exports"
    reused = sum(e.reused for e in result.entries)
    remote_text = ""
    if remote is not None:
        from gradc.cli.remote import summary as remote_summary

        remote_text = remote_summary(remote)
    click.echo(
        f"{out_dir} is up to date" if up_to_date else f"wrote {out_dir}",
        nl=False,
    )
    click.echo(
        f": {len(manifest.entries)} export"
        f"{'s' * (len(manifest.entries) != 1)} ({names}), {reused} reused"
        f"{remote_text}, in {seconds:.2f} s"
    )
    if verbose:
        for e in manifest.entries:
            click.echo(f"  {e.name}{e.signature}  [{e.symbol}]")


def _print_timings(phases: dict[str, float], total: float) -> None:
    """A table of phase -> seconds (and share of the total)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="compile phases")
    table.add_column("phase")
    table.add_column("time (ms)", justify="right")
    table.add_column("share", justify="right")
    for phase, seconds in phases.items():
        share = seconds / total if total > 0 else 0.0
        table.add_row(phase, f"{seconds * 1e3:.1f}", f"{share:.0%}")
    other = total - sum(phases.values())
    if other > 0:
        table.add_row("other (imports, setup)", f"{other * 1e3:.1f}", f"{other / total:.0%}")
    table.add_row("total", f"{total * 1e3:.1f}", "100%", style="bold")
    wide_console(Console).print(table)


def main() -> None:
    """Entry point of the ``gradc`` console script and ``python -m gradc``."""
    cli(prog_name="gradc")


if __name__ == "__main__":
    main()
