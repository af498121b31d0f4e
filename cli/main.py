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

import contextlib
import dataclasses
import json
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Entry, Manifest
from gradc.artifacts.store import (
    find_damage,
    read_manifest,
    read_text,
)
from gradc.compiler.options import DEFAULT_CPU, CompilerOptions
from gradc.runtime_mode import NO_COMPILE_ENV, REMOTE_READONLY_ENV, default_build_dir, env_flag

if TYPE_CHECKING:
    from gradc.artifacts.remote import RemoteCache
    from gradc.compiler.driver import ArtifactBuild
    from gradc.compiler.results import BuildOutput


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    default=DEFAULT_CPU,
    show_default=True,
    help="Target CPU name (x86-64, x86-64-v3, znver4, ...) or 'native'; a comma-separated "
    "list (x86-64-v2,x86-64-v3,native) builds one object per CPU variant, and the loader "
    "picks the best one the host supports. List the most portable first.",
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

    options = dataclasses.replace(options, jobs=jobs or available_cores())
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
    with _progress(module):
        built = _build(module, out_dir, options, grads, remote, texts=not no_texts)
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

    try:
        cpus = parse_cpu_list(cpu)
        for name in cpus:
            check_cpu(name)  # before any work: LLVM would abort on some bad names
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--cpu'") from None
    return CompilerOptions(
        opt_level=opt_level,
        cpu=cpus[0],
        cpus=cpus if len(cpus) > 1 else (),
        fastmath=fastmath,
        boundscheck=not no_boundscheck,
        timings=timings,
        verbose=verbose,
    )


def _progress(module: Path) -> AbstractContextManager[Any]:
    """On a terminal, a spinner on stderr with the elapsed time while ``module`` builds
    (a build of several seconds is not silent); elsewhere (a pipe, a file) nothing."""
    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(f"gradc: building {module} ...")


def _build(
    module: Path,
    out_dir: Path,
    options: CompilerOptions,
    grads: tuple[str, ...],
    remote: RemoteCache | None,
    *,
    texts: bool = True,
) -> ArtifactBuild:
    """``build_artifact`` of ``module`` into ``out_dir`` (with the texts unless
    ``texts=False``), warnings printed.

    A compile error, a refused compile (``GRADC_NO_COMPILE=1``), an unwritable output or
    a bad ``--grad`` is printed and exits with status 1; any other exception is an
    internal compiler error: printed (with the traceback under ``-v``), exit status 70.
    Nothing is written then.
    """
    from gradc.cli.build_errors import exit_for
    from gradc.compiler.driver import build_artifact

    def warn(message: str) -> None:
        click.echo(f"gradc: warning: {message}", err=True)

    try:
        return build_artifact(
            module,
            out_dir,
            options,
            grads,
            allow_compile=not env_flag(NO_COMPILE_ENV),
            remote=remote,
            warn=warn,
            on_damage=warn,
            texts=texts,
        )
    except Exception as exc:
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
    _console(Console).print(table)


@cli.command()
@click.argument(
    "artifact", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="ARTIFACT"
)
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@click.option("--ir", "ir_name", metavar="NAME", help="Print the typed gradc IR of export NAME.")
@click.option("--llvm", "llvm_name", metavar="NAME", help="Print the LLVM IR of export NAME.")
@click.option("--asm", "asm_name", metavar="NAME", help="Print the assembly of export NAME.")
@click.option("--relocations", is_flag=True, help="List each object's symbols and relocations.")
@click.option(
    "--key", "key_name", metavar="NAME", help="List the cache key components of export NAME."
)
def inspect(
    artifact: Path,
    as_json: bool,
    ir_name: str | None,
    llvm_name: str | None,
    asm_name: str | None,
    relocations: bool,
    key_name: str | None,
) -> None:
    """Show what an artifact directory (build/NAME.gradc) contains.

    The listing (table or --json) also checks every blob (sha256): a missing or corrupt
    file is reported on stderr after the listing, naming the file, with exit status 1.
    """
    try:
        manifest = read_manifest(artifact)
        if key_name is not None:
            _print_key(manifest.entry(key_name), as_json)
            return
        if relocations:
            from gradc.cli.relocations import print_relocations

            print_relocations(artifact, manifest)
            return
        texts = [(k, n) for k, n in (("ir", ir_name), ("llvm", llvm_name), ("asm", asm_name)) if n]
        if texts:
            for kind, name in texts:
                entry = manifest.entry(name)
                if kind == "asm" and "asm" not in entry.texts:
                    text = _assembly(artifact, manifest, entry)
                else:  # artifacts of format <= 1.2 store the assembly (texts/<sha>.s)
                    text = read_text(artifact, entry, kind)
                click.echo(text, nl=False)
            return
    except (ArtifactError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        click.echo(f"gradc: error: {message}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(_json_manifest(artifact, manifest), indent=2, sort_keys=True))
    else:
        _print_manifest(artifact, manifest)
    # the listing stays readable for a damaged artifact; the damage is reported after it
    damage = find_damage(artifact)
    for problem in damage:
        click.echo(f"gradc: error: damaged artifact: {problem}", err=True)
    if damage:
        sys.exit(1)


def _assembly(artifact: Path, manifest: Manifest, entry: Entry) -> str:
    """The assembly of ``entry``'s object, generated from its stored optimised LLVM IR.

    Builds store no assembly (format 1.3): code generation is rerun here on the entry's
    ``.ll`` text with the target the object was built for (``target.*`` and
    ``options.opt_level`` of its key components, else the manifest's ``target`` and
    ``-O2``), which gives the code of the stored object.

    Raises:
        KeyError: the artifact stores no LLVM IR for the entry either.
        ArtifactError: the LLVM IR text is missing or corrupt, or LLVM rejects it.
    """
    from gradc.compiler.codegen.emit import assembly_from_llvm

    if "llvm" not in entry.texts:
        raise KeyError(f"the artifact stores no asm or llvm text for {entry.name!r}")
    llvm_text = read_text(artifact, entry, "llvm")
    c = entry.key_components
    target = manifest.target
    opt_level = c.get("options.opt_level", 2)
    try:
        return assembly_from_llvm(
            llvm_text,
            str(c.get("target.triple", target.triple)),
            str(c.get("target.cpu", target.cpu)),
            str(c.get("target.features", target.features)),
            opt_level if isinstance(opt_level, int) else 2,
        )
    except RuntimeError as exc:
        raise ArtifactError(
            f"{artifact}: cannot generate the assembly of {entry.name!r} from its LLVM IR "
            f"({entry.texts['llvm']}): {exc}"
        ) from None


def _print_key(entry: Entry, as_json: bool) -> None:
    """The entry's key, then one line per component: name, value, hash; then the
    Merkle hash of every IR function the entry reaches.

    A component's hash is ``sha256_key(value)``; the key is ``sha256_key`` of the map of
    all component values (``gradc.artifacts.keys``), so the listing can be checked.
    """
    from gradc.artifacts.keys import sha256_key

    if as_json:
        data = {
            "name": entry.name,
            "key": entry.key,
            "components": {
                k: {"value": v, "sha256": sha256_key(v)} for k, v in entry.key_components.items()
            },
            "dependencies": dict(entry.dependencies),
        }
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    click.echo(f"{entry.name}  key {entry.key}")
    width = max((len(k) for k in entry.key_components), default=0)
    for k in sorted(entry.key_components):
        value = entry.key_components[k]
        shown = value if isinstance(value, str) and len(value) == 64 else repr(value)
        click.echo(f"  {k:<{width}}  {sha256_key(value)}  {shown}")
    if entry.dependencies:
        click.echo("  dependencies (Merkle hash of each IR function reached):")
        for name in sorted(entry.dependencies):
            click.echo(f"    {name}  {entry.dependencies[name]}")


def _object_size(artifact: Path, relpath: str) -> int | None:
    """Size in bytes of a stored blob, None when it is missing."""
    try:
        return (artifact / relpath).stat().st_size
    except OSError:
        return None


def _json_manifest(artifact: Path, manifest: Manifest) -> dict[str, Any]:
    data = manifest.to_dict()
    for raw, e in zip(data["entries"], manifest.entries, strict=True):
        raw["object_size"] = _object_size(artifact, e.object)
        raw["signature_text"] = f"{e.name}{e.signature}"
    return data


def _print_manifest(artifact: Path, manifest: Manifest) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = _console(Console)
    fv = ".".join(str(v) for v in manifest.format_version)
    p, t = manifest.producer, manifest.target
    console.print(
        f"[bold]{artifact}[/bold]: module [bold]{manifest.module}[/bold], format {fv}, "
        f"gradc {p.gradc}, llvmlite {p.llvmlite}, LLVM {p.llvm}",
        highlight=False,
    )
    console.print(
        f"target {t.triple}, cpu {t.cpu}, features {t.features or '(none)'}", highlight=False
    )
    if manifest.variants:
        console.print(
            f"cpu variants (entries show the first): {', '.join(v.cpu for v in manifest.variants)}",
            highlight=False,
        )
    if manifest.runtime is not None:
        size = _object_size(artifact, manifest.runtime.object)
        console.print(
            f"runtime {manifest.runtime.abi}: {'missing' if size is None else f'{size} bytes'}",
            highlight=False,
        )
    table = Table()
    table.add_column("name", style="bold")
    table.add_column("signature")
    table.add_column("symbol", overflow="fold")
    table.add_column("object (bytes)", justify="right")
    table.add_column("call")
    table.add_column("key")
    for e in manifest.entries:
        size = _object_size(artifact, e.object)
        writes = f"\nwrites {', '.join(e.signature.writes)}" if e.signature.writes else ""
        table.add_row(
            e.name,
            Text(f"{e.signature}{writes}"),  # plain text: "tuple[f64,i64]" is not markup
            e.symbol,
            "missing" if size is None else str(size),
            "fast" if e.wrapper is not None else "ctypes",
            e.key[:12],
        )
    console.print(table)
    dispatched: dict[str, list[str]] = {}
    for e in manifest.entries:
        if e.dispatch:
            dispatched.setdefault(e.dispatch, []).append(e.name)
    for name, names in dispatched.items():
        console.print(
            f"{name}: {len(names)} signature{'s' * (len(names) != 1)}, one call dispatching among "
            f"{', '.join(names)}",
            highlight=False,
        )
    if manifest.cuda is not None:
        from gradc.cli.cuda import print_cuda

        print_cuda(console, artifact, manifest.cuda)


def _console(console_class: Any) -> Any:
    """A rich console; not squeezed to 80 columns when the output is not a terminal."""
    console = console_class()
    if not console.is_terminal:
        console = console_class(width=200)
    return console


def _register_commands() -> None:
    from gradc.cli.bench import bench
    from gradc.cli.cache import cache_command
    from gradc.cli.distributed import build_all_command
    from gradc.cli.opt import opt

    cli.add_command(bench)
    cli.add_command(cache_command)
    cli.add_command(build_all_command)
    cli.add_command(opt)


_register_commands()


def main() -> None:
    """Entry point of the ``gradc`` console script and ``python -m gradc``."""
    cli(prog_name="gradc")


if __name__ == "__main__":
    main()
